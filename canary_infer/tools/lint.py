"""Checks of a system that need the engine: calls that no hand can make where they stand.

The loader (:mod:`canary_infer.system.model`) refuses what it can see in the text; this module walks
every call of every tree and asks the exact engine whether any hand satisfies everything the
caller has shown up to and including that call.  A call that no hand can make is a mistake a
designer wants to hear about when he writes it, with its file and line::

    >>> from canary_infer.system.model import load_text
    >>> s = load_text('''
    ... tree opening
    ...   1S  "spades"  [A1]
    ...       = S >= 5
    ...     1N  "relay"  [A2]
    ...       2C  "short spades"  [A3]
    ...           = S <= 1
    ... ''', "mine.canary")
    >>> [str(e) for e in unsatisfiable(s)]
    ['mine.canary:6: no hand can make 1S P 1N P 2C: it contradicts what the same player showed before']

A line of the files stands for many calls (a block included at many points, ``for x in
suits``, a schedule's steps): some of them may be unplayable where they stand and not be a
mistake, as when a grand-slam ask asks for a king that a cue bid denied [B33, B60].  What
refuses a system (:func:`dead_lines`, the check every system passes when it is loaded) is a line
none of whose calls any hand can make; :func:`unsatisfiable` lists every unplayable call, for
check-system's report.

    >>> s = load_text('''
    ... block ask(T)
    ...   4N  "ask"  [A1]
    ...     5C  "no ace"  [A2]
    ...         = aces == 0
    ... tree opening
    ...   1S  "spades"  [A3]
    ...       = S >= 5
    ...     2N  "aces"  [A4]
    ...       3C  "one ace"  [A5]
    ...           = aces == 1
    ...         include ask(S)
    ...       3D  "no ace"  [A6]
    ...           = aces == 0
    ...         include ask(S)
    ... ''', "mine.canary")
    >>> [e.line for e in unsatisfiable(s)], dead_lines(s)
    ([4], [])

A checked system is remembered by the digest of its text (in the loaded-system cache's folder), so
the walk costs its seconds once per edit.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from canary_infer.caches import read_entry
from canary_infer.system.cache import secret
from canary_infer.system.model import CallNode, System, SystemFileError, format_system

if TYPE_CHECKING:
    from canary_infer.deal.infer import Inferencer


def _calls(system: System, limit: int):
    """Our side's defined calls in every tree (with the openings in 1st and in 3rd chair)."""
    for prefix, lead in (("", 0), ("P P", 2)):
        for tree in system.trees:
            for count, n in enumerate(system.nodes(lead) if tree == "opening" else
                                      _tree_nodes(system, tree, lead)):
                if count >= limit:
                    break
                if n.parent is not None and n.defined and not n.is_opponents:
                    yield prefix, n


def _tree_nodes(system: System, tree: str, lead: int):
    for n in system.nodes(lead):
        if n.tree == tree:
            yield n


def _instances(system: System, inf: Inferencer, limit: int, skip: Callable[[CallNode], bool] | None = None):
    """(node, auction text, whether some hand can make it) for every call :func:`_calls` walks,
    but those ``skip`` passes by without asking the engine."""
    from canary_infer.bridge.auction import Auction
    from canary_infer.language.expr import TRUE
    from canary_infer.tools.verify import auction_text

    asked: dict[tuple, bool] = {}
    for prefix, node in _calls(system, limit):
        if skip is not None and skip(node):
            continue
        text = auction_text(node.lineage(), prefix)
        try:
            auction = Auction.parse(text)
        except ValueError:
            continue
        calls = inf.read(auction, tree=True)
        if not calls[-1].defined or calls[-1].formula == TRUE:
            yield node, text, True  # what the caller showed before was checked at his earlier call
            continue
        chain = inf.seat_formulas(calls, calls[-1].seat)
        ok = asked.get(chain)  # the same question (a third-chair auction whose calls read as in first chair)
        if ok is None:
            ok = asked[chain] = inf._solve_chain(chain, _avail()).consistent
        yield node, text, ok


def _message(text: str) -> str:
    return f"no hand can make {_shown(text)}: it contradicts what the same player showed before"


def unsatisfiable(system: System, inferencer: Inferencer | None = None,
                  limit: int = 100_000) -> list[SystemFileError]:
    """Every line of the files that makes a call no hand can make after the calls before it, with
    the first such call (each as a SystemFileError), whether or not its other calls can be made."""
    inf = inferencer or _inferencer(system)
    found: list[SystemFileError] = []
    seen: set[tuple[str, int]] = set()
    for node, text, ok in _instances(system, inf, limit):
        if not ok and (node.path, node.line) not in seen:
            seen.add((node.path, node.line))
            found.append(SystemFileError(node.path, node.line, _message(text)))
    return found


