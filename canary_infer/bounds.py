"""Exact ranges and pattern sets when two or more unseen seats are constrained.

Three steps, each sound on its own:

1. *Outer bound.*  Each constrained seat's own table gives, per pattern, its least and most
   HCP; a free seat may hold anything the unseen cards allow.  A deal needs the seats' suit
   lengths to add up to the unseen cards of each suit and their HCP to the unseen points.  A
   programme over the seats (on the grid of summed lengths, keeping the least and most summed
   HCP) keeps, for every seat, only the patterns and HCP some combination of the others
   leaves room for.  Nothing consistent is lost; a few impossible things may remain.
2. *Inner bound.*  Deals drawn by the exact sampler are witnesses: a pattern or an HCP value
   seen in a consistent deal is attained.  Then, for each pattern or bound in the outer bound
   but not yet seen, deals are drawn with that seat held to it (its hand drawn from its own
   table with that pattern or HCP, the tightest other seats from pools of their own hands
   that share no card with it, the rest dealt at random and checked).
3. *What is left* is decided by the card-level CP-SAT model of the whole deal (four hands of
   52 booleans each): a feasible answer is a witness, an infeasible one a proof.  Anything
   still open when the time runs out is reported as possible and listed as not proven.

The time is counted in work, not read off a clock, so that the same question gets the same
answer on a busy machine as on an idle one: a drawing attempt costs :data:`TRY_COST` per deal
tried (about what a try takes here), a CP-SAT solve its deterministic time.
"""

from __future__ import annotations

import math

import numpy as np

from .cards import RANKS, SEATS, SUITS
from .engine import ALL_PATTERNS, NHCP, PAT_LENGTHS, build_seat
from .expr import TRUE, Feat

_INF = 10_000
RANK_HCP = np.array([4, 3, 2, 1] + [0] * 9, np.int64)


