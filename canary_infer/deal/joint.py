"""The deal-level engine: what every seat can hold, given every seat's calls and the 52 cards.

Each seat's calls give a formula over its own hand (:mod:`canary_infer.engine.tables` solves one seat
exactly); the four hands share the deck, so every seat's answer depends on the others'.  A
:class:`Joint` takes the formulas of the seats whose calls constrain them, and optionally my
own hand, and answers for all four seats:

* **ranges and pattern sets**, exact: every reported bound and pattern is attained by some deal
  consistent with all the calls, and nothing consistent is left out;
* **distributions** (suit lengths, HCP, patterns) with the exact integer counts of deals behind
  them where the computation is exact, else estimated from the exact sampler with a standard
  error;
* **questions** in the constraint language ("what is the chance that North holds 4+ hearts");
* **deals** drawn uniformly from all consistent deals (:meth:`Joint.sample`).

Which cases are exact
---------------------
*No constrained unseen seat, or one* (every uncontested auction once my hand is known, and any
auction where only one side's calls say anything): a deal is a hand of the constrained seat X
and a random split of what it leaves.  X's table (counts by pattern, HCP and the honours it
holds by rank) gives every seat's distribution exactly by combinatorics: the others' patterns
by the per-suit hypergeometric product over X's patterns, their HCP by what X leaves of each
honour rank.  All counts are exact integers (they pass 2**53: computed in float64 and modulo
2**64 at once, then put together).

*Two or more constrained unseen seats* (competition, passes that deny openings): the ranges
and pattern sets are still exact.  An outer bound comes from the seats' own answers and the
deck (suit lengths and HCP add up: per pattern, the other seats' least and most HCP); an inner
bound from deals actually drawn (witnesses), first at random, then aimed at each pattern or
bound not yet seen.  Where the two meet, the answer is proven; what is left is decided by the
card-level CP-SAT model of the whole deal within a time limit, and anything still open is
reported (kept in the answer, so nothing consistent is left out) as not proven.  Distributions
and questions are then estimated from the exact sampler, with their standard errors.

    >>> from canary_infer.language.expr import parse
    >>> j = Joint({"N": parse("hcp >= 20")})
    >>> j.seat("N").hcp, j.seat("E").hcp, j.exact
    ((20, 37), (0, 20), True)
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from canary_infer.bridge.cards import SEATS, SUITS, Hand
from canary_infer.deal import DEFAULT_BUDGET
from canary_infer.deal.deck import (
    CARD_HCP,
    RANK_HCP,
    SeatView,
    _available,
    _card_mask,
    _span,
    classes_of,
    deal_of,
    hand_of,
    holds,
    place_classes,
    random_cards,
)
from canary_infer.engine.tables import (
    ALL_PATTERNS,
    NHCP,
    PAT_INDEX,
    PAT_LENGTHS,
    RADIX14,
    Available,
    SeatTable,
    _truth,
    build_seat,
    free_ph,
    unique,
)
from canary_infer.language.expr import TRUE, Node, conj, evaluate, hcp_only, lengths_only

_TWO64 = 1 << 64


# --------------------------------------------------------------------------- exact big counts
class Big:
    """Nonnegative integer arrays too large for float64, kept twice: as float64 (close) and as
    uint64 (exact modulo 2**64); together they give the exact integers.  Sums and products of
    nonnegative terms keep the float close enough (relative error ~1e-12, far below 2**62)."""

    __slots__ = ("f", "m")

    def __init__(self, f: np.ndarray, m: np.ndarray):
        self.f, self.m = f, m

    @classmethod
    def of(cls, a) -> Big:
        a = np.asarray(a)
        return cls(a.astype(np.float64), np.rint(a).astype(np.uint64) if a.dtype.kind == "f" else a.astype(np.uint64))

    def dot(self, other: Big) -> Big:
        """Contract the first axis of self with the first axis of other (which moves last)."""
        with np.errstate(over="ignore"):  # modulo 2**64 by design
            return Big(np.einsum("a...,ae->...e", self.f, other.f), np.einsum("a...,ae->...e", self.m, other.m))

    def ints(self) -> list[int]:
        out = []
        for fv, mv in zip(self.f.ravel().tolist(), self.m.ravel().tolist(), strict=True):
            k = round((fv - mv) / _TWO64)
            out.append(mv + k * _TWO64)
        return out


def _multinomial(cards: int, hands: int) -> int:
    """Ways to deal ``cards`` cards into ``hands`` hands of 13 (cards == 13 * hands)."""
    out = 1
    for k in range(hands):
        out *= math.comb(cards - 13 * k, 13)
    return out


_HYPER = [np.array([[math.comb(u - q, p) if q <= u and p <= u - q else 0 for p in range(14)] for q in range(14)],
                   np.float64) for u in range(14)]  # _HYPER[u][q, p]: p of the u - q cards left
_SUB = np.array([(a, k, q, j) for a in range(5) for k in range(5) for q in range(5) for j in range(5)], np.int64)
_SUB_N = _SUB.sum(axis=1)
_SUB_H = _SUB @ RANK_HCP[:4]
_BINOM = np.array([[math.comb(n, k) for k in range(53)] for n in range(53)], np.float64)
_ONEHOT = np.zeros((len(_SUB), NHCP))
_ONEHOT[np.arange(len(_SUB)), np.minimum(_SUB_H, NHCP - 1)] = _SUB_H < NHCP


def _free_hcp_matrix(comps: np.ndarray, cards: int) -> np.ndarray:
    """HCP distributions (counts, float64, exact: each at most C(39, 13)) of a 13-card hand
    drawn from ``cards`` cards holding comps[i] = (aces, kings, queens, jacks), for every i."""
    comps = np.asarray(comps, np.int64)
    ways = np.ones((len(comps), len(_SUB)))
    for r in range(4):
        ways *= _BINOM[comps[:, r][:, None], _SUB[None, :, r]]
    small = cards - comps.sum(axis=1)
    need = 13 - _SUB_N
    ways *= np.where(need[None, :] >= 0, _BINOM[small[:, None], np.maximum(need, 0)[None, :]], 0.0)
    return ways @ _ONEHOT


@lru_cache(maxsize=64)
def free_result(avail: Available):
    """What a hand with no constraint can be, from the unseen cards (``avail``): every pattern
    the suits allow, with its number of hands, and the HCP range: by combinatorics."""
    from canary_infer.engine.tables import Result

    u = [int(avail.small[si]) + bin(avail.honours[si]).count("1") for si in range(4)]
    pats = {}
    for p in ALL_PATTERNS:
        n = math.prod(math.comb(u[k], p[k]) for k in range(4))
        if n:
            pats[p] = float(n)
    comp = tuple(sum(1 for si in range(4) if avail.honours[si] >> r & 1) for r in range(4))
    lo, hi = _top13(comp, sum(u))
    return Result(pats, (lo, hi), float(math.comb(sum(u), 13)))


def _top13(comp, cards: int) -> tuple[int, int]:
    """Least and most HCP of a 13-card hand from ``cards`` cards holding comp honours."""
    values = [4] * comp[0] + [3] * comp[1] + [2] * comp[2] + [1] * comp[3]
    values += [0] * (cards - len(values))
    values.sort()
    return sum(values[:13]), sum(values[-13:])


# --------------------------------------------------------------------------- hands as arrays
# --------------------------------------------------------------------------- answers
@dataclass
class Distribution:
    """One seat's distributions: counts of deals by each suit's length, HCP and pattern.

    Exact (``exact``) counts are integers of deals out of ``total``; otherwise they are the
    counts among ``total`` deals drawn by the exact sampler, and ``se`` gives each
    probability's standard error."""

    lengths: dict[str, dict[int, int]]
    hcp: dict[int, int]
    patterns: dict[str, int]
    total: int
    exact: bool

    def probabilities(self) -> dict:
        t = self.total or 1
        return {"lengths": {s: {str(k): v / t for k, v in d.items()} for s, d in self.lengths.items()},
                "hcp": {str(k): v / t for k, v in self.hcp.items()},
                "patterns": {k: v / t for k, v in self.patterns.items()}}

    def counts(self) -> dict:
        return {"lengths": {s: {str(k): v for k, v in d.items()} for s, d in self.lengths.items()},
                "hcp": {str(k): v for k, v in self.hcp.items()},
                "patterns": dict(self.patterns)}

    def standard_errors(self) -> dict | None:
        if self.exact:
            return None
        t = self.total or 1

        def se(v):
            p = v / t
            return math.sqrt(p * (1 - p) / t)

        return {"lengths": {s: {str(k): se(v) for k, v in d.items()} for s, d in self.lengths.items()},
                "hcp": {str(k): se(v) for k, v in self.hcp.items()},
                "patterns": {k: se(v) for k, v in self.patterns.items()}}


