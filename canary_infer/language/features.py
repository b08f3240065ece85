"""Hand features: each defined once, per suit holding, with two faces.

Every feature the system notes use is a function of the holdings in the four suits, and of
each holding only through its length and which of the cards A K Q J T 9 it contains (no
feature in the notes tells an 8 from a 2).  A *holding class* is therefore the pair
``(length, mask)`` where bit 0 of ``mask`` is the ace, bit 1 the king, ... bit 5 the nine.

Each :class:`Feature` gives

* ``per_suit(length, mask)``: the exact value on one holding (the evaluator's face, applied
  to a concrete :class:`~canary_infer.bridge.cards.Hand` by :meth:`Feature.value`), and
* ``encode(model, hand_vars, suit)``: a CP-SAT expression over the card booleans of one
  hand (the solver's face): linear where the feature is linear in the cards, a table
  constraint over the length and the top cards otherwise.

A feature is either *total* (summed over the four suits: ``hcp``, ``losers``) or *of a suit*
(``hcp(S)``, ``control(H)``).  Fractional features are kept exact as integers in a unit:
Roman losers in quarters, quick tricks in halves.

    >>> from canary_infer.bridge.cards import Hand
    >>> h = Hand.from_pbn("AKQ83.J2.K4.QT92")
    >>> FEATURES["hcp"].value(h), FEATURES["losers"].value(h) / 4, FEATURES["qt"].value(h) / 2
    (15, 5.75, 2.5)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from math import comb

from canary_infer.bridge.cards import HCP, RANKS, SUITS

TOP = "AKQJT9"
BIT = {r: 1 << i for i, r in enumerate(TOP)}
A, K, Q, J, T, N9 = (BIT[r] for r in TOP)
SMALL_CARDS = 13 - len(TOP)  # the 8..2 of a suit, which no feature tells apart


def _has(mask: int, bit: int) -> bool:
    return bool(mask & bit)


def hcp_of(length: int, mask: int) -> int:
    """Milton Work points: A=4 K=3 Q=2 J=1."""
    return 4 * _has(mask, A) + 3 * _has(mask, K) + 2 * _has(mask, Q) + _has(mask, J)


def losers_q(length: int, mask: int) -> int:
    """Roman (Belladonna-Avarelli Courtney) losers of one suit, in quarters.

    The notes' rules [A68-74]: each missing A, K or Q is a loser (among the top
    min(length, 3) cards), a K with no honour above the ten beside it is a quarter loser
    more, a Q with none a half more, and no suit has more than 3 losers (nor more losers
    than cards).  The notes' table of 27 holdings is a test of this function.

    >>> [losers_q(n, m) / 4 for n, m in ((2, K), (3, K), (2, K | T), (2, Q), (3, Q | T))]
    [1.25, 2.25, 1.25, 2.0, 2.5]
    """
    if length == 0:
        return 0
    top = (A, K, Q)[: min(length, 3)]
    q = 4 * sum(1 for b in top if not mask & b)
    if mask & K and not mask & (A | Q | J):
        q += 1
    if mask & Q and not mask & (A | K | J):
        q += 2
    return min(q, 4 * min(length, 3))


def quick_tricks_h(length: int, mask: int) -> int:
    """Quick tricks of one suit, in halves.  Interpretation (the notes use the word but do not
    define it, [A108-111]): the standard scale AK = 2, AQ = 1½, A = 1, KQ = 1, Kx = ½."""
    a, k, q = _has(mask, A), _has(mask, K), _has(mask, Q)
    if a and k:
        return 4
    if a and q:
        return 3
    if a:
        return 2
    if k and q:
        return 2
    if k and length >= 2:
        return 1
    return 0


def stopper_of(length: int, mask: int) -> int:
    """Interpretation (stoppers are used but never defined): A, Kx, Qxx or Jxxx or better."""
    return int(
        _has(mask, A)
        or (_has(mask, K) and length >= 2)
        or (_has(mask, Q) and length >= 3)
        or (_has(mask, J) and length >= 4)
    )


def top3_of(length: int, mask: int) -> int:
    """High honours held: how many of A, K, Q (the notes' "\\H")."""
    return _has(mask, A) + _has(mask, K) + _has(mask, Q)


@dataclass(frozen=True)
class Feature:
    """One hand feature.

    ``name``: the word used in system files; ``per_suit``: its value on one holding;
    ``scale``: how many units make one (4 for losers, 2 for quick tricks, else 1);
    ``of_suit``: True for features written ``name(S)`` that look at one suit only, False
    for totals over the hand (which may still take a suit, as the trump suit of
    ``keycards(S)``); ``linear``: per-card weights (rank -> weight) when the feature is
    linear in the cards, which gives the CP-SAT face without a table; ``boolean``: 0/1.
    """

    name: str
    doc: str
    per_suit: Callable[[int, int], int]
    scale: int = 1
    of_suit: bool = False
    linear: dict[str, int] | None = None
    boolean: bool = False
    lo: int = 0
    hi: int = 13  # bounds of the per-suit value

    def suit_value(self, hand, suit: str) -> int:
        return self.per_suit(*holding_class(hand, suit))

    def value(self, hand, suit: str | None = None) -> int:
        """Exact value on a concrete hand, in units (see ``scale``)."""
        if suit is not None:
            return self.suit_value(hand, suit)
        if self.of_suit:
            raise ValueError(f"{self.name} is a feature of one suit: give the suit")
        return sum(self.suit_value(hand, s) for s in SUITS)


def holding_class(hand, suit: str) -> tuple[int, int]:
    """The (length, mask) class of one suit of a concrete hand."""
    cards = hand.suit(suit)
    mask = 0
    for r in cards:
        mask |= BIT.get(r, 0)
    return len(cards), mask


def _bit(rank: str) -> Callable[[int, int], int]:
    b = BIT[rank]
    return lambda n, m: int(bool(m & b))


FEATURES: dict[str, Feature] = {}


def _add(f: Feature) -> None:
    FEATURES[f.name] = f


_add(Feature("len", "number of cards in the suit", lambda n, m: n, of_suit=True,
             linear={r: 1 for r in RANKS}))
_add(Feature("hcp", "high-card points, A=4 K=3 Q=2 J=1 (total, or hcp(S) for one suit)", hcp_of,
             linear=HCP, hi=10))
_add(Feature("losers", "Roman losers (total, or losers(S)), kept in quarters", losers_q, scale=4, hi=12))
_add(Feature("qt", "quick tricks, AK=2 AQ=1.5 A=1 KQ=1 Kx=0.5 (interpretation), in halves",
             quick_tricks_h, scale=2, hi=4))
_add(Feature("controls", "controls, A=2 K=1 (interpretation of the 2D control steps)",
             lambda n, m: 2 * _has(m, A) + _has(m, K), linear={"A": 2, "K": 1}, hi=3))
_add(Feature("aces", "aces held", _bit("A"), linear={"A": 1}, hi=1))
_add(Feature("kings", "kings held", _bit("K"), linear={"K": 1}, hi=1))
_add(Feature("queens", "queens held", _bit("Q"), linear={"Q": 1}, hi=1))
_add(Feature("queens2", "queens held, a singleton queen not counted [A1070]",
             lambda n, m: int(bool(m & Q) and n >= 2), hi=1))
_add(Feature("top3", "high honours (A, K, Q) in the suit: the notes' \\H", top3_of, of_suit=True,
             linear={"A": 1, "K": 1, "Q": 1}, hi=3))
_add(Feature("honours", "honours (A, K, Q, J, T) in the suit", lambda n, m: bin(m & 0b11111).count("1"),
             of_suit=True, linear={r: 1 for r in "AKQJT"}, hi=5))
_add(Feature("control", "cue-bid control in the suit: A, K, singleton or void [A74]",
             lambda n, m: int(bool(m & (A | K)) or n <= 1), of_suit=True, boolean=True, hi=1))
_add(Feature("stopper", "a stopper: A, Kx, Qxx or Jxxx (interpretation)", stopper_of, of_suit=True,
             boolean=True, hi=1))
for _r, _word in zip(TOP, ("ace", "king", "queen", "jack", "ten", "nine"), strict=True):
    _add(Feature(f"has{_r}", f"holds the {_word} of the suit", _bit(_r), of_suit=True,
                 linear={_r: 1}, boolean=True, hi=1))


@cache
def classes(length: int, small_available: int = SMALL_CARDS, honours_available: int = 0b111111):
    """All holding classes of one length as (mask, count): count is the number of actual
    holdings (choices of the small cards) in that class.

    >>> sum(c for _, c in classes(13))
    1
    >>> sum(c for _, c in classes(4)) == comb(13, 4)
    True
    """
    out = []
    for mask in range(64):
        if mask & ~honours_available:
            continue
        small = length - bin(mask).count("1")
        if 0 <= small <= small_available:
            out.append((mask, comb(small_available, small)))
    return tuple(out)
