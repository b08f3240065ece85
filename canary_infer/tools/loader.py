"""The one way every command reads a system: the built-in files or a folder of one's own, each
read the same way and then put through the same check (no line of the files makes only calls
that no hand can make where they stand, :mod:`canary_infer.tools.lint`), so that an unchanged
copy of the built-in files is accepted exactly when the built-in system is.

Which folder that is (``--system``, ``$CANARY_SYSTEM`` or the built-in files) is
:mod:`canary_infer.system.folders`' choice; this module reads it.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from canary_infer.system import cache as syscache
from canary_infer.system.folders import SystemDirError, SystemSource, system_files
from canary_infer.system.model import SystemFileError, builtin_dir, load_system


def load(source: SystemSource | str | Path | None = None):
    """Load a system: a :class:`SystemSource`, a folder, or None for the built-in one.

    Raises :class:`SystemDirError` for a folder that cannot be read and
    :class:`canary_infer.system.model.SystemFileError` for a file that cannot be loaded."""
    if source is None:
        source = SystemSource(None)
    elif not isinstance(source, SystemSource):
        source = SystemSource(Path(source), "argument")
    if source.directory is None:
        return _builtin()
    return _read(system_files(source.directory, source.origin))


def _read(files: list[Path] | None):
    """Load and check the files (None: the built-in ones, named ``constraints/NAME``)."""
    for p in files if files is not None else builtin_files():
        try:  # a file that is not text is a clear error, not a traceback from the loader
            p.read_text(encoding="utf-8")
        except UnicodeDecodeError as e:
            raise SystemDirError(str(p), f"not UTF-8 text (byte {e.start})") from None
        except OSError as e:
            raise SystemDirError(str(p), f"cannot read the file: {e.strerror or e}") from None
    system = load_system(files)
    _check_calls(system)
    return system


def builtin_files() -> list[Path]:
    """The built-in ``*.canary`` files, in name order (what :func:`load_system` reads by default)."""
    return system_files(builtin_dir(), "built-in")


def _check_calls(system) -> None:
    """Every system, the built-in one too: no line of the files may make only calls that no hand
    can make where they stand (the engine checks it once per edit of the files, some seconds,
    remembered in the loaded-system cache's folder; see :mod:`canary_infer.tools.lint`)."""
    from canary_infer.tools.lint import check

    if os.environ.get("CANARY_SYSTEM_CHECK", "").strip().lower() in ("off", "0", "no", "false"):
        return  # asked to skip it (check-system still finds such calls)

    found = check(system, syscache.quiet_folder())  # a setting not understood: the command reports it
    if found:
        first = found[0]
        more = f" (and {len(found) - 1} more: {', '.join(f'{e.path}:{e.line}' for e in found[1:6])})" \
            if len(found) > 1 else ""
        raise SystemFileError(first.path, first.line, first.reason + more)


@lru_cache(maxsize=1)
def _builtin():
    """The built-in system, loaded once per process (systems are not changed once loaded)."""
    return _read(None)