def _distribution(pattern_counts: list[int] | np.ndarray, hcp_counts: list[int] | np.ndarray,
                  total: int, exact: bool) -> Distribution:
    pats, lens = {}, {s: {} for s in SUITS}
    for i, c in enumerate(pattern_counts):
        c = int(c)
        if c:
            p = ALL_PATTERNS[i]
            pats["-".join(map(str, p))] = c
            for si, s in enumerate(SUITS):
                lens[s][p[si]] = lens[s].get(p[si], 0) + c
    hcp = {h: int(c) for h, c in enumerate(hcp_counts) if int(c)}
    order = sorted(pats, key=lambda k: -pats[k])
    return Distribution({s: dict(sorted(d.items())) for s, d in lens.items()}, hcp, {k: pats[k] for k in order},
                        total, exact)


@dataclass
class Answer:
    """The probability that a seat's hand satisfies a formula, over the consistent deals."""

    question: str
    seat: str
    count: int
    of: int
    exact: bool
    se: float | None = None

    @property
    def probability(self) -> float:
        return self.count / self.of if self.of else 0.0

    def as_json(self) -> dict:
        out = {"question": self.question, "probability": self.probability, "count": self.count, "of": self.of,
               "exact": self.exact}
        if self.se is not None:
            out["standard_error"] = self.se
        return out


