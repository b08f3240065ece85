"""Exact ranges and pattern sets when two or more unseen seats are constrained.

Three steps, each sound on its own:

1. *Outer bound.*  Each constrained seat's own table gives, per pattern, its least and most
   HCP; a free seat may hold anything the unseen cards allow.  A deal needs the seats' suit
   lengths to add up to the unseen cards of each suit and their HCP to the unseen points.  A
   programme over the seats (on the grid of summed lengths, keeping the least and most summed
   HCP) keeps, for every seat, only the patterns and HCP some combination of the others
   leaves room for.  Nothing consistent is lost; a few impossible things may remain.
2. *Inner bound.*  Deals drawn by the exact sampler are witnesses: a pattern or an HCP value
   seen in a consistent deal is attained.  Some are proven from the tables alone, by deals
   made with *fillers* (:func:`filler_proofs`: where the other constrained seats' calls fit
   every hand of some patterns without an honour, as a pass's do, every hand of a seat that
   leaves them room is in a consistent deal); a free seat's HCP bound by deals where it holds
   the best (or worst) 13 cards and the others are dealt the rest at random and checked.
   From the deals, two seats' cards are pooled and shared out anew (:func:`reshare`: one seat
   takes the lowest cards of a pattern it, or the other seat, wants), and single swaps of
   two cards between two seats are tried wherever they give
   a seat a pattern not yet seen or HCP beyond those seen, and kept when every seat's calls
   still fit (then swaps from those, and so on).  The few patterns still unseen (most often
   a suit of nearly all its cards) are sought in deals made straight from the cards: the seat
   takes the highest (or lowest) cards of the pattern, the rest is dealt at random and every
   constrained hand checked (:meth:`_Search.shaped`).  Then, for
   each pattern or bound in the outer bound but not yet seen, deals are drawn with that seat
   held to it (its hand drawn from its own table with that pattern or HCP, the tightest other
   seats from pools of their own hands that share no card with it, the rest dealt at random
   and checked), and swaps tried from what they find.
3. *What is left* is decided by the card-level CP-SAT model of the whole deal (four hands of
   52 booleans each): a feasible answer is a witness (and where swaps start), an infeasible
   one a proof.  Anything still open when the budget runs out is reported as possible and
   listed as not proven.

The budget (``canary_infer.DEFAULT_BUDGET``, ``--budget``) bounds the whole answer, and is
counted in work, not read off a clock, so that the same question gets the same answer on a
busy machine as on an idle one.  Each piece counts about the seconds it takes here:

* the constrained seats' tables, their ``SeatTable.work`` (however they were come by), and
  each table an exact tail builds on the cards left, the same way (plus :data:`TAIL_COST`);
* the outer bound, :data:`OUTER_BASE` and :data:`GRID_COST` per (cell, pattern) pair its
  grids look at; the first draw, :data:`DRAW_BASE` and :data:`DEAL_COST` per deal dealt;
* a drawing attempt (or a deal made from the cards), :data:`TRY_COST` per deal tried; a hand
  drawn from a table, :data:`HAND_COST`; a table's first draw, its last suit evaluated again
  (:data:`SAMPLE_BASE` and ``LAST_COST`` a pair, as in its build: at most what its draws
  evaluate) and each new condition drawn under, :data:`COND_COST` a pair; two seats' hands
  paired, :data:`PAIR_CHECK` a pair; a round of swaps, :data:`SWAP_COST` per swap looked at
  and :data:`HOLD_COST` times a table's work per hand checked against it;
* the CP-SAT model's build, :data:`BUILD_COST` per constraint; a solve, its deterministic time
  (:data:`LP_WALL` times that with the linear relaxation, which the deterministic time
  under-counts, and its limit set so that the count stays within the budget).

Seats whose calls say the same (the same formula, or both free) are interchangeable: their
hands swapped in a consistent deal give a consistent deal, so they share what is seen and
one of them is searched for.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from canary_infer.bridge.cards import RANKS, SEATS, SUITS
from canary_infer.deal.deck import (
    CARD_HCP,
    CARD_SUIT,
    RANK_HCP,
    SeatView,
    _available,
    classes_of,
    holds,
    place_classes,
    random_cards,
)
from canary_infer.engine import kernels
from canary_infer.engine.tables import (
    ALL_PATTERNS,
    LAST_COST,
    NHCP,
    PAT14,
    PAT_LENGTHS,
    PAT_OF14,
    RADIX14,
    build_seat,
    unique,
)
from canary_infer.language.expr import TRUE, lengths_only
from canary_infer.language.features import TOP

_INF = 10_000


def _pattern_hcp(ph: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per pattern: possible?, least HCP, most HCP (from a (560, 38) count table)."""
    nz = ph > 0
    ok = nz.any(axis=1)
    lo = np.where(ok, np.argmax(nz, axis=1), _INF)
    hi = np.where(ok, NHCP - 1 - np.argmax(nz[:, ::-1], axis=1), -_INF)
    return ok, lo, hi


_FIELDS = np.array([15, 10, 5, 0], np.int64)  # bit offsets of four 5-bit fields
_SHAPE14 = np.full(4, 14, np.int64)


