"""The 52 cards as arrays: which seat holds each card in n deals, each seat's holding classes,
the truth of a formula on them, and what one seat is seen to hold (:class:`SeatView`).

A deal is a row of 52 owners (card index = suit * 13 + rank, A = 0 .. 2 = 12); the joint engine
(:mod:`canary_infer.deal.joint`) and its proof search (:mod:`canary_infer.deal.bounds`) both read
deals through this module.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import chain

import numpy as np

from canary_infer.bridge.cards import HCP, RANKS, SEATS, SUITS, Deal, Hand
from canary_infer.engine import kernels
from canary_infer.engine.tables import Available, _truth, class_table, suit_classes
from canary_infer.language.expr import TRUE, Node

RANK_HCP = np.array([HCP.get(r, 0) for r in RANKS], np.int64)  # A K Q J = 4 3 2 1, in RANKS order
CARD_HCP = np.tile(RANK_HCP, 4)  # card index = suit * 13 + rank (A=0 .. 2=12)
CARD_SUIT = np.repeat(np.arange(4), 13)
CARD_RANK = np.tile(np.arange(13), 4)
_BITS = np.array([1 << r if r < 6 else 0 for r in range(13)], np.int64)


# --------------------------------------------------------------------------- hands as arrays
def _table(name: str) -> np.ndarray:
    return class_table(name)


def classes_of(owner: np.ndarray, seat: int) -> np.ndarray:
    """(n, 4) holding classes (length * 64 + top-card mask) of one seat in n deals."""
    if kernels.compiled is not None and owner.dtype == np.int8:
        return kernels.compiled.classes(np.ascontiguousarray(owner), seat)
    held = (owner == seat).reshape(len(owner), 4, 13)
    lengths = held.sum(axis=2)
    masks = (held * _BITS.reshape(1, 1, 13)).sum(axis=2)
    return lengths * 64 + masks


def holds(formula: Node, cls: np.ndarray) -> np.ndarray:
    """The exact truth of a formula on n hands given as (n, 4) holding classes."""
    if formula == TRUE:
        return np.ones(len(cls), bool)
    cache: dict = {}

    def column(f):
        key = (f.name, f.suit)
        if key not in cache:
            t = _table(f.name)
            if f.suit is not None:
                cache[key] = t[cls[:, SUITS.index(f.suit)]]
            else:
                cache[key] = t[cls].sum(axis=1)
        return cache[key]

    return _truth(formula, len(cls), column)


def hand_of(owner_row: np.ndarray, seat: int) -> Hand:
    idx = np.flatnonzero(owner_row == seat)
    return Hand([(SUITS[i // 13], RANKS[i % 13]) for i in idx])


def deal_of(owner_row: np.ndarray) -> Deal:
    return Deal({s: hand_of(owner_row, k) for k, s in enumerate(SEATS)})


def _card_mask(hand: Hand) -> np.ndarray:
    m = np.zeros(52, bool)
    for s, r in hand.cards:
        m[SUITS.index(s) * 13 + RANKS.index(r)] = True
    return m


def _available(unseen: np.ndarray) -> Available:
    hon, small = [], []
    for si in range(4):
        u = unseen[si * 13:(si + 1) * 13]
        hon.append(int(sum(1 << r for r in range(6) if u[r])))
        small.append(int(u[6:].sum()))
    return Available(tuple(hon), tuple(small))


@dataclass
class SeatView:
    """What one seat can hold in the deals consistent with the whole auction."""

    seat: str
    hcp: tuple[int, int] | None
    patterns: dict[tuple[int, int, int, int], float]  # pattern -> weight (deals, or deals drawn)
    proven: bool = True
    unproven: list[str] = field(default_factory=list)
    known: bool = False
    # each suit's (least, most) length over the patterns, when the maker knows it already
    span: dict[str, tuple[int, int]] | None = field(default=None, repr=False, compare=False)

    @property
    def consistent(self) -> bool:
        return bool(self.patterns)

    def lengths(self) -> dict[str, tuple[int, int]] | None:
        if not self.patterns:
            return None
        if self.span is None:
            a = np.fromiter(chain.from_iterable(self.patterns), np.int64, 4 * len(self.patterns)).reshape(-1, 4)
            self.span = _span(a)
        return dict(self.span)


def _span(lengths: np.ndarray) -> dict[str, tuple[int, int]]:
    """Each suit's least and most length over rows of four suit lengths."""
    lo, hi = lengths.min(axis=0), lengths.max(axis=0)
    return {s: (int(lo[i]), int(hi[i])) for i, s in enumerate(SUITS)}


def random_cards(free: np.ndarray, want: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(n, 4, 13) booleans: in each row, ``want[:, s]`` cards of suit s taken at random among
    the ``free`` ones ((n, 4, 13) booleans, at least that many free in each suit)."""
    keys = np.where(free, rng.random(free.shape), 2.0)
    rank = np.argsort(np.argsort(keys, axis=2), axis=2)
    return rank < want[:, :, None]


_POPCOUNT = np.array([bin(m).count("1") for m in range(64)], np.int64)


def place_classes(owner: np.ndarray, cls: np.ndarray, seat: int, avail: Available, cards: np.ndarray,
                  rng: np.random.Generator) -> None:
    """Give a seat, in each row of ``owner``, the cards of its sampled holding classes (``cls``:
    (n, 4) indices into :func:`suit_classes` of ``avail``): its top cards by the class's mask,
    its small cards at random among those of the 52 booleans ``cards`` (the cards ``avail``
    counts)."""
    n = len(owner)
    compiled = kernels.compiled is not None and owner.dtype == np.int8 and owner.flags.c_contiguous
    for si in range(4):
        ls, ms, _ = suit_classes(avail, si)
        length, mask = ls[cls[:, si]], ms[cls[:, si]]
        small = np.array([si * 13 + r for r in range(6, 13) if cards[si * 13 + r]], np.int64)
        keys = rng.random((n, len(small))) if len(small) else np.zeros((n, 0))  # (none drawn for no cards)
        if compiled:  # the same cards from the same keys
            kernels.compiled.place_suit(owner, length, mask, si, keys, small, seat)
            continue
        for r in range(6):
            owner[(mask >> r) & 1 == 1, si * 13 + r] = seat
        if not len(small):
            continue
        take = np.argsort(keys, axis=1) < (length - _POPCOUNT[mask])[:, None]
        cols = small
        owner[:, cols] = np.where(take, seat, owner[:, cols])