# --------------------------------------------------------------------------- dealing by shape
_COMB = np.array([[math.comb(n, k) for k in range(14)] for n in range(14)], np.float64)


class _ShapePlan:
    """The seats whose calls look at suit lengths only, dealt exactly from what is left.

    ``ways[i][cell]`` is the number of ways to deal seats i, i+1, ... (lengths only) from cards
    with per-suit counts given by the cell of the 14^4 grid, the seats after them taking the
    rest (only the cells with the right number of cards are filled)."""

    def __init__(self, j: Joint, seats: list[str], rest_seats: int, anchor: str | None = None):
        self.j, self.seats = j, seats
        self.u = j._u_lengths()
        self.pats = {s: np.flatnonzero(j.tables[s].ph.sum(axis=1) > 0) for s in seats}
        after = 13 * rest_seats  # cards left once these seats are dealt
        # Only the cells that can be read are filled: the first seat's are what the anchor's
        # patterns leave of the unseen cards (or the unseen cards, with no anchor), each next
        # seat's those less a pattern of the seat before.  A cell's ways are summed over the
        # seat's patterns in their order, as over the whole grid: the same numbers.
        if anchor is None:
            start = self.u[None, :]
        else:
            self.anchor_pats = np.flatnonzero(j.tables[anchor].ph.sum(axis=1) > 0)
            start = self.u[None, :] - PAT_LENGTHS[self.anchor_pats]
        start = start[(start >= 0).all(axis=1) & (start.sum(axis=1) == after + 13 * len(seats))]
        reach = [unique(start @ RADIX14)]
        moves = []  # per seat: its cells, each cell less each pattern, and which of those fit
        for s in seats:
            cells = np.stack([(reach[-1] // q) % 14 for q in RADIX14], axis=1)
            less = cells[:, None, :] - PAT_LENGTHS[self.pats[s]][None, :, :]
            fits = (less >= 0).all(axis=2)
            moves.append((cells, less, fits))
            reach.append(unique(less[fits] @ RADIX14))
        last = np.zeros(14 ** 4)
        last[reach[-1]] = 1.0
        self.ways = [last]
        for k in range(len(seats) - 1, -1, -1):
            cells, less, fits = moves[k]
            p = PAT_LENGTHS[self.pats[seats[k]]]
            terms = np.zeros(fits.shape)
            c, i = np.nonzero(fits)
            terms[c, i] = _COMB[cells[c], p[i]].prod(axis=1) * self.ways[0][less[c, i] @ RADIX14]
            w = np.zeros(14 ** 4)
            if terms.shape[1]:  # added up pattern after pattern (a running sum): as one by one
                w[reach[k]] = np.cumsum(terms, axis=1)[:, -1]
            self.ways.insert(0, w)

    def total(self) -> float:
        return float(self.ways[0][self.u @ RADIX14])

    def anchor_weights(self) -> np.ndarray:
        """Per pattern of the anchor: the ways to deal these seats from what it leaves."""
        left = self.u[None, :] - PAT_LENGTHS[self.anchor_pats]
        ok = (left >= 0).all(axis=1)
        w = np.zeros(len(ALL_PATTERNS))
        w[self.anchor_pats[ok]] = self.ways[0][left[ok] @ RADIX14]
        return w

    def place(self, owner: np.ndarray, rng: np.random.Generator) -> None:
        """Give each of these seats a pattern (weighted by the ways to go on) and random cards of
        those lengths among the cards nobody holds yet."""
        n = len(owner)
        for k, s in enumerate(self.seats):
            free = (owner < 0).reshape(n, 4, 13)
            r = free.sum(axis=2)
            p = PAT_LENGTHS[self.pats[s]]  # (P, 4)
            want = np.zeros((n, 4), np.int64)
            codes, inv = unique(r @ RADIX14, inverse=True)
            inv = inv.ravel()
            for g in range(len(codes)):
                members = np.flatnonzero(inv == g)
                rg = r[members[0]]
                fits = (p <= rg).all(axis=1)
                w = np.where(fits, _COMB[rg[None, :], np.minimum(p, 13)].prod(axis=1), 0.0)
                w[fits] *= self.ways[k + 1][(rg - p[fits]) @ RADIX14]
                cum = np.cumsum(w)
                pick = np.minimum(np.searchsorted(cum, rng.random(len(members)) * cum[-1], side="right"), len(p) - 1)
                want[members] = p[pick]
            owner[random_cards(free, want, rng).reshape(n, 52)] = SEATS.index(s)


# --------------------------------------------------------------------------- the engine
DRAW_FACTOR = 100
"""Deals dealt at most per deal wanted for the estimates (two million for 20,000 samples)."""


class Joint:
    """Joint inference over the four hands.

    ``formulas``: seat -> the formula of its calls (seats absent, or TRUE, are unconstrained);
    ``known``: (seat, hand) for my own hand; ``tables``: single-seat tables already solved
    for these formulas over the unseen cards (they are built when missing); ``seed`` makes the
    sampling behind estimates and witnesses reproducible; ``budget`` bounds, in seconds of work
    counted (not clocked), the whole answer when two or more unseen seats are constrained: the
    constrained seats' tables (their :attr:`SeatTable.work`, counted whether they were built
    here or before) and the search for witnesses and proofs, which gets what they leave;
    ``free_table``, if given, supplies the table of every hand of the unseen cards (a caller
    that keeps one need not have it built again); ``grids``, if given, is where the outer
    bound keeps and finds its grids of summed lengths (:func:`bounds.outer_bounds`: they depend
    on the tables' contents only, so answers to auctions that share passes share them)."""

    def __init__(self, formulas: dict[str, Node], known: tuple[str, Hand] | None = None,
                 tables: dict[str, SeatTable] | None = None, seed: int = 0, budget: float = DEFAULT_BUDGET,
                 free_table: Callable[[], SeatTable] | None = None, grids: dict | None = None):
        self.known = known
        self.unseen = np.ones(52, bool)
        if known is not None:
            self.unseen &= ~_card_mask(known[1])
        self.avail = _available(self.unseen)
        self.formulas = {s: f for s, f in formulas.items() if f != TRUE and (known is None or s != known[0])}
        self.unseen_seats = [s for s in SEATS if known is None or s != known[0]]
        self.constrained = [s for s in self.unseen_seats if s in self.formulas]
        self.free = [s for s in self.unseen_seats if s not in self.formulas]
        self.seed, self.budget = seed, budget
        self.tables: dict[str, SeatTable] = {}
        lite = self.lite_cap(known) if len(self.constrained) == 1 else None
        for s in self.constrained:
            t = (tables or {}).get(s)
            if t is None:
                t = build_seat(self.formulas[s], self.avail, lite=lite)
            if t is None:
                raise ValueError(f"the constraints of {s} are too wide for the packed engine")
            self.tables[s] = t
        # the tables' work, each table once (seats with the same calls share one)
        self.table_work = sum({id(t): t.work for t in self.tables.values()}.values())
        self.work: float | None = None  # what the deal-level search counted in all (given by bounds.joint_views)
        self.outer_work = 0.0  # the outer bound's work (given by bounds.joint_views)
        self.tried = 0  # deals dealt by the last draw (by sample, or the deal-level search's first)
        self._free_table = None
        self._free_source = free_table
        self.grids = grids
        self._views: dict[str, SeatView] | None = None
        self._exact: dict = {}
        self._sample_cache: tuple[int, np.ndarray] | None = None

    @staticmethod
    def lite_cap(known: tuple[str, Hand] | None) -> int | None:
        """With one constrained seat X: X's honour count matters to the others' HCP range only
        below this cap (they hold the rest, and 13 cards take at most 13 honours); None if it
        never matters.  A table built with ``lite=cap`` (or full honour columns) answers it."""
        honours = 16 - (sum(1 for _, r in known[1].cards if r in "AKQJ") if known else 0)
        return honours - 13 if honours > 13 else None

    # ------------------------------------------------------------------ basic facts
    @property
    def exact(self) -> bool:
        """Whether distributions, counts and questions are exact (at most one constrained
        unseen seat); ranges and patterns are exact in every case that is proven."""
        return len(self.constrained) <= 1

    @property
    def consistent(self) -> bool:
        """Whether some deal fits every constrained seat's calls (and my hand)."""
        return all(t.hands > 0 for t in self.tables.values()) and all(
            v.consistent for v in self._seat_views().values())

    def _u_lengths(self) -> np.ndarray:
        return self.unseen.reshape(4, 13).sum(axis=1)

    def _u_comp(self) -> tuple[int, int, int, int]:
        u = self.unseen.reshape(4, 13)
        return tuple(int(u[:, r].sum()) for r in range(4))

    @property
    def deals(self) -> int | None:
        """The exact number of deals consistent with the calls (and my hand), if known."""
        if not self.exact:
            return None
        nu, nfree = int(self.unseen.sum()), len(self.free)
        if not self.constrained:
            return _multinomial(nu, nfree)
        return int(round(self.tables[self.constrained[0]].hands)) * _multinomial(nu - 13, nfree)

    # ------------------------------------------------------------------ exact path (m <= 1)
    def _exact_patterns(self) -> dict[str, list[int]]:
        """Exact deal counts by pattern, per unseen seat."""
        if "pattern" in self._exact:
            return self._exact["pattern"]
        nu, nfree = int(self.unseen.sum()), len(self.free)
        u = self._u_lengths()
        out: dict[str, list[int]] = {}
        if not self.constrained:
            rest = _multinomial(nu - 13, nfree - 1)
            ways = [math.prod(math.comb(int(u[k]), p[k]) for k in range(4)) for p in ALL_PATTERNS]
            for s in self.free:
                out[s] = [w * rest for w in ways]
        else:
            (x,) = self.constrained
            t = self.tables[x]
            m_f = _multinomial(nu - 13, nfree)
            m_rest = _multinomial(nu - 26, nfree - 1)
            ph = t.ph.sum(axis=1)
            out[x] = [int(round(v)) * m_f for v in ph]
            # the free seats' patterns: X's pattern counts times the hypergeometric product
            n_q = np.zeros((14, 14, 14, 14))
            for i in np.flatnonzero(ph):
                n_q[ALL_PATTERNS[i]] = ph[i]
            big = Big.of(n_q)
            for si in range(4):
                b = np.zeros((14, 14))
                for q in range(int(u[si]) + 1):
                    for p in range(int(u[si]) - q + 1):
                        b[q, p] = math.comb(int(u[si]) - q, p)
                big = big.dot(Big.of(b))  # the contracted axis moves to the end
            vals = Big(big.f[tuple(PAT_LENGTHS.T)], big.m[tuple(PAT_LENGTHS.T)]).ints()
            for s in self.free:
                out[s] = [v * m_rest for v in vals]
        self._exact["pattern"] = out
        return out

    def _pattern_weights(self) -> dict[str, np.ndarray]:
        """Deal counts by pattern per unseen seat, in float64 (exact where nonzero, close in
        value): what the ranges and the order of the patterns need."""
        if "weights" in self._exact:
            return self._exact["weights"]
        if "pattern" in self._exact or not self.constrained:
            out = {s: np.array([float(v) for v in c]) for s, c in self._exact_patterns().items()}
        else:
            (x,) = self.constrained
            u = self._u_lengths()
            ph = self.tables[x].ph.sum(axis=1)
            # a free seat's pattern q after X's pattern p: per suit, q_s of the u_s - p_s cards
            # X leaves; summed over X's patterns, from the pairs (p, q) directly (X has few)
            nz = np.flatnonzero(ph)
            if len(nz) <= 64:
                w = np.repeat(ph[nz][:, None], len(ALL_PATTERNS), axis=1)
                for si in range(4):
                    w *= _HYPER[int(u[si])][PAT_LENGTHS[nz, si]][:, PAT_LENGTHS[:, si]]
                free = w.sum(axis=0)
            else:  # many: suit by suit over the grid of lengths (einsum: no BLAS threads)
                n_q = np.zeros((14, 14, 14, 14))
                n_q[tuple(PAT_LENGTHS[nz].T)] = ph[nz]
                for si in range(4):
                    n_q = np.einsum("a...,ae->...e", n_q, _HYPER[int(u[si])])
                free = n_q[tuple(PAT_LENGTHS.T)]
            out = {x: ph.astype(float)}
            for s in self.free:
                out[s] = free
        self._exact["weights"] = out
        return out

    def _exact_hcp(self) -> dict[str, list[int]]:
        """Exact deal counts by HCP, per unseen seat (X's table with its honours by rank)."""
        if "hcp" in self._exact:
            return self._exact["hcp"]
        nu, nfree = int(self.unseen.sum()), len(self.free)
        out: dict[str, list[int]] = {}
        if not self.constrained:
            rest = _multinomial(nu - 13, nfree - 1)
            d = _free_hcp_matrix(np.array([self._u_comp()]), nu)[0]
            for s in self.free:
                out[s] = [int(round(v)) * rest for v in d]
        else:
            (x,) = self.constrained
            t = self._full(x)
            m_f = _multinomial(nu - 13, nfree)
            m_rest = _multinomial(nu - 26, nfree - 1)
            out[x] = [int(round(v)) * m_f for v in t.ph.sum(axis=0)]
            comp = t.aux.sum(axis=-1)  # hands of X by (aces, kings, queens, jacks)
            idx = np.argwhere(comp > 0)
            left = np.array(self._u_comp())[None, :] - idx
            d = _free_hcp_matrix(left, nu - 13)
            free_h = [v * m_rest for v in Big.of(comp[tuple(idx.T)]).dot(Big.of(d)).ints()]
            for s in self.free:
                out[s] = free_h
        self._exact["hcp"] = out
        return out

    def _full(self, seat: str) -> SeatTable:
        """The seat's table with its honours by rank counted (built again if it lacks them)."""
        t = self.tables[seat]
        if t.aux_names != ("A", "K", "Q", "J"):
            t = self.tables[seat] = build_seat(self.formulas[seat], self.avail, aux=("A", "K", "Q", "J"))
        return t

    def _free_hcp_range(self) -> tuple[int, int] | None:
        """The least and most HCP of a free seat, exactly.

        The free seats share what X leaves, R; a 13-card hand from R holds at most all of R's
        honours (A K Q J) when R has 13 or fewer, else all but the lowest few, which are jacks:
        the unseen cards hold at least as many jacks as the honours X can leave in excess
        (the cap less X's honour count), since my hand holds no more jacks than honours.  So
        X's hands by HCP and honour count (capped) decide it; likewise for the least, when R
        has fewer small cards than a hand needs."""
        (x,) = self.constrained
        t = self.tables[x]
        nu = int(self.unseen.sum())
        hu = int((self._u_comp() * RANK_HCP[:4]).sum())
        cap = self.lite_cap(self.known)
        by_hcp = t.ph.sum(axis=0)
        if not by_hcp.any():
            return None
        least, most = int(np.flatnonzero(by_hcp)[0]), int(np.flatnonzero(by_hcp)[-1])
        if cap is None or least > 4 * (cap - 1):  # X always holds the cap's honours or more
            return 0, hu - least
        few_small = nu - 13 == 26  # two free seats share 26 cards: a hand takes all R's small ones
        # Each honour is worth at least 1, so no hand of X leaves a free hand more than hu - cap;
        # a hand of X without an honour (0 HCP) leaves exactly that.  A hand of X with more than
        # 4 * (cap - 1) HCP holds the cap's honours: R's honours then all fit in one hand.
        if least == 0 and (not few_small or most > 4 * (cap - 1)):
            return 0, hu - cap
        if t.aux_names == ("akqj",) and t.aux.shape[0] == cap + 1:
            entries = [(int(k), int(h)) for k, h in np.argwhere(t.aux > 0)]
        elif t.aux_names == ("A", "K", "Q", "J"):
            hist = t.aux
            entries = [(min(cap, int(a + k + q + j)), int(h)) for a, k, q, j, h in np.argwhere(hist > 0)]
        else:
            # X's hands with fewer honours than the cap (a small programme, by honour count),
            # and the others by HCP alone: all of X's hands less those
            lt = t.few_honours(cap, self.formulas[x], self.avail)
            entries = [(int(k), int(h)) for k, h in np.argwhere(lt.aux > 0)]
            entries += [(cap, int(h)) for h in np.flatnonzero(by_hcp - lt.ph.sum(axis=0) > 0.5)]
        lo, hi = 99, -1
        for k, h in entries:
            excess = max(0, cap - k)  # honours of R beyond 13, all jacks among the lowest
            hi = max(hi, hu - h - excess)
            lo = min(lo, excess if few_small else 0)
        return lo, hi

    # ------------------------------------------------------------------ ranges and patterns
    def seat(self, seat: str) -> SeatView:
        return self._seat_views()[seat]

    def _seat_views(self) -> dict[str, SeatView]:
        if self._views is not None:
            return self._views
        views: dict[str, SeatView] = {}
        if self.known is not None:
            s, h = self.known
            views[s] = SeatView(s, (h.hcp, h.hcp), {h.lengths: 1.0}, known=True)
        if self.exact:
            pats = self._pattern_weights()
            free_view = None  # the free seats are interchangeable: one view's contents for all
            for s in self.unseen_seats:
                if s in self.free and free_view is not None:
                    views[s] = SeatView(s, free_view.hcp, free_view.patterns, span=free_view.span)
                    continue
                pc = pats[s]
                nz = np.flatnonzero(pc)
                ps = dict(zip([ALL_PATTERNS[i] for i in nz.tolist()], pc[nz].tolist(), strict=True))
                span = _span(PAT_LENGTHS[nz]) if len(nz) else None
                if s in self.constrained:
                    hs = np.flatnonzero(self.tables[s].ph.sum(axis=0))
                    hcp = (int(hs[0]), int(hs[-1])) if len(hs) else None
                elif self.constrained:
                    hcp = self._free_hcp_range()
                else:
                    d = _free_hcp_matrix(np.array([self._u_comp()]), int(self.unseen.sum()))[0]
                    hs = np.flatnonzero(d)
                    hcp = (int(hs[0]), int(hs[-1]))
                views[s] = SeatView(s, hcp, ps, span=span)
                if s in self.free:
                    free_view = views[s]
            if self.deals == 0:
                for s in self.unseen_seats:
                    views[s] = SeatView(s, None, {})
        else:
            from canary_infer.deal.bounds import joint_views

            found = joint_views(self)
            self.work, self.tried, self.outer_work = found.work, found.tried, found.outer_work
            views.update(found.views)
        self._views = views
        return views

    # ------------------------------------------------------------------ distributions
    def distribution(self, seat: str, samples: int = 20000) -> Distribution:
        """Counts by suit length, HCP and pattern for one seat (exact, or from samples)."""
        if self.known is not None and seat == self.known[0]:
            h = self.known[1]
            pc = [0] * len(ALL_PATTERNS)
            pc[PAT_INDEX[h.lengths]] = 1
            hc = [0] * NHCP
            hc[h.hcp] = 1
            return _distribution(pc, hc, 1, True)
        if self.exact:
            return _distribution(self._exact_patterns()[seat], self._exact_hcp()[seat], self.deals, True)
        owner = self.drawn(samples)
        k = SEATS.index(seat)
        cls = classes_of(owner, k)
        lens = cls // 64
        pidx = np.array([PAT_INDEX[tuple(r)] for r in lens.tolist()], np.int64) if len(owner) else np.zeros(0, int)
        pc = np.bincount(pidx, minlength=len(ALL_PATTERNS))
        hc = np.bincount((owner == k).astype(np.int64) @ CARD_HCP, minlength=NHCP) if len(owner) else np.zeros(NHCP)
        return _distribution(pc, hc, len(owner), False)

    # ------------------------------------------------------------------ questions
    def ask(self, seat: str, formula: Node, question: str = "", samples: int = 20000) -> Answer:
        """The probability that ``seat``'s hand satisfies ``formula`` in a consistent deal."""
        question = question or f"{seat}: {formula}"
        if self.known is not None and seat == self.known[0]:
            ok = evaluate(formula, self.known[1])
            return Answer(question, seat, int(ok), 1, True)
        if self.exact:
            total = self.deals
            nu = int(self.unseen.sum())
            if seat in self.constrained:
                t = build_seat(conj([self.formulas[seat], formula]), self.avail)
                if t is not None:
                    return Answer(question, seat, int(round(t.hands)) * _multinomial(nu - 13, len(self.free)),
                                  total, True)
            elif not self.constrained:
                t = build_seat(formula, self.avail)
                if t is not None:
                    return Answer(question, seat, int(round(t.hands)) * _multinomial(nu - 13, len(self.free) - 1),
                                  total, True)
            elif lengths_only(formula):
                pc = self._exact_patterns()[seat]
                ok = _truth(formula, len(ALL_PATTERNS), lambda f: PAT_LENGTHS[:, SUITS.index(f.suit)])
                return Answer(question, seat, sum(c for c, o in zip(pc, ok, strict=True) if o), total, True)
            elif hcp_only(formula):
                hc = self._exact_hcp()[seat]
                ok = _truth(formula, NHCP, lambda f: np.arange(NHCP))
                return Answer(question, seat, sum(c for c, o in zip(hc, ok, strict=True) if o), total, True)
        owner = self.drawn(samples)
        if len(owner) == 0:
            return Answer(question, seat, 0, 0, False, None)
        hit = holds(formula, classes_of(owner, SEATS.index(seat)))
        p = float(hit.mean())
        return Answer(question, seat, int(hit.sum()), len(owner), False, math.sqrt(p * (1 - p) / len(owner)))

    # ------------------------------------------------------------------ dealing
    def drawn(self, n: int) -> np.ndarray:
        """n deals from the exact sampler (seeded), kept for the estimates: fewer if they are
        so rare that DRAW_FACTOR * n deals dealt do not find n (the estimates' standard errors
        say how many were found)."""
        if self._sample_cache is None or self._sample_cache[0] < n:
            self._sample_cache = (n, self.sample(n, np.random.default_rng(self.seed), max_tries=DRAW_FACTOR * n))
        return self._sample_cache[1][:n]

    def free_table(self):
        """The table of a seat whose calls say nothing (every hand of the unseen cards), built once."""
        if self._free_table is None:
            self._free_table = self._free_source() if self._free_source else build_seat(TRUE, self.avail)
        return self._free_table

    def free_ph(self) -> np.ndarray:
        """A free seat's hands counted by (pattern, HCP), without building its table (the free
        table's ``ph``, from the suits' holdings: see :func:`engine.free_ph`)."""
        return self._free_table.ph if self._free_table is not None else free_ph(self.avail)

    def sample(self, n: int, rng: np.random.Generator, time_limit: float | None = None,
               max_tries: int | None = None, short: float | None = None) -> np.ndarray:
        """n deals drawn uniformly from the deals consistent with the calls (and my hand), as
        an (n, 52) array of seat indices (card index = suit * 13 + rank, ace first).

        By construction where it can be: the constrained seat with fewest hands among those
        whose calls look at more than suit lengths (the anchor) is drawn from its table, each
        hand weighted by the number of ways the seats whose calls look at lengths only can
        then be dealt; those seats then draw their patterns from what is left (weighted the
        same way) and their cards at random.  The free seats take the rest.  Any other
        constrained seat is dealt with the rest and the deal drawn again if its hand does not
        fit its calls.  Every consistent deal is thus equally likely.  Fewer than n deals come
        back only if ``time_limit`` runs out, more than ``max_tries`` deals have been dealt
        (a limit on work that, unlike the clock, gives the same deals on any machine), or no
        deal is consistent; or, with ``short``, as soon as the deals found so far, at the rate
        they came, say that ``max_tries`` would give fewer than ``short * n``."""
        self.tried = 0  # deals dealt by this draw (its work, for the deal-level budget)
        if n <= 0:
            return np.zeros((0, 52), np.int8)
        start = time.perf_counter()
        known_seat = SEATS.index(self.known[0]) if self.known else None
        if any(t.hands <= 0 for t in self.tables.values()):
            return np.zeros((0, 52), np.int8)
        shaped = [s for s in self.constrained if lengths_only(self.formulas[s])]
        general = [s for s in self.constrained if s not in shaped]
        anchor = min(general, key=lambda s: self.tables[s].hands) if general else None
        others = [s for s in general if s != anchor]
        plan = _ShapePlan(self, shaped, len(self.unseen_seats) - len(shaped) - (anchor is not None), anchor)
        weight = None
        if anchor is not None and shaped:
            weight = plan.anchor_weights()
            if not (weight > 0).any():
                return np.zeros((0, 52), np.int8)
        elif shaped and plan.total() <= 0:
            return np.zeros((0, 52), np.int8)
        out, got, tried = [], 0, 0
        batch = max(256, n)
        while got < n:
            if max_tries is not None:
                if tried >= max_tries:
                    break
                batch = min(batch, max(256, max_tries - tried))
            tried += batch
            owner = np.full((batch, 52), -1, np.int8)
            if known_seat is not None:
                owner[:, ~self.unseen] = known_seat
            if anchor is not None:
                cls = self.tables[anchor].sample(batch, rng, weight)
                if cls is None:
                    break
                self._place(owner, cls, SEATS.index(anchor), rng)
            plan.place(owner, rng)
            rest = [SEATS.index(s) for s in self.unseen_seats if s != anchor and s not in shaped]
            self._deal_rest(owner, rest, rng)
            ok = np.ones(batch, bool)
            for s in others:
                ok &= self.tables[s].holds(classes_of(owner, SEATS.index(s)))
            out.append(owner[ok])
            got += int(ok.sum())
            if time_limit is not None and time.perf_counter() - start > time_limit:
                break
            if short is not None and max_tries is not None and got + got / tried * (max_tries - tried) < short * n:
                break  # at this rate max_tries will not give short * n deals: the caller has another way
            rate = max(ok.mean(), 1e-4)
            batch = int(min(200_000, max(256, (n - got) / rate * 1.1)))
        self.tried = tried
        res = np.concatenate(out)[:n] if out else np.zeros((0, 52), np.int8)
        return res

    def _place(self, owner: np.ndarray, cls: np.ndarray, seat: int, rng: np.random.Generator) -> None:
        """Give a seat the cards of sampled holding classes (small cards at random among the
        unseen ones of each suit)."""
        place_classes(owner, cls, seat, self.avail, self.unseen, rng)

    def _deal_rest(self, owner: np.ndarray, seats: list[int], rng: np.random.Generator) -> None:
        """Deal the cards nobody holds yet, 13 to each of ``seats``, uniformly at random."""
        n = len(owner)
        keys = rng.random((n, 52))
        keys[owner >= 0] = 2.0
        order = np.argsort(keys, axis=1)
        for k, s in enumerate(seats):
            cards = order[:, 13 * k:13 * (k + 1)]
            np.put_along_axis(owner, cards, np.int8(s), axis=1)


__all__ = ["Joint", "SeatView", "Distribution", "Answer", "classes_of", "holds", "deal_of", "hand_of", "free_result"]
