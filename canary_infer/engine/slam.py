"""Slam facts about one seat: key cards, the trump queen and controls, exactly.

After an auction each seat's calls are a formula over its 13 cards; this module asks the
engine which values of three slam counts some hand fitting that formula has:

* ``keycards``: the four aces and the king of the agreed trump suit (RKCB [B3-8]), 0 to 5;
* ``trump_queen``: whether the seat holds the queen of trumps: ``True`` when every hand that
  fits holds it, ``False`` when none does, ``None`` when both are possible (or no suit is
  agreed);
* ``controls``: A = 2, K = 1 (0 to 12), whatever the trump suit.

Each answer is exact: ``solve(formula and keycards == k)`` for every k (the counts are small)
and a binary search for controls, over the cards the asker cannot see (``Available``).

    >>> from canary_infer.language.expr import parse
    >>> five_hearts = parse("aces + hasK(S) == 2 and not hasQ(S) or aces + hasK(S) == 5 and not hasQ(S)")
    >>> f = slam_facts((parse("hcp <= 16"), five_hearts), "S")
    >>> f.keycards, f.keycard_values, f.trump_queen
    ((2, 2), (2,), False)
    >>> f.describe()
    'two key cards for spades, no trump queen, 3-6 controls'
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from canary_infer.bridge.cards import SUITS, Hand
from canary_infer.engine.tables import Available, build_seat, solve
from canary_infer.language.expr import TRUE, Node, conj, parse
from canary_infer.language.features import BIT

SUIT_WORDS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
NUMBER_WORDS = ("no", "one", "two", "three", "four", "five")


@dataclass(frozen=True)
class SlamFacts:
    """Key cards, trump queen and controls of one seat (``None`` where no suit is agreed)."""

    trump: str | None
    keycard_values: tuple[int, ...] | None  # every count some fitting hand has
    trump_queen: bool | None
    controls: tuple[int, int] | None

    @property
    def keycards(self) -> tuple[int, int] | None:
        v = self.keycard_values
        return (min(v), max(v)) if v else None

    def as_json(self) -> dict:
        kc = self.keycards
        return {"keycards": list(kc) if kc else None, "trump_queen": self.trump_queen,
                "controls": list(self.controls) if self.controls else None}

    def describe(self) -> str:
        """The facts in words: 'two key cards for spades, no trump queen, 3-6 controls'."""
        out = []
        v = self.keycard_values
        if self.trump and v:
            if len(v) == 1:
                n = v[0]
                out.append(f"{NUMBER_WORDS[n]} key card{'' if n == 1 else 's'} for {SUIT_WORDS[self.trump]}")
            elif len(v) > 2 and v[-1] - v[0] == len(v) - 1:
                out.append(f"{v[0]}-{v[-1]} key cards for {SUIT_WORDS[self.trump]}")
            else:
                out.append(f"{', '.join(map(str, v[:-1]))} or {v[-1]} key cards for {SUIT_WORDS[self.trump]}")
        if self.trump and self.trump_queen is not None:
            out.append("the trump queen" if self.trump_queen else "no trump queen")
        if self.controls:
            lo, hi = self.controls
            out.append(f"{lo} control{'' if lo == 1 else 's'}" if lo == hi else f"{lo}-{hi} controls")
        return ", ".join(out)


def keycards_formula(trump: str, k: int) -> Node:
    """``aces + hasK(trump) == k``: the RKCB count (the system's ``keycards(x)``)."""
    return parse(f"aces + hasK({trump}) == {k}")


def _fits(formula: Node, extra: Node, avail: Available, patterns) -> bool:
    return _fits_cached(formula, extra, avail, patterns)


@lru_cache(maxsize=4096)
def _fits_cached(formula: Node, extra: Node, avail: Available, patterns) -> bool:
    if patterns is not None and not patterns:
        return False
    return solve(conj([formula, extra]), avail, patterns=list(patterns) if patterns is not None else None).consistent


@lru_cache(maxsize=1024)
def _counted(formula: Node, trump: str | None, avail: Available, patterns) -> SlamFacts | None:
    """The facts from one run of the engine that counts the fitting hands by aces, kings and
    (with a trump suit) the trump king and queen: every combination some hand has is there,
    so each fact is read off exactly.  None when the programme does not fit the engine's
    state (the facts are then asked for one by one)."""
    if patterns is not None and not patterns:
        return SlamFacts(trump, None, None, None)
    aux = ("A", "K") + ((f"K@{trump}", f"Q@{trump}") if trump is not None else ())
    t = build_seat(formula, avail, list(patterns) if patterns is not None else None, aux=aux)
    if t is None or t.aux is None:
        return None
    held = np.argwhere(t.aux.sum(axis=-1) > 0)  # rows: aces, kings[, trump king, trump queen]
    if len(held) == 0:
        return SlamFacts(trump, None, None, None)
    controls = 2 * held[:, 0] + held[:, 1]
    span = (int(controls.min()), int(controls.max()))
    if trump is None:
        return SlamFacts(None, None, None, span)
    values = tuple(sorted({int(v) for v in held[:, 0] + held[:, 2]}))
    queens = {int(q) for q in held[:, 3]}
    return SlamFacts(trump, values, None if len(queens) == 2 else queens == {1}, span)


def _free_facts(trump: str | None, avail: Available) -> SlamFacts:
    """The facts of a seat whose calls say nothing: any of the unseen aces and kings (with or
    without the trump queen), since the other unseen cards (at least 39 - 8) always fill
    the hand to 13.  Read off the unseen cards instead of a table of every hand."""
    def has(si: int, rank: str) -> bool:
        return bool(avail.honours[si] & BIT[rank])

    aces = sum(has(si, "A") for si in range(4))
    kings = sum(has(si, "K") for si in range(4))
    controls = (0, 2 * aces + kings)
    if trump is None:
        return SlamFacts(None, None, None, controls)
    ti = SUITS.index(trump)
    values = tuple(range(aces + has(ti, "K") + 1))
    return SlamFacts(trump, values, None if has(ti, "Q") else False, controls)


def _search(pred, lo: int, hi: int) -> int:
    """The largest k in lo..hi with pred(k) true, pred decreasing and pred(lo) true."""
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if pred(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def slam_facts(formulas: tuple[Node, ...], trump: str | None, avail: Available | None = None,
               patterns=None, hand: Hand | None = None) -> SlamFacts:
    """The slam facts of a seat whose calls say ``formulas`` (and-ed), over the unseen cards.

    ``patterns`` (the seat's possible patterns, if already known) only speeds the search;
    ``hand`` gives the facts of a known hand directly.  A seat no hand fits has no facts."""
    avail = avail if avail is not None else Available()
    if trump is not None and trump not in SUIT_WORDS:
        trump = None  # notrump is no trump suit
    if hand is not None:
        aces = sum(hand.has(s, "A") for s in "SHDC")
        kings = sum(hand.has(s, "K") for s in "SHDC")
        if trump is None:
            return SlamFacts(None, None, None, (2 * aces + kings,) * 2)
        kc = aces + int(hand.has(trump, "K"))
        return SlamFacts(trump, (kc,), hand.has(trump, "Q"), (2 * aces + kings,) * 2)
    formula = conj(formulas) if formulas else TRUE
    if formula == TRUE:
        return _free_facts(trump, avail)
    pats = tuple(sorted(patterns)) if patterns is not None else None
    counted = _counted(formula, trump, avail, pats)
    if counted is not None:
        return counted
    if not _fits(formula, TRUE, avail, pats):
        return SlamFacts(trump, None, None, None)
    lo = 12 - _search(lambda k: _fits(formula, parse(f"controls <= {12 - k}"), avail, pats), 0, 12)
    hi = _search(lambda k: _fits(formula, parse(f"controls >= {k}"), avail, pats), 0, 12)
    if trump is None:
        return SlamFacts(None, None, None, (lo, hi))
    values = tuple(k for k in range(6) if _fits(formula, keycards_formula(trump, k), avail, pats))
    with_q = _fits(formula, parse(f"hasQ({trump})"), avail, pats)
    without_q = _fits(formula, parse(f"not hasQ({trump})"), avail, pats)
    queen = None if with_q and without_q else with_q
    return SlamFacts(trump, values, queen, (lo, hi))
