"""The loaded-system cache: a checked system kept on disk so that a process does not read every file again.

Loading the built-in files means parsing some 17,000 call rules and, the first time these exact
files are seen, walking the whole tree of calls they make to check it (seconds).  A system that
loaded and passed every check is kept as one file named by a digest of the files (names and
text), of the loader's code and of the Python version, so that any edit of either makes a new
entry.  ``CANARY_INFER_SYSTEM_CACHE`` says where, apart from the results cache
(:mod:`canary_infer.caches`, ``CANARY_INFER_CACHE``), which it does not depend on:

* unset or empty: ``$XDG_CACHE_HOME/canary-infer/systems`` (by default ``~/.cache/canary-infer/systems``);
* ``off``, ``0``, ``no``, ``false``, ``none`` or ``disabled`` (any case): none (every process
  parses the files, and walks the tree to check it);
* ``on``, ``1``, ``yes`` or ``true``: the default folder;
* a folder: a path with a ``/`` in it.

Anything else is refused with :class:`canary_infer.caches.CacheConfigError` by the commands (the
library then keeps no entry).  An entry is read back only if it is exactly what this module
writes: its header, its own key, a digest of its contents that matches them, and, unpickled, a
system read from the very files asked for.  Anything else is deleted and the files are loaded
and checked again.

    >>> import os
    >>> os.environ[ENV] = "off"
    >>> folder() is None
    True
    >>> del os.environ[ENV]
"""

from __future__ import annotations

import gc
import hashlib
import os
import pickle
import sys
import threading
from pathlib import Path

from canary_infer.caches import CacheConfigError, default_folder, folder_setting, read_entry

ENV = "CANARY_INFER_SYSTEM_CACHE"
MAGIC = b"canary-infer system 1\n"
# the code whose objects an entry holds, or which decides what a loaded system is
CODE = ("system/model.py", "system/parser.py", "system/system.lark", "language/expr.py", "language/features.py",
        "bridge/cards.py", "bridge/auction.py", "system/cache.py")


def folder() -> Path | None:
    """Where checked systems are kept, or None when this cache is off.

    :raises CacheConfigError: for a value that is neither a switch nor a path."""
    return folder_setting(ENV, default_folder() / "systems", "to keep no loaded system", "/tmp/ci-systems")


def quiet_folder() -> Path | None:
    """:func:`folder`, or None for a setting that is not understood (the commands report it)."""
    try:
        return folder()
    except CacheConfigError:
        return None


def key(files: list[tuple[str, str]]) -> str:
    """The name of the entry for these files (``(name shown, text)`` in load order)."""
    here = Path(__file__).resolve().parent.parent  # the package's root
    h = hashlib.sha256(MAGIC)
    h.update(repr((sys.implementation.name, sys.version_info[:3], pickle.HIGHEST_PROTOCOL)).encode())
    for name in CODE:
        h.update(b"\0" + (here / name).read_bytes())
    for shown, text in files:
        h.update(b"\1" + shown.encode("utf-8") + b"\0" + text.encode("utf-8"))
    return h.hexdigest()


def _path(where: Path, k: str) -> Path:
    return where / f"system-{k[:40]}.pickle"


def encode(k: str, system) -> bytes:
    payload = pickle.dumps(system, protocol=pickle.HIGHEST_PROTOCOL)
    return MAGIC + k.encode() + b"\n" + hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload


def decode(data: bytes, k: str, shown: list[str], kind: type):
    """The system an entry holds, or None unless it is a whole entry for key ``k`` read from
    the files named ``shown``, of the class ``kind`` (the loader's ``System``)."""
    if not data.startswith(MAGIC):
        return None
    rest = data[len(MAGIC):]
    head, sep, rest = rest.partition(b"\n")
    if not sep or head != k.encode():
        return None
    digest, sep, payload = rest.partition(b"\n")
    if not sep or digest != hashlib.sha256(payload).hexdigest().encode():
        return None
    collecting = gc.isenabled()
    gc.disable()  # loads makes some 28,000 objects and frees none: collections meanwhile only walk them
    try:
        system = pickle.loads(payload)  # noqa: S301 - our own file, its digest checked above
    except Exception:  # noqa: BLE001 - whatever a damaged entry raises, it is not believed
        return None
    finally:
        if collecting:
            gc.enable()
    if type(system) is not kind or system.files != shown or system.oracle is not None or system._roots:
        return None
    return system


def load(where: Path, k: str, shown: list[str], kind: type):
    """A valid entry's system (of the class ``kind``), or None; an invalid entry is deleted."""
    return read_entry(_path(where, k), Path.read_bytes, lambda data: decode(data, k, shown, kind))


def store(where: Path, k: str, system) -> None:
    """Write an entry atomically (a unique temporary file, then a rename)."""
    try:
        data = encode(k, system)
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError):
        return  # a system that cannot be kept is loaded again next time
    try:
        where.mkdir(parents=True, exist_ok=True)
        tmp = where / f"system-{k[:40]}.{os.getpid()}.{threading.get_ident()}.tmp"
        tmp.write_bytes(data)
        tmp.replace(_path(where, k))
    except OSError:
        pass  # a read-only home is no reason to fail
