"""The exact fast path: per-suit holding tables and a dynamic programme over the suits.

Every feature is a sum over the suits of a function of one holding class (length and top
cards, see :mod:`canary_infer.features`).  For one formula we choose *columns*: the four
suit lengths, the HCP total, and whatever else the formula looks at, each column the sum
over suits of a per-class contribution.  A dynamic programme adds one suit at a time,
merging states with equal columns (and counting the actual hands in each), so that after
the fourth suit every distinct combination of column values that some hand reaches is
known, together with how many hands reach it.  The formula is then evaluated on those
rows with numpy; the result is exact.

Three devices keep the tables small:

* sums compared only with constants are *capped* just above the largest constant they are
  compared with (the comparison cannot tell the capped values apart);
* a sub-formula about one suit only (``len(S) == 1 -> hasA(S) or hasK(S)``) becomes one 0/1
  column of that suit, and an ``and``/``or`` of such sub-formulas over several suits becomes
  one column counting the suits where it fails/holds, capped at 1;
* a set of allowed patterns (from the player's earlier calls) prunes the programme as it
  goes, so a narrow continuation costs almost nothing.

The CP-SAT model in :mod:`canary_infer.cpsat` answers the same questions at card level; the
tests hold the two together.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from .cards import SUITS
from .expr import TRUE, And, Cmp, Feat, Node, Not, Or, Pattern, Shape, feats
from .features import FEATURES, SMALL_CARDS, classes

ALL_PATTERNS: tuple[tuple[int, int, int, int], ...] = tuple(
    (a, b, c, 13 - a - b - c) for a in range(14) for b in range(14 - a) for c in range(14 - a - b)
)


# --------------------------------------------------------------------------- availability
@dataclass(frozen=True)
class Available:
    """Which cards are still unseen: per suit, a mask of the top cards and a number of small cards."""

    honours: tuple[int, int, int, int] = (63, 63, 63, 63)
    small: tuple[int, int, int, int] = (SMALL_CARDS,) * 4

    @classmethod
    def excluding(cls, hand) -> Available:
        from .features import holding_class

        hon, small = [], []
        for s in SUITS:
            n, m = holding_class(hand, s)
            hon.append(63 & ~m)
            small.append(SMALL_CARDS - (n - bin(m).count("1")))
        return cls(tuple(hon), tuple(small))


@lru_cache(maxsize=32)
def suit_classes(avail: Available, si: int):
    """Arrays (length, mask, count) of every holding class of suit number si."""
    ls, ms, cs = [], [], []
    for n in range(14):
        for m, c in classes(n, avail.small[si], avail.honours[si]):
            ls.append(n)
            ms.append(m)
            cs.append(c)
    return np.array(ls, np.int64), np.array(ms, np.int64), np.array(cs, np.float64)


@lru_cache(maxsize=256)
def _per_class(name: str, avail: Available, si: int) -> np.ndarray:
    f = FEATURES[name].per_suit
    ls, ms, _ = suit_classes(avail, si)
    return np.fromiter((f(int(n), int(m)) for n, m in zip(ls, ms, strict=True)), np.int64, len(ls))


# --------------------------------------------------------------------------- planning
@dataclass(frozen=True)
class Column:
    """One column of the programme: a per-class contribution for each suit, and a cap."""

    key: tuple
    cap: int  # values above cap are stored as cap


def _local_suit(n: Node) -> str | None:
    """The one suit a formula looks at, if it looks at a single suit only (lengths included)."""
    if isinstance(n, (Pattern, Shape)):
        return None
    fs = _feats(n)
    suits = {f.suit for f in fs}
    if len(suits) == 1 and None not in suits:
        return next(iter(suits))
    return None


def _feats(n: Node) -> set[Feat]:
    return feats(n)


def _only_length(n: Node) -> bool:
    return all(f.name == "len" for f in _feats(n))


@dataclass
class Plan:
    """Columns for a formula and the formula rewritten over them."""

    columns: list[Column] = field(default_factory=list)
    index: dict[tuple, int] = field(default_factory=dict)

    def col(self, key: tuple, cap: int) -> int:
        if key in self.index:
            i = self.index[key]
            if self.columns[i].cap < cap:
                self.columns[i] = Column(key, cap)
            return i
        self.index[key] = len(self.columns)
        self.columns.append(Column(key, cap))
        return self.index[key]


BIG = 10_000


def make_plan(formula: Node) -> tuple[Plan, Node]:
    plan = Plan()
    for s in SUITS:
        plan.col(("len", s), BIG)
    plan.col(("hcp", None), BIG)
    rewritten = _rewrite(formula, plan)
    _numeric_columns(rewritten, plan)
    return plan, rewritten


@dataclass(frozen=True)
class ColTest(Node):
    """A test on a derived column: ``col[key] op value``."""

    key: tuple
    op: str
    value: int

    def __str__(self):
        return f"[{self.key}] {self.op} {self.value}"


def _rewrite(n: Node, plan: Plan) -> Node:
    """Replace one-suit sub-formulas by 0/1 columns and and/or of them by count columns."""
    if isinstance(n, (Pattern, Shape)) or _only_length(n):
        return n
    s = _local_suit(n)
    if s is not None and not (isinstance(n, Cmp) and len(n.terms) == 1 and n.terms[0][1].name == "len"):
        key = ("local", n, s)
        plan.col(key, 1)
        return ColTest(key, "==", 1)
    if isinstance(n, Not):
        return Not(_rewrite(n.item, plan))
    if isinstance(n, (And, Or)):
        locals_, rest = [], []
        for c in n.items:
            (locals_ if _local_suit(c) is not None and not _only_length(c) else rest).append(c)
        if len({_local_suit(c) for c in locals_}) >= 2:
            # and: count the suits whose part fails; or: count those whose part holds
            by_suit: dict[str, list[Node]] = {}
            for c in locals_:
                by_suit.setdefault(_local_suit(c), []).append(c)
            parts = tuple(sorted((su, (And if isinstance(n, And) else Or)(tuple(cs)) if len(cs) > 1 else cs[0])
                                 for su, cs in by_suit.items()))
            key = ("count", "fails" if isinstance(n, And) else "holds", parts)
            plan.col(key, 1)
            test = ColTest(key, "==", 0) if isinstance(n, And) else ColTest(key, ">=", 1)
            items = [test] + [_rewrite(c, plan) for c in rest]
        else:
            items = [_rewrite(c, plan) for c in n.items]
        return type(n)(tuple(items))
    return n


def _numeric_columns(n: Node, plan: Plan) -> None:
    """Columns for the features that comparisons still use, capped where that is safe."""
    uses: dict[Feat, list[Cmp]] = {}

    def walk(x):
        if isinstance(x, Cmp):
            for _, f in x.terms:
                uses.setdefault(f, []).append(x)
        for c in x.children():
            walk(c)

    walk(n)
    for f, cmps in uses.items():
        if f.name == "len" and f.suit:
            continue
        if f.name == "hcp" and f.suit is None:
            continue
        cap = BIG
        if all(len(c.terms) == 1 for c in cmps):
            cap = max(int(abs(c.const) // abs(c.terms[0][0])) + 1 for c in cmps)
        plan.col(("feat", f.name, f.suit), cap)


def _feature_key(f: Feat) -> tuple:
    if f.name == "len" and f.suit:
        return ("len", f.suit)
    if f.name == "hcp" and f.suit is None:
        return ("hcp", None)
    return ("feat", f.name, f.suit)


# --------------------------------------------------------------------------- contributions
def _local_value(n: Node, suit: str, ls: np.ndarray, ms: np.ndarray, avail: Available, si: int) -> np.ndarray:
    """Vectorised truth of a one-suit formula over the classes of that suit."""
    return _truth(n, len(ls), lambda f: _per_class(f.name, avail, si))


def _truth(n: Node, size: int, column, other=None) -> np.ndarray:
    """The truth of a formula on ``size`` rows at once.

    ``column(feat)`` gives a feature's values on the rows; ``other(node)``, if given, may
    answer any node itself (returning None to let the generic rules decide)."""
    if other is not None:
        out = other(n)
        if out is not None:
            return out
    if isinstance(n, And):
        out = np.ones(size, bool)
        for c in n.items:
            out &= _truth(c, size, column, other)
        return out
    if isinstance(n, Or):
        out = np.zeros(size, bool)
        for c in n.items:
            out |= _truth(c, size, column, other)
        return out
    if isinstance(n, Not):
        return ~_truth(n.item, size, column, other)
    if isinstance(n, Cmp):
        v = np.full(size, int(n.const), np.int64)
        for c, f in n.terms:
            v = v + int(c) * column(f)
        return _compare(v, n.op)
    if isinstance(n, Pattern):
        lens = [column(Feat("len", s)) for s in SUITS]
        out = np.zeros(size, bool)
        for pat in n.patterns:
            ok = np.ones(size, bool)
            for x, col in zip(pat, lens, strict=True):
                if x is not None:
                    ok &= col == x
            out |= ok
        return out
    if isinstance(n, Shape):
        srt = -np.sort(-np.stack([column(Feat("len", s)) for s in SUITS], axis=1), axis=1)
        out = np.zeros(size, bool)
        for sh in n.shapes:
            out |= (srt == np.array(sh)).all(axis=1)
        return out
    raise TypeError(f"cannot evaluate {n!r}")


def _compare(v: np.ndarray, op: str, rhs: int = 0) -> np.ndarray:
    if op == ">=":
        return v >= rhs
    if op == "<=":
        return v <= rhs
    if op == "==":
        return v == rhs
    return v != rhs


def _contribution(col: Column, avail: Available, si: int) -> np.ndarray:
    suit = SUITS[si]
    ls, ms, _ = suit_classes(avail, si)
    kind = col.key[0]
    if kind == "len":
        return ls if col.key[1] == suit else np.zeros_like(ls)
    if kind == "hcp":
        return _per_class("hcp", avail, si)
    if kind == "feat":
        _, name, fsuit = col.key
        if fsuit is not None and fsuit != suit:
            return np.zeros_like(ls)
        return _per_class(name, avail, si)
    if kind == "local":
        _, node, lsuit = col.key
        if lsuit != suit:
            return np.zeros_like(ls)
        return _local_value(node, suit, ls, ms, avail, si).astype(np.int64)
    if kind == "count":
        _, how, parts = col.key
        out = np.zeros_like(ls)
        for psuit, node in parts:
            if psuit == suit:
                v = _local_value(node, suit, ls, ms, avail, si)
                out = out + (~v if how == "fails" else v).astype(np.int64)
        return out
    raise KeyError(col.key)


# --------------------------------------------------------------------------- the programme
@dataclass
class Table:
    """Distinct column values reached by some hand, with the number of hands for each."""

    plan: Plan
    rows: np.ndarray  # (n, ncols) int64
    counts: np.ndarray  # (n,) float64, exact integers

    def column(self, key: tuple) -> np.ndarray:
        return self.rows[:, self.plan.index[key]]


def _dedup(rows: np.ndarray, counts: np.ndarray, radix: np.ndarray):
    if len(rows) == 0:
        return rows, counts
    if float(np.prod(radix.astype(np.float64))) >= 2.0**62:
        uniq, inv = np.unique(rows, axis=0, return_inverse=True)
        return uniq, np.bincount(inv.ravel(), weights=counts, minlength=len(uniq))
    keys = np.zeros(len(rows), np.int64)
    for j in range(rows.shape[1]):
        keys = keys * radix[j] + rows[:, j]
    uniq, inv = np.unique(keys, return_inverse=True)
    summed = np.bincount(inv.ravel(), weights=counts, minlength=len(uniq))
    out = np.empty((len(uniq), rows.shape[1]), np.int64)
    k = uniq.copy()
    for j in range(rows.shape[1] - 1, -1, -1):
        out[:, j] = k % radix[j]
        k //= radix[j]
    return out, summed


_CHUNK = 2_000_000


def _prefix_key(lengths) -> np.ndarray | int:
    """Pack the first k suit lengths (a tuple, or k arrays) into one integer."""
    key = 0
    for x in lengths:
        key = key * 14 + x
    return key


def build_table(plan: Plan, avail: Available = Available(), patterns=None) -> Table:
    """Run the programme for a plan, optionally only over the given patterns."""
    cols = plan.columns
    ncol = len(cols)
    contribs = [np.stack([_contribution(c, avail, si) for c in cols], axis=1) for si in range(4)]
    reach = sum(c.max(axis=0) for c in contribs)
    caps = np.minimum(np.array([c.cap for c in cols], np.int64), reach)
    radix = caps + 1
    prefixes = None
    if patterns is not None:
        pats = list(patterns)
        prefixes = [set(p[: k + 1] for p in pats) for k in range(4)]
    rows = np.zeros((1, ncol), np.int64)
    counts = np.ones(1)
    len_cols = [plan.index[("len", s)] for s in SUITS]
    for si in range(4):
        _, _, cs = suit_classes(avail, si)
        contrib = np.minimum(contribs[si], caps)
        contrib, ccount = _dedup(contrib, cs, radix)
        if len(rows) == 0:
            break
        used = rows[:, len_cols].sum(axis=1)
        out_rows, out_counts = [], []
        clen = contrib[:, len_cols[si]]
        for n in np.unique(clen):
            sel_c = clen == n
            ok = used + n <= 13 if si < 3 else used + n == 13
            if prefixes is not None:
                pre = [p[:si] for p in prefixes[si] if p[si] == n]
                if not pre:
                    continue
                if si:
                    allowed = np.array([_prefix_key(p) for p in pre], np.int64)
                    ok &= np.isin(_prefix_key(rows[:, len_cols[:si]].T), allowed)
            if not ok.any():
                continue
            r, rc = rows[ok], counts[ok]
            c, cc = contrib[sel_c], ccount[sel_c]
            step = max(1, _CHUNK // max(1, len(c)))
            for i in range(0, len(r), step):
                rr = r[i:i + step]
                new = (rr[:, None, :] + c[None, :, :]).reshape(-1, ncol)
                np.minimum(new, caps, out=new)
                out_rows.append(new)
                out_counts.append((rc[i:i + step, None] * cc[None, :]).ravel())
        if not out_rows:
            rows, counts = np.zeros((0, ncol), np.int64), np.zeros(0)
            continue
        rows, counts = _dedup(np.concatenate(out_rows), np.concatenate(out_counts), radix)
    return Table(plan, rows, counts)


# --------------------------------------------------------------------------- evaluation
def vector(n: Node, t: Table) -> np.ndarray:
    """The truth of a (rewritten) formula on every row of a table.

    Sub-formulas about lengths only are evaluated once per pattern and gathered."""
    size = len(t.rows)
    pid = []

    def other(x: Node):
        if isinstance(x, ColTest):
            return _compare(t.column(x.key), x.op, x.value)
        if size > len(ALL_PATTERNS) and _pure_length(x):
            if not pid:
                pid.append(_pattern_index(*(t.column(("len", s)) for s in SUITS)))
            return _pattern_truth(x)[pid[0]]
        return None

    return _truth(n, size, lambda f: t.column(_feature_key(f)), other)


@lru_cache(maxsize=8192)
def _pure_length(n: Node) -> bool:
    """True if a formula looks at suit lengths only (and at no derived column)."""
    if isinstance(n, ColTest):
        return False
    if isinstance(n, Cmp):
        return all(f.name == "len" and f.suit for _, f in n.terms)
    return all(_pure_length(c) for c in n.children())


_PAT_LENS = [np.array([p[i] for p in ALL_PATTERNS], np.int64) for i in range(4)]
_PAT_ID = np.full(14**4, -1, np.int64)
_PAT_ID[[((a * 14 + b) * 14 + c) * 14 + d for a, b, c, d in ALL_PATTERNS]] = np.arange(len(ALL_PATTERNS))


def _pattern_index(s, h, d, c) -> np.ndarray:
    return _PAT_ID[((s * 14 + h) * 14 + d) * 14 + c]


@lru_cache(maxsize=4096)
def _pattern_truth(n: Node) -> np.ndarray:
    """A length-only formula evaluated on all 560 patterns."""
    return _truth(n, len(ALL_PATTERNS), lambda f: _PAT_LENS[SUITS.index(f.suit)])


@dataclass(frozen=True)
class Result:
    """What a set of hands looks like: exact patterns, HCP range and the number of hands."""

    patterns: dict[tuple[int, int, int, int], float]  # pattern -> number of hands
    hcp: tuple[int, int] | None
    hands: float

    @property
    def consistent(self) -> bool:
        return self.hands > 0

    def lengths(self) -> dict[str, tuple[int, int]] | None:
        if not self.patterns:
            return None
        return {s: (min(p[i] for p in self.patterns), max(p[i] for p in self.patterns))
                for i, s in enumerate(SUITS)}


def solve(formula: Node, avail: Available = Available(), patterns=None) -> Result:
    """Exact pattern set, HCP range and hand count of the hands satisfying a formula.

    Results that took a while to compute are kept on disk (see :mod:`canary_infer.cache`)."""
    from .cache import solve_cached

    return solve_cached(_solve, Result, formula, avail, patterns)


def _solve(formula: Node, avail: Available, patterns) -> Result:
    plan, rewritten = make_plan(formula)
    table = build_table(plan, avail, patterns)
    if rewritten == TRUE:
        mask = np.ones(len(table.rows), bool)
    else:
        mask = vector(rewritten, table)
    rows, counts = table.rows[mask], table.counts[mask]
    lens = rows[:, [plan.index[("len", s)] for s in SUITS]]
    hcp = rows[:, plan.index[("hcp", None)]]
    pats: dict[tuple[int, int, int, int], float] = {}
    if len(rows):
        key = ((lens[:, 0] * 14 + lens[:, 1]) * 14 + lens[:, 2]) * 14 + lens[:, 3]
        uniq, inv = np.unique(key, return_inverse=True)
        sums = np.bincount(inv.ravel(), weights=counts)
        for k, c in zip(uniq.tolist(), sums.tolist(), strict=True):
            pats[(k // 2744, k // 196 % 14, k // 14 % 14, k % 14)] = c
    return Result(pats, (int(hcp.min()), int(hcp.max())) if len(rows) else None, float(counts.sum()))
