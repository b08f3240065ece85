"""The one way every command reads a system: the built-in files, or a folder of one's own
loaded and then checked (every call one that some hand can make where it stands,
:mod:`canary_infer.tools.lint`).

Which folder that is (``--system``, ``$CANARY_SYSTEM`` or the built-in files) is
:mod:`canary_infer.system.folders`' choice; this module reads it.
"""

from __future__ import annotations

import os
import sys
from functools import lru_cache
from pathlib import Path

from canary_infer.caches import CacheConfigError, folder
from canary_infer.system.folders import SystemDirError, SystemSource, system_files
from canary_infer.system.model import SystemFileError, load_system


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
    files = system_files(source.directory, source.origin)
    for p in files:  # a file that is not text is a clear error, not a traceback from the loader
        try:
            p.read_text(encoding="utf-8")
        except UnicodeDecodeError as e:
            raise SystemDirError(str(p), f"not UTF-8 text (byte {e.start})") from None
        except OSError as e:
            raise SystemDirError(str(p), f"cannot read the file: {e.strerror or e}") from None
    system = load_system(files)
    _check_calls(system)
    return system


def _check_calls(system) -> None:
    """A system of one's own: every call must be one that some hand can make where it stands
    (the engine checks it once per edit of the files; see :mod:`canary_infer.tools.lint`)."""
    from canary_infer.tools.lint import check  # the engine: imported only for a system of one's own

    if os.environ.get("CANARY_SYSTEM_CHECK", "").strip().lower() in ("off", "0", "no", "false"):
        return  # asked to skip it (check-system still finds such calls)

    if sys.stderr.isatty():
        print("checking that every call of the system can be made (once per edit of the files) ...",
              file=sys.stderr, flush=True)
    try:
        where = folder()
    except CacheConfigError:
        where = None  # the command reports a bad setting itself
    found = check(system, where)
    if found:
        first = found[0]
        more = f" (and {len(found) - 1} more: {', '.join(f'{e.path}:{e.line}' for e in found[1:6])})" \
            if len(found) > 1 else ""
        raise SystemFileError(first.path, first.line, first.reason + more)


@lru_cache(maxsize=1)
def _builtin():
    """The built-in system, loaded once per process (systems are not changed once loaded)."""
    return load_system()