def dead_lines(system: System, inferencer: Inferencer | None = None,
               limit: int = 100_000) -> list[SystemFileError]:
    """Every line of the files none of whose calls any hand can make where it stands (with the
    first of them): a line the system can never use, which is a mistake in the files.  A line
    is asked about only until one of its calls can be made."""
    inf = inferencer or _inferencer(system)
    playable: set[tuple[str, int]] = set()
    first: dict[tuple[str, int], str] = {}
    count: dict[tuple[str, int], int] = {}
    for node, text, ok in _instances(system, inf, limit, skip=lambda n: (n.path, n.line) in playable):
        key = (node.path, node.line)
        if ok:
            playable.add(key)
        else:
            first.setdefault(key, text)
            count[key] = count.get(key, 0) + 1
    found = []
    for key, text in first.items():
        if key in playable:
            continue
        more = f" (nor can any of the {count[key] - 1} other calls this line makes)" if count[key] > 1 else ""
        found.append(SystemFileError(key[0], key[1], _message(text) + more))
    return found


def _inferencer(system: System):
    from canary_infer.deal.infer import Inferencer  # the engine: imported only when a system is checked

    return Inferencer(system)


def _avail():
    from canary_infer.engine.tables import Available

    return Available()


def _shown(text: str) -> str:
    return text


def check(system: System, cache_dir=None) -> list[SystemFileError]:
    """:func:`dead_lines`, remembered by the digest of the system's text and of its files' names
    (not their folder: a copy of the same files moved elsewhere is the same question).  What is
    kept names each finding's file by its place in ``system.files``, so the answer names the
    files this system was read from, not those of the run that first asked."""
    h = hashlib.sha256(b"canary-infer dead lines 2\0")
    h.update(Path(__file__).read_bytes())
    h.update("\0".join(Path(f).name for f in system.files).encode() + b"\0")
    h.update(format_system(system).encode())
    digest = h.hexdigest()[:32]
    files = list(system.files)
    stamp = Path(cache_dir) / f"checked-{digest}.json" if cache_dir is not None else None
    if stamp is not None:
        kept = _read_stamp(stamp, files)
        if kept is not None:
            return kept
    found = dead_lines(system)
    if stamp is not None:
        _write_stamp(stamp, [[files.index(e.path), e.line, e.reason] for e in found if e.path in files])
    return found


def _stamp_digest(key: bytes, rows) -> str:
    return hmac.new(key, json.dumps(rows, sort_keys=True).encode(), hashlib.sha256).hexdigest()


def _read_stamp(stamp: Path, files: list) -> list[SystemFileError] | None:
    """The findings a stamp keeps, or None: only a stamp this user's key signed, whose every
    finding is [a file's place in ``files``, a line, a reason], is believed (a planted ``[]``
    would skip the check); anything else is deleted, as the other caches' entries are."""
    key = secret(stamp.parent) if stamp.exists() else None
    if key is None:
        return None

    def decode(text: str):
        try:
            obj = json.loads(text)
            rows, sign = obj["found"], obj["digest"]
        except (ValueError, TypeError, KeyError):
            return None
        if not isinstance(sign, str) or not hmac.compare_digest(sign, _stamp_digest(key, rows)):
            return None
        ok = isinstance(rows, list) and all(
            isinstance(r, list) and len(r) == 3 and type(r[0]) is int and 0 <= r[0] < len(files)
            and type(r[1]) is int and 0 <= r[1] < 10 ** 7 and isinstance(r[2], str) for r in rows)
        return [SystemFileError(files[i], n, reason) for i, n, reason in rows] if ok else None

    return read_entry(stamp, lambda p: p.read_text(encoding="utf-8"), decode, limit=16 << 20)


def _write_stamp(stamp: Path, rows: list) -> None:
    key = secret(stamp.parent)
    if key is None:
        return  # no folder of our own to keep it in
    try:
        stamp.write_text(json.dumps({"found": rows, "digest": _stamp_digest(key, rows)}), encoding="utf-8")
    except (OSError, ValueError):
        pass  # a read-only folder: not kept


__all__ = ["CallNode", "check", "dead_lines", "unsatisfiable"]

