"""Caches: :class:`Bounded`, the one kind of in-memory cache an object keeps (at most so many
entries, the least recently used dropped first); and the disk cache of solved results: where it
lives, what an entry is, and why none is trusted.

Results that took a while to compute are kept as one JSON file per question, named by a digest
of the question (the formula, the cards unseen, the patterns it was restricted to) and of the
code that answers it.  ``CANARY_INFER_CACHE`` says where:

* unset or empty: ``$XDG_CACHE_HOME/canary-infer`` (by default ``~/.cache/canary-infer``);
* ``off``, ``0``, ``no``, ``false``, ``none`` or ``disabled`` (any case): no disk cache;
* ``on``, ``1``, ``yes`` or ``true``: the default folder;
* a folder: a path with a ``/`` in it (``/tmp/ci-cache``, ``./cache``, ``~/cache``).

Anything else (a bare word such as ``disable``, blanks) is refused with :class:`CacheConfigError`
rather than taken as a folder name in the current directory.

An entry is read back only if it is exactly what this module writes: the right format, its own
key, whole positive hand counts adding up to its total, patterns of 13 cards within the cards
unseen (and within the patterns asked for), and an HCP range that is there exactly when some
hand is.  Anything else is deleted and the result computed again: a cache is never believed.

    >>> import os
    >>> os.environ["CANARY_INFER_CACHE"] = "none"
    >>> folder() is None
    True
    >>> os.environ["CANARY_INFER_CACHE"] = "disable"
    >>> folder()  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    canary_infer.caches.CacheConfigError: CANARY_INFER_CACHE='disable' is not understood: use off ...
    >>> os.environ["CANARY_INFER_CACHE"] = "off"
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import stat
import threading
import time
from collections import OrderedDict
from collections.abc import Hashable
from functools import lru_cache
from pathlib import Path
from typing import Generic, TypeVar

ENV = "CANARY_INFER_CACHE"
OFF = ("off", "0", "no", "false", "none", "disabled")
ON = ("on", "1", "yes", "true")
FORMAT = 2
SLOW = 0.05  # seconds: faster results are not worth a file
MAX_HANDS = 635_013_559_600  # C(52, 13)


K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Bounded(Generic[K, V]):
    """A mapping that keeps at most ``size`` entries, dropping the least recently used first:
    what a long-lived object (the web server's inferencer, a self-check's) remembers stays
    within bounds however many questions it is asked.  What is dropped is computed again.

    >>> c: Bounded[str, int] = Bounded(2)
    >>> c["a"] = 1; c["b"] = 2; c.get("a"); c["c"] = 3
    1
    >>> sorted(c.keys())
    ['a', 'c']
    """

    __slots__ = ("size", "_d")

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError(f"a cache holds at least one entry, not {size}")
        self.size = size
        self._d: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K, default: V | None = None) -> V | None:
        try:
            value = self._d[key]
        except KeyError:
            return default
        self._d.move_to_end(key)
        return value

    def __getitem__(self, key: K) -> V:
        value = self._d[key]
        self._d.move_to_end(key)
        return value

    def __setitem__(self, key: K, value: V) -> None:
        self._d[key] = value
        self._d.move_to_end(key)
        if len(self._d) > self.size:
            self._d.popitem(last=False)

    def setdefault(self, key: K, value: V) -> V:
        if key in self._d:
            return self[key]
        self[key] = value
        return value

    def __contains__(self, key: object) -> bool:
        return key in self._d

    def __len__(self) -> int:
        return len(self._d)

    def keys(self):
        return self._d.keys()

    def clear(self) -> None:
        self._d.clear()


class CacheConfigError(ValueError):
    """``CANARY_INFER_CACHE`` holds a value that is neither a switch nor a folder."""


def default_folder() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "canary-infer"


def folder() -> Path | None:
    """Where solved results persist between runs, or None when the disk cache is off.

    :raises CacheConfigError: for a value that is neither a switch nor a path (see the module)."""
    return folder_setting(ENV, default_folder(), "for no disk cache", "/tmp/ci-cache")


def folder_setting(env_name: str, default: Path, off_means: str, example: str) -> Path | None:
    """The folder an environment variable names: unset, empty or a word of :data:`ON` gives
    ``default``, a word of :data:`OFF` None, a path with a '/' in it that path.

    :raises CacheConfigError: for anything else."""
    env = os.environ.get(env_name, "")
    word = env.strip().lower()
    if word in OFF:
        return None
    if env == "" or word in ON:
        return _own(env_name, default)
    if env.strip() == env and ("/" in env or env.startswith("~")):
        return _own(env_name, Path(env).expanduser())
    raise CacheConfigError(
        f"{env_name}={env!r} is not understood: use off (or {', '.join(OFF[1:])}) {off_means}, on for the "
        f"default folder, or a folder path with a '/' in it (./cache, {example}, ~/cache)")


def _own(env_name: str, where: Path) -> Path:
    """``where``, unless it is a folder someone else could have planted entries in."""
    why = untrusted(where)
    if why is not None:
        raise CacheConfigError(f"{env_name}: the folder {where} {why}, so an entry there could have been "
                               "planted by someone else: use a folder of your own")
    return where


@lru_cache(maxsize=1)
def code_stamp() -> str:
    """A digest of the code that decides results, so that a cache never outlives a change to it."""
    here = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for name in ("engine/tables.py", "language/features.py", "language/expr.py", "caches.py"):
        h.update((here / name).read_bytes())
    return h.hexdigest()[:16]


def key(formula, avail, patterns) -> str:
    """The name of a question's entry: a digest of the question and of the code that answers it."""
    text = repr((formula, avail, sorted(patterns) if patterns is not None else None, code_stamp()))
    return hashlib.sha256(text.encode()).hexdigest()


