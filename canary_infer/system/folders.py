"""Which system a command reads: ``--system DIR``, else ``$CANARY_SYSTEM``, else the built-in files.

A system is a folder of ``*.canary`` files, read in name order (hidden files, whose names
start with a dot, such as editors' lock files, are skipped).  A designer copies the built-in
folder, edits his copy and points every tool at it::

    canary-infer check-system --system ./mysystem
    CANARY_SYSTEM=./mysystem canary-infer bid AKJ52.3.84.KQ982

The word ``builtin`` names the system shipped with canary-infer (write ``./builtin`` for a
folder of that name).

    >>> choose(None, environ={}).describe()
    'the built-in system'
    >>> choose("builtin", environ={"CANARY_SYSTEM": "/somewhere"}).directory is None
    True
    >>> choose(None, environ={"CANARY_SYSTEM": "/somewhere"}).describe()
    '/somewhere (from CANARY_SYSTEM)'
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

ENV = "CANARY_SYSTEM"
BUILTIN = "builtin"


class SystemDirError(ValueError):
    """A system folder that cannot be read: ``path`` (the folder or file) and the reason."""

    def __init__(self, path: str, reason: str):
        super().__init__(f"{path}: {reason}")
        self.path, self.reason = path, reason


@dataclass(frozen=True)
class SystemSource:
    """Where a system comes from: ``directory`` (None for the built-in files) and ``origin``
    ("--system", "CANARY_SYSTEM", "argument" or "built-in")."""

    directory: Path | None
    origin: str = "built-in"

    def describe(self) -> str:
        if self.directory is None:
            return "the built-in system"
        if self.origin in ("--system", "argument"):
            return str(self.directory)
        return f"{self.directory} (from {self.origin})"


def choose(option: str | None, environ=None, origin: str = "--system") -> SystemSource:
    """The system to read: the option if given, else the environment variable, else built-in."""
    environ = os.environ if environ is None else environ
    if option is not None and option.strip():
        where = origin
        text = option
    elif environ.get(ENV, "").strip():
        where, text = ENV, environ[ENV]
    else:
        return SystemSource(None)
    if text.strip() == BUILTIN:
        return SystemSource(None, where)
    return SystemSource(Path(text).expanduser(), where)


def system_files(directory: str | Path, origin: str | None = None) -> list[Path]:
    """The ``*.canary`` files of a folder, in name order.

    Raises :class:`SystemDirError` if the folder does not exist, is not a folder, cannot be
    listed or holds no ``.canary`` file."""
    d = Path(directory)
    via = f" (given by {origin})" if origin and origin not in ("--system", "argument") else ""
    if not d.exists():
        raise SystemDirError(str(d), f"no such folder{via}")
    if not d.is_dir():
        raise SystemDirError(str(d), f"is a file, not a folder{via}: give the folder that holds the .canary files")
    try:
        entries = list(d.iterdir())
    except OSError as e:
        raise SystemDirError(str(d), f"cannot list the folder: {e.strerror or e}") from None
    files = sorted((p for p in entries if p.name.endswith(".canary") and not p.name.startswith(".")),
                   key=lambda p: p.name)
    for p in files:  # a .canary entry that is no file is a mistake to hear of, not one to skip
        why = _not_a_file(p)
        if why:
            raise SystemDirError(str(p), f"{why}: a system file must be a file of text")
    if not files:
        raise SystemDirError(str(d), f"no .canary files in this folder{via}")
    return files


def _not_a_file(p: Path) -> str | None:
    """Why the entry ``p`` is not a regular file to read (following a link), or None."""
    try:
        st = p.stat()
    except FileNotFoundError:
        return "a link to nothing"
    except OSError as e:
        return "a link that loops" if e.errno == errno.ELOOP else f"cannot be read ({e.strerror or e})"
    if stat.S_ISDIR(st.st_mode):
        return "a folder"
    if not stat.S_ISREG(st.st_mode):
        return "a device, pipe or socket"
    return None


def error_json(e: Exception) -> dict:
    """The ``error`` object of a system that cannot be read, for ``--json`` output."""
    path = getattr(e, "path", None)
    line = getattr(e, "line", None)
    return {"kind": "system", "message": str(e), "path": path, "line": line}
