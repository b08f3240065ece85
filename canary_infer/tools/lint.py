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

A checked system is remembered by the digest of its text (in the solver's disk cache), so the
walk costs its few seconds once per edit.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable

from canary_infer.bridge.auction import Auction
from canary_infer.deal.infer import Inferencer
from canary_infer.language.expr import TRUE
from canary_infer.system.model import CallNode, System, SystemFileError, format_system
from canary_infer.tools.verify import auction_text


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


def unsatisfiable(system: System, inferencer: Inferencer | None = None, limit: int = 100_000,
                  progress: Callable[[int, int], None] | None = None) -> list[SystemFileError]:
    """Every call that no hand can make after the calls before it (each as a SystemFileError)."""
    inf = inferencer or Inferencer(system)
    found: list[SystemFileError] = []
    seen: set[tuple[str, int]] = set()
    asked: set[tuple] = set()
    todo = list(_calls(system, limit))
    for i, (prefix, node) in enumerate(todo):
        if progress:
            progress(i + 1, len(todo))
        text = auction_text(node.lineage(), prefix)
        try:
            auction = Auction.parse(text)
        except ValueError:
            continue
        calls = inf.read(auction)
        if not calls[-1].defined or calls[-1].formula == TRUE:
            continue  # what the caller showed before was checked at his earlier call
        seat = calls[-1].seat
        chain = inf.seat_formulas(calls, seat)
        if chain in asked:
            continue  # the same question (a third-chair auction whose calls read as in first chair)
        asked.add(chain)
        res = inf._solve_chain(chain, _avail())
        if not res.consistent and (node.path, node.line) not in seen:
            seen.add((node.path, node.line))
            found.append(SystemFileError(node.path, node.line, f"no hand can make {_shown(text)}: it contradicts "
                                                                "what the same player showed before"))
    return found


def _avail():
    from canary_infer.engine.tables import Available

    return Available()


def _shown(text: str) -> str:
    return text


def check(system: System, cache_dir=None) -> list[SystemFileError]:
    """:func:`unsatisfiable`, remembered by the digest of the system's text."""
    digest = hashlib.sha256(format_system(system).encode()).hexdigest()[:24]
    stamp = None
    if cache_dir is not None:
        stamp = cache_dir / f"checked-{digest}.json"
        if stamp.exists():
            try:
                data = json.loads(stamp.read_text())
                return [SystemFileError(p, int(n), str(r)) for p, n, r in data]
            except (ValueError, TypeError, OSError):
                pass
    found = unsatisfiable(system)
    if stamp is not None:
        try:
            stamp.parent.mkdir(parents=True, exist_ok=True)
            stamp.write_text(json.dumps([[e.path, e.line, e.reason] for e in found]))
        except OSError:
            pass
    return found


__all__ = ["CallNode", "check", "unsatisfiable"]