def _pattern_hcp(ph: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per pattern: possible?, least HCP, most HCP (from a (560, 38) count table)."""
    nz = ph > 0
    ok = nz.any(axis=1)
    lo = np.where(ok, np.argmax(nz, axis=1), _INF)
    hi = np.where(ok, NHCP - 1 - np.argmax(nz[:, ::-1], axis=1), -_INF)
    return ok, lo, hi


_R14 = np.array([14 ** 3, 14 ** 2, 14, 1], np.int64)
_PAT14 = PAT_LENGTHS @ _R14


class _Grid:
    """Summed suit lengths of a set of seats (cells of a 14^4 grid, up to the unseen lengths)
    with the least and most summed HCP that reach each cell."""

    def __init__(self, u):
        self.u = np.array(u, np.int64)
        self.lo = np.full(14 ** 4, _INF, np.int64)
        self.hi = np.full(14 ** 4, -_INF, np.int64)
        self.lo[0] = self.hi[0] = 0

    def add(self, ok, lo, hi) -> _Grid:
        out = _Grid(self.u)
        out.lo[0], out.hi[0] = _INF, -_INF
        cells = np.flatnonzero(self.lo < _INF)
        cl = np.stack([(cells // r) % 14 for r in _R14], axis=1)
        pats = np.flatnonzero(ok & (PAT_LENGTHS <= self.u).all(axis=1))
        for i in range(0, len(cells), 4096):
            c = cells[i:i + 4096]
            fits = ((cl[i:i + 4096, None, :] + PAT_LENGTHS[pats][None, :, :]) <= self.u).all(axis=2)
            rc, pc = np.nonzero(fits)
            dst = c[rc] + _PAT14[pats[pc]]
            np.minimum.at(out.lo, dst, self.lo[c[rc]] + lo[pats[pc]])
            np.maximum.at(out.hi, dst, self.hi[c[rc]] + hi[pats[pc]])
        return out

    def below(self) -> np.ndarray:
        """For every cell w, the least summed HCP over reachable cells v <= w (as a 14^4 grid)."""
        m = self.lo.reshape(14, 14, 14, 14).copy()
        for ax in range(4):
            m = np.minimum.accumulate(m, axis=ax)
        return m


def outer_bounds(j) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per unseen seat: (pattern possible?, least HCP, most HCP) per pattern, relaxed over
    the deck (see the module docstring)."""
    u = j.unseen.reshape(4, 13).sum(axis=1)
    hu = int((j.unseen.reshape(4, 13)[:, :4] * np.array([4, 3, 2, 1])).sum())
    own = {s: _pattern_hcp(t.ph) for s, t in j.tables.items()}
    if j.free:
        own_free = _pattern_hcp(build_seat(TRUE, j.avail).ph)
        for s in j.free:
            own[s] = own_free
    out = {}
    for s in j.unseen_seats:
        others = [o for o in j.unseen_seats if o != s]
        fixed = [o for o in others if o in j.constrained]
        loose = [o for o in others if o not in j.constrained]
        g = _Grid(u)
        for o in fixed:
            g = g.add(*own[o])
        below = g.below() if loose else None
        ok, lo, hi = (x.copy() for x in own[s])
        for i in np.flatnonzero(ok):
            p = ALL_PATTERNS[i]
            if any(p[k] > u[k] for k in range(4)):
                ok[i] = False
                continue
            w = tuple(int(u[k] - p[k]) for k in range(4))
            if loose:  # the free others take whatever is left: the fixed ones fit in w
                least = int(below[w])
                if least >= _INF:
                    ok[i] = False
                    continue
                hi[i] = min(hi[i], hu - least)
            else:  # the fixed others take exactly w
                cell = int(np.dot(w, _R14))
                glo, ghi = int(g.lo[cell]), int(g.hi[cell])
                if glo >= _INF:
                    ok[i] = False
                    continue
                lo[i] = max(lo[i], hu - ghi)
                hi[i] = min(hi[i], hu - glo)
            if lo[i] > hi[i]:
                ok[i] = False
        out[s] = (ok, lo, hi)
    return out


_POW2 = np.uint64(1) << np.arange(52, dtype=np.uint64)


def _bits(held: np.ndarray) -> np.ndarray:
    """(n, 52) booleans as n 52-bit masks."""
    return (held.astype(np.uint64) * _POW2).sum(axis=1, dtype=np.uint64)


class _Search:
    """Deals drawn with seats held to patterns or HCP values (see the module docstring)."""

    def __init__(self, j, rng: np.random.Generator):
        from .joint import holds

        self.j, self.rng, self.holds = j, rng, holds
        self.pools: dict[str, np.ndarray] = {}
        self._free_table = None
        total = math.comb(int(j.unseen.sum()), 13)
        self.tight = [s for s in sorted(j.constrained, key=lambda s: j.tables[s].hands)
                      if j.tables[s].hands / total <= 0.3]

    def table(self, seat: str):
        if seat in self.j.constrained:
            return self.j.tables[seat]
        if self._free_table is None:
            self._free_table = build_seat(TRUE, self.j.avail)
        return self._free_table

    def hands(self, seat: str, n: int, pattern: int | None = None, hcp: int | None = None) -> np.ndarray | None:
        """n hands of a seat (as (n, 52) booleans), from its own table, with that pattern / HCP."""
        pat_ok = hcp_ok = None
        if isinstance(pattern, np.ndarray):
            pat_ok = pattern
        elif pattern is not None:
            pat_ok = np.zeros(len(ALL_PATTERNS), bool)
            pat_ok[pattern] = True
        if hcp is not None:
            hcp_ok = np.zeros(NHCP, bool)
            hcp_ok[hcp] = True
        cls = self.table(seat).sample(n, self.rng, pat_ok, hcp_ok)
        if cls is None:
            return None
        owner = np.full((n, 52), -1, np.int8)
        self.j._place(owner, cls, 0, self.rng)
        return owner == 0

    def pool(self, seat: str) -> np.ndarray:
        """Hands of a tight seat to match with what is placed: half drawn as they come, half
        evenly over its patterns (so that its rarer patterns, which often fit, are there)."""
        if seat not in self.pools:
            by_pat = self.table(seat).ph.sum(axis=1)
            weight = np.where(by_pat > 0, 1.0 / np.maximum(by_pat, 1), 0.0)
            self.pools[seat] = np.concatenate([self.hands(seat, 4096), self.hands(seat, 4096, weight)])
        return self.pools[seat]

    def _disjoint_pairs(self, masks: np.ndarray, hb: np.ndarray, tries: int) -> tuple[np.ndarray, np.ndarray]:
        """Up to ``tries`` (partial deal, hand) pairs that share no card, drawn at random: first
        by trying random pairs (cheap when many pairs fit), else from every pair that fits."""
        draws = 16 * tries
        if len(masks) * len(hb) > 4 * draws:
            r = self.rng.integers(0, len(masks), draws)
            c = self.rng.integers(0, len(hb), draws)
            good = (masks[r] & hb[c]) == 0
            pairs = np.unique(r[good] * len(hb) + c[good])  # distinct pairs, as the full search gives
            if len(pairs) >= tries:
                pairs = self.rng.permutation(pairs)[:tries]
                return pairs // len(hb), pairs % len(hb)
        rows, cols = np.nonzero((masks[:, None] & hb[None, :]) == 0)  # (partial deals, hands)
        if len(rows) > tries:
            pick = self.rng.choice(len(rows), tries, replace=False)
            rows, cols = rows[pick], cols[pick]
        return rows, cols

    def attempt(self, held: dict[str, tuple[int | None, int | None]], tries: int = 96) -> np.ndarray | None:
        """Consistent deals (an (k, 52) owner array, k >= 1) where each seat in ``held`` has the
        given (pattern index, HCP) (None: any), or None if none was found.  Held seats draw
        from their own tables; the tightest other constrained seats from pools of their own
        hands that share no card with what is placed; the rest is dealt at random and checked."""
        j = self.j
        base = np.zeros(52, bool) if j.known is None else ~j.unseen
        placed: list[tuple[str, np.ndarray]] = []
        masks = np.array([_bits(base[None, :])[0]], np.uint64)
        choice: list[np.ndarray] = []
        order = [s for s in held] + [s for s in self.tight if s not in held]
        for s in order:
            if s in held:
                pat, hcp = held[s]
                hs = self.hands(s, tries, pat, hcp)
            else:
                hs = self.pool(s)
            if hs is None:
                return None
            hb = _bits(hs)
            rows, cols = self._disjoint_pairs(masks, hb, tries)
            if len(rows) == 0:
                return None
            masks = masks[rows] | hb[cols]
            choice = [c[rows] for c in choice] + [cols]
            placed.append((s, hs))
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


def _classes(owner, seat):
    from .joint import classes_of

    return classes_of(owner, seat)


# --------------------------------------------------------------------------- CP-SAT for the rest
class DealModel:
    """The whole deal as CP-SAT booleans: for each unseen seat and unseen card, whether the
    seat holds it; every constrained seat's formula over its own cards (the encoding of
    :class:`canary_infer.cpsat.HandModel`)."""

    def __init__(self, j):
        from ortools.sat.python import cp_model

        from .cpsat import HandModel

        self.cp = cp_model
        self.spent = 0.0  # the deterministic time of the solves so far
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
        self.hands = {}
        for s in seats:
            h = HandModel.__new__(HandModel)
            h.model, h.x = m, self.x[s]
            h._feat, h._cls, h._len_is, h._lit = {}, {}, {}, {}
            h.length = {su: h.feature(Feat("len", su)) for su in SUITS}
            h.hcp = h.feature(Feat("hcp"))
            self.hands[s] = h
        for s, f in j.formulas.items():
            if s in self.hands:
                m.Add(self.hands[s].literal(f) == 1)

    def _solve(self, assumptions, objective=None, time_limit=1.0):
        from .cpsat import _solver

        m = self.model
        m.ClearAssumptions()
        m.AddAssumptions(assumptions)
        m.ClearObjective()
        if objective is not None:
            sense, expr = objective
            (m.Minimize if sense == "min" else m.Maximize)(expr)
        solver = _solver()
        # a deterministic limit: the same answer whatever the machine's load (the wall-clock
        # limit is only a guard against a machine far slower than this one)
        solver.parameters.max_deterministic_time = max(0.05, time_limit)
        solver.parameters.max_time_in_seconds = 10 * max(0.05, time_limit) + 5
        st = solver.Solve(m)
        self.spent += solver.deterministic_time
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

    def hcp_extreme(self, seat: str, sense: str, time_limit: float) -> int | None:
        solver, st = self._solve([], (sense, self.hands[seat].hcp), time_limit)
        if st == self.cp.OPTIMAL:
            return int(round(solver.ObjectiveValue()))
        return None


# --------------------------------------------------------------------------- putting it together
TRY_COST = 1.2e-4  # the work of one deal tried by the drawing search, in seconds of this machine
def _length_only(f) -> bool:
    from .joint import _length_only as lo

    return lo(f)


def joint_views(j) -> dict:
    """SeatViews for every unseen seat, proven where the time allows (see the module doc)."""
    from .joint import _PAT_INDEX, CARD_HCP, SeatView, classes_of

    spent = [0.0]  # work so far, in (roughly) seconds: see the module doc
    outer = outer_bounds(j)
    if any(not o[0].any() for o in outer.values()):
        return {s: SeatView(s, None, {}) for s in j.unseen_seats}
    general = [s for s in j.constrained if not _length_only(j.formulas[s])]
    # With at most one constrained seat that looks at more than lengths, the patterns the
    # outer bound keeps are all attained: that seat takes any of its hands with the pattern,
    # and the others take cards of the lengths they need from what is left.
    lengths_exact = len(general) <= 1
    seen_p: dict[str, dict[int, float]] = {s: {} for s in j.unseen_seats}
    seen_lo: dict[str, int] = {}
    seen_hi: dict[str, int] = {}
    free = [SEATS.index(s) for s in j.free]

    def note_hcp(s: str, lo: np.ndarray, hi: np.ndarray) -> None:
        if len(lo):
            seen_lo[s] = min(seen_lo.get(s, 99), int(lo.min()))
            seen_hi[s] = max(seen_hi.get(s, -1), int(hi.max()))

    def witness(owner: np.ndarray, weight: float) -> None:
        """Record what consistent deals show (and what the free seats could hold instead)."""
        for s in j.unseen_seats:
            k = SEATS.index(s)
            lens = classes_of(owner, k) // 64
            for r in lens.tolist():
                i = _PAT_INDEX[tuple(r)]
                seen_p[s][i] = seen_p[s].get(i, 0.0) + weight
            h = (owner == k).astype(np.int64) @ CARD_HCP
            note_hcp(s, h, h)
        if len(free) >= 2:  # the free seats may share their cards out in any other way
            pooled = np.isin(owner, free)
            vals = np.where(pooled, CARD_HCP[None, :], -1)
            srt = np.sort(vals, axis=1)
            cnt = pooled.sum(axis=1)
            low = np.array([srt[r, 52 - cnt[r]:52 - cnt[r] + 13].sum() for r in range(len(owner))])
            high = srt[:, -13:].sum(axis=1)
            rem = pooled.reshape(len(owner), 4, 13).sum(axis=2)
            fits = (PAT_LENGTHS[None, :, :] <= rem[:, None, :]).all(axis=2).any(axis=0)
            for s in j.free:
                for i in np.flatnonzero(fits):
                    seen_p[s].setdefault(int(i), 0.0)
                note_hcp(s, low, high)
        for s in j.constrained:  # a seat that looks at lengths only may swap cards with the free seats
            if free and _length_only(j.formulas[s]):
                k = SEATS.index(s)
                lo = np.zeros(len(owner), np.int64)
                hi = np.zeros(len(owner), np.int64)
                for si in range(4):
                    part = owner[:, si * 13:(si + 1) * 13]
                    n = (part == k).sum(axis=1)
                    pooled = np.isin(part, free + [k])
                    # ranks run from the ace down, so the pooled cards' HCP are already sorted
                    vals = np.where(pooled, RANK_HCP[None, :], -1)
                    desc = -np.sort(-vals, axis=1)
                    cum = np.concatenate([np.zeros((len(owner), 1), np.int64), np.cumsum(np.maximum(desc, 0), axis=1)],
                                         axis=1)
                    cnt = pooled.sum(axis=1)
                    hi += cum[np.arange(len(owner)), n]
                    lo += cum[np.arange(len(owner)), cnt] - cum[np.arange(len(owner)), cnt - n]
                note_hcp(s, lo, hi)

    drawn = j.drawn(2000)
    if len(drawn) == 0:
        return {s: SeatView(s, None, {}) for s in j.unseen_seats}
    witness(drawn, 1.0)
    search = _Search(j, np.random.default_rng(j.seed + 1))
    model: DealModel | None = None

    def cp() -> DealModel:
        nonlocal model
        if model is None:
            model = DealModel(j)
        return model

    def left() -> float:
        return j.budget - spent[0] - (model.spent if model is not None else 0.0)

    def attempt(held, tries: int = 96):
        spent[0] += tries * TRY_COST
        return search.attempt(held, tries=tries)

    cand = {s: [int(i) for i in np.flatnonzero(outer[s][0])] for s in j.unseen_seats}
    by_pat = {s: search.table(s).ph.sum(axis=1) for s in j.unseen_seats}

    def missing(s: str) -> list[int]:
        if lengths_exact:
            return []
        return [i for i in cand[s] if i not in seen_p[s] and by_pat[s][i] > 0]

    # rounds of hands drawn evenly among each seat's patterns not yet seen, seat after seat
    idle = {s: 0 for s in j.unseen_seats}
    while left() > 0:
        busy = [s for s in j.unseen_seats if idle[s] < 2 and missing(s)]
        if not busy:
            break
        for s in busy:
            miss = missing(s)
            weight = np.zeros(len(ALL_PATTERNS))
            weight[miss] = 1.0 / by_pat[s][miss]
            before = len(seen_p[s])
            found = attempt({s: (weight, None)}, tries=min(2048, max(256, 2 * len(miss))))
            if found is not None:
                witness(found, 0.0)
            idle[s] = idle[s] + 1 if len(seen_p[s]) == before else 0
            if left() <= 0:
                break

    # the HCP bounds: the outer bound, then a deal with the seat held to it
    hcp_bounds: dict[str, list] = {}
    for s in j.unseen_seats:
        ok, lo, hi = outer[s]
        kk = np.array(cand[s])
        pair = []
        for sense, value in (("min", int(lo[kk].min())), ("max", int(hi[kk].max()))):
            done = (lengths_exact and s in general) or (
                s in seen_lo and value == (seen_lo[s] if sense == "min" else seen_hi[s]))
            if not done and left() > 0:
                found = attempt({s: (None, value)})
                if found is None and general and s not in general:
                    # the others at their extremes leave this seat the most (least) room
                    ext = {g: (None, int((outer[g][1] if sense == "max" else outer[g][2])[cand[g]].min()
                                         if sense == "max" else outer[g][2][cand[g]].max())) for g in general}
                    found = attempt(ext)
                if found is not None:
                    witness(found, 0.0)
                done = s in seen_lo and value == (seen_lo[s] if sense == "min" else seen_hi[s])
            pair.append([sense, value, done])
        hcp_bounds[s] = pair

    # what is still open: the whole-deal CP-SAT model, within the time left
    views = {}
    for s in j.unseen_seats:
        unproven: list[str] = []
        keep: list[int] = []
        for i in cand[s]:
            if lengths_exact or i in seen_p[s]:
                keep.append(i)
                continue
            decided = cp().pattern_possible(s, ALL_PATTERNS[i], min(1.0, left())) if left() > 0.2 else None
            if decided is False:
                continue
            keep.append(i)
            if decided is None:
                unproven.append("pattern " + "-".join(map(str, ALL_PATTERNS[i])))
        if not keep:
            views[s] = SeatView(s, None, {})
            continue
        bounds = []
        for sense, value, done in hcp_bounds[s]:
            if not done:
                exact = cp().hcp_extreme(s, sense, min(2.0, left())) if left() > 0.2 else None
                if exact is not None:
                    value = exact
                else:
                    unproven.append(f"{'least' if sense == 'min' else 'most'} HCP {value}")
            bounds.append(value)
        pats = {ALL_PATTERNS[i]: seen_p[s].get(i, 0.0) for i in keep}
        views[s] = SeatView(s, (bounds[0], bounds[1]), pats, proven=not unproven, unproven=unproven)
    return views


__all__ = ["outer_bounds", "joint_views", "DealModel"]