class _Grid:
    """Summed suit lengths of a set of seats (cells of a 14^4 grid, up to the unseen lengths)
    with the least and most summed HCP that reach each cell."""

    def __init__(self, u):
        self.u = np.array(u, np.int64)
        self.lo = np.full(14 ** 4, _INF, np.int64)
        self.hi = np.full(14 ** 4, -_INF, np.int64)
        self.lo[0] = self.hi[0] = 0
        self.ops = 0  # (cell, pattern) pairs looked at to make this grid: its work
        self._below: np.ndarray | None = None

    def add(self, ok, lo, hi) -> _Grid:
        out = _Grid(self.u)
        out.lo[0], out.hi[0] = _INF, -_INF
        cells = np.flatnonzero(self.lo < _INF)
        room = self.u[None, :] - np.stack([(cells // r) % 14 for r in RADIX14], axis=1)
        pats = np.flatnonzero(ok & (PAT_LENGTHS <= self.u).all(axis=1))
        # "a pattern fits in the room left" for four suits at once: 5-bit fields with a guard
        # bit each, (room + 16) - length keeps the guard bit exactly when room >= length
        out.ops = len(cells) * len(pats)
        if kernels.compiled is not None:
            kernels.compiled.grid_add(cells, self.lo, self.hi, self.u, PAT_LENGTHS[pats], PAT14[pats],
                              lo[pats].astype(np.int64), hi[pats].astype(np.int64), out.lo, out.hi)
            return out
        guard = int(sum(16 << (5 * k) for k in range(4)))
        packed_room = (room << _FIELDS).sum(axis=1) | guard
        packed_pat = (PAT_LENGTHS[pats] << _FIELDS).sum(axis=1)
        for i in range(0, len(cells), 4096):
            c = cells[i:i + 4096]
            fits = ((packed_room[i:i + 4096, None] - packed_pat[None, :]) & guard) == guard
            rc, pc = np.nonzero(fits)
            dst = c[rc] + PAT14[pats[pc]]
            np.minimum.at(out.lo, dst, self.lo[c[rc]] + lo[pats[pc]])
            np.maximum.at(out.hi, dst, self.hi[c[rc]] + hi[pats[pc]])
        return out

    def add_at(self, ok, lo, hi, cells: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
        """What :meth:`add` gives at some cells only (their least and most summed HCP), and
        the work add counts, without the grid: when only a few cells are read."""
        src_cells = int((self.lo < _INF).sum())
        pats = np.flatnonzero(ok & (PAT_LENGTHS <= self.u).all(axis=1))
        if kernels.compiled is not None:
            glo, ghi = kernels.compiled.grid_add_at(np.ascontiguousarray(cells, np.int64), self.lo, self.hi,
                                                    PAT_LENGTHS[pats], PAT14[pats], lo[pats].astype(np.int64),
                                                    hi[pats].astype(np.int64), _INF)
            return glo, ghi, src_cells * len(pats)
        w = np.stack([(cells // r) % 14 for r in RADIX14], axis=1)
        # "the pattern fits in the cell" for four suits at once, as in add
        guard = int(sum(16 << (5 * k) for k in range(4)))
        packed_w = (w << _FIELDS).sum(axis=1) | guard
        packed_p = (PAT_LENGTHS[pats] << _FIELDS).sum(axis=1)
        glo = np.full(len(cells), _INF, np.int64)
        ghi = np.full(len(cells), -_INF, np.int64)
        for i in range(0, len(cells), 256):
            fits = ((packed_w[i:i + 256, None] - packed_p[None, :]) & guard) == guard
            src = np.where(fits, cells[i:i + 256, None] - PAT14[pats][None, :], 0)  # where the others came from
            there = fits & (self.lo[src] < _INF)
            glo[i:i + 256] = np.where(there, self.lo[src] + lo[pats], _INF).min(axis=1, initial=_INF)
            ghi[i:i + 256] = np.where(there, self.hi[src] + hi[pats], -_INF).max(axis=1, initial=-_INF)
        return glo, ghi, src_cells * len(pats)

    def below(self) -> np.ndarray:
        """For every cell w, the least summed HCP over reachable cells v <= w (as a 14^4 grid,
        computed once)."""
        if self._below is None:
            if kernels.compiled is not None:
                m = self.lo.copy()
                kernels.compiled.closure4(m, _SHAPE14, False)
                self._below = m.reshape(14, 14, 14, 14)
            else:
                m = self.lo.reshape(14, 14, 14, 14).copy()
                for ax in range(4):
                    m = np.minimum.accumulate(m, axis=ax)
                self._below = m
        return self._below


class _Seen:
    """What the search has seen a set of interchangeable seats (see :func:`leaders`) hold: for
    each pattern whether it was seen, and the weight of the deals that showed it (the drawn
    deals count 1 each, the others 0: their sum orders the patterns).  Iterating gives the
    patterns seen, in order."""

    __slots__ = ("weight", "mask")

    def __init__(self):
        self.weight = np.zeros(len(ALL_PATTERNS))
        self.mask = np.zeros(len(ALL_PATTERNS), bool)

    def add(self, counts: np.ndarray, weight: float) -> None:
        """Deals that showed each pattern ``counts`` times, each of the given weight."""
        nz = np.flatnonzero(counts)
        self.weight[nz] += weight * counts[nz]
        self.mask[nz] = True

    def note(self, pats: np.ndarray) -> None:
        """Patterns proven (indices, or a mask) without a deal of weight."""
        self.mask[pats] = True

    def __len__(self) -> int:
        return int(self.mask.sum())

    def __iter__(self):
        return iter(np.flatnonzero(self.mask).tolist())


def leaders(j) -> dict[str, str]:
    """Each unseen seat's leader: the first unseen seat whose calls say the same (both free,
    or the same formula).  Seats with one leader are interchangeable (see the module doc)."""
    return {s: next(t for t in j.unseen_seats if j.formulas.get(t) == j.formulas.get(s)) for s in j.unseen_seats}


def outer_bounds(j) -> tuple[dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]], float]:
    """Per unseen seat: (pattern possible?, least HCP, most HCP) per pattern, relaxed over
    the deck (see the module docstring); and the work counted for them."""
    u = j.unseen.reshape(4, 13).sum(axis=1)
    hu = int((j.unseen.reshape(4, 13)[:, :4] * RANK_HCP[:4]).sum())
    own = {s: _pattern_hcp(t.ph) for s, t in j.tables.items()}
    if j.free:
        own_free = _pattern_hcp(j.free_ph())
        for s in j.free:
            own[s] = own_free
    # the grid of a set of constrained seats depends only on their calls: one per multiset of
    # calls (named by the first seat making each), each built from the one of its first seats
    canon = leaders(j)
    grids: dict[tuple[str, ...], _Grid] = {(): _Grid(u)}
    read_at: dict[tuple[str, ...], int] = {}  # grids read at a few cells only: the work of making them
    # a grid depends only on the unseen lengths and its seats' (pattern, least, most HCP):
    # kept by those in the caller's memo (j.grids), if any, for the next answer
    memo = getattr(j, "grids", None)
    content = {s: b"".join(x.tobytes() for x in own[s]) for s in j.constrained}

    def grid(names: tuple[str, ...]) -> _Grid:
        if names not in grids:
            key = (u.tobytes(), tuple(content[n] for n in names))
            g = memo.get(key) if memo is not None else None
            if g is None:
                g = grid(names[:-1]).add(*own[names[-1]])
                _remember(memo, key, g)
            grids[names] = g
        return grids[names]

    out = {}
    for s in j.unseen_seats:
        if canon[s] in out:  # the same calls, the same others: the same bound
            out[s] = tuple(x.copy() for x in out[canon[s]])
            continue
        others = [o for o in j.unseen_seats if o != s]
        fixed = [o for o in others if o in j.constrained]
        loose = [o for o in others if o not in j.constrained]
        names = tuple(sorted(canon[o] for o in fixed))
        ok, lo, hi = (x.copy() for x in own[s])
        i = np.flatnonzero(ok)
        i = i[(PAT_LENGTHS[i] <= u).all(axis=1)]  # the patterns the unseen cards allow
        cell = (u - PAT_LENGTHS[i]) @ RADIX14  # what each leaves the others
        if loose:  # the free others take whatever is left: the fixed ones fit in it
            least = grid(names).below().ravel()[cell]
            i, least = i[least < _INF], least[least < _INF]
            hi[i] = np.minimum(hi[i], hu - least)
        else:  # the fixed others take exactly what is left
            if names in grids:
                g = grid(names)
                glo, ghi = g.lo[cell], g.hi[cell]
            else:  # read at these cells only, from the grid of all but the last
                glo, ghi, read_at[names] = grid(names[:-1]).add_at(*own[names[-1]], cell)
            keep = glo < _INF
            i, glo, ghi = i[keep], glo[keep], ghi[keep]
            lo[i] = np.maximum(lo[i], hu - ghi)
            hi[i] = np.minimum(hi[i], hu - glo)
        ok[:] = False
        ok[i] = lo[i] <= hi[i]
        out[s] = (ok, lo, hi)
    ops = {**read_at, **{k: g.ops for k, g in grids.items()}}  # each grid's work once, made or read
    return out, OUTER_BASE + GRID_COST * sum(ops.values())


_POW2 = np.uint64(1) << np.arange(52, dtype=np.uint64)


def _bits(held: np.ndarray) -> np.ndarray:
    """(n, 52) booleans as n 52-bit masks."""
    return (held.astype(np.uint64) * _POW2).sum(axis=1, dtype=np.uint64)


def _even(table) -> np.ndarray:
    """Pattern weights that draw a table's patterns equally often (1 / each pattern's count)."""
    by_pat = table.ph.sum(axis=1)
    return np.where(by_pat > 0, 1.0 / np.maximum(by_pat, 1), 0.0)


class _Search:
    """Deals drawn with seats held to patterns or HCP values (see the module docstring)."""

    def __init__(self, j, rng: np.random.Generator):

        self.j, self.rng, self.holds = j, rng, holds
        self.pools: dict[str, np.ndarray] = {}
        self.spent = 0.0  # the work of the hands drawn and tail tables (the attempts are counted by the caller)
        self._asked: set = set()  # the conditions hands have been drawn under
        self._drawn: dict = {}  # the tables drawn from (by id, kept alive)
        total = math.comb(int(j.unseen.sum()), 13)
        self.tight = [s for s in sorted(j.constrained, key=lambda s: j.tables[s].hands)
                      if j.tables[s].hands / total <= 0.3]

    def draw_cost(self, table, hcp_condition: bool) -> None:
        """Count a draw just made from a table: its last suit evaluated on the states drawn
        (``LAST_COST`` a pair, as in its build; less where the table keeps its moves); once a
        table in this answer, :data:`SAMPLE_BASE`, and the first HCP condition's evaluation of
        every state (which keeps the moves), whether or not an earlier answer already did."""
        share = min(1.0, table.drawn_states / max(1, len(table.keys[3])))
        self.spent += LAST_COST * table.last_pairs * share
        seen = self._drawn.get(id(table))
        if seen is None:
            seen = self._drawn[id(table)] = {"table": table, "hcp": False}  # the table kept alive: ids stay unique
            self.spent += SAMPLE_BASE
        if hcp_condition and not seen["hcp"]:
            seen["hcp"] = True
            self.spent += LAST_COST * table.last_pairs

    def table(self, seat: str):
        if seat in self.j.constrained:
            return self.j.tables[seat]
        return self.j.free_table()

    def hands(self, seat: str, n: int, pattern: int | None = None, hcp: int | None = None) -> np.ndarray | None:
        """n hands of a seat (as (n, 52) booleans), from its own table, with that pattern / HCP
        (a free seat's with no HCP asked: from the suits' cards, see :meth:`_free_hands`)."""
        pat_ok = hcp_ok = None
        if isinstance(pattern, np.ndarray):
            pat_ok = pattern
        elif pattern is not None:
            pat_ok = np.zeros(len(ALL_PATTERNS), bool)
            pat_ok[pattern] = True
        if isinstance(hcp, np.ndarray):
            hcp_ok = hcp
        elif hcp is not None:
            hcp_ok = np.zeros(NHCP, bool)
            hcp_ok[hcp] = True
        self.spent += n * HAND_COST
        if seat not in self.j.constrained and hcp_ok is None:
            return self._free_hands(n, pat_ok)
        table = self.table(seat)
        if hcp_ok is not None or pat_ok is not None:  # the ways to complete under the condition: over the moves
            asked = (seat, None if hcp_ok is None else hcp_ok.tobytes(), None if pat_ok is None else pat_ok.tobytes())
            if asked not in self._asked:
                self._asked.add(asked)
                self.spent += COND_COST * table.last_pairs
        cls = table.sample(n, self.rng, pat_ok, hcp_ok)
        self.draw_cost(table, hcp_ok is not None)
        if cls is None:
            return None
        owner = np.full((n, 52), -1, np.int8)
        self.j._place(owner, cls, 0, self.rng)
        return owner == 0

    def _free_hands(self, n: int, pat_ok: np.ndarray | None) -> np.ndarray | None:
        """n hands of the unseen cards drawn uniformly (``pat_ok``: among those patterns, or
        weighted by it), as (n, 52) booleans, without a table: a pattern drawn by its weight
        times its number of hands, then each suit's cards of it at random."""
        w = self.j.free_ph().sum(axis=1)
        if pat_ok is not None:
            w = w * pat_ok
        if not w.sum() > 0:
            return None
        pats = self.rng.choice(len(w), size=n, p=w / w.sum())
        unseen = np.broadcast_to(self.j.unseen.reshape(1, 4, 13), (n, 4, 13))
        return random_cards(unseen, PAT_LENGTHS[pats], self.rng).reshape(n, 52)

    def pool(self, seat: str, room: np.ndarray | None = None) -> np.ndarray | None:
        """Hands of a tight seat to match with what is placed: half drawn as they come, half
        evenly over its patterns (so that its rarer patterns, which often fit, are there).

        ``room`` (booleans by pattern, see :meth:`_room`) says which patterns the seats held
        leave room for: where it keeps at most :data:`ROOM_SHARE` of the seat's hands, the
        pool is drawn among those patterns only (:data:`ROOM_POOL` hands each way): hands of
        the other patterns could never be placed beside the held seats' hands; None when
        the seat has no hand of those patterns."""
        table = self.table(seat)
        if room is not None:
            by_pat = table.ph.sum(axis=1)
            if by_pat[room].sum() <= ROOM_SHARE * by_pat.sum():
                key = (seat, room.tobytes())
                if key not in self.pools:
                    if not (by_pat[room] > 0).any():
                        return None
                    weight = _even(table) * room
                    self.pools[key] = np.concatenate([self.hands(seat, ROOM_POOL, room),
                                                      self.hands(seat, ROOM_POOL, weight)])
                return self.pools[key]
        if seat not in self.pools:
            weight = _even(table)
            self.pools[seat] = np.concatenate([self.hands(seat, POOL), self.hands(seat, POOL, weight)])
        return self.pools[seat]

    def _room(self, held: dict) -> np.ndarray | None:
        """The patterns a seat not in ``held`` can have beside the held seats' patterns (for
        each held seat given pattern weights, one of its patterns and this one fit in the
        unseen cards together), or None if no held seat is given patterns."""
        u = self.j.unseen.reshape(4, 13).sum(axis=1)
        room = None
        for weight, _ in held.values():
            if weight is not None:
                pats = np.flatnonzero(weight) if isinstance(weight, np.ndarray) else np.array([weight])
                fits = _covers(u[None, :] - PAT_LENGTHS[pats], PAT_LENGTHS).any(axis=1)
                room = fits if room is None else room & fits
        return room

    def paired(self, pair: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """For exactly two constrained unseen seats (the others free): consistent deals from
        pairing their hands, as (uniform deals, more deals).

        A hand of each drawn uniformly from its own table, kept when the two share no card,
        is a pair drawn uniformly from the consistent pairs (every pair is equally likely to
        be drawn, and each leaves the free seats the same number of ways to share the rest).
        So every pair of ``pair`` such hands that shares no card is a deal drawn uniformly
        (the deals are not independent, which matters to estimates only by their spread),
        at one card mask test a pair instead of a seat dealt and checked a deal.  The more
        deals pair ``pair`` hands of each drawn evenly over its patterns with all the others,
        one deal kept per pattern and per HCP total a seat gains, and the HCP extremes (for
        witnesses, not estimates).  The free seats take the rest at random."""
        j = self.j
        pair = PAIRED if pair is None else pair
        a, b = j.constrained

        def drawn(seat: str) -> np.ndarray:  # ``pair`` hands as they come, then ``pair`` evenly over its patterns
            table = self.table(seat)
            even = _even(table)
            if seat in self.tight:
                return np.concatenate([self.hands(seat, pair), self.hands(seat, pair, even)])
            # a seat that most hands fit (a pass): any hands, kept where they fit its calls, are
            # drawn as its own table would draw them, without that table's first draw
            out = []
            for weight in (None, even):
                got = np.zeros((0, 52), bool)
                for _ in range(8):
                    if len(got) >= pair:
                        break
                    hs = self.hands(j.free[0], 2 * pair, weight)
                    self.spent += len(hs) * HOLD_COST * table.work
                    got = np.concatenate([got, hs[table.holds(_classes(hs.astype(np.int8), 1))]])
                out.append(got[:pair])
            return np.concatenate(out)

        ha, hb = drawn(a), drawn(b)
        ma, mb = _bits(ha), _bits(hb)
        self.spent += len(ma) * len(mb) * PAIR_CHECK
        if kernels.compiled is not None:
            r, c = kernels.compiled.disjoint_pairs(ma, mb)
        else:
            rows, cols = [], []
            for i in range(0, len(ma), 256):
                r, c = np.nonzero((ma[i:i + 256, None] & mb[None, :]) == 0)
                rows.append(r + i)
                cols.append(c)
            r, c = np.concatenate(rows), np.concatenate(cols)
        uniform = (r < pair) & (c < pair)
        # of the others: the first pair that shows each pattern or HCP of either seat or each
        # split of lengths between them and the free seats, and the pairs at the extremes of
        # each seat's HCP and of their sum (the free seats' share)
        la, lb = ha.reshape(len(ha), 4, 13).sum(axis=2), hb.reshape(len(hb), 4, 13).sum(axis=2)
        pa, pb = PAT_OF14[la @ RADIX14], PAT_OF14[lb @ RADIX14]
        xa, xb = ha.astype(np.int64) @ CARD_HCP, hb.astype(np.int64) @ CARD_HCP
        rest = np.flatnonzero(~uniform)
        keep = []
        if len(rest):
            ra, rb = r[rest], c[rest]
            for v in (pa[ra], pb[rb], xa[ra], xb[rb], (la[ra] + lb[rb]) @ RADIX14):
                order = np.argsort(v, kind="stable")
                first = np.ones(len(order), bool)
                first[1:] = v[order][1:] != v[order][:-1]
                keep.append(rest[order[first]])
            total = xa[ra] + xb[rb]
            keep += [rest[total == total.min()][:8], rest[total == total.max()][:8]]
        extra = unique(np.concatenate(keep)) if keep else np.zeros(0, np.int64)

        def deals(k: np.ndarray) -> np.ndarray:
            owner = np.full((len(k), 52), -1, np.int8)
            if j.known is not None:
                owner[:, ~j.unseen] = SEATS.index(j.known[0])
            rr, cc = np.nonzero(ha[r[k]])
            owner[rr, cc] = SEATS.index(a)
            rr, cc = np.nonzero(hb[c[k]])
            owner[rr, cc] = SEATS.index(b)
            j._deal_rest(owner, [SEATS.index(s) for s in j.free], self.rng)
            return owner

        uniform = np.flatnonzero(uniform)
        if len(uniform) > KEEP_UNIFORM:  # enough for the estimates (which only order the patterns)
            uniform = np.sort(self.rng.choice(uniform, KEEP_UNIFORM, replace=False))
        self.spent += DEAL_COST * (len(uniform) + len(extra))
        return deals(uniform), deals(extra)

    def _disjoint_pairs(self, masks: np.ndarray, hb: np.ndarray, tries: int) -> tuple[np.ndarray, np.ndarray]:
        """Up to ``tries`` (partial deal, hand) pairs that share no card, drawn at random: first
        by trying random pairs (cheap when many pairs fit), else from every pair that fits."""
        draws = 16 * tries
        if len(masks) * len(hb) > 4 * draws:
            r = self.rng.integers(0, len(masks), draws)
            c = self.rng.integers(0, len(hb), draws)
            good = (masks[r] & hb[c]) == 0
            pairs = unique(r[good] * len(hb) + c[good])  # distinct pairs, as the full search gives
            if len(pairs) >= tries:
                pairs = self.rng.permutation(pairs)[:tries]
                return pairs // len(hb), pairs % len(hb)
        rows, cols = np.nonzero((masks[:, None] & hb[None, :]) == 0)  # (partial deals, hands)
        if len(rows) > tries:
            pick = self.rng.choice(len(rows), tries, replace=False)
            rows, cols = rows[pick], cols[pick]
        return rows, cols

    def _chain(self, seats: list[str], hands_of, keep: int):
        """Partial deals placing ``seats`` in turn, each seat's hands (``hands_of(seat)``, as
        (n, 52) booleans) kept where they share no card with what is placed (at most ``keep``
        partial deals a step): (their card masks, each seat's chosen hand per partial deal,
        [(seat, hands)]), or None if some seat has none."""
        j = self.j
        base = np.zeros(52, bool) if j.known is None else ~j.unseen
        masks = np.array([_bits(base[None, :])[0]], np.uint64)
        choice: list[np.ndarray] = []
        placed: list[tuple[str, np.ndarray]] = []
        for s in seats:
            hs = hands_of(s)
            if hs is None:
                return None
            hb = _bits(hs)
            rows, cols = self._disjoint_pairs(masks, hb, keep)
            if len(rows) == 0:
                return None
            masks = masks[rows] | hb[cols]
            choice = [c[rows] for c in choice] + [cols]
            placed.append((s, hs))
        return masks, choice, placed

    def extreme(self, seat: str, sense: str, value: int, tries: int) -> np.ndarray | None:
        """Consistent deals where a free seat holds the 13 unseen cards worth the most HCP
        (``sense`` "max") or the least, if they are worth ``value``; the cards of equal worth
        it takes, and the other seats' hands, at random; None if no deal tried fits."""
        j = self.j
        cards = np.flatnonzero(j.unseen)
        worth = CARD_HCP[cards] * (1 if sense == "max" else -1)
        best = np.sort(worth)[::-1][:13]
        if len(cards) < 13 or abs(int(best.sum())) != value:
            return None
        keys = worth[None, :] + self.rng.random((tries, len(cards))) * 0.5  # ties broken at random
        mine = cards[np.argsort(-keys, axis=1)[:, :13]]
        owner = np.full((tries, 52), -1, np.int8)
        if j.known is not None:
            owner[:, ~j.unseen] = SEATS.index(j.known[0])
        np.put_along_axis(owner, mine, np.int8(SEATS.index(seat)), axis=1)
        j._deal_rest(owner, [SEATS.index(s) for s in j.unseen_seats if s != seat], self.rng)
        ok = np.ones(tries, bool)
        for s in j.constrained:
            ok &= j.tables[s].holds(_classes(owner, SEATS.index(s)))
        return owner[ok] if ok.any() else None

    def shaped(self, seat: str, pats: list[int], tries: int, rng: np.random.Generator) -> np.ndarray | None:
        """Consistent deals where ``seat`` holds each of the patterns ``pats`` (indices), made
        straight from the cards: in every suit it takes the highest unseen cards it needs (half
        the tries) or the lowest, and the other seats are dealt the rest at random, ``tries``
        times a pattern; every constrained seat's hand (the seat's own too) is checked.  What
        the draws from tables seldom reach, such as a long suit of all its cards, is often
        found this way at once.  None if no deal tried fits."""
        j = self.j
        if not pats:
            return None
        u = j.unseen.reshape(4, 13)
        want = np.repeat(PAT_LENGTHS[pats], tries, axis=0)  # (rows, 4)
        if (want > u.sum(axis=1)).any(axis=1).all():
            return None
        n = len(want)
        rank = np.broadcast_to(np.arange(13), (n, 4, 13))
        top = (np.arange(n) % tries < tries // 2)[:, None, None]
        key = np.where(u[None], np.where(top, rank, 13 - rank), 99)  # the highest (or lowest) unseen first
        mine = np.argsort(np.argsort(key, axis=2, kind="stable"), axis=2, kind="stable") < want[:, :, None]
        fits = (want <= u.sum(axis=1)).all(axis=1)
        owner = np.full((n, 52), -1, np.int8)
        if j.known is not None:
            owner[:, ~j.unseen] = SEATS.index(j.known[0])
        owner[mine.reshape(n, 52)] = SEATS.index(seat)
        j._deal_rest(owner, [SEATS.index(s) for s in j.unseen_seats if s != seat], rng)
        ok = fits.copy()
        for s in j.constrained:
            ok &= j.tables[s].holds(_classes(owner, SEATS.index(s)))
        return owner[ok] if ok.any() else None

    def attempt(self, held: dict[str, tuple[int | None, int | None]], tries: int = 96) -> np.ndarray | None:
        """Consistent deals (an (k, 52) owner array, k >= 1) where each seat in ``held`` has the
        given (pattern index, HCP) (None: any), or None if none was found.  Held seats draw
        from their own tables; the tightest other constrained seats from pools of their own
        hands that share no card with what is placed; the rest is dealt at random and checked."""
        j = self.j
        order = [s for s in held] + [s for s in self.tight if s not in held]
        room = self._room(held)
        chain = self._chain(order, lambda s: self.hands(s, tries, *held[s]) if s in held else self.pool(s, room), tries)
        if chain is None:
            return None
        masks, choice, placed = chain
        if len(masks) < tries:  # several random completions of each partial deal
            rep = -(-tries // len(masks))
            masks = np.repeat(masks, rep)
            choice = [np.repeat(c, rep) for c in choice]
        n = len(masks)
        owner = np.full((n, 52), -1, np.int8)
        if j.known is not None:
            owner[:, ~j.unseen] = SEATS.index(j.known[0])
        for (s, hs), c in zip(placed, choice, strict=True):
            owner[hs[c]] = -1  # placeholder so that the assignment below is by row
            rr, cc = np.nonzero(hs[c])
            owner[rr, cc] = SEATS.index(s)
        rest = [SEATS.index(s) for s in j.unseen_seats if s not in dict(placed)]
        j._deal_rest(owner, rest, self.rng)
        ok = np.ones(n, bool)
        for s in j.constrained:
            if s not in dict(placed) or s in held:
                ok &= j.tables[s].holds(_classes(owner, SEATS.index(s)))
        if not ok.any():
            return None
        return owner[ok]


    def exact_tail(self, held: dict[str, tuple[int | None, int | None]], outer: dict, sense: str = "min",
                   partials: int = 4, draws: int = 512) -> np.ndarray | None:
        """Consistent deals with the seats in ``held`` held as in :meth:`attempt`, the last two
        seats dealt exactly rather than at random: all seats but two are placed as there; then
        the first of the two draws its hand from its own table built on the 26 cards left
        (held to patterns and HCP that leave the other a pattern and HCP its outer bound
        allows) and the other takes the rest and is checked.  For deals where two seats must
        share out what is left just so (three passes that hold all 40 HCP between them).  The
        other seats placed first hold their three most HCP (``sense`` "min": a held seat's
        least leaves the others the most) or their three least ("max")."""

        j = self.j
        others = [s for s in self.tight if s not in held]
        others += [s for s in j.constrained + j.free if s not in held and s not in others]
        hcp_b = None
        if sense == "max" and len(held) == 1 and next(iter(held.values()))[0] is None:
            # a seat held to its most HCP takes the rest: the others, at their least, leave it
            # the most, and the seat before it is drawn to leave it exactly what is asked
            seats = others + list(held)
            hcp_b = next(iter(held.values()))[1]
        else:
            seats = list(held) + others
        if len(seats) < 3:
            return None
        head, (a, b) = seats[:-2], seats[-2:]
        if a in held and b not in held:
            a, b = b, a
        if b in held and hcp_b is None:  # a seat that takes the rest is held to its HCP only
            return None

        def hands_of(s: str):
            if s in held:
                return self.hands(s, 96, *held[s])
            ok, lo, hi = outer[s]
            lean = np.zeros(NHCP, bool)
            if sense == "min":
                top = int(hi[ok].max())
                lean[max(0, top - 2):top + 1] = True
            else:  # exactly the least where the seat held takes the rest (it gets what they leave)
                low = int(lo[ok].min())
                lean[low:low + (1 if hcp_b is not None else 3)] = True
            return self.hands(s, 1024, hcp=lean)

        chain = self._chain(head, hands_of, partials)
        if chain is None:
            return None
        masks, choice, placed = chain
        # The seat drawn from its table on the cards left, and the one that takes the rest: a
        # constrained seat and a free one are drawn and take the rest in that order, so that
        # the deal is settled exactly (a free seat fits whatever it is left).
        drawer, taker = (b, a) if b in j.constrained and a not in j.constrained else (a, b)
        pat_d, hcp_d = held.get(drawer, (None, None))
        for r in range(len(masks)):
            owner = np.full(52, -1, np.int8)
            if j.known is not None:
                owner[~j.unseen] = SEATS.index(j.known[0])
            for (s, hs), c in zip(placed, choice, strict=True):
                owner[hs[c[r]]] = SEATS.index(s)
            left = owner < 0
            if left.sum() != 26:
                continue
            lens = left.reshape(4, 13).sum(axis=1)
            points = int((left.reshape(4, 13) * RANK_HCP).sum())
            # the drawer's patterns and HCP that leave the taker what its outer bound allows
            ok_t, lo_t, hi_t = outer[taker]
            rest = lens[None, :] - PAT_LENGTHS
            fits = (rest >= 0).all(axis=1)
            idx = np.full(len(ALL_PATTERNS), -1, np.int64)
            idx[fits] = PAT_OF14[rest[fits] @ RADIX14]
            pat_ok = fits & np.where(idx >= 0, ok_t[np.maximum(idx, 0)], False)
            if pat_d is not None:
                want = np.zeros(len(ALL_PATTERNS), bool)
                want[pat_d] = True
                pat_ok &= want
            if not pat_ok.any():
                continue
            lo, hi = int(lo_t[ok_t].min()), int(hi_t[ok_t].max())
            hcp_ok = np.zeros(NHCP, bool)
            hcp_ok[max(0, points - hi):max(0, points - lo + 1)] = True
            if hcp_d is not None:
                hcp_ok &= np.arange(NHCP) == hcp_d
            if hcp_b is not None:  # b ends with exactly the HCP asked
                hcp_ok &= np.arange(NHCP) == (hcp_b if drawer == b else points - hcp_b)
            avail = _available(left)
            table = build_seat(j.formulas.get(drawer, TRUE), avail)
            if table is None:
                continue
            self.spent += table.work + COND_COST * table.last_pairs
            cls = table.sample(draws, self.rng, pat_ok, hcp_ok)
            self.draw_cost(table, hcp_ok is not None)
            if cls is None:
                continue
            rows = np.repeat(owner[None, :], draws, axis=0)
            kd, kt = SEATS.index(drawer), SEATS.index(taker)
            place_classes(rows, cls, kd, avail, left, self.rng)
            rows[rows < 0] = kt
            good = np.ones(draws, bool)
            if taker in j.constrained:
                good &= j.tables[taker].holds(_classes(rows, kt))
            if good.any():
                return rows[good]
        return None


# --------------------------------------------------------------------------- card swaps
# 28 card types per hand: the A K Q J T 9 of each suit, and "a small card" of it (the small
# cards of a suit are interchangeable: no feature tells them apart).
_TYPE_SUIT = np.repeat(np.arange(4), 7)
_TYPE_BIT = np.tile(np.array([1, 2, 4, 8, 16, 32, 0], np.int64), 4)
_TYPE_HCP = np.tile(np.append(RANK_HCP[:6], 0), 4)  # the card types A K Q J T 9 and small
_TYPE_FIRST = np.tile(np.array([0, 1, 2, 3, 4, 5, 6]), 4) + _TYPE_SUIT * 13
DRAW_TRIES = 20_000  # deals dealt at most for the first witnesses (those that fit are kept)
PAIR_AFTER = 2_500  # as many for two constrained seats with the others free, before pairing their hands
PAIR_SHORT = 0.8  # the share of the first 500 deals below which, at the rate they come, pairing starts at once
TAIL_COST = 0.03  # the work of one exact_tail besides the tables it builds (counted as built)
BUILD_COST = 3e-5  # the work of building one constraint of the whole-deal CP-SAT model
LP_WALL = 3.0  # a solve with the linear relaxation takes up to this many times its deterministic time
OUTER_BASE = 0.03  # the work of the outer bound besides its grids
GRID_COST = 2e-8  # the work of one (cell, pattern) pair looked at in making a grid
DRAW_BASE = 0.04  # the work of the first draw besides the deals it deals
DEAL_COST = 6e-6  # the work of one deal dealt by the exact sampler (DRAW_TRIES at most at first)
QUICK_LP = 0.5  # the deterministic time of the first, linear-relaxation try at an HCP bound
POOL = 4096  # hands of a tight seat drawn as they come, and as many evenly over its patterns
GRID_MEMO = 32  # outer-bound grids (about 0.6 MB each) and filler sums kept between answers
ROOM_SHARE = 0.5  # a pool drawn among the patterns the held seats leave room for, if they keep at most this share
ROOM_POOL = 1024  # hands of such a pool drawn as they come, and as many evenly over those patterns
PAIRED = 512  # hands of each of two constrained seats paired for the first deals, and as many evenly
KEEP_UNIFORM = 2048  # of the uniform deals pairing gives, those kept
PAIR_CHECK = 1e-8  # the work of testing one pair of hands for a shared card
HAND_COST = 4e-6  # the work of one hand drawn from a table and placed (a pool of 8,192: 0.02-0.08 s)
SAMPLE_BASE = 0.007  # a table's first draw besides its last suit's moves (LAST_COST a pair, as built)
COND_COST = 3e-8  # a table's draw under a new condition, per pair of its last suit
FRONTIER = 256  # the deals swaps start from in one round, at most
FRONTIER_PER = 4  # of the deals a round finds, those the next starts from per thing shown
HOLD_COST = 2e-5  # the work of checking one hand against a table, per second of the table's work
SWAP_COST = 1.2e-7  # the work of one candidate swap looked at, in seconds of this machine


def _types(owner: np.ndarray, k: int) -> np.ndarray:
    """(n, 28): which card types seat k holds in each deal."""
    held = (owner == k).reshape(len(owner), 4, 13)
    t = np.empty((len(owner), 4, 7), bool)
    t[:, :, :6] = held[:, :, :6]
    t[:, :, 6] = held[:, :, 6:].any(axis=2)
    return t.reshape(len(owner), 28)


def _swapped(cls: np.ndarray, out_t: np.ndarray, in_t: np.ndarray) -> np.ndarray:
    """Holding classes after a hand gives a card of type out_t and takes one of type in_t."""
    new = cls.copy()
    rows = np.arange(len(cls))
    new[rows, _TYPE_SUIT[out_t]] -= 64 + _TYPE_BIT[out_t]
    new[rows, _TYPE_SUIT[in_t]] += 64 + _TYPE_BIT[in_t]
    return new


def _card(owner: np.ndarray, k: int, t: np.ndarray) -> np.ndarray:
    """The card index of type t that seat k holds in each row (a small card: the highest)."""
    first = _TYPE_FIRST[t]
    small = t % 7 == 6
    if small.any():
        rows = np.flatnonzero(small)
        block = first[rows, None] + np.arange(7)[None, :]
        first[rows] = block[np.arange(len(rows)), np.argmax(owner[rows[:, None], block] == k, axis=1)]
    return first


def swap_moves(j, owner: np.ndarray, want_pat: dict, lo_t: dict, hi_t: dict, limit: int = 512):
    """Consistent deals one swap of two cards (between two unseen seats) away from the
    consistent deals ``owner`` that give some seat a pattern it wants (``want_pat[s]``, a
    boolean per pattern) or HCP below ``lo_t[s]`` / above ``hi_t[s]``; and the work done, as
    the work done (:data:`SWAP_COST` per swap looked at, :data:`HOLD_COST` times a seat's
    table's work per hand checked against it).  Every deal returned is checked against each
    seat's table."""
    seats = [SEATS.index(s) for s in j.unseen_seats]
    cls = {k: _classes(owner, k) for k in seats}
    at14 = {k: (cls[k] // 64) @ RADIX14 for k in seats}
    held, types, hcp = {}, {}, {}
    for k in seats:  # the card types each seat holds, as (n, 13) type numbers (-1: none), and its HCP
        if kernels.compiled is not None:
            types[k], held[k], hcp[k] = kernels.compiled.held_types(np.ascontiguousarray(owner, np.int8), k)
            continue
        hcp[k] = (owner == k).astype(np.int64) @ CARD_HCP
        t = types[k] = _types(owner, k)
        order = np.argsort(~t, axis=1, kind="stable")[:, :13]
        held[k] = np.where(np.take_along_axis(t, order, axis=1), order, -1)
    shift = RADIX14[_TYPE_SUIT]  # the change in a pattern's base-14 code when a card type leaves
    radix = np.array([1, 1 << 10, 1 << 20, 1 << 30], np.int64)
    rows_of = np.repeat(np.arange(len(owner)), 169)
    work = 0.0
    pending = []  # per pair of seats: the swaps that give something wanted, one per new pair of holdings
    # what each seat wants: a pattern (if any is wanted), HCP beyond those seen (if any can be)
    wants_pat = {k: bool(want_pat[SEATS[k]].any()) for k in seats}
    wants_hcp = {k: lo_t[SEATS[k]] >= 0 or hi_t[SEATS[k]] <= 37 for k in seats}
    for ai, x in enumerate(seats):
        for y in seats[ai + 1:]:
            if not any(wants_pat[k] or wants_hcp[k] for k in (x, y)):
                # no swap between them gives either anything wanted: counted as looked at (a
                # type of each, not the same type), as the budget has always counted them
                tx, ty = types[x], types[y]
                work += int((tx.sum(axis=1) * ty.sum(axis=1)).sum() - (tx & ty).sum()) * SWAP_COST
                continue
            if kernels.compiled is not None:  # the same swaps, looked at in the same order, compiled
                sx, sy = SEATS[x], SEATS[y]
                i, a, b, looked = kernels.compiled.swap_candidates(
                    held[x], held[y], hcp[x], hcp[y], at14[x], at14[y], _TYPE_HCP, shift, PAT_OF14,
                    want_pat[sx].view(np.uint8), want_pat[sy].view(np.uint8), wants_pat[x], wants_pat[y],
                    wants_hcp[x], wants_hcp[y], lo_t[sx], hi_t[sx], lo_t[sy], hi_t[sy])
                work += looked * SWAP_COST
                sel = np.arange(len(i))
            else:
                a = np.repeat(held[x], 13, axis=1).ravel()
                b = np.tile(held[y], (1, 13)).ravel()
                keep = (a >= 0) & (b >= 0) & (a != b)
                i, a, b = rows_of[keep], a[keep], b[keep]
                work += len(i) * SWAP_COST
                if not len(i):
                    continue
                good = np.zeros(len(i), bool)
                for k, out_t, in_t in ((x, a, b), (y, b, a)):
                    s = SEATS[k]
                    if wants_hcp[k]:
                        h = hcp[k][i] - _TYPE_HCP[out_t] + _TYPE_HCP[in_t]
                        good |= (h < lo_t[s]) | (h > hi_t[s])
                    if wants_pat[k]:
                        good |= want_pat[s][PAT_OF14[at14[k][i] - shift[out_t] + shift[in_t]]]
                sel = np.flatnonzero(good)
            if not len(sel):
                continue
            new = {x: _swapped(cls[x][i[sel]], a[sel], b[sel]), y: _swapped(cls[y][i[sel]], b[sel], a[sel])}
            # one deal per distinct pair of new holdings (checked once), at most ``limit`` of them
            key = (new[x] @ radix) * 1_000_003 + new[y] @ radix
            order = np.argsort(key, kind="stable")
            first = np.ones(len(order), bool)
            first[1:] = key[order][1:] != key[order][:-1]
            uniq = np.sort(order[first])
            pending.append((x, y, i, a, b, sel[uniq], {k: v[uniq] for k, v in new.items()}))
    # each seat's new holdings checked against its table in one call for all the pairs it is
    # in (a check walks the formula once per call: fewer, larger calls cost less)
    ok = [np.ones(len(p[5]), bool) for p in pending]
    for k in seats:
        if SEATS[k] not in j.constrained:
            continue
        mine = [n for n, p in enumerate(pending) if k in p[6]]
        if not mine:
            continue
        t = j.tables[SEATS[k]]
        fits = t.holds(np.concatenate([pending[n][6][k] for n in mine]))
        work += len(fits) * t.work * HOLD_COST  # a check costs as its table
        at = 0
        for n in mine:
            ok[n] &= fits[at:at + len(ok[n])]
            at += len(ok[n])
    found: list[np.ndarray] = []
    for (x, y, i, a, b, sel, _), fit in zip(pending, ok, strict=True):
        sel = sel[fit][:limit]
        if not len(sel):
            continue
        rows = owner[i[sel]].copy()
        ca, cb = _card(rows, x, a[sel]), _card(rows, y, b[sel])
        r = np.arange(len(sel))
        rows[r, ca] = y
        rows[r, cb] = x
        found.append(rows)
    out = np.concatenate(found) if found else np.zeros((0, 52), np.int8)
    return out, work


def _give(rows: np.ndarray, pool: np.ndarray, k: int, free: list[int], lengths: np.ndarray, low: bool,
          keep: np.ndarray | None = None) -> np.ndarray:
    """Deal the pooled cards of each row (``pool``, (n, 52)) anew: seat k takes the cards
    ``keep`` (within the pool and the lengths) and then the lowest (``low``) or highest of the
    others pooled, up to the given lengths (n, 4) suit by suit; the free seats take the rest,
    13 each in card order.  Returns the rows changed (a copy)."""
    if kernels.compiled is not None:
        none = np.zeros((0, 52), np.uint8)
        return kernels.compiled.give(np.ascontiguousarray(rows, np.int8), np.ascontiguousarray(pool).view(np.uint8), k,
                             np.array(free, np.int64), np.ascontiguousarray(lengths, np.int64), low,
                             none if keep is None else np.ascontiguousarray(keep).view(np.uint8))
    rows = rows.copy()
    n = len(rows)
    kept = np.zeros((n, 4, 13), bool) if keep is None else keep.reshape(n, 4, 13)
    mine = pool.reshape(n, 4, 13) & ~kept
    need = lengths - kept.sum(axis=2)
    # each other pooled card's place from the bottom (top) of its suit: the seat takes those within its need
    place = np.cumsum(mine[:, :, ::-1], axis=2)[:, :, ::-1] if low else np.cumsum(mine, axis=2)
    take = (kept | (mine & (place <= need[:, :, None]))).reshape(n, 52)
    rest = pool & ~take
    rows[take] = k
    nth = np.cumsum(rest, axis=1) - 1
    seat_of = np.array(free, np.int8)[np.minimum(nth // 13, len(free) - 1)]
    rows[rest] = seat_of[rest]
    return rows


def _covers(have: np.ndarray, need: np.ndarray) -> np.ndarray:
    """(len(need), len(have)): whether each row of ``have`` is at least each row of ``need``
    in all four suits (a suit at a time: faster than one comparison over the last axis).

    >>> _covers(np.array([[4, 3, 3, 3], [5, 5, 2, 1]]), np.array([[4, 4, 2, 1]])).tolist()
    [[False, True]]
    """
    out = need[:, None, 0] <= have[None, :, 0]
    for i in range(1, 4):
        out &= need[:, None, i] <= have[None, :, i]
    return out


def reshare(j, owner: np.ndarray, want_pat: dict, low_hcp: bool, per: int = 2) -> tuple[np.ndarray, float]:
    """Consistent deals in which a constrained seat and the free seats share out their cards
    anew, the other seats keeping their hands; and the work done.  Of the seat's and the free
    seats' cards pooled, the seat takes the lowest of each pattern it wants (``per`` deals a
    pattern, of those whose pool has the lengths), the free seats the rest; and, if
    ``low_hcp``, each constrained seat in turn takes the lowest (and then the highest) cards of
    its own pattern, which moves HCP between it and the free seats.  A pattern a free seat
    wants is sought the other way round: it and one constrained seat pool their cards, the
    constrained seat takes the lowest of the pool less the pattern (or keeps its honours and
    takes the lowest others), and the free seat the rest.  With no free seat, a constrained seat's pattern is sought
    with another constrained seat taking the rest of their pool (both seats' calls checked).
    A pattern given by one seat (or
    by a twin, see :func:`leaders`) is not sought again.  Every deal returned has
    the new hands checked against their tables (a pass, which denies values, fits its lowest
    cards)."""
    free = [SEATS.index(s) for s in j.free]
    found: list[np.ndarray] = []
    work = 0.0
    if not len(owner) or not free and len(j.constrained) < 2:
        return np.zeros((0, 52), np.int8), work

    def fitting(rows: np.ndarray, k: int) -> np.ndarray:
        nonlocal work
        t = j.tables[SEATS[k]]
        work += len(rows) * t.work * HOLD_COST
        return t.holds(_classes(rows, k))

    lead = leaders(j)
    # with no free seat, the takers tried first are those whose hands hold the most points (the
    # rest of a pool, a seat's lowest cards taken out, is the higher cards)
    by_points = sorted((SEATS.index(t) for t in j.constrained),
                       key=lambda t: -int(((owner == t).astype(np.int64) @ CARD_HCP).sum()))

    def share(pats: np.ndarray, k: int, takers: list[int], mine: bool) -> np.ndarray:
        """Seat k and ``takers`` pool their cards; for each pattern wanted (``per`` deals each,
        of those whose pool has room), seat k takes the lowest pooled cards of the pattern
        (``mine``) or of the pool less the pattern (the pattern is a lone taker's), the takers
        the rest; or, for the patterns that gives none, k keeps its honours (and so its HCP)
        and takes the lowest others to its lengths.  The deals where k's calls (and a
        constrained taker's) still fit are kept; returns the patterns not given."""
        if kernels.compiled is not None:  # the same choice of deals and the same new hands, compiled
            for keep in (False, True):
                if not len(pats):
                    break
                rows, pi = kernels.compiled.share_rows(np.ascontiguousarray(owner, np.int8), np.array(takers, np.int64),
                                                       k, PAT_LENGTHS[pats], per, keep, mine)
                pats = given(rows, pi, pats, k, takers)
            return pats
        pool = np.isin(owner, takers + [k])
        lengths = pool.reshape(len(owner), 4, 13).sum(axis=2)
        honours = (owner == k) & (CARD_HCP > 0)[None, :]
        for keep in (None, honours):
            if not len(pats):
                break
            kept = 0 if keep is None else keep.reshape(len(owner), 4, 13).sum(axis=2)
            if mine:  # the pool holds the pattern, which holds what k keeps
                can = _covers(lengths, PAT_LENGTHS[pats])  # (patterns, deals)
                if keep is not None:
                    can &= _covers(PAT_LENGTHS[pats], kept).T
            else:  # the pool less the pattern holds what k keeps
                can = _covers(lengths - kept, PAT_LENGTHS[pats])
            pi, di = np.nonzero(can & (np.cumsum(can, axis=1) <= per))
            if not len(pi):
                continue
            target = PAT_LENGTHS[pats[pi]] if mine else lengths[di] - PAT_LENGTHS[pats[pi]]
            rows = _give(owner[di], pool[di], k, takers, target, low=True, keep=None if keep is None else keep[di])
            pats = given(rows, pi, pats, k, takers)
        return pats

    def given(rows: np.ndarray, pi: np.ndarray, pats: np.ndarray, k: int, takers: list[int]) -> np.ndarray:
        """The new deals where k's calls (and a constrained taker's) still fit are kept; returns
        the patterns (``pats``, of which ``pi`` gives each row's) not given."""
        ok = fitting(rows, k)
        if takers[0] not in free:
            ok[ok] = fitting(rows[ok], takers[0])
        found.append(rows[ok])
        return _less(pats, pats[pi[ok]])

    wanted: dict[str, np.ndarray] = {}  # per set of twins (see leaders): the patterns not yet given
    for s in j.constrained:
        pats = wanted.get(lead[s], np.flatnonzero(want_pat[s]))
        k = SEATS.index(s)
        # the free seats take the rest, or, with none, another constrained seat does
        for takers in [free] if free else [[t] for t in by_points if t != k]:
            pats = share(pats, k, takers, mine=True)
        wanted[lead[s]] = pats
    # the one free seat's patterns (with two or more, witness() already credits them with every
    # pattern their pooled cards make): it takes the pool's rest, a constrained seat the lowest
    for f in free if len(free) == 1 else []:
        pats = np.flatnonzero(want_pat[SEATS[f]])
        for s in j.constrained:  # seat after seat, for the patterns not yet given
            pats = share(pats, SEATS.index(s), [f], mine=False)
    if low_hcp and free:
        for low in (True, False):
            rows = owner
            for s in j.constrained:
                k = SEATS.index(s)
                pool = np.isin(rows, free + [k])
                new = _give(rows, pool, k, free, (rows == k).reshape(len(rows), 4, 13).sum(axis=2), low)
                ok = fitting(new, k)
                rows = np.where(ok[:, None], new, rows)
            found.append(rows)
    return (np.concatenate(found) if found else np.zeros((0, 52), np.int8)), work


def _less(pats: np.ndarray, given: np.ndarray) -> np.ndarray:
    """The pattern indices ``pats`` (sorted) less those in ``given``: np.setdiff1d by a mask,
    without the import of numpy.ma that np.setdiff1d makes on its first call (~14 ms)."""
    drop = np.zeros(len(PAT_LENGTHS), bool)
    drop[given] = True
    return pats[~drop[pats]]


def _informative(j, owner: np.ndarray, want_pat: dict, lo_t: dict, hi_t: dict, per: int = FRONTIER_PER) -> np.ndarray:
    """Which of the deals a round of swaps found to start the next round from: for each
    pattern they give a seat that was wanted, the first ``per`` deals that show it; for a
    seat's HCP beyond those seen, the ``4 * per`` most extreme deals (swaps from them go
    further).  Deals that only repeat what others show add little there."""
    keep = np.zeros(len(owner), bool)
    for s in j.unseen_seats:
        k = SEATS.index(s)
        held = owner == k
        pats = PAT_OF14[held.reshape(len(owner), 4, 13).sum(axis=2) @ RADIX14]
        h = held.astype(np.int64) @ CARD_HCP
        rows = np.flatnonzero(want_pat[s][pats])
        if len(rows):
            order = np.argsort(pats[rows], kind="stable")
            v = pats[rows][order]
            start = np.searchsorted(v, v, side="left")  # each row's rank among equal patterns
            keep[rows[order][np.arange(len(v)) - start < per]] = True
        # HCP beyond those seen: the most extreme deals, from which swaps go further
        for gain, sign in ((h < lo_t[s], 1), (h > hi_t[s], -1)):
            rows = np.flatnonzero(gain)
            keep[rows[np.argsort(sign * h[rows], kind="stable")[:4 * per]]] = True
    return np.flatnonzero(keep)


def _classes(owner, seat):

    return classes_of(owner, seat)


# --------------------------------------------------------------------------- CP-SAT for the rest
class DealModel:
    """The whole deal as CP-SAT booleans: for each unseen seat and unseen card, whether the
    seat holds it; every constrained seat's formula over its own cards (the encoding of
    :class:`canary_infer.engine.cpsat.HandModel`)."""

    def __init__(self, j):
        from canary_infer.engine.cpsat import HandModel, cp_model

        self.cp = cp_model
        self.spent = 0.0  # the work so far: the build (set below), then the solves
        self.known = j.known[0] if j.known is not None else None
        self.unseen = j.unseen
        self.deal: np.ndarray | None = None  # the last solve's witness deal, if it found one
        m = self.model = cp_model.CpModel()
        seats = j.unseen_seats
        cards = [(SUITS[c // 13], RANKS[c % 13]) for c in np.flatnonzero(j.unseen)]
        self.x = {s: {} for s in seats}
        zero = m.NewConstant(0)
        for s in seats:
            for su in SUITS:
                for r in RANKS:
                    self.x[s][su, r] = zero
            for c in cards:
                self.x[s][c] = m.NewBoolVar(f"{s}{c[0]}{c[1]}")
        for c in cards:
            m.AddExactlyOne(self.x[s][c] for s in seats)
        for s in seats:
            m.Add(sum(self.x[s][c] for c in cards) == 13)
        # The small cards of a suit (8 down to 2) are interchangeable: no feature tells them
        # apart, so any deal can be rearranged to one where their owners, in seat order, run
        # down the ranks.  Asking for that order removes the symmetry that makes the solver
        # prove the same impossibility once per permutation of the small cards.
        order = {s: k for k, s in enumerate(seats)}
        for su in SUITS:
            small = [c for c in cards if c[0] == su and c[1] not in TOP]
            owner = [sum(order[s] * self.x[s][c] for s in seats) for c in small]
            for a, b in zip(owner, owner[1:], strict=False):
                m.Add(a <= b)
        self.hands = {s: HandModel(cards=(m, self.x[s])) for s in seats}  # each seat's features over its cards
        for s, f in j.formulas.items():
            if s in self.hands:
                m.Add(self.hands[s].literal(f) == 1)
        self.spent = BUILD_COST * len(m.Proto().constraints)

    def _solve(self, assumptions, objective=None, time_limit=1.0, linearization: int = 0):
        from canary_infer.engine.cpsat import _solver

        m = self.model
        m.ClearAssumptions()
        m.AddAssumptions(assumptions)
        m.ClearObjective()
        if objective is not None:
            sense, expr = objective
            (m.Minimize if sense == "min" else m.Maximize)(expr)
        solver = _solver()
        solver.parameters.linearization_level = linearization
        # a deterministic limit: the same answer whatever the machine's load (the wall-clock
        # limit is only a guard against a machine far slower than this one); with the linear
        # relaxation, counted as below, so that the solve's work stays within the limit
        solver.parameters.max_deterministic_time = max(0.05, time_limit / (LP_WALL if linearization else 1.0))
        solver.parameters.max_time_in_seconds = 10 * max(0.05, time_limit) + 5
        st = solver.Solve(m)
        # with the linear relaxation, a solve takes about twice its deterministic time (the
        # simplex is under-counted): counted so, the work stays close to the time taken
        self.spent += solver.deterministic_time * (LP_WALL if linearization else 1.0)
        self.deal = None
        if st in (self.cp.OPTIMAL, self.cp.FEASIBLE):  # the solution is a witness deal
            self.deal = np.full((1, 52), -1, np.int8)
            if self.known is not None:
                self.deal[0, ~self.unseen] = SEATS.index(self.known)
            for s, xs in self.x.items():
                for (su, r), v in xs.items():
                    if not isinstance(v, int) and solver.Value(v):
                        self.deal[0, SUITS.index(su) * 13 + RANKS.index(r)] = SEATS.index(s)
        return solver, st

    def pattern_possible(self, seat: str, p, time_limit: float) -> bool | None:
        h = self.hands[seat]
        lits = [h.length_is(s, k) for s, k in zip(SUITS, p, strict=True)]
        _, st = self._solve(lits, time_limit=time_limit)
        if st == self.cp.INFEASIBLE:
            return False
        if st in (self.cp.OPTIMAL, self.cp.FEASIBLE):
            return True
        return None

    def hcp_extreme(self, seat: str, sense: str, time_limit: float, bound: int | None = None,
                    seen: int | None = None) -> int | None:
        """The seat's least or most HCP over the consistent deals, None if the time runs out.
        ``bound``, a sound bound on it (the outer bound), is tried first and then the values
        next to it, each as a question of whether some deal reaches it: far cheaper than
        optimising when the extreme is at or near the bound, as it usually is.  ``seen``, a
        value some consistent deal is known to reach, is not asked again: once the values
        beyond it are refuted, it is the extreme."""
        hcp = self.hands[seat].hcp
        end = self.spent + time_limit
        for step in range(3 if bound is not None else 0):
            v = bound + (step if sense == "min" else -step)
            if v == seen:
                return v
            lit = self.model.NewBoolVar("")
            self.model.Add(hcp <= v if sense == "min" else hcp >= v).OnlyEnforceIf(lit)
            # with the linear relaxation first, briefly: it refutes a total out of reach (and
            # finds a deal at it) at once where it can; else the plain search finds deals fastest
            solver, st = self._solve([lit], time_limit=min(QUICK_LP, end - self.spent), linearization=1)
            if st == self.cp.UNKNOWN and end - self.spent > 0.05:
                solver, st = self._solve([lit], time_limit=end - self.spent)
            if st in (self.cp.OPTIMAL, self.cp.FEASIBLE):  # and every value beyond was refuted
                return v
            if st != self.cp.INFEASIBLE or end - self.spent < 0.05:
                return None
        solver, st = self._solve([], (sense, hcp), end - self.spent)
        if st == self.cp.OPTIMAL:
            return int(round(solver.ObjectiveValue()))
        return None


# --------------------------------------------------------------------------- deals made with fillers
def _at_or_below(grid: np.ndarray) -> np.ndarray:
    """For a boolean grid of suit lengths: whether some marked cell is at or below each cell in
    every suit.

    >>> g = np.zeros((14, 14, 14, 14), bool); g[2, 5, 3, 3] = True
    >>> r = _at_or_below(g); bool(r[2, 5, 3, 3]), bool(r[3, 9, 3, 4]), bool(r[1, 13, 13, 13])
    (True, True, False)
    """
    if kernels.compiled is not None:
        out = np.array(grid, np.uint8).ravel()
        kernels.compiled.closure4(out, np.array(grid.shape, np.int64), False)
        return out.view(bool).reshape(grid.shape)
    for ax in range(4):
        grid = np.logical_or.accumulate(grid, axis=ax)
    return grid


def _at_or_above(grid: np.ndarray) -> np.ndarray:
    """For a boolean grid of suit lengths: whether some marked cell is at or above each cell
    in every suit.

    >>> g = np.zeros((14, 14, 14, 14), bool); g[2, 5, 3, 3] = True
    >>> r = _at_or_above(g); bool(r[2, 5, 3, 3]), bool(r[0, 4, 3, 0]), bool(r[3, 0, 0, 0])
    (True, True, False)
    """
    if kernels.compiled is not None:
        out = np.array(grid, np.uint8).ravel()
        kernels.compiled.closure4(out, np.array(grid.shape, np.int64), True)
        return out.view(bool).reshape(grid.shape)
    flip = (slice(None, None, -1),) * 4
    return _at_or_below(grid[flip])[flip]


def _plus(reach: np.ndarray, f: np.ndarray) -> np.ndarray:
    """The cells of the grid ``reach`` (small cards taken, suit by suit) plus one row of ``f``:
    every cell of one added to every row of the other, those within the grid kept.

    >>> r = np.zeros((3, 3, 3, 3), bool); r[0, 0, 0, 0] = r[1, 0, 0, 0] = True
    >>> np.argwhere(_plus(r, np.array([[1, 2, 0, 0], [0, 0, 1, 1]]))).tolist()
    [[0, 0, 1, 1], [1, 0, 1, 1], [1, 2, 0, 0], [2, 2, 0, 0]]
    """
    shape = reach.shape
    if kernels.compiled is not None:
        flat = np.ascontiguousarray(reach).ravel().view(np.uint8)
        return kernels.compiled.plus_grid(flat, np.array(shape, np.int64),
                                          np.ascontiguousarray(f, np.int64)).reshape(shape)
    cells = np.argwhere(reach)
    out = np.zeros(shape, bool)
    if len(cells) * len(f) <= _PLUS_PAIRS:  # every pair at once, each cell one number
        # six bits a suit, offset so that the suit's bit 5 is set where the sum is off the grid
        dims = np.array(shape, np.int32)
        w = np.int32(64) ** np.arange(4, dtype=np.int32)
        t = (cells.astype(np.int32) @ w)[:, None] + (f.astype(np.int32) @ w + (32 - dims) @ w)[None, :]
        t = t[(t & (32 * w).sum()) == 0]
        field = (t[:, None] >> np.arange(0, 24, 6, dtype=np.int32)[None, :]) & 63
        stride = np.array([int(np.prod(shape[k + 1:])) for k in range(4)], np.int32)
        out.reshape(-1)[field @ stride - int((32 - dims) @ stride)] = True
        return out
    grid = np.zeros(shape, bool)
    grid[tuple(f.T)] = True
    a, b = (reach, grid) if len(cells) <= len(f) else (grid, reach)
    for p, q, r, t in np.argwhere(a).tolist():
        out[p:, q:, r:, t:] |= b[:shape[0] - p, :shape[1] - q, :shape[2] - r, :shape[3] - t]
    return out


_PLUS_PAIRS = 1 << 21  # pairs of cells and rows that _plus adds up directly, not by shifting grids


def _taken(choices: list[np.ndarray], spots: np.ndarray, memo: dict | None = None) -> np.ndarray:
    """The small cards (a grid up to ``spots``) some choice of one row from each of
    ``choices`` (small cards taken, suit by suit, each at most ``spots``) takes; kept in
    ``memo``, if given, by the choices (in any order: the sum does not depend on it)."""
    key = None
    if memo is not None:
        key = ("taken", spots.tobytes(), tuple(sorted((f.shape, f.astype(np.int64).tobytes()) for f in choices)))
        if key in memo:
            return memo[key]
    reach = np.zeros(tuple(int(n) + 1 for n in spots), bool)
    reach[0, 0, 0, 0] = True
    for f in choices:
        reach = _plus(reach, f)
    if key is not None:
        reach.setflags(write=False)
        _remember(memo, key, reach)
    return reach


def _remember(memo: dict | None, key, value) -> None:
    """Keep ``value`` in a memo kept between answers (the oldest dropped past GRID_MEMO)."""
    if memo is None:
        return
    while len(memo) >= GRID_MEMO:
        memo.pop(next(iter(memo)))
    memo[key] = value


def _room_grid(choices: list[np.ndarray], spots: np.ndarray, memo: dict | None = None) -> np.ndarray:
    """For every cell of small cards left (a grid up to ``spots``): whether some choice of one
    row from each of ``choices`` adds up to no more (``memo``: as for :func:`_taken`)."""
    return _at_or_below(_taken(choices, spots, memo))


def _room_for(room: np.ndarray, choices: list[np.ndarray], spots: np.ndarray, memo: dict | None = None) -> np.ndarray:
    """For each row of ``room`` (small cards left, suit by suit): whether some choice of one
    row from each of ``choices`` adds up to no more (:func:`_room_grid` at those cells).

    >>> spots = np.array([9, 9, 9, 9])
    >>> _room_for(np.array([[4, 3, 3, 3], [3, 9, 9, 9]]), [np.array([[4, 3, 3, 3]])], spots).tolist()
    [True, False]
    """
    if not choices:
        return np.ones(len(room), bool)
    reach, f = _taken(choices[:-1], spots, memo), choices[-1]
    if len(room) * len(f) < 250 * min(int(reach.sum()), len(f)):
        # few rows: each with each row of the last set, the rest to fit what the others take
        if kernels.compiled is not None:
            below = np.ascontiguousarray(_at_or_below(reach)).ravel().view(np.uint8)
            return kernels.compiled.room_left(np.ascontiguousarray(room, np.int64), np.ascontiguousarray(f, np.int64),
                                              below, np.array(reach.shape, np.int64))
        rest = room[:, None, :] - f[None, :, :]
        fits = (rest >= 0).all(axis=2)
        ok = np.zeros(fits.shape, bool)
        ok[fits] = _at_or_below(reach)[tuple(rest[fits].T)]
        return ok.any(axis=1)
    return _at_or_below(_plus(reach, f))[tuple(room.T)]


FILLER_REST = 32  # patterns left unseen that make the fillers' second proof worth its grid
_OFFSETS = np.stack(np.meshgrid(*[np.arange(5)] * 4, indexing="ij"), axis=-1).reshape(-1, 4).astype(np.int8)
_OFFSETS_BY_SUM = [_OFFSETS[_OFFSETS.sum(axis=1) == d] for d in range(17)]


def _fit_everywhere(fits: np.ndarray, spots: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                    most: np.ndarray) -> np.ndarray:
    """For each row: whether there is a way v of holding small cards with lo <= v <= hi
    (suit by suit, hi - lo at most 4) and most of them in all, and ``fits`` holds at
    spots - v for every such way.

    >>> fits = np.ones((4, 4, 4, 4), bool); fits[0, 3, 3, 3] = False
    >>> lo, hi = np.array([[0, 0, 0, 0], [0, 0, 0, 0]]), np.array([[3, 0, 0, 0], [2, 0, 0, 0]])
    >>> _fit_everywhere(fits, np.array([3, 3, 3, 3]), lo, hi, np.array([2, 3])).tolist()
    [True, False]
    """
    if kernels.compiled is not None:
        return kernels.compiled.fit_everywhere(np.ascontiguousarray(fits).view(np.uint8), spots.astype(np.int64),
                                       np.ascontiguousarray(lo, np.int64), np.ascontiguousarray(hi, np.int64),
                                       np.ascontiguousarray(most, np.int64))
    ok = np.zeros(len(lo), bool)
    need = most - lo.sum(axis=1)  # the small cards beyond the least, to place within hi - lo
    for d in unique(need[(need >= 0) & (need <= 16)]).tolist():
        rows = np.flatnonzero(need == d)
        v = lo[rows, None, :].astype(np.int8) + _OFFSETS_BY_SUM[d][None, :, :]
        valid = (v <= hi[rows, None, :]).all(axis=2)
        left = np.where(valid[:, :, None], spots.astype(np.int8) - v, 0)
        ok[rows] = valid.any(axis=1) & (fits[tuple(np.moveaxis(left, 2, 0))] | ~valid).all(axis=1)
    return ok


def small_cards(j) -> tuple[np.ndarray, np.ndarray]:
    """The unseen small cards (ten to two) and honours (ace to jack) of each suit."""
    held = j.unseen.reshape(4, 13)
    return (held & (RANK_HCP == 0)[None, :]).sum(axis=1), (held & (RANK_HCP > 0)[None, :]).sum(axis=1)


def filler_patterns(j) -> dict[str, np.ndarray]:
    """Each constrained seat's *filler patterns* (a boolean per pattern): those of which
    every hand without an honour, of the unseen cards, fits its calls (its table and the
    table of all hands count the same such hands, as exact integers)."""
    zero = j.free_ph()[:, 0]  # the hands of each pattern with no honour, of the unseen cards
    small = (PAT_LENGTHS <= small_cards(j)[0]).all(axis=1)
    return {s: small & (zero > 0) & (j.tables[s].ph[:, 0] == zero) for s in j.constrained}


def filler_proofs(j, seen: dict | None = None) -> dict[str, tuple[np.ndarray, int, int]]:
    """Patterns and HCP that deals made with *fillers* prove each unseen seat can hold, found
    from the tables alone: {seat: (pattern indices, least HCP, most HCP)}.

    A constrained seat has a filler pattern when every hand of that pattern without an ace,
    king, queen or jack (of the unseen cards) fits its calls: its table and the table of all
    hands count the same such hands (a pass, which denies values, has many).  The small
    cards are the ten down to two.  Suppose every constrained seat but X has filler
    patterns, and some choice of one per seat adds up, suit by suit, to no more than the
    small cards a hand of X with pattern p leaves at the least (it holds at most p_s of a
    suit's small cards).  Then every hand of X with pattern p is in a consistent deal: each
    other constrained seat takes a hand of its filler pattern of small cards X left, and the
    free seats share the rest.  So every pattern p of X's own table (every hand, if X is
    free) that leaves such room, and every HCP total of its hands with them, is attained.

    For the patterns that proof leaves (when enough are not yet seen), a hand of pattern p
    with the most HCP X's table has for it, h, holds at least h/4 honours, so at most
    13 - ceil(h/4) small cards, and in each suit at most min(p_s, the small cards) and at least
    p_s less the suit's honours.  If the fillers fit in what every such way of holding small
    cards leaves, that hand is in a consistent deal: p and h are attained."""
    spots, honours = small_cards(j)
    fillers = {s: PAT_LENGTHS[f] for s, f in filler_patterns(j).items()}
    out = {}
    lead = leaders(j)
    memo = getattr(j, "grids", None)  # the sums of fillers, kept between answers (see Joint)
    for x in j.unseen_seats:
        t = lead[x]
        if t != x and (seen is None or seen.get(x) is seen.get(t)):
            # a twin (see leaders): the same table, the same others' calls, the same seen
            if t in out:
                out[x] = out[t]
            continue
        others = [s for s in j.constrained if s != x]
        if not all(len(fillers[s]) for s in others):
            continue
        ph = j.tables[x].ph if x in j.constrained else j.free_ph()
        pats = np.flatnonzero(ph.sum(axis=1) > 0)
        room = spots - np.minimum(PAT_LENGTHS[pats], spots)  # the small cards a hand of each leaves
        keep = room.sum(axis=1) >= 13 * len(others)  # room for the others' 13 cards each
        proven = (pats[keep][_room_for(room[keep], [fillers[s] for s in others], spots, memo)]
                  if keep.any() else pats[:0])
        hs = list(np.flatnonzero(ph[proven].sum(axis=0) > 0)[[0, -1]]) if len(proven) else []
        # the rest, by the hand of each pattern with the most HCP, which holds at least a
        # quarter as many honours, so at most 13 less that many small cards: however it holds
        # them (at most p_s of a suit, at least p_s less the honours of the suit), the fillers fit
        rest = _less(pats, proven)
        if seen is not None:
            rest = _less(rest, np.array(sorted(seen.get(x, ())), np.int64))
        if len(rest) >= FILLER_REST and 13 * len(others) <= spots.sum():  # (a few the search finds sooner)
            top = NHCP - 1 - np.argmax(ph[rest][:, ::-1] > 0, axis=1)  # each one's most HCP
            p = PAT_LENGTHS[rest]
            lo, hi = np.maximum(0, p - honours), np.minimum(p, spots)
            most = np.minimum(13 - (top + 3) // 4, hi.sum(axis=1))  # small cards at most
            fits = _room_grid([fillers[s] for s in others], spots, memo)
            ok = _fit_everywhere(fits, spots, lo, hi, most)
            if ok.any():
                proven = unique(np.concatenate([proven, rest[ok]]))
                hs += [int(top[ok].min()), int(top[ok].max())]
        if len(proven):
            out[x] = (proven, int(min(hs)), int(max(hs)))
    return out


# --------------------------------------------------------------------------- putting it together
_CARD_CODE = CARD_SUIT * 5 + CARD_HCP  # a card's suit and HCP, as one number below 20


def _take(v: np.ndarray, take, top: bool) -> np.ndarray:
    """The HCP of the ``take`` highest (``top``) or lowest cards of a pool, given per row how
    many of its cards are worth 0, 1, 2, 3 and 4 HCP (``v``, shape (n, 5)).

    >>> v = np.array([[9, 1, 1, 0, 1]])  # the ace, the queen and the jack, and nine small cards
    >>> _take(v, 2, top=True).tolist(), _take(v, 10, top=False).tolist()
    ([6], [1])
    """
    left = np.broadcast_to(np.asarray(take, np.int64), (len(v),)).copy()
    out = np.zeros(len(v), np.int64)
    for x in ((4, 3, 2, 1, 0) if top else (0, 1, 2, 3, 4)):
        t = np.minimum(v[:, x], left)
        out += t * x
        left -= t
    return out


TRY_COST = 1.2e-4  # the work of one deal tried by the drawing search, in seconds of this machine
EXTREME_TRIES = 256  # deals tried with a free seat holding the best (worst) cards
SHAPED_MAX = 16  # patterns left unseen for which deals are made straight from the cards (_Search.shaped)
SHAPED_TRIES = 128  # deals so made for each


def deal_cards(owner: np.ndarray) -> np.ndarray:
    """Per deal (rows of ``owner``, the seat of each card), seat and suit: how many of the
    seat's cards are worth 0, 1, 2, 3 and 4 HCP, as an (n, 4, 4, 5) array."""
    if kernels.compiled is not None:
        return kernels.compiled.deal_cards(np.ascontiguousarray(owner, np.int8))
    at = np.arange(len(owner))[:, None]
    return np.bincount((at * 80 + owner.astype(np.int64) * 20 + _CARD_CODE[None, :]).ravel(),
                       minlength=80 * len(owner)).reshape(len(owner), 4, 4, 5)


def deal_stats(owner: np.ndarray, free: list[int]) -> tuple[np.ndarray, ...]:
    """Per deal (rows of ``owner``, the seat of each card): each seat's suit lengths as a
    14-ary number and its HCP ((n, 4) each); the seats ``free`` pooled: their summed lengths
    as a 14-ary number, and the HCP of the 13 lowest and of the 13 highest of their cards.

    >>> owner = np.repeat(np.arange(4, dtype=np.int8), 13)[None, :]  # each seat a suit
    >>> codes, points, pooled, low, high = deal_stats(owner, [2, 3])
    >>> codes.tolist(), points.tolist(), pooled.tolist(), low.tolist(), high.tolist()
    ([[35672, 2548, 182, 13]], [[10, 10, 10, 10]], [195], [0], [20])
    """
    if kernels.compiled is not None:
        mask = np.zeros(4, np.uint8)
        mask[free] = 1
        return kernels.compiled.deal_stats(np.ascontiguousarray(owner, np.int8), mask)
    cards = deal_cards(owner)
    lengths = cards.sum(axis=3)
    v = cards[:, free].sum(axis=(1, 2))
    return (lengths @ RADIX14, cards.sum(axis=2) @ np.arange(5), lengths[:, free, :].sum(axis=1) @ RADIX14,
            _take(v, 13, top=False), _take(v, 13, top=True))


def _pair_at_once(j) -> bool:
    """Whether two constrained seats' deals are paired without a draw first: when the seat
    the draw checks (the one whose table holds more hands: the other is drawn) holds so small
    a share of all hands that, were its hand independent of the other's, PAIR_AFTER deals
    would give fewer than PAIR_SHORT of the 500 (the draw would stop there)."""
    tables = [j.tables[s] for s in j.constrained]
    if any(lengths_only(j.formulas[s]) for s in j.constrained):
        return False  # a seat that looks at lengths only is dealt by its patterns, not checked
    share = max(t.hands for t in tables) / math.comb(int(j.unseen.sum()), 13)
    return share * PAIR_AFTER < PAIR_SHORT * 500


@dataclass
class JointViews:
    """What the deal-level search gives a Joint: every unseen seat's view, and its work."""

    views: dict[str, SeatView]
    work: float | None  # the work counted for the answer (None: the outer bound left no deal)
    tried: int  # deals dealt by the first draw
    outer_work: float  # the outer bound's work


def joint_views(j) -> JointViews:
    """SeatViews for every unseen seat, proven where the time allows (see the module doc)."""
    outer, outer_work = outer_bounds(j)
    if any(not o[0].any() for o in outer.values()):
        return JointViews({s: SeatView(s, None, {}) for s in j.unseen_seats}, None, 0, outer_work)
    return _Proof(j, outer, outer_work).run()


class _Proof:
    """The search for one Joint's views within its budget: what it has seen each seat hold,
    the work it has counted, and the deals it looks with (see the module doc)."""

    def __init__(self, j, outer: dict, outer_work: float):
        self.j, self.outer, self.outer_work = j, outer, outer_work
        self.spent = 0.0  # work so far, in (roughly) seconds, besides the search's and the model's
        self.tried = 0  # deals dealt by the first draw
        self.shaped = [s for s in j.constrained if lengths_only(j.formulas[s])]
        self.general = [s for s in j.constrained if s not in self.shaped]
        # With at most one constrained seat that looks at more than lengths, the patterns the
        # outer bound keeps are all attained: that seat takes any of its hands with the pattern,
        # and the others take cards of the lengths they need from what is left.
        self.lengths_exact = len(self.general) <= 1
        # Seats whose calls say the same (the same formula, or both free) are interchangeable:
        # swapping their hands in a consistent deal gives a consistent deal, so what one of them
        # is seen to hold the other can hold too.  They share what is seen, and only the first
        # of them is searched for (the others' views are copies).
        leader = leaders(j)
        self.twins = {s: [t for t in j.unseen_seats if leader[t] == leader[s]] for s in j.unseen_seats}
        self.lead = [s for s in j.unseen_seats if self.twins[s][0] == s]
        self.seen: dict[str, _Seen] = {}  # what each seat is seen to hold: one per set of twins
        for s in self.lead:
            shared = _Seen()
            for t in self.twins[s]:
                self.seen[t] = shared
        self.seen_lo: dict[str, int] = {}  # the least and most HCP seen, per seat
        self.seen_hi: dict[str, int] = {}
        self.free = [SEATS.index(s) for s in j.free]
        # the free seats' pools so far (see _pool_free): the pools' cells, the cells at or below
        # one of them, and the patterns those leave a free seat
        self.pools = np.zeros(14 ** 4, bool)
        self.below = np.zeros(14 ** 4, bool)
        self.pooled = np.zeros(len(ALL_PATTERNS), bool)
        self.search = _Search(j, np.random.default_rng(j.seed + 1))  # deals with seats held (its own work)
        self.model: DealModel | None = None  # the whole deal's CP-SAT model, made when first asked
        self.cand = {s: np.flatnonzero(outer[s][0]) for s in j.unseen_seats}
        self.by_pat = {s: (j.tables[s].ph if s in j.constrained else j.free_ph()).sum(axis=1) for s in j.unseen_seats}
        # the outer bound's patterns that some hand of the seat has: those the search looks for
        self.sought = {s: self.cand[s][self.by_pat[s][self.cand[s]] > 0] for s in j.unseen_seats}
        self.hcp_ends = {s: (int(outer[s][1][self.cand[s]].min()), int(outer[s][2][self.cand[s]].max()))
                         for s in j.unseen_seats}
        self.rng = np.random.default_rng(j.seed + 2)  # which deals swaps start from

    def run(self) -> JointViews:
        """Every unseen seat's view, proven where the budget allows, and the work counted."""
        drawn, more = self.first_deals()
        self.fillers()
        self.swap_from(drawn, more)
        self.shape_missing()
        self.draw_missing()
        hcp_bounds = {s: self.hcp_bounds(s) for s in self.lead}
        # what is still open: the whole-deal CP-SAT model, within the time left
        views = {s: self.view(s, hcp_bounds[s]) for s in self.lead}
        work = self.j.budget - self.left()  # counted for the answer (at most the budget, but for the last step)
        for s in self.j.unseen_seats:  # a twin's view is its leader's
            v = views[self.twins[s][0]]
            if s not in views:
                views[s] = SeatView(s, v.hcp, dict(v.patterns), proven=v.proven, unproven=list(v.unproven))
        return JointViews(views, work, self.tried, self.outer_work)

    # ------------------------------------------------------------------ what is seen
    def note_hcp(self, s: str, lo: np.ndarray, hi: np.ndarray) -> None:
        """HCP from ``lo`` to ``hi`` seen held by a seat (and so by its twins)."""
        if len(lo):
            a, b = int(lo.min()), int(hi.max())
            for t in self.twins[s]:
                self.seen_lo[t] = min(self.seen_lo.get(t, 99), a)
                self.seen_hi[t] = max(self.seen_hi.get(t, -1), b)

    def witness(self, owner: np.ndarray, weight: float) -> None:
        """Record what consistent deals show (and what the free seats could hold instead)."""
        if not len(owner):
            return
        codes, points, pooled_cells, low, high = deal_stats(owner, self.free)
        for s in self.j.unseen_seats:
            k = SEATS.index(s)
            pats = PAT_OF14[codes[:, k]]
            self.seen[s].add(np.bincount(pats, minlength=len(ALL_PATTERNS)), weight)
            self.note_hcp(s, points[:, k], points[:, k])
        if len(self.free) >= 2:  # the free seats may share their cards out in any other way
            self._pool_free(pooled_cells, low, high)
        self._swap_free_cards(owner)

    def _pool_free(self, pooled_cells: np.ndarray, low: np.ndarray, high: np.ndarray) -> None:
        """Note what the free seats' pooled cards could give each of them, shared out anew."""
        # the patterns some deal's pooled free cards can make: those below some pool (the
        # pools of earlier deals kept, as what is at or below one of them: a pool below
        # those adds nothing, and only the patterns a new one adds are noted)
        cells = unique(pooled_cells)
        cells = cells[~self.below[cells]]
        if len(cells):
            self.pools[cells] = True
            self.below = _at_or_above(self.pools.reshape(14, 14, 14, 14)).ravel()
            fits = self.below[PAT14]
            for s in self.j.free:
                self.seen[s].note(fits & ~self.pooled)
            self.pooled = fits
        for s in self.j.free:
            self.note_hcp(s, low, high)

    def _swap_free_cards(self, owner: np.ndarray) -> None:
        """Note the HCP a seat that looks at lengths only could hold, swapping cards of a suit
        with the free seats."""
        swapping = self.shaped if self.free else []
        if not swapping:
            return
        cards = deal_cards(owner)
        lengths = cards.sum(axis=3)
        for s in swapping:
            k = SEATS.index(s)
            v = cards[:, self.free + [k]].sum(axis=1)
            lo = np.zeros(len(owner), np.int64)
            hi = np.zeros(len(owner), np.int64)
            for si in range(4):  # its length in each suit, of the highest or lowest cards pooled
                hi += _take(v[:, si], lengths[:, k, si], top=True)
                lo += _take(v[:, si], lengths[:, k, si], top=False)
            self.note_hcp(s, lo, hi)

    def missing(self, s: str) -> list[int]:
        """The patterns the search looks for a seat and has not seen."""
        if self.lengths_exact:
            return []
        return self.sought[s][~self.seen[s].mask[self.sought[s]]].tolist()

    def reached(self, s: str, sense: str, value: int) -> bool:
        """Whether the seat is seen holding ``value`` HCP as its least (``min``) or most seen."""
        return s in self.seen_lo and value == (self.seen_lo[s] if sense == "min" else self.seen_hi[s])

    # ------------------------------------------------------------------ the work
    def left(self) -> float:
        """The budget left, in work."""
        return (self.j.budget - self.j.table_work - self.spent - self.search.spent
                - (self.model.spent if self.model is not None else 0.0))

    def cp(self) -> DealModel:
        """The whole deal's CP-SAT model (built when first asked for)."""
        if self.model is None:
            self.model = DealModel(self.j)
        return self.model

    def worth_cp(self) -> bool:
        """Whether the budget left allows a CP-SAT question, the model's build counted (a
        solve loads the model whatever its limit, so a sliver of budget buys nothing)."""
        if self.left() <= 0.2:
            return False
        self.cp()
        return self.left() > 0.1

    def attempt(self, held, tries: int = 96) -> np.ndarray | None:
        """Deals drawn with seats held (:meth:`_Search.attempt`), their tries counted."""
        self.spent += tries * TRY_COST
        return self.search.attempt(held, tries=tries)

    # ------------------------------------------------------------------ deals and swaps
    def first_deals(self) -> tuple[np.ndarray, np.ndarray]:
        """The first deals (witnessed), where the witnesses start, and more from pairing."""
        j = self.j
        pairable = len(j.constrained) == 2 and len(j.free) + 2 == len(j.unseen_seats)
        # deals drawn by the exact sampler (at most DRAW_TRIES dealt), where the witnesses start;
        # for two constrained seats with the others free, at most PAIR_AFTER, and if that is not
        # enough (the second seat's calls fit few of the hands dealt), pairs of their hands
        # (see _Search.paired)
        # (when pairing, the draw stops as soon as its rate says that PAIR_AFTER deals would give
        # fewer than PAIR_SHORT of the 500: pairing then finds them, and the draws would be waste)
        # (nor does it start when the seats' tables already say so: see _pair_at_once)
        if pairable and _pair_at_once(j):
            drawn = np.zeros((0, 52), np.int8)
        else:
            drawn = j.sample(500, np.random.default_rng(j.seed), max_tries=PAIR_AFTER if pairable else DRAW_TRIES,
                             short=PAIR_SHORT if pairable else None)
            self.tried = j.tried
        self.spent += self.outer_work + DRAW_BASE + DEAL_COST * self.tried  # the work before any search (draws too)
        more = drawn[:0]
        if pairable and len(drawn) < 500:
            uniform, more = self.search.paired()
            drawn = np.concatenate([drawn, uniform])
        # none drawn proves nothing (consistent deals may be rarer than one in DRAW_TRIES): the
        # steps below then look for witnesses, and CP-SAT for proofs, as for any pattern unseen
        self.witness(drawn, 1.0)
        return drawn, more

    def fillers(self) -> None:
        """Note what fillers prove: the search need not find it."""
        for s, (pats, lo, hi) in filler_proofs(self.j, self.seen).items():
            self.seen[s].note(pats)
            self.note_hcp(s, np.array([lo]), np.array([hi]))

    def wanted(self) -> tuple[dict, dict, dict] | None:
        """What swaps should give each seat: the patterns unseen (by pattern), HCP below and
        above those seen (-1 and 99: none); None if nothing."""
        want_pat, lo_t, hi_t = {}, {}, {}
        for s in self.j.unseen_seats:
            w = np.zeros(len(ALL_PATTERNS), bool)
            w[self.missing(s)] = True
            want_pat[s] = w
            lo_t[s] = self.seen_lo[s] if self.seen_lo.get(s, -1) > self.hcp_ends[s][0] else -1
            hi_t[s] = self.seen_hi[s] if self.seen_hi.get(s, 99) < self.hcp_ends[s][1] else 99
        if not any(w.any() for w in want_pat.values()) and all(
                lo_t[s] < 0 and hi_t[s] > 37 for s in self.j.unseen_seats):
            return None
        return want_pat, lo_t, hi_t

    def grow(self, deals: np.ndarray | None) -> None:
        """Consistent deals as witnesses, and more one card swap at a time from them, while the
        swaps give some seat a pattern not yet seen or HCP beyond those seen (toward the outer
        bound)."""
        if deals is None:
            return
        self.witness(deals, 0.0)
        frontier = deals
        fresh = True
        while len(frontier) and self.left() > 0:
            wanted = self.wanted()
            if wanted is None:
                return
            if len(frontier) > FRONTIER:
                frontier = frontier[self.rng.choice(len(frontier), FRONTIER, replace=False)]
            if fresh:  # the frontier's deals with a seat's and the free seats' cards shared anew
                fresh = False
                shared = self.reshared(frontier, *wanted)
                if len(shared):
                    frontier = np.concatenate([frontier, shared])
                    continue
            fresh = True
            frontier = self.swapped(frontier, *wanted)

    def reshared(self, frontier: np.ndarray, want_pat: dict, lo_t: dict, hi_t: dict) -> np.ndarray:
        """Deals of the frontier with two seats' cards shared anew (:func:`reshare`), witnessed."""
        hcp_wanted = any(lo_t[s] >= 0 or hi_t[s] <= 37 for s in self.j.unseen_seats)
        shared, work = reshare(self.j, frontier, want_pat, hcp_wanted)
        self.spent += work
        self.witness(shared, 0.0)
        return shared

    def swapped(self, frontier: np.ndarray, want_pat: dict, lo_t: dict, hi_t: dict) -> np.ndarray:
        """Deals one swap from the frontier's (:func:`swap_moves`), witnessed; those to go on from."""
        moved, work = swap_moves(self.j, frontier, want_pat, lo_t, hi_t)
        self.spent += work
        if not len(moved):
            return moved
        self.witness(moved, 0.0)
        return moved[_informative(self.j, moved, want_pat, lo_t, hi_t)]

    def swap_from(self, drawn: np.ndarray, more: np.ndarray) -> None:
        """Swaps from the drawn deals at each seat's HCP extremes, and others at random."""
        self.witness(more, 0.0)
        drawn = np.concatenate([drawn, more])
        if len(drawn):
            start = [self.rng.choice(len(drawn), min(FRONTIER - 64, len(drawn)), replace=False)]
            for s in self.j.unseen_seats:
                h = (drawn == SEATS.index(s)).astype(np.int64) @ CARD_HCP
                start += [np.flatnonzero(h == h.min())[:8], np.flatnonzero(h == h.max())[:8]]
            self.grow(drawn[unique(np.concatenate(start))])

    def shape_missing(self) -> None:
        """Deals made straight from the cards for the few patterns the draws and swaps left."""
        # (most often a long suit of nearly all its cards), before the rounds of draw_missing
        shaping = np.random.default_rng(self.j.seed + 3)
        for s in self.lead:
            miss = self.missing(s)
            if 0 < len(miss) <= SHAPED_MAX and self.left() > 0:
                self.spent += SHAPED_TRIES * len(miss) * TRY_COST
                found = self.search.shaped(s, miss, SHAPED_TRIES, shaping)
                if found is not None:
                    self.witness(found, 0.0)

    def draw_missing(self) -> None:
        """Rounds of hands drawn evenly among each seat's patterns not yet seen, seat after seat."""
        idle = {s: 0 for s in self.j.unseen_seats}
        while self.left() > 0:
            busy = [s for s in self.lead if idle[s] < 2 and self.missing(s)]
            if not busy:
                break
            for s in busy:
                idle[s] = 0 if self.draw_for(s) else idle[s] + 1
                if self.left() <= 0:
                    break

    def draw_for(self, s: str) -> bool:
        """Deals with the seat's hand drawn evenly among its patterns unseen; whether one is seen."""
        miss = self.missing(s)
        weight = np.zeros(len(ALL_PATTERNS))
        weight[miss] = 1.0 / self.by_pat[s][miss]
        before = len(self.seen[s])
        self.grow(self.attempt({s: (weight, None)}, tries=min(2048, max(256, 2 * len(miss)))))
        return len(self.seen[s]) != before

    # ------------------------------------------------------------------ the HCP bounds
    def hcp_bounds(self, s: str) -> list[list]:
        """The seat's least and most HCP by the outer bound, each [sense, value, reached]."""
        _, lo, hi = self.outer[s]
        c = self.cand[s]
        return [self.hcp_bound(s, sense, value) for sense, value in (("min", int(lo[c].min())),
                                                                      ("max", int(hi[c].max())))]

    def hcp_bound(self, s: str, sense: str, value: int) -> list:
        """A deal sought with the seat at an HCP bound: [sense, value, whether one is seen]."""
        done = (self.lengths_exact and s in self.general) or self.reached(s, sense, value)
        tries = self.hcp_tries(s, sense, value)
        if not done and s in self.j.free and self.left() > 0:  # the seat holds the best (worst) cards
            self.spent += EXTREME_TRIES * TRY_COST
            self.grow(self.search.extreme(s, sense, value, EXTREME_TRIES))
            done = self.reached(s, sense, value)
        for held, n in tries:
            if done or self.left() <= 0:
                break
            self.grow(self.attempt(held, tries=n))
            done = self.reached(s, sense, value)
        if not done and self.left() > 0 and len(self.j.unseen_seats) >= 3:
            self.spent += TAIL_COST
            self.grow(self.search.exact_tail({s: (None, value)}, self.outer, sense))
            done = self.reached(s, sense, value)
        return [sense, value, done]

    def hcp_tries(self, s: str, sense: str, value: int) -> list[tuple[dict, int]]:
        """The seats held to find the seat at an HCP bound, and the deals tried for each."""
        tries = [({s: (None, value)}, 96)]
        if self.general and s not in self.general:
            # the others at their extremes leave this seat the most (least) room: for the most,
            # tried first (the others' least HCP are often reached together)
            ext = {g: (None, int(self.outer[g][1][self.cand[g]].min()) if sense == "max"
                       else int(self.outer[g][2][self.cand[g]].max())) for g in self.general}
            # with every other seat held, this seat gets exactly the points they leave: unless
            # that is the value sought, the attempt cannot succeed (the exact tail can)
            whole = len(ext) == len(self.j.unseen_seats) - 1
            points = int(CARD_HCP[self.j.unseen].sum())  # the unseen seats' HCP between them
            if not whole or points - sum(v for _, v in ext.values()) == value:
                tries.insert(0 if sense == "max" else 1, (ext, {1: 96, 2: 512}.get(len(ext), 1024)))  # several
        return tries

    # ------------------------------------------------------------------ what is left: CP-SAT
    def view(self, s: str, hcp_bounds: list) -> SeatView:
        """The seat's view, what is still open decided by the CP-SAT model where the budget allows."""
        keep, unproven = self.patterns(s)
        if not keep:
            return SeatView(s, None, {})
        bounds = []
        for sense, value, done in hcp_bounds:
            value, open_ = self.hcp_end(s, sense, value, done)
            bounds.append(value)
            if open_:
                unproven.append(open_)
        pats = dict(zip([ALL_PATTERNS[i] for i in keep], self.seen[s].weight[keep].tolist(), strict=True))
        return SeatView(s, (bounds[0], bounds[1]), pats, proven=not unproven, unproven=unproven)

    def patterns(self, s: str) -> tuple[list[int], list[str]]:
        """The seat's patterns kept (seen, or not refuted), and those not proven."""
        unproven: list[str] = []
        keep: list[int] = []
        for i in self.cand[s].tolist():
            if self.lengths_exact or self.seen[s].mask[i]:
                keep.append(i)
                continue
            decided = self.cp().pattern_possible(s, ALL_PATTERNS[i], min(1.0, self.left())) if self.worth_cp() else None
            if decided is False:
                continue
            if decided:
                self.grow(self.model.deal)
            keep.append(i)
            if decided is None:
                unproven.append("pattern " + "-".join(map(str, ALL_PATTERNS[i])))
        return keep, unproven

    def hcp_end(self, s: str, sense: str, value: int, done: bool) -> tuple[int, str | None]:
        """The seat's least or most HCP, and what is not proven of it (None: nothing)."""
        seen = self.seen_lo.get(s) if sense == "min" else self.seen_hi.get(s)
        if done or value == seen:  # seen since
            return value, None
        exact = self.cp().hcp_extreme(s, sense, min(2.0, self.left()), value, seen) if self.worth_cp() else None
        if exact is None:
            return value, f"{'least' if sense == 'min' else 'most'} HCP {value}"
        self.grow(self.model.deal)
        return exact, None


__all__ = ["outer_bounds", "joint_views", "JointViews", "DealModel"]
