"""The loaded-system cache: a checked system kept on disk so that a process does not read every file again.

Loading the built-in files means parsing some 17,000 call rules and, the first time these exact
files are seen, walking the whole tree of calls they make to check it (seconds).  A system that
loaded and passed every check is kept as one file named by a digest of the files (names and
text, not their folder), of the loader's code and of the Python version, so that any edit of
either makes a new entry, and a copy of the same files elsewhere (a designer's copy of the
built-in system) is read from the entry of the original, its files' names put in as it is
unpickled.  ``CANARY_INFER_SYSTEM_CACHE`` says where, apart from the results cache
(:mod:`canary_infer.caches`, ``CANARY_INFER_CACHE``), which it does not depend on:

* unset or empty: ``$XDG_CACHE_HOME/canary-infer/systems`` (by default ``~/.cache/canary-infer/systems``);
* ``off``, ``0``, ``no``, ``false``, ``none`` or ``disabled`` (any case): none (every process
  parses the files, and walks the tree to check it);
* ``on``, ``1``, ``yes`` or ``true``: the default folder;
* a folder: a path with a ``/`` in it.

Anything else is refused with :class:`canary_infer.caches.CacheConfigError` by the commands (the
library then keeps no entry).  An entry is read back only if it is exactly what this module
writes: its header, its own name, a digest of its contents made with the folder's secret key
(which only this user can read), and, unpickled, a system read from the very files asked for.
Only a folder of this user's that no one else can write is used (:func:`canary_infer.caches.untrusted`):
a pickle can run code, so an entry planted by someone else must never be unpickled.  Anything
else is deleted and the files are loaded and checked again.

    >>> import os
    >>> os.environ[ENV] = "off"
    >>> folder() is None
    True
    >>> del os.environ[ENV]
"""

from __future__ import annotations

import gc
import hashlib
import hmac
import io
import os
import pickle
import secrets
import stat
import sys
import threading
from pathlib import Path

from canary_infer.caches import CacheConfigError, default_folder, folder_setting, make_folder, read_entry

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
    for shown, text in files:  # the file's name without its folder: a copy elsewhere is the same system
        h.update(b"\1" + Path(shown).name.encode("utf-8") + b"\0" + text.encode("utf-8"))
    return h.hexdigest()


def _path(where: Path, k: str) -> Path:
    return where / f"system-{k[:40]}.pickle"


def secret(where: Path) -> bytes | None:
    """The folder's key for the entries' digests (made on first use, readable by this user only),
    or None where there is no trustworthy one: an entry is believed only with a digest made with
    it, so one planted by someone who cannot read the key is refused before it is unpickled."""
    path = where / "key"
    for _ in range(2):
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except FileNotFoundError:
            if not make_folder(where):
                return None
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            except FileExistsError:
                continue  # another process made it meanwhile: read that one
            except OSError:
                return None
            with os.fdopen(fd, "wb") as f:
                f.write(secrets.token_bytes(32))
            continue
        except OSError:
            return None
        with os.fdopen(fd, "rb") as f:
            st = os.fstat(f.fileno())
            if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
                return None
            key = f.read(64)
        return key if len(key) == 32 else None
    return None


def _digest(key: bytes, payload: bytes) -> bytes:
    return hmac.new(key, payload, hashlib.sha256).hexdigest().encode()


def encode(k: str, system, key: bytes) -> bytes:
    payload = pickle.dumps(system, protocol=pickle.HIGHEST_PROTOCOL)
    return MAGIC + k.encode() + b"\n" + _digest(key, payload) + b"\n" + payload


def decode(data: bytes, k: str, shown: list[str], kind: type, key: bytes):
    """The system an entry holds, or None unless it is a whole entry for name ``k`` read from
    the files named ``shown``, of the class ``kind`` (the loader's ``System``), its digest made
    with the folder's ``key`` (checked before anything is unpickled).  An entry made from the
    same files in another folder (the same key) is unpickled again with ``shown`` put in for
    their names."""
    if not data.startswith(MAGIC):
        return None
    rest = data[len(MAGIC):]
    head, sep, rest = rest.partition(b"\n")
    if not sep or head != k.encode():
        return None
    digest, sep, payload = rest.partition(b"\n")
    if not sep or not hmac.compare_digest(digest, _digest(key, payload)):
        return None
    system = _unpickle(payload)
    if type(system) is kind and isinstance(system.files, list) and system.files != shown \
            and [Path(f).name for f in system.files] == [Path(f).name for f in shown]:
        system = _unpickle(payload, dict(zip(system.files, shown, strict=True)))  # a copy of the same files
    if type(system) is not kind or system.files != shown or system.oracle is not None or system._roots:
        return None
    return system


def _unpickle(payload: bytes, names: dict[str, str] | None = None):
    """The object a payload holds (None if it does not unpickle), with the strings ``names`` maps
    replaced as they are read (the names of the files an entry was made from)."""
    collecting = gc.isenabled()
    gc.disable()  # loads makes some 28,000 objects and frees none: collections meanwhile only walk them
    try:
        if names is None:
            return pickle.loads(payload)  # noqa: S301 - our own file: its keyed digest checked by the caller
        return _Renaming(io.BytesIO(payload), names).load()  # noqa: S301 - the same
    except Exception:  # noqa: BLE001 - whatever a damaged entry raises, it is not believed
        return None
    finally:
        if collecting:
            gc.enable()


def _renamed(load):
    """An unpickler's opcode that reads a string, then puts in the string ``names`` maps it to."""
    def read(self):
        load(self)
        self.stack[-1] = self.names.get(self.stack[-1], self.stack[-1])
    return read


class _Renaming(pickle._Unpickler):  # noqa: S301 - the pure-Python unpickler, whose opcodes can be extended
    """Unpickles with some strings replaced by others wherever they stand (every object then
    made with the new one, as if the files had been read under those names)."""

    dispatch = dict(pickle._Unpickler.dispatch)
    for _op in (pickle.SHORT_BINUNICODE, pickle.BINUNICODE, pickle.BINUNICODE8, pickle.UNICODE):
        dispatch[_op[0]] = _renamed(dispatch[_op[0]])
    del _op

    def __init__(self, file, names: dict[str, str]):
        super().__init__(file)
        self.names = names


def load(where: Path, k: str, shown: list[str], kind: type):
    """A valid entry's system (of the class ``kind``), or None; an invalid entry is deleted."""
    key = secret(where) if _path(where, k).exists() else None
    if key is None:
        return None
    return read_entry(_path(where, k), Path.read_bytes, lambda data: decode(data, k, shown, kind, key))


def store(where: Path, k: str, system) -> None:
    """Write an entry atomically (a unique temporary file, then a rename)."""
    key = secret(where)
    if key is None:
        return  # no folder of our own to keep it in
    try:
        data = encode(k, system, key)
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError):
        return  # a system that cannot be kept is loaded again next time
    try:
        tmp = where / f"system-{k[:40]}.{os.getpid()}.{threading.get_ident()}.tmp"
        tmp.write_bytes(data)
        tmp.replace(_path(where, k))
    except OSError:
        pass  # a read-only home is no reason to fail