# --------------------------------------------------------------------------- entries
def encode(k: str, patterns: dict, hcp, hands: float) -> str:
    return json.dumps({"format": FORMAT, "key": k,
                       "patterns": [[*p, c] for p, c in sorted(patterns.items())],
                       "hcp": list(hcp) if hcp else None, "hands": hands}, allow_nan=False)


def _no_constant(name):
    raise ValueError(f"{name} is not a number")


def _whole(x) -> bool:
    return type(x) in (int, float) and math.isfinite(x) and x == int(x)


def decode(text: str, k: str, avail=None, asked=None):
    """``(patterns, hcp, hands)`` from an entry's text, or None unless it is valid for key ``k``.

    ``avail`` (the cards unseen) and ``asked`` (the patterns the question was restricted to)
    are checked when given."""
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or set(data) != {"format", "key", "patterns", "hcp", "hands"}:
        return None
    if data["format"] != FORMAT or data["key"] != k or not isinstance(data["patterns"], list):
        return None
    room = None
    if avail is not None:
        room = [bin(h).count("1") + s for h, s in zip(avail.honours, avail.small, strict=True)]
    allowed = None if asked is None else {tuple(p) for p in asked}
    pats: dict[tuple[int, int, int, int], float] = {}
    for item in data["patterns"]:
        if not isinstance(item, list) or len(item) != 5:
            return None
        *lens, count = item
        if not all(type(n) is int and 0 <= n <= 13 for n in lens) or sum(lens) != 13:
            return None
        if not _whole(count) or not 0 < count <= MAX_HANDS:
            return None
        p = tuple(lens)
        if p in pats or (room is not None and any(n > r for n, r in zip(p, room, strict=True))):
            return None
        if allowed is not None and p not in allowed:
            return None
        pats[p] = float(count)
    hands, hcp = data["hands"], data["hcp"]
    if not _whole(hands) or float(hands) != sum(pats.values()):
        return None
    if not pats:
        return (pats, None, 0.0) if hcp is None else None
    if not (isinstance(hcp, list) and len(hcp) == 2 and all(type(x) is int for x in hcp)
            and 0 <= hcp[0] <= hcp[1] <= 37):
        return None
    return pats, (hcp[0], hcp[1]), float(hands)


def untrusted(where: Path) -> str | None:
    """Why the folder ``where`` cannot hold our caches, or None: it must be this user's own and
    writable by no one else (like ssh's checks), since whoever can write there could plant an
    entry.  A folder that does not exist yet is fine: it is made readable by its owner only."""
    try:
        st = os.stat(where)
    except FileNotFoundError:
        return None
    except OSError as e:
        return f"cannot be read ({e.strerror or e})"
    if not stat.S_ISDIR(st.st_mode):
        return "is not a folder"
    if st.st_uid != os.getuid():
        return f"belongs to another user (uid {st.st_uid})"
    if st.st_mode & 0o022:
        return "can be written by other users"
    return None


def make_folder(where: Path) -> bool:
    """Make ``where`` (readable by its owner only) if missing; whether it may hold our caches."""
    try:
        where.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError:
        return False
    return untrusted(where) is None


MAX_ENTRY = 256 << 20  # bytes: no entry we write is near this; a larger file is not read


def read_entry(path: Path, read, decode, limit: int = MAX_ENTRY):
    """``decode(read(path))``, or None: a missing entry, or one that cannot be read or that
    ``decode`` refuses (which is then deleted).  Only a regular file of this user's, in a folder
    of this user's, writable by no one else and at most ``limit`` bytes, is read: a FIFO, a
    device (``/dev/zero``) or a link is never opened."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError:
        return None
    if untrusted(path.parent) is not None:
        return None  # not ours to read, nor to delete from
    ok = (stat.S_ISREG(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o022
          and st.st_size <= limit)
    try:
        data = read(path) if ok else None
    except (OSError, UnicodeDecodeError):
        data = None
    got = decode(data) if data is not None else None
    if got is None:
        try:
            path.unlink()
        except OSError:
            pass  # a folder in its place, or read-only: it is not read either way
    return got


def load(where: Path, k: str, avail=None, asked=None):
    """A valid entry's ``(patterns, hcp, hands)``, or None; an invalid entry is deleted."""
    return read_entry(where / f"{k}.json", lambda p: p.read_text(encoding="utf-8"),
                      lambda text: decode(text, k, avail, asked))


def store(where: Path, k: str, patterns: dict, hcp, hands: float) -> None:
    """Write an entry atomically (a unique temporary file, then a rename): concurrent runs may
    write the same entry, and a reader never sees half of one."""
    if not make_folder(where):
        return
    try:
        tmp = where / f"{k}.{os.getpid()}.{threading.get_ident()}.tmp"
        tmp.write_text(encode(k, patterns, hcp, hands), encoding="utf-8")
        tmp.replace(where / f"{k}.json")
    except (OSError, ValueError):
        pass  # a read-only home is no reason to fail


def solve_cached(compute, result_type, formula, avail, patterns):
    """``compute(formula, avail, patterns)``, through the disk cache when it is on."""
    where = folder()
    if where is None:
        return compute(formula, avail, patterns)
    k = key(formula, avail, patterns)
    got = load(where, k, avail, patterns)
    if got is not None:
        return result_type(*got)
    t = time.perf_counter()
    res = compute(formula, avail, patterns)
    if time.perf_counter() - t > SLOW:
        store(where, k, res.patterns, res.hcp, res.hands)
    return res
