"""Typical example hands: a hand of a region's most frequent pattern with a middle HCP count.

Any hand satisfying a formula proves a finding, but the first hand a solver meets is often an
extreme one (a 37-count for a response): useless to a system designer who wants to see what
the region is *about*.  :func:`typical_hand` asks the exact engine for the region's most
frequent pattern and the median HCP of the region's hands of that pattern (from the
engine's exact counts by HCP), and then the card-level CP-SAT model for a hand with that
pattern and that HCP count; if none comes within the time limit it tries the nearest HCP
counts, then any hand of the pattern, then any hand.

    >>> from canary_infer.language.expr import evaluate, parse
    >>> f = parse("S >= 5")
    >>> hand = typical_hand(f)
    >>> evaluate(f, hand), hand.pattern, 8 <= hand.hcp <= 12
    (True, '5-3-3-2', True)
"""

from __future__ import annotations

import time

import numpy as np

from canary_infer.bridge.cards import Hand
from canary_infer.engine.cpsat import HandModel
from canary_infer.engine.tables import PAT_INDEX, Available, Result, build_seat, solve
from canary_infer.language.expr import Node, conj, parse

Pattern = tuple[int, int, int, int]
EVERY_CARD = Available()


def most_frequent_pattern(result: Result) -> Pattern | None:
    """The pattern with the most hands (ties: the first in S-H-D-C order, longest spades first)."""
    if not result.patterns:
        return None
    return min(result.patterns.items(), key=lambda kv: (-kv[1], tuple(-x for x in kv[0])))[0]


def _at_most(h: int) -> Node:
    return parse(f"hcp <= {h}")


def _median(by_hcp: np.ndarray) -> int | None:
    """The least h such that at least half of the hands counted by HCP (exact integers as
    floats) hold h or fewer; None for no hand."""
    if not by_hcp.any():
        return None
    cum = np.cumsum(by_hcp)
    return int(np.searchsorted(cum, cum[-1] / 2))


def median_hcp(formula: Node, pattern: Pattern, avail: Available = EVERY_CARD,
               within: Result | None = None) -> int | None:
    """The median HCP count of the hands of a pattern satisfying a formula, exactly: the least
    h such that at least half of those hands hold h HCP or fewer (so some hand holds exactly h).

    From one table's counts by HCP; for a formula no table holds, a binary search over solves
    (``within`` may then give the formula already solved on that one pattern)."""
    t = build_seat(formula, avail, patterns=[pattern])
    if t is not None:  # one table's exact counts by HCP
        return _median(t.ph[PAT_INDEX[pattern]])
    region = within if within is not None else solve(formula, avail, patterns=[pattern])
    if not region.consistent:
        return None
    lo, hi = region.hcp
    half = region.hands / 2
    while lo < hi:  # invariant: the median lies in lo..hi
        mid = (lo + hi) // 2
        if solve(conj([formula, _at_most(mid)]), avail, patterns=[pattern]).hands >= half:
            hi = mid
        else:
            lo = mid + 1
    return lo


def typical_hand(formula: Node, result: Result | None = None, avail: Available = EVERY_CARD,
                 time_limit: float = 10.0, model: HandModel | None = None) -> Hand | None:
    """A hand satisfying the formula, of its most frequent pattern and near its median HCP count.

    ``result`` is the formula already solved (its patterns and counts), ``model`` a CP-SAT model
    over the same available cards to reuse; ``time_limit`` bounds the CP-SAT work in seconds.
    None if no hand satisfies the formula (or none was found in time)."""
    result = result if result is not None else solve(formula, avail)
    pattern = most_frequent_pattern(result)
    if pattern is None:
        return None
    t = build_seat(formula, avail, patterns=[pattern])  # its counts by HCP give the median too
    region = t.result() if t is not None else solve(formula, avail, patterns=[pattern])
    m = model or HandModel(avail)
    lit = m.add(formula)
    deadline = time.monotonic() + time_limit

    def left(share: float = 1.0) -> float:
        return max(0.05, (deadline - time.monotonic()) * share)

    if region.consistent:
        mid = _median(t.ph[PAT_INDEX[pattern]]) if t is not None else median_hcp(formula, pattern, avail, region)
        lo, hi = region.hcp
        nearest = sorted(range(lo, hi + 1), key=lambda h: (abs(h - mid), h))[:5]
        for i, h in enumerate(nearest):
            hand = m.example([lit, m.add(parse(f"hcp == {h}"))], pattern=pattern,
                             time_limit=left(0.5 if i == 0 else 0.25))
            if hand is not None:
                return hand
        hand = m.example([lit], pattern=pattern, time_limit=left(0.5))
        if hand is not None:
            return hand
    return m.example([lit], time_limit=left())
