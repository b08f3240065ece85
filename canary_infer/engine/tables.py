"""The exact fast path: per-suit holding tables and a dynamic programme over the suits.

Every feature is a sum over the suits of a function of one holding class (length and top
cards, see :mod:`canary_infer.language.features`).  For one formula we choose *columns*: the four
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

The CP-SAT model in :mod:`canary_infer.engine.cpsat` answers the same questions at card level; the
tests hold the two together.

The inner loops run compiled where the install built ``canary_infer/engine/_kernels.pyx`` (Cython and
the machine's C compiler): a level of the programme (:func:`_expand`), the last suit
(:meth:`SeatTable._last_suit_kernel`), a formula walked on packed states (:func:`_program`),
hands checked against a table (:meth:`SeatTable.holds`) and the draws' walk through the suits
(:meth:`SeatTable._walk_kernel`); the deal-level search uses a few more (:mod:`.bounds`).  Each
computes what the numpy code beside it computes, to the last count and draw: that code stays
as the reference the tests compare the kernels with, and as the engine where they were not
built.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, lru_cache

import numpy as np

from canary_infer.bridge.cards import SUITS
from canary_infer.caches import Bounded
from canary_infer.engine import kernels
from canary_infer.language.expr import FALSE, TRUE, And, Cmp, Feat, Node, Not, Or, Pattern, Shape, conj, disj, negate
from canary_infer.language.features import FEATURES, SMALL_CARDS, classes

ALL_PATTERNS: tuple[tuple[int, int, int, int], ...] = tuple(
    (a, b, c, 13 - a - b - c) for a in range(14) for b in range(14 - a) for c in range(14 - a - b)
)

def _runs(a: np.ndarray) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
    """A non-empty 1-D array sorted (stably), and a flag on each value that starts a run of
    equal ones: (the sort's order, the sorted values, the flags).  numpy's stable sort runs
    in sorted stretches, which the programme's keys mostly come in (rows in order, each plus
    a suit's contributions in order): a third to a half faster than the default there."""
    order = np.argsort(a, kind="stable")
    s = a[order]
    first = np.empty(len(s), bool)
    first[0] = True
    first[1:] = s[1:] != s[:-1]
    return order, s, first


def unique(a: np.ndarray, inverse: bool = False):
    """np.unique for 1-D integer arrays, without the import of numpy.ma that np.unique makes
    on its first call (tens of milliseconds in a fresh process)."""
    a = np.asarray(a).ravel()
    if len(a) == 0:
        return (a, np.zeros(0, np.int64)) if inverse else a
    if not inverse:
        s = np.sort(a, kind="stable")
        keep = np.empty(len(s), bool)
        keep[0] = True
        np.not_equal(s[1:], s[:-1], out=keep[1:])
        return s[keep]
    order, s, first = _runs(a)
    inv = np.empty(len(a), np.int64)
    inv[order] = np.cumsum(first) - 1
    return s[first], inv



# --------------------------------------------------------------------------- availability
@dataclass(frozen=True)
class Available:
    """Which cards are still unseen: per suit, a mask of the top cards and a number of small cards."""

    honours: tuple[int, int, int, int] = (63, 63, 63, 63)
    small: tuple[int, int, int, int] = (SMALL_CARDS,) * 4

    @classmethod
    def excluding(cls, hand) -> Available:
        from canary_infer.language.features import holding_class

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
    ls, ms, _ = suit_classes(avail, si)
    return class_table(name)[ls * 64 + ms]


@lru_cache(maxsize=32)
def free_ph(avail: Available) -> np.ndarray:
    """Every hand of the available cards counted by (pattern, HCP), as the (560, 38) table
    ``build_seat(TRUE, avail).ph`` gives, from the suits' holdings alone (a hand is any
    holding of each suit with the pattern's lengths): about a millisecond, where the
    table's build takes up to ten.  Exact integers in float64 (every count is below 2^53).

    >>> from math import comb
    >>> ph = free_ph(Available())
    >>> int(ph[ALL_PATTERNS.index((4, 3, 3, 3))].sum()) == comb(13, 4) * comb(13, 3) ** 3
    True
    """
    out = None
    for si in range(4):
        ls, _, cs = suit_classes(avail, si)
        by = np.zeros((14, 11))  # this suit's holdings by (length, HCP)
        np.add.at(by, (ls, _per_class("hcp", avail, si)), cs)
        mine = by[PAT_LENGTHS[:, si]]  # (patterns, this suit's HCP)
        if out is None:
            out = mine
            continue
        nxt = np.zeros((len(PAT_LENGTHS), out.shape[1] + 10))
        for h in range(11):
            nxt[:, h:h + out.shape[1]] += out * mine[:, h:h + 1]
        out = nxt
    return out[:, :NHCP].copy()


_CLASS_TABLES: dict[str, np.ndarray] = {}
# every (length, top-card mask) a suit can hold, and its place in a class table
_CLASSES = [(n, m) for n in range(14) for m, _ in classes(n)]
_CLASS_INDEX = np.array([n * 64 + m for n, m in _CLASSES], np.int64)


def class_table(name: str) -> np.ndarray:
    """A feature's value on every holding class, indexed by length * 64 + top-card mask (0 where
    the class cannot occur); computed once per feature."""
    t = _CLASS_TABLES.get(name)
    if t is None:
        f = FEATURES[name].per_suit if name in FEATURES else AUX[name]
        t = np.zeros(14 * 64, np.int64)
        t[_CLASS_INDEX] = [f(n, m) for n, m in _CLASSES]
        _CLASS_TABLES[name] = t
    return t


# Columns a caller may add to a plan for its own use (not looked at by the formula): how many
# of each honour rank the hand holds, and how many honours (A K Q J: "akqj") in all; a name
# followed by "@" and a suit ("Q@H") counts in that suit only.
AUX = {
    "A": lambda n, m: int(bool(m & 1)), "K": lambda n, m: int(bool(m & 2)),
    "Q": lambda n, m: int(bool(m & 4)), "J": lambda n, m: int(bool(m & 8)),
    "akqj": lambda n, m: bin(m & 15).count("1"),
}


@lru_cache(maxsize=256)
def _per_aux(name: str, avail: Available, si: int) -> np.ndarray:
    """An aux column's value per holding class of suit ``si``; ``"K@S"`` counts the column
    ``K`` in spades alone (0 in the other suits)."""
    base, _, suit = name.partition("@")
    ls, ms, _ = suit_classes(avail, si)
    if suit and suit != SUITS[si]:
        return np.zeros_like(ls)
    return class_table(base)[ls * 64 + ms]


# --------------------------------------------------------------------------- planning
@dataclass(frozen=True)
class Column:
    """One column of the programme: a per-class contribution for each suit, and a cap."""

    key: tuple
    cap: int  # values above cap are stored as cap


_FEATS: Bounded[int, tuple[Node, frozenset]] = Bounded(1 << 16)  # by id; the entry keeps its node alive


def _feats(n: Node) -> frozenset[Feat]:
    """feats(n), remembered per node object while a plan is made (see make_plan)."""
    hit = _FEATS.get(id(n))
    if hit is not None and hit[0] is n:
        return hit[1]
    if isinstance(n, Cmp):
        out = frozenset(f for _, f in n.terms)
    elif isinstance(n, (Pattern, Shape)):
        out = frozenset(Feat("len", s) for s in SUITS)
    else:
        out = frozenset().union(*(_feats(c) for c in n.children()))
    _FEATS[id(n)] = (n, out)
    return out


def _local_suit(n: Node) -> str | None:
    """The one suit a formula looks at, if it looks at a single suit only (lengths included)."""
    if isinstance(n, (Pattern, Shape)):
        return None
    suits = {f.suit for f in _feats(n)}
    if len(suits) == 1 and None not in suits:
        return next(iter(suits))
    return None


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
    try:
        rewritten = _rewrite(formula, plan)
    finally:
        _FEATS.clear()
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
    """A column's value on every holding class of suit ``si`` (read-only: shared by the
    formulas that have the column, since it depends on nothing else)."""
    return _column_values(col.key, avail, si)


@lru_cache(maxsize=4096)
def _column_values(key: tuple, avail: Available, si: int) -> np.ndarray:
    out = _column_values_of(key, avail, si).copy()  # its own array, which no one may change
    out.setflags(write=False)
    return out


def _column_values_of(key: tuple, avail: Available, si: int) -> np.ndarray:
    suit = SUITS[si]
    ls, ms, _ = suit_classes(avail, si)
    kind = key[0]
    if kind == "len":
        return ls if key[1] == suit else np.zeros_like(ls)
    if kind == "hcp":
        return _per_class("hcp", avail, si)
    if kind == "feat":
        _, name, fsuit = key
        if fsuit is not None and fsuit != suit:
            return np.zeros_like(ls)
        return _per_class(name, avail, si)
    if kind == "local":
        _, node, lsuit = key
        if lsuit != suit:
            return np.zeros_like(ls)
        return _local_value(node, suit, ls, ms, avail, si).astype(np.int64)
    if kind == "aux":
        return _per_aux(key[1], avail, si)
    if kind == "count":
        _, how, parts = key
        out = np.zeros_like(ls)
        for psuit, node in parts:
            if psuit == suit:
                v = _local_value(node, suit, ls, ms, avail, si)
                out = out + (~v if how == "fails" else v).astype(np.int64)
        return out
    raise KeyError(key)


# --------------------------------------------------------------------------- the programme
# States are packed into one int64 each: every column gets a bit field (the suit lengths on
# top, spades highest, then the HCP, then the other columns), so that adding a holding's
# contribution to a state is one integer addition.  Three things keep the programme small:
#
# * a state whose length prefix no allowed pattern extends is dropped;
# * a column that no pattern extending a state's length prefix looks at is zeroed, so that
#   states differing only in it merge (the formula, once the lengths are known, often
#   looks at the HCP alone);
# * the last suit is never tabulated: its pairs are evaluated and summed straight into the
#   answers (counts by pattern and HCP, and the completions of every third-suit state).

PAT_CODE = np.array([(a << 12) | (b << 8) | (c << 4) | d for a, b, c, d in ALL_PATTERNS], np.int64)
CODE_TO_PAT = np.full(1 << 16, -1, np.int64)
CODE_TO_PAT[PAT_CODE] = np.arange(len(ALL_PATTERNS))
PAT_LENGTHS = np.array(ALL_PATTERNS, np.int64)
PAT_INDEX = {p: i for i, p in enumerate(ALL_PATTERNS)}
# four lengths (a pattern, or what is left of a suit's cards) as one base-14 number, and back
RADIX14 = np.array([14 ** 3, 14 ** 2, 14, 1], np.int64)
PAT14 = PAT_LENGTHS @ RADIX14
PAT_OF14 = np.full(14 ** 4, -1, np.int64)
PAT_OF14[PAT14] = np.arange(len(ALL_PATTERNS))
NHCP = 38  # HCP 0..37


@dataclass
class Layout:
    """Where each column of a plan lives in the packed state."""

    plan: Plan
    caps: np.ndarray
    offs: np.ndarray
    masks: np.ndarray
    low: int  # offset of the length fields; ``key >> low`` is the 16-bit length code
    recap: list[int]  # columns to bring back under their cap after each addition
    base_bits: int  # the length and HCP fields, never zeroed

    @property
    def recap_split(self) -> tuple[int, list[tuple[int, int, int]]]:
        """The recapped columns for :func:`_recap`: the high bits of the two-bit columns
        capped at 1 (one mask), and (offset, cap, mask) of the others."""
        got = self.__dict__.get("_recap_split")
        if got is None:
            ones, rest = 0, []
            for j in self.recap:
                off, cap, mask = int(self.offs[j]), int(self.caps[j]), int(self.masks[j])
                if cap == 1 and mask == 3:
                    ones |= 2 << off
                else:
                    rest.append((off, cap, mask))
            got = self.__dict__["_recap_split"] = (ones, rest)
        return got

    def column(self, keys: np.ndarray, j: int) -> np.ndarray:
        return (keys >> int(self.offs[j])) & int(self.masks[j])

    def field(self, j: int) -> int:
        return int(self.masks[j]) << int(self.offs[j])

    def pack(self, values: np.ndarray) -> np.ndarray:
        """Rows of column values (each within its field) as packed states: the fields do not
        overlap, so their sum is their bitwise or."""
        return (values.astype(np.int64) << self.offs).sum(axis=1)


def _layout(plan: Plan, contribs: list[np.ndarray]) -> Layout | None:
    """Bit fields for a plan; None if the state does not fit in 62 bits."""
    cols = plan.columns
    tops = np.stack([c.max(axis=0) for c in contribs]).astype(np.int64)  # per suit, per column
    reach = tops.sum(axis=0)
    caps = np.minimum(np.array([c.cap for c in cols], np.int64), reach)
    most = tops.max(axis=0)
    len_cols = [plan.index[("len", s)] for s in SUITS]
    hcp_col = plan.index[("hcp", None)]
    widths = np.zeros(len(cols), np.int64)
    recap = []
    for j in range(len(cols)):
        if j in len_cols:
            widths[j] = 4
        elif caps[j] >= reach[j]:
            widths[j] = max(1, int(reach[j]).bit_length())
        else:
            widths[j] = max(1, int(caps[j] + min(caps[j], most[j])).bit_length())
            recap.append(j)
    order = [j for j in range(len(cols)) if j not in len_cols and j != hcp_col] + [hcp_col] + len_cols[::-1]
    offs = np.zeros(len(cols), np.int64)
    at = 0
    for j in order:
        offs[j] = at
        at += int(widths[j])
    if at > 62:
        return None
    masks = (np.ones(len(cols), np.int64) << widths) - 1
    low = int(offs[len_cols[3]])
    base = 0
    for j in len_cols + [hcp_col]:
        base |= int(masks[j]) << int(offs[j])
    return Layout(plan, caps, offs, masks, low, recap, base)


def _specialise(n: Node, plan: Plan, memo: dict) -> tuple[np.ndarray, np.ndarray]:
    """Per pattern, whether a (rewritten) formula is already true / already false by the
    lengths alone: two boolean arrays over ALL_PATTERNS.  ``memo`` maps id(node) to
    ((true, false), node, pure) for every node visited."""
    key = id(n)
    if key in memo:
        return memo[key][0]
    z = np.zeros(len(ALL_PATTERNS), bool)
    if isinstance(n, ColTest):
        out, pure = (z, z), False
    elif isinstance(n, (Pattern, Shape)):
        t = _pattern_truth(n)
        out, pure = (t, ~t), True
    elif isinstance(n, Cmp):
        pure = all(f.name == "len" and f.suit for _, f in n.terms)
        if pure:
            t = _pattern_truth(n)
            out = (t, ~t)
        else:
            out = (z, z)
    elif isinstance(n, (And, Or)):
        parts = [_specialise(c, plan, memo) for c in n.items]
        pure = all(memo[id(c)][2] for c in n.items)
        if isinstance(n, And):
            out = (np.logical_and.reduce([p[0] for p in parts]) if parts else ~z,
                   np.logical_or.reduce([p[1] for p in parts]) if parts else z)
        else:
            out = (np.logical_or.reduce([p[0] for p in parts]) if parts else z,
                   np.logical_and.reduce([p[1] for p in parts]) if parts else ~z)
    elif isinstance(n, Not):
        t, f = _specialise(n.item, plan, memo)
        out, pure = (f, t), memo[id(n.item)][2]
    else:
        raise TypeError(f"cannot specialise {n!r}")
    memo[key] = (out, n, pure)
    return out


def _relevance(n: Node, plan: Plan, lay: Layout, memo: dict | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per pattern: can the formula hold (not false by the lengths alone), and which bits of
    the state it still looks at (the length and HCP fields always).  ``memo`` is
    :func:`_specialise`'s, which the formula's evaluator can share."""
    memo = {} if memo is None else memo
    t, f = _specialise(n, plan, memo)
    keep = np.full(len(ALL_PATTERNS), lay.base_bits, np.int64)

    def walk(x: Node, live: np.ndarray):
        if not live.any():
            return
        if isinstance(x, ColTest):
            keep[live] |= lay.field(plan.index[x.key])
            return
        if isinstance(x, Cmp):
            for _, ft in x.terms:
                k = _feature_key(ft)
                if k in plan.index:
                    keep[live] |= lay.field(plan.index[k])
            return
        if memo[id(x)][2]:
            return
        for c in x.children():
            ct, cf = _specialise(c, plan, memo)
            walk(c, live & ~(ct | cf))

    walk(n, ~(t | f))
    return ~f, keep


@dataclass
class SuitStep:
    """The distinct contributions of one suit's holding classes to the packed state."""

    keys: np.ndarray  # (c,) packed contribution
    counts: np.ndarray  # (c,) number of holdings
    length: np.ndarray  # (c,) cards in the suit
    of_class: np.ndarray  # class index -> contribution index

    @cached_property
    def by_length(self) -> np.ndarray:
        """The contributions' indices in order of length (stable)."""
        return np.argsort(self.length, kind="stable").astype(np.int64)

    @cached_property
    def sorted_length(self) -> np.ndarray:
        return self.length[self.by_length]

    @cached_property
    def first_of_length(self) -> np.ndarray:
        """Where each length's contributions start in :attr:`by_length` (lengths 0 to 14)."""
        return np.searchsorted(self.sorted_length, np.arange(15), side="left").astype(np.int64)


class SeatTable:
    """One seat's programme: every state after 0..3 suits, and the exact answers.

    ``ph[p, h]`` is the number of hands satisfying the formula with pattern ALL_PATTERNS[p]
    and h HCP (float64: one seat's counts stay below 2**53, so they are exact).  ``aux`` is
    the number of hands by the values of the aux columns asked for (and the HCP, last).
    :meth:`sample` draws hands uniformly from those satisfying the formula.

    A table is finished (its last suit evaluated) as it is made: ``work`` is what the first
    three suits' steps cost (the last suit's is added), ``moves`` the moves from level to level
    the programme kept as it made them (see :meth:`_transitions`)."""

    def __init__(self, formula, avail, layout, rewritten, steps, keys, counts, shaper, viable,
                 viable_code, evaluate, aux_cols, work: float = 0.0, moves: dict | None = None):
        self.formula, self.avail, self.layout, self.rewritten = formula, avail, layout, rewritten
        self.steps: list[SuitStep] = steps
        self.keys: list[np.ndarray] = keys  # per level 0..3: sorted distinct states
        self.counts: list[np.ndarray] = counts
        self.shaper: _Shaper = shaper
        self.viable, self.viable_code = viable, viable_code
        self.evaluate: _Evaluator | None = evaluate
        self.aux_cols = aux_cols
        self.aux_names = tuple(c.key[1] for c in (layout.plan.columns[j] for j in aux_cols))
        self.lite = shaper.lite[1] if shaper.lite is not None else None
        self._backward: dict = {}
        self.work = work  # the build's work, in seconds of this machine (the last suit's added by _finish)
        self._moves: dict = {} if moves is None else moves  # level -> its moves (see _transitions)
        self._low: tuple | None = None  # (cap, the table of the hands with fewer honours): see few_honours
        self._finish()

    @property
    def hands(self) -> float:
        return float(self.ph.sum())

    def result(self) -> Result:
        by_pat = self.ph.sum(axis=1)
        pats = {ALL_PATTERNS[i]: float(by_pat[i]) for i in np.flatnonzero(by_pat)}
        hs = np.flatnonzero(self.ph.sum(axis=0))
        return Result(pats, (int(hs[0]), int(hs[-1])) if len(hs) else None, float(by_pat.sum()))

    # ------------------------------------------------------------------ the last suit
    def _blocks(self, rows_of_level3: np.ndarray | None = None, pat_ok=None, hcp_ok=None):
        """The last suit's pairs, one pattern group at a time: yields (rows, contribution
        indices, summed keys as a (rows, contributions) block, weights of the same shape:
        the holdings of the last suit where the formula (and the condition) holds)."""
        lay, step = self.layout, self.steps[3]
        keys = self.keys[3]
        base = np.arange(len(keys)) if rows_of_level3 is None else rows_of_level3
        used = _used(keys[base], lay.low)
        hcp_j = lay.plan.index[("hcp", None)]
        for n in unique(step.length):
            rows = base[used == 13 - n]
            code = (keys[rows] >> lay.low) + n
            good = self.viable_code[code]
            if pat_ok is not None:
                good &= pat_ok[CODE_TO_PAT[code]] > 0
            rows, code = rows[good], code[good]
            if len(rows) == 0:
                continue
            pidx = CODE_TO_PAT[code]
            g = None
            if self.evaluate is not None:
                g = self.evaluate.gid[pidx]
                order = np.argsort(g, kind="stable")
                rows, pidx, g = rows[order], pidx[order], g[order]
            cs = np.flatnonzero(step.length == n)
            ck, cc = step.keys[cs], step.counts[cs]
            per = max(1, _PAIRS // len(cs))
            start = 0
            while start < len(rows):
                stop = min(len(rows), start + per)
                gi = None
                if g is not None:  # one group at a time
                    stop = min(stop, int(np.searchsorted(g, g[start], side="right")))
                    gi = int(g[start])
                    if self.evaluate.formulas[gi] == FALSE:
                        start = stop
                        continue
                r = rows[start:stop]
                new = keys[r][:, None] + ck[None, :]
                w = np.broadcast_to(cc, new.shape).copy()
                if gi is not None and self.evaluate.formulas[gi] != TRUE:
                    w *= self.evaluate.truth_of(gi, new.ravel()).reshape(new.shape)
                if hcp_ok is not None:
                    w *= hcp_ok[lay.column(new, hcp_j)]
                if self.shaper.most is not None:
                    w *= lay.column(new, self.shaper.most[0]) <= self.shaper.most[1]
                if pat_ok is not None and pat_ok.dtype.kind == "f":  # weights by pattern
                    w *= pat_ok[pidx[start:stop]][:, None]
                yield r, pidx[start:stop], cs, new, w
                start = stop

    def _few_last_pairs(self, rows_of_level3: np.ndarray | None = None):
        """The last suit's pairs as flat arrays when they are few (at most :data:`_FEW`), else
        None: (rows, pattern indices, holding indices, summed keys, weights), one entry per
        (state, holding) pair whose lengths add up to 13, the weights the holdings' counts
        where the formula holds.  The same pairs and weights as :meth:`_blocks`, without its
        loop over lengths and groups, which costs more than the pairs themselves in a small
        table."""
        lay, step = self.layout, self.steps[3]
        keys = self.keys[3]
        rows = np.arange(len(keys)) if rows_of_level3 is None else rows_of_level3
        if len(rows) > _FEW:  # most states have a partner or more: not few (known at no cost)
            return None
        n = 13 - _used(keys[rows], lay.low)
        code = (keys[rows] >> lay.low) + n
        good = self.viable_code[code]
        g = None
        if self.evaluate is not None:  # no pairs for the groups where the formula is false
            g = self.evaluate.gid[CODE_TO_PAT[code]]
            good &= self.evaluate.live[g]
        sl = step.sorted_length
        lo = np.searchsorted(sl, n, side="left")
        k = (np.searchsorted(sl, n, side="right") - lo) * good
        total = int(k.sum())
        if total > _FEW:
            return None
        if g is not None:  # each pattern group's pairs together
            order = np.argsort(g, kind="stable")
            rows, code, g, lo, k = rows[order], code[order], g[order], lo[order], k[order]
        rep, place = _stretches(k)
        c_idx = step.by_length[lo[rep] + place]
        r = rows[rep]
        new = keys[r] + step.keys[c_idx]
        w = step.counts[c_idx]
        if g is not None and total:
            gr = g[rep]
            cut = (np.flatnonzero(gr[1:] != gr[:-1]) + 1).tolist()
            for a, b in zip([0, *cut], [*cut, total], strict=True):
                gi = int(gr[a])
                if self.evaluate.formulas[gi] != TRUE:
                    w[a:b] *= self.evaluate.truth_of(gi, new[a:b])
        if self.shaper.most is not None:
            w *= lay.column(new, self.shaper.most[0]) <= self.shaper.most[1]
        return r, CODE_TO_PAT[code[rep]], c_idx, new, w

    def _finish(self) -> None:
        """Evaluate the last suit: the counts by pattern and HCP (and aux), and its work."""
        lay = self.layout
        hcp_j = lay.plan.index[("hcp", None)]
        ph = np.zeros(len(ALL_PATTERNS) * NHCP)
        completions = np.zeros(len(self.keys[3]))
        shape = tuple(int(lay.caps[j]) + 1 for j in self.aux_cols) + (NHCP,)
        aux = np.zeros(int(np.prod(shape))) if self.aux_cols else None
        counts = self.counts[3]
        last = 0
        rows3 = None
        if self.viable.sum() * 4 < self.viable.size:  # few patterns (a restricted table): their states only
            rows3 = np.flatnonzero(self.viable[self.pattern3])
        if kernels.compiled is not None:
            # the compiled loop for the states whose formula is settled or read from a truth
            # table; the others (formulas walked node by node) by _blocks, as below
            last, rows3 = self._last_suit_kernel(rows3, ph, completions, aux)
            blocks = self._blocks(rows3) if len(rows3) else []
        else:
            few = self._few_last_pairs(rows3)
            blocks = self._blocks(rows3) if few is None else [few]
        for r, pidx, _, new, w in blocks:
            # from _blocks: one row per state, (rows, holdings) blocks; else flat pairs
            last += new.size
            if new.ndim == 2:
                completions[r] += w.sum(axis=1)
                r, pidx = r[:, None], pidx[:, None]
            else:
                completions += np.bincount(r, weights=w, minlength=len(completions))
            if aux is not None:
                new = self.shaper.final(new)
            pc = (counts[r] * w).ravel()
            h = lay.column(new, hcp_j).ravel()
            ph += np.bincount((pidx * NHCP + lay.column(new, hcp_j)).ravel(), weights=pc,
                              minlength=len(ph))
            if aux is not None:
                code = np.zeros(new.size, np.int64)
                for j in self.aux_cols:  # the last suit is added without capping
                    code = code * (int(lay.caps[j]) + 1) + np.minimum(lay.column(new, j).ravel(), int(lay.caps[j]))
                aux += np.bincount(code * NHCP + h, weights=pc, minlength=len(aux))
        self.ph = ph.reshape(len(ALL_PATTERNS), NHCP)
        self.work = self.work + TABLE_BASE + LAST_COST * last
        self.last_pairs = last  # the last suit's pairs evaluated: what _last_moves() costs again
        self.completions = completions
        self.aux = aux.reshape(shape) if aux is not None else None

    def _last_suit_kernel(self, rows3: np.ndarray | None, ph: np.ndarray, completions: np.ndarray,
                          aux: np.ndarray | None):
        """_finish()'s loop over the last suit by the compiled kernel, for the third-suit states
        (of ``rows3``, or all) whose pattern group's formula is settled or has a truth table:
        adds to ``ph``, ``completions`` and ``aux`` (if counted); returns the pairs formed and
        the states left to :meth:`_blocks` (whose formula is walked node by node)."""
        lay, step = self.layout, self.steps[3]
        keys = self.keys[3]
        base = np.arange(len(keys)) if rows3 is None else rows3
        cards = 13 - _used(keys[base], lay.low)
        code = (keys[base] >> lay.low) + cards
        good = self.viable_code[code]
        base, cards, pidx = base[good], cards[good], CODE_TO_PAT[code[good]]
        groups, kind, truth, truth_at, tcols = self._holds_kernel_data()[6:11]  # the groups' truth tables
        table = kind[groups[pidx]]
        keep = table >= _SETTLED
        pairs = kernels.compiled.last_suit(
            keys, self.counts[3], base[keep].astype(np.int64), pidx[keep], table[keep].astype(np.int32),
            cards[keep].astype(np.int64), step.keys, step.counts, step.by_length, step.first_of_length,
            truth, truth_at, tcols, NHCP, *_field(lay, lay.plan.index[("hcp", None)]), *_most(lay, self.shaper),
            ph, completions, *self._aux_kernel(aux))
        return pairs, base[table == _WALKED]

    def _aux_kernel(self, aux: np.ndarray | None) -> tuple:
        """The aux columns (offset, mask, cap), the counts to add to and the lite honour rule as
        the last-suit kernel reads them (none: no rows)."""
        if aux is None:
            return np.zeros((0, 3), np.int64), np.zeros(0), -1, 0, 0, 0
        lay = self.layout
        cols = np.array([(*_field(lay, j), int(lay.caps[j])) for j in self.aux_cols], np.int64).reshape(-1, 3)
        return cols, aux, *_lite(lay, self.shaper)

    def restrict(self, pat_ok: np.ndarray) -> SeatTable:
        """The table of this formula and a condition on the suit lengths alone (``pat_ok``, by
        pattern): the same states, fewer patterns at the end (no programme run again)."""
        import copy

        t = copy.copy(self)
        t.viable = self.viable & pat_ok
        t.viable_code = np.zeros(1 << 16, bool)
        t.viable_code[PAT_CODE[t.viable]] = True
        t._backward = {}
        t._low = None
        for name in ("_class_index", "_last", "_holds_data"):  # what reads the patterns allowed
            if name in t.__dict__:
                del t.__dict__[name]
        t._finish()
        return t

    def few_honours(self, cap: int, formula: Node, avail: Available) -> SeatTable | None:
        """The table of ``formula`` over ``avail`` (this table's: a restricted table keeps its
        parent's formula) and this table's patterns, of the hands with fewer than ``cap``
        honours (A K Q J), counted by their number of honours: built once for the last cap."""
        if self._low is None or self._low[0] != cap:
            pats = [ALL_PATTERNS[i] for i in np.flatnonzero(self.ph.sum(axis=1))]
            self._low = (cap, build_seat(formula, avail, pats, max_honours=cap - 1, honour_cap=cap))
        return self._low[1]

    # ------------------------------------------------------------------ concrete hands
    def holds(self, cls: np.ndarray) -> np.ndarray:
        """The formula's truth on n concrete hands given as (n, 4) holding classes
        (length * 64 + top-card mask), by the same packed evaluation as the programme."""
        if kernels.compiled is not None:
            return kernels.compiled.holds(np.ascontiguousarray(cls, np.int64), *self._holds_kernel_data())
        if not hasattr(self, "_class_index"):
            self._class_index = []
            for si in range(4):
                ls, ms, _ = suit_classes(self.avail, si)
                look = np.full(14 * 64, -1, np.int64)
                look[ls * 64 + ms] = np.arange(len(ls))
                self._class_index.append(look)
        lay = self.layout
        keys = np.zeros(len(cls), np.int64)
        bad = np.zeros(len(cls), bool)
        for si in range(4):
            idx = self._class_index[si][cls[:, si]]
            bad |= idx < 0
            keys = keys + self.steps[si].keys[self.steps[si].of_class[np.maximum(idx, 0)]]
            if si < 3:
                keys = _recap(keys, lay)
        code = keys >> lay.low
        ok = ~bad & self.viable_code[code]
        if self.evaluate is not None and ok.any():
            sel = np.flatnonzero(ok)
            ok[sel] = self.evaluate(keys[sel], CODE_TO_PAT[code[sel]])
        return ok

    def _holds_kernel_data(self) -> tuple:
        """What the compiled holds reads besides the hands, made once: each suit's contribution
        by holding class (-1 for a class the unseen cards cannot make), the layout's caps, the
        allowed patterns, and the evaluator's groups with their truth tables and programs."""
        got = self.__dict__.get("_holds_data")
        if got is None:
            lay, ev = self.layout, self.evaluate
            contrib = np.full((4, 14 * 64), -1, np.int64)
            for si in range(4):
                ls, ms, _ = suit_classes(self.avail, si)
                contrib[si, ls * 64 + ms] = self.steps[si].keys[self.steps[si].of_class]
            ones, rest = lay.recap_split
            if ev is None:  # the formula holds wherever the pattern is allowed
                groups, kind = np.zeros(len(ALL_PATTERNS), np.int64), np.array([_SETTLED])
                truth, truth_at, tcols = _NO_TRUTH
                programs, program_at, lens = np.zeros(1, np.int64), np.zeros(1, np.int64), np.zeros(8, np.int64)
            else:
                truth, truth_at, tcols, kind = ev.kernel_tables()
                groups = ev.gid
                programs, program_at = ev.kernel_programs()
                lens = ev._lens
            got = self._holds_data = (contrib, lay.low, ones, np.array(rest, np.int64).reshape(-1, 3),
                                      self.viable_code.view(np.uint8), CODE_TO_PAT, groups, kind, truth, truth_at,
                                      tcols, programs, program_at, lens)
        return got

    # ------------------------------------------------------------------ sampling
    def _next(self, k: int, keys: np.ndarray) -> np.ndarray:
        """Index in level k+1 of states reached by summed keys from level k (-1: none)."""
        keys, ok = self.shaper(k, keys)
        nxt = self.keys[k + 1]
        idx = np.searchsorted(nxt, keys)
        idx = np.minimum(idx, len(nxt) - 1)
        found = ok & (len(nxt) > 0) & (nxt[idx] == keys) if len(nxt) else np.zeros(len(keys), bool)
        return np.where(found, idx, -1)

    def backward(self, pat_ok=None, hcp_ok=None) -> list[np.ndarray]:
        """Per level 0..3, the number of ways each state completes to a hand of the formula
        (and the condition)."""
        ck = (None if pat_ok is None else pat_ok.tobytes(), None if hcp_ok is None else hcp_ok.tobytes())
        if ck in self._backward:
            return self._backward[ck]
        if hcp_ok is None:
            # a condition on the pattern alone scales the completions that _finish() counted
            b3 = self.completions.copy()
            if pat_ok is not None:
                b3 *= np.where(pat_ok > 0, pat_ok, 0)[self.pattern3]
        else:  # from the last suit's moves, with their HCP
            rows, _, w, hcp, _ = self._last_moves()
            w = w * hcp_ok[hcp]
            if pat_ok is not None:
                w *= self._pattern_factor(pat_ok)[rows]
            b3 = np.bincount(rows, weights=w, minlength=len(self.keys[3]))
        out = [b3]
        for k in (2, 1, 0):  # a state not on the way to an allowed pattern completes in 0 ways
            rows, cols, nxt, _ = self._transitions(k)
            if kernels.compiled is not None:
                # (float: an empty bincount, where no hand completes, comes back as integers)
                out.insert(0, kernels.compiled.back_level(rows, cols, nxt, np.asarray(out[0], np.float64),
                                                          self.steps[k].counts, len(self.keys[k])))
                continue
            out.insert(0, np.bincount(rows, weights=out[0][nxt] * self.steps[k].counts[cols],
                                      minlength=len(self.keys[k])))
        self._backward[ck] = out
        return out

    def _walk_kernel(self, n: int, rng: np.random.Generator, pat_ok, hcp_ok, back) -> np.ndarray:
        """sample()'s walk through the suits by the compiled kernel (``_kernels.draw``): the same
        contributions chosen, from the same uniform numbers, as the numpy walk below it."""
        u = np.stack([rng.random(n) for _ in range(4)])  # one a suit, drawn as the numpy walk draws them
        levels = [(*self._moves_of(k), back[k + 1], self.steps[k].counts) for k in range(3)]
        none = np.zeros(0)
        hcp_w = none if hcp_ok is None else np.asarray(hcp_ok, np.float64)
        if "_last" in self.__dict__:  # the last suit's moves, kept
            rows, cols, ways, hcp, first = self._last_moves()
            factor = none if pat_ok is None else self._pattern_factor(pat_ok)
            last = (True, first.astype(np.int64), cols.astype(np.int64), ways, hcp, factor)
        else:
            last = (False, _NO_INT, _NO_INT, none, np.zeros(0, np.int8), none)
        lay, step = self.layout, self.steps[3]
        # the allowed patterns and the groups' tables and programs, as holds reads them
        viable, to_pat, groups, kind, truth, truth_at, tcols, programs, program_at, lens = self._holds_kernel_data()[4:]
        chosen, self.drawn_states = kernels.compiled.draw(
            n, u, levels, *last, self.keys[3], lay.low, step.keys, step.counts, step.by_length, step.first_of_length,
            viable, to_pat,
            none if pat_ok is None else np.asarray(pat_ok, np.float64), pat_ok is not None and pat_ok.dtype.kind == "f",
            groups, kind, truth, truth_at, tcols, programs, program_at, lens,
            *_field(lay, lay.plan.index[("hcp", None)]), hcp_w, *_most(lay, self.shaper))
        return chosen

    def _moves_of(self, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`_transitions` of level k as the compiled walk reads them: each state's first
        move, the contributions, the next states."""
        _, cols, nxt, first = self._transitions(k)
        return first if first.dtype == np.int64 else first.astype(np.int64), cols, nxt

    def _pattern_factor(self, pat_ok: np.ndarray) -> np.ndarray:
        """Per third-suit state, its pattern's weight under ``pat_ok`` (booleans: 1 or 0)."""
        f = pat_ok[self.pattern3]
        return f.astype(np.float64) if f.dtype.kind == "b" else np.where(f > 0, f, 0.0)

    def _last_moves(self):
        """The last suit's moves, computed once (the evaluation _finish() made, kept the second
        time it is needed in full: by the first HCP condition): (third-suit state, contribution,
        ways, HCP of the hand) for each holding of the last suit that completes a hand of the
        formula, sorted by state, and each state's first move (one more entry than states)."""
        m = self.__dict__.get("_last")
        if m is None:
            hcp_j = self.layout.plan.index[("hcp", None)]
            rows3 = np.flatnonzero(self.viable[self.pattern3]) if self.viable.sum() * 4 < self.viable.size else None
            parts = []
            for r, _, cs, new, w in self._blocks(rows3):
                rr, cc = np.nonzero(w)
                parts.append((r[rr], cs[cc], w[rr, cc], self.layout.column(new, hcp_j)[rr, cc]))
            if parts:
                rows, cols, ways, hcp = (np.concatenate([p[i] for p in parts]) for i in range(4))
            else:
                rows = cols = hcp = np.zeros(0, np.int64)
                ways = np.zeros(0)
            order = np.argsort(rows, kind="stable")
            rows = rows[order].astype(np.int32)
            m = self._last = (rows, cols[order].astype(np.int32), ways[order], hcp[order].astype(np.int8),
                              np.searchsorted(rows, np.arange(len(self.keys[3]) + 1)))
        return m

    @property
    def pattern3(self) -> np.ndarray:
        """The pattern (index into ALL_PATTERNS) of each third-suit state: settled, since the
        last suit takes the cards left."""
        p = self.__dict__.get("_pattern3")
        if p is None:
            keys3, low = self.keys[3], self.layout.low
            p = self._pattern3 = CODE_TO_PAT[(keys3 >> low) + 13 - _used(keys3, low)]
        return p

    def _transitions(self, k: int):
        """The moves from level k to level k+1, computed once (every sample and every
        condition's backward pass needs them): (state, contribution, next state) for each
        holding that fits and leads to a kept state, sorted by state, and each state's first
        move (an offset into them, one more entry than states)."""
        memo = self._moves  # shared with restrict()'s copies: the states are the same
        if k not in memo:
            keys, step = self.keys[k], self.steps[k]
            used = _used(keys, self.layout.low)
            parts = []
            # the pairs come by state, and each state's holdings by length (as the programme
            # made them), so the moves are sorted by state already
            for r, c, new in _pairs(keys, used, step):
                idx = self._next(k, new)
                ok = idx >= 0
                parts.append((r[ok], c[ok], idx[ok]))
            rows = (np.concatenate([p[0] for p in parts]) if parts else np.zeros(0, np.int64)).astype(np.int32)
            cols = (np.concatenate([p[1] for p in parts]) if parts else rows).astype(np.int32)
            nxt = (np.concatenate([p[2] for p in parts]) if parts else rows).astype(np.int32)
            memo[k] = (rows, cols, nxt, np.searchsorted(rows, np.arange(len(keys) + 1)))
        return memo[k]

    def sample(self, n: int, rng: np.random.Generator, pat_ok=None, hcp_ok=None) -> np.ndarray | None:
        """n hands drawn uniformly from those satisfying the formula (and the condition), as
        (n, 4) indices into each suit's holding classes (:func:`suit_classes`); None if none.

        ``pat_ok`` (booleans by pattern) or ``hcp_ok`` (by HCP) restrict the hands; float
        ``pat_ok`` weighs each pattern instead (1 / its count: every pattern equally likely)."""
        self.drawn_states = 0  # third-suit states this draw draws (its work; set below)
        if any(len(k) == 0 for k in self.keys):  # no hand at all
            return None
        back = self.backward(pat_ok, hcp_ok)
        if back[0][0] <= 0:
            return None
        if kernels.compiled is not None:
            return self._classes_of(self._walk_kernel(n, rng, pat_ok, hcp_ok, back), rng)
        state = np.zeros(n, np.int64)
        chosen = np.zeros((n, 4), np.int64)
        for k in range(4):
            step = self.steps[k]
            uniq, inv = unique(state, inverse=True)
            inv = inv.ravel()
            shape = (len(uniq), len(step.keys))  # (state drawn, contribution of the suit)
            if k == 3:
                self.drawn_states = len(uniq)
            if k == 3 and "_last" not in self.__dict__:
                # the last suit evaluated on the states drawn (its moves are kept by the first
                # HCP condition, which evaluates every state; the weights are the same either way)
                parts = []
                for r, _, cs, _, ww in self._blocks(uniq, pat_ok, hcp_ok):
                    rr = np.searchsorted(uniq, r)  # uniq is sorted
                    parts.append((np.repeat(rr, len(cs)), np.tile(cs, len(rr)), ww.ravel()))
                at, cs, ww = (np.concatenate([p[i] for p in parts]) if parts else np.zeros(0, np.int64)
                              for i in range(3))
                chosen[:, k] = _pick_moves(at, cs, ww.astype(np.float64), shape, inv, rng.random(n))[0]
                break
            # the moves of the states drawn, laid out as (state, contribution)
            if k < 3:
                _, cols, nxt, first = self._transitions(k)
            else:
                _, cols, ways, hcp, first = self._last_moves()
            start, size = first[uniq], first[uniq + 1] - first[uniq]
            at = np.repeat(np.arange(len(uniq)), size)
            move = np.arange(int(size.sum())) + np.repeat(start - (np.cumsum(size) - size), size)
            if k < 3:
                wm = back[k + 1][nxt[move]] * step.counts[cols[move]]
            else:
                wm = ways[move]
                if hcp_ok is not None:
                    wm = wm * hcp_ok[hcp[move]]
                if pat_ok is not None:
                    wm = wm * self._pattern_factor(pat_ok)[uniq][at]
            pick, entry = _pick_moves(at, cols[move], wm, shape, inv, rng.random(n))
            chosen[:, k] = pick
            if k < 3:
                state = np.where(entry >= 0, nxt[move][np.maximum(entry, 0)], -1)
        return self._classes_of(chosen, rng)

    def _classes_of(self, chosen: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The draws' holding classes: from each suit's contribution chosen (``chosen``, (n, 4)),
        one of the classes that make it, weighted by their counts."""
        n = len(chosen)
        out = np.zeros((n, 4), np.int64)
        laid = self.__dict__.get("_class_runs")
        if laid is None:  # each suit's classes by contribution, with their running counts: made once
            laid = []
            for k in range(4):
                step = self.steps[k]
                _, _, cls_counts = suit_classes(self.avail, k)
                order = np.argsort(step.of_class, kind="stable")
                cum = np.cumsum(cls_counts[order])
                starts = np.searchsorted(step.of_class[order], np.arange(len(step.keys)))
                laid.append((order, cum, np.where(starts > 0, cum[np.maximum(starts - 1, 0)], 0.0)))
            self._class_runs = laid
        for k in range(4):
            step = self.steps[k]
            order, cum, before = laid[k]
            c = chosen[:, k]
            target = before[c] + rng.random(n) * step.counts[c]
            pos = np.searchsorted(cum, target, side="right")
            out[:, k] = order[np.minimum(pos, len(order) - 1)]
        return out


def _pick_rows(w: np.ndarray, inv: np.ndarray, u: np.ndarray) -> np.ndarray:
    """For each draw i, a column of row ``inv[i]`` of the weights ``w``, chosen with probability
    proportional to its weight (``u`` uniform in [0, 1)): one search in the rows' normalised
    cumulative weights laid end to end, instead of comparing every draw with every column.

    >>> w = np.array([[1.0, 0.0, 3.0], [0.0, 2.0, 0.0]])
    >>> _pick_rows(w, np.array([0, 0, 1]), np.array([0.1, 0.5, 0.9])).tolist()
    [0, 2, 1]
    """
    return np.minimum(_search_rows(np.cumsum(w, axis=1), inv, u), w.shape[1] - 1)


def _search_rows(cum: np.ndarray, inv: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Where each draw falls in its row of running weights ``cum`` (normalised in place, a row
    of no weight left at 0, then laid end to end): its column, or past the row's end."""
    tot = cum[:, -1:].copy()
    np.divide(cum, tot, out=cum, where=tot > 0)  # in place: the rows can be large
    cum += np.arange(len(cum), dtype=np.float64)[:, None]
    return np.searchsorted(cum.ravel(), inv + u, side="right") - inv * cum.shape[1]


def _pick_moves(at: np.ndarray, col: np.ndarray, val: np.ndarray, shape: tuple[int, int], inv: np.ndarray,
                u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_pick_rows` on the weights ``w[at, col] = val`` (zero elsewhere, of ``shape``)
    without making ``w``: for each draw, the same column, and which entry of ``at``/``col``
    it is (-1 if none).  Each row's running sum over its entries in column order is its
    running sum over the whole row (its zeros add nothing), so the draws are the same; a
    draw that falls past its row's last weight goes, as in _pick_rows, to the last column.

    >>> w = np.array([[1.0, 0.0, 3.0], [0.0, 2.0, 0.0]])
    >>> at, col = np.nonzero(w)
    >>> inv, u = np.array([0, 0, 1]), np.array([0.1, 0.5, 0.9])
    >>> [x.tolist() for x in _pick_moves(at, col, w[at, col], w.shape, inv, u)], _pick_rows(w, inv, u).tolist()
    ([[0, 2, 1], [0, 1, 2]], [0, 2, 1])
    """
    rows, width = shape
    key = at.astype(np.int64) * width + col
    order = None
    if len(key) > 1 and not (key[1:] > key[:-1]).all():  # by row, then column
        order = np.argsort(key, kind="stable")
        at, col, val = at[order], col[order], val[order]
    counts = np.bincount(at, minlength=rows)
    first = np.cumsum(counts) - counts
    k = max(1, int(counts.max()) if rows else 1)
    cum = np.zeros((rows, k))
    cum[at, np.arange(len(at)) - first[at]] = val
    pos = _search_rows(np.cumsum(cum, axis=1, out=cum), inv, u)
    inside = pos < counts[inv]
    entry = np.where(inside, first[inv] + np.minimum(pos, k - 1), -1)
    # past the row: the last column, which is an entry only if the row's last one is there
    last = first[inv] + counts[inv] - 1
    at_end = ~inside & (counts[inv] > 0) & (col[np.maximum(last, 0)] == width - 1) if len(col) else ~inside & False
    entry = np.where(at_end, last, entry)
    pick = np.where(entry >= 0, col[np.maximum(entry, 0)] if len(col) else 0, width - 1)
    if order is not None:
        entry = np.where(entry >= 0, order[np.maximum(entry, 0)], -1)
    return pick, entry


_CODES = np.arange(1 << 16, dtype=np.int64)
_USED = (_CODES >> 12) + ((_CODES >> 8) & 15) + ((_CODES >> 4) & 15) + (_CODES & 15)  # per length code


def _used(keys: np.ndarray, low: int) -> np.ndarray:
    """The cards a state's suits hold so far: the sum of its four length fields."""
    return _USED[keys >> low]


def _recap(keys: np.ndarray, lay: Layout) -> np.ndarray:
    """Every capped column brought back under its cap (a new array).

    A column capped at 1 holds at most 2 after one addition (1 + 1, in two bits): its
    excess is its high bit, so all such columns are brought back at once by subtracting
    their high bits shifted down one; any other column is brought back on its own."""
    ones, rest = lay.recap_split
    if ones:
        keys = keys - ((keys & ones) >> 1)
    elif rest:
        keys = keys.copy()
    for off, cap, mask in rest:
        v = (keys >> off) & mask
        v -= cap
        np.maximum(v, 0, out=v)
        v <<= off
        keys -= v
    return keys


def _dedup_keys(keys: np.ndarray, counts: np.ndarray, where: bool = False):
    """The distinct keys (sorted), each one's summed counts, and (``where``) where each key went."""
    if len(keys) == 0:
        return keys, counts, np.zeros(0, np.int32)
    order, s, first = _runs(keys)
    at = np.flatnonzero(first)
    inv = None
    if where:
        inv = np.empty(len(keys), np.int32)
        inv[order] = np.cumsum(first, dtype=np.int32) - 1
    # counts of hands are whole numbers below 2**53, so their float sums are exact in any order
    return s[at], np.add.reduceat(counts[order], at), inv


_PAIRS = 1 << 19  # pairs formed at once: bounds the memory of a step
_FEW = 1 << 14  # a table's last suit has few pairs: formed at once, not by length and group
_KEEP_MOVES = 1 << 15  # a level that forms this many pairs at once keeps its moves as built
# The work of building a table, in seconds of this machine (fitted over the 196 tables the
# case lists build, and the 312 their joint answers build): a base, each (state, holding) pair
# of the first three suits, each pair of the last suit (where the formula is evaluated) and
# each entry of a truth table made for it.  SeatTable.work is the sum; the deal-level search
# takes it out of the answer's budget, so that the budget bounds the whole answer.
TABLE_BASE, PAIR_COST, LAST_COST, ENTRY_COST = 0.005, 3e-8, 1.2e-7, 1.2e-7


def _stretches(k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For stretches of k[i] items each, laid end to end: each item's stretch and its place in it.

    >>> [a.tolist() for a in _stretches(np.array([2, 0, 3]))]
    [[0, 0, 2, 2, 2], [0, 1, 0, 1, 2]]
    """
    total = int(k.sum())
    return np.repeat(np.arange(len(k)), k), np.arange(total) - np.repeat(np.cumsum(k) - k, k)


def _pairs(keys, used, step: SuitStep):
    """Yield (row index, contribution index, summed keys) in chunks of at most about
    :data:`_PAIRS` pairs, length-feasible only: each row with every contribution whose
    length fits in the cards the row has left (the contributions in order of length, so
    that they are a prefix), all rows at once rather than one length at a time."""
    by_len = step.by_length
    fit = np.searchsorted(step.sorted_length, 13 - used, side="right")  # per row: how many fit
    rows = np.flatnonzero(fit)
    if len(rows) == 0:
        return
    n = fit[rows]
    ends = np.cumsum(n)
    cut = [0]  # rows split where the running count of pairs passes each multiple of _PAIRS
    while cut[-1] < len(rows):
        base = ends[cut[-1] - 1] if cut[-1] else 0
        cut.append(max(cut[-1] + 1, int(np.searchsorted(ends, base + _PAIRS, side="right"))))
    for a, b in zip(cut, cut[1:], strict=False):
        at, place = _stretches(n[a:b])
        r_idx = rows[a:b][at]
        c_idx = by_len[place]
        yield r_idx, c_idx, keys[r_idx] + step.keys[c_idx]


def _suit_steps(plan: Plan, lay: Layout | None, contribs, avail: Available) -> list[SuitStep]:
    out = []
    packed = lay.pack(np.minimum(np.concatenate(contribs), lay.caps))  # the four suits in one go
    at = 0
    for si in range(4):
        _, _, cs = suit_classes(avail, si)
        uniq, inv = unique(packed[at:at + len(cs)], inverse=True)
        at += len(cs)
        cnt = np.bincount(inv.ravel(), weights=cs, minlength=len(uniq))
        length = (uniq >> int(lay.offs[plan.index[("len", SUITS[si])]])) & 15
        out.append(SuitStep(uniq, cnt, length, inv.ravel()))
    return out


# What a table's programme is set up with, by formula and options: its plan and layout, the
# patterns it allows, its suits' steps, its shaper and its evaluator.  They depend on nothing
# else, change no more once made, and take a few milliseconds of Python for a large formula
# (the first-seat pass): a process builds the table of one formula again for each Inferencer
# (and for each known hand), so they are kept, the least recently used dropped past PREPARED_KEPT.
PREPARED_KEPT = 256
_PREPARED: Bounded[tuple, tuple | None] = Bounded(PREPARED_KEPT)


def _prepare(formula: Node, avail: Available, patterns, aux: tuple, lite: int | None, max_honours: int | None,
             honour_cap: int | None):
    """build_seat's set-up before the programme runs (see _PREPARED); None when the state does
    not fit 62 bits."""
    plan, rewritten = make_plan(formula)
    if lite is not None:
        aux = ("akqj", "A", "K", "Q", "J")
    for name in aux:
        plan.col(("aux", name), lite if (lite is not None and name == "akqj") else BIG)
    if max_honours is not None:  # only hands with at most that many honours (A K Q J)
        plan.col(("aux", "akqj"), max_honours + 1)
    if honour_cap is not None:  # hands counted by their number of honours, capped
        aux = ("akqj",)
        plan.col(("aux", "akqj"), honour_cap)
    contribs = [np.stack([_contribution(c, avail, si) for c in plan.columns], axis=1) for si in range(4)]
    lay = _layout(plan, contribs)
    if lay is None:
        return None
    memo: dict = {}  # what the lengths alone settle, per node: found once for both below
    viable, keep_p = _relevance(rewritten, plan, lay, memo)
    for name in aux:
        keep_p |= lay.field(plan.index[("aux", name)])
    if patterns is not None:
        ok = np.zeros(len(ALL_PATTERNS), bool)
        for p in patterns:
            ok[CODE_TO_PAT[(p[0] << 12) | (p[1] << 8) | (p[2] << 4) | p[3]]] = True
        viable &= ok
    allowed, keep = [], []
    # the viable patterns' first k suits' lengths, k = 1..3: what _Shaper's tables are indexed by
    prefixes = [PAT_CODE[viable] >> (16 - 4 * k) for k in range(1, 4)]
    for k, pref in enumerate(prefixes, 1):
        a = np.zeros(1 << 4 * k, bool)
        a[pref] = True
        m = np.zeros(1 << 4 * k, np.int64)
        np.bitwise_or.at(m, pref, keep_p[viable])
        allowed.append(a)
        keep.append(m)
    steps = _suit_steps(plan, lay, contribs, avail)
    lite_rule = None
    if lite is not None:
        hj = plan.index[("aux", "akqj")]
        lite_rule = (hj, lite, sum(lay.field(plan.index[("aux", r)]) for r in "AKQJ"))
    most = None if max_honours is None else (plan.index[("aux", "akqj")], max_honours)
    if most is not None:
        keep_p |= lay.field(most[0])
        keep = [m | lay.field(most[0]) for m in keep]
    evaluate = _Evaluator(rewritten, lay, memo) if rewritten != TRUE else None
    # the most HCP a hand can hold for the formula to hold, per pattern (partial sums only grow)
    hcp_cap = None
    if evaluate is not None:
        most_hcp = evaluate.hcp_ceiling()[evaluate.gid]
        hcp_cap = []
        for k, pref in enumerate(prefixes, 1):
            m = np.full(1 << 4 * k, -1, np.int64)
            np.maximum.at(m, pref, most_hcp[viable])
            hcp_cap.append(m)
    shaper = _Shaper(lay, allowed, keep, lite_rule, most, hcp_cap)
    return plan, rewritten, lay, aux, viable, steps, shaper, evaluate


def build_seat(formula: Node, avail: Available = Available(), patterns=None, aux: tuple = (),
               lite: int | None = None, max_honours: int | None = None,
               honour_cap: int | None = None) -> SeatTable | None:
    """Run the packed programme for a formula; None when its state does not fit 62 bits.

    ``aux`` names columns of :data:`AUX` to count hands by (``SeatTable.aux``);
    ``honour_cap=t`` counts them by their number of honours (A K Q J) capped at t.  With
    ``lite=t`` the aux columns are ("akqj", "A", "K", "Q", "J"): the honour count capped
    at t, and which honours only while fewer than t are held (what the cards left to the other
    seats look like at the top, where it can matter), so that few states are added."""
    key = (formula, avail, None if patterns is None else tuple(patterns), aux, lite, max_honours, honour_cap)
    prepared = _PREPARED.get(key)
    if prepared is None:
        prepared = _PREPARED[key] = _prepare(formula, avail, patterns, aux, lite, max_honours, honour_cap)
    if prepared is None:
        return None
    plan, rewritten, lay, aux, viable, steps, shaper, evaluate = prepared
    keys = np.zeros(1, np.int64)
    counts = np.ones(1)
    levels_k, levels_c = [keys], [counts]
    pairs = 0
    # a large level's moves to the next (SeatTable._transitions), kept as they are made: a
    # table that large is costly to walk again at its first draw (a small one is cheap to)
    moves = {}
    for si in range(3):
        if kernels.compiled is not None:
            n = len(keys)
            keys, counts, made, mv = _expand(keys, counts, lay, shaper, si, steps[si])
            pairs += made
            if mv is not None:
                moves[si] = (*mv, np.searchsorted(mv[0], np.arange(n + 1)))
            levels_k.append(keys)
            levels_c.append(counts)
            continue
        used = _used(keys, lay.low)
        out_k, out_c, out_r, out_h = [], [], [], []
        for r, c, new in _pairs(keys, used, steps[si]):
            pairs += len(new)
            new, ok = shaper(si, new)
            r, c = r[ok], c[ok]
            out_k.append(new[ok])
            out_c.append(counts[r] * steps[si].counts[c])
            if out_r or len(new) >= _KEEP_MOVES:
                out_r.append(r.astype(np.int32))
                out_h.append(c.astype(np.int32))
        n = len(keys)
        if out_k:
            keys, counts, nxt = _dedup_keys(np.concatenate(out_k), np.concatenate(out_c), bool(out_r))
        else:
            keys, counts = np.zeros(0, np.int64), np.zeros(0)
        if out_r:  # the pairs come by state (see _transitions), and every pair kept reaches a state kept
            rows = np.concatenate(out_r)
            moves[si] = (rows, np.concatenate(out_h), nxt, np.searchsorted(rows, np.arange(n + 1)))
        levels_k.append(keys)
        levels_c.append(counts)
    viable_code = np.zeros(1 << 16, bool)
    viable_code[PAT_CODE[viable]] = True
    work = PAIR_COST * pairs + ENTRY_COST * (evaluate.entries if evaluate is not None else 0)
    return SeatTable(formula, avail, lay, rewritten, steps, levels_k, levels_c, shaper, viable, viable_code,
                     evaluate, tuple(plan.index[("aux", name)] for name in aux), work, moves)


def _expand(keys: np.ndarray, counts: np.ndarray, lay: Layout, shaper: _Shaper, k: int, step: SuitStep):
    """One level of the programme by the compiled kernel: the next level's states and counts,
    the pairs formed, and the moves (as build_seat keeps them for a large level, else None).
    The same as build_seat's numpy loop over :func:`_pairs`, the shaper and :func:`_dedup_keys`."""
    fit = np.searchsorted(step.sorted_length, np.arange(14), side="right")  # per cards left
    ones, rest = lay.recap_split
    hcp = _field(lay, shaper.hcp_j) if shaper.hcp_cap is not None else (-1, 0)  # an offset of -1: no such test
    big = int(fit[13 - _used(keys, lay.low)].sum()) >= _KEEP_MOVES  # as the numpy loop decides
    return kernels.compiled.expand(
        keys, counts, lay.low, k, step.keys, step.counts, step.by_length, fit.astype(np.int64),
        ones, np.array(rest, np.int64).reshape(-1, 3), shaper.allowed[k].view(np.uint8), shaper.keep[k],
        shaper.hcp_cap[k] if shaper.hcp_cap is not None else _NO_CAP, *hcp, *_most(lay, shaper), *_lite(lay, shaper),
        big)


def _field(lay: Layout, j: int) -> tuple[int, int]:
    """A column's offset and mask in the packed state, as the kernels read it."""
    return int(lay.offs[j]), int(lay.masks[j])


def _lite(lay: Layout, shaper: _Shaper) -> tuple[int, int, int, int]:
    """The shaper's lite honour rule (offset, mask, cap, honour bits), as the kernels read it;
    an offset of -1 where there is none."""
    return (*_field(lay, shaper.lite[0]), *shaper.lite[1:]) if shaper.lite is not None else (-1, 0, 0, 0)


def _most(lay: Layout, shaper: _Shaper) -> tuple[int, int, int]:
    """The shaper's limit on a column (offset, mask, most), as the kernels read it; an offset
    of -1 where there is none."""
    return (*_field(lay, shaper.most[0]), shaper.most[1]) if shaper.most is not None else (-1, 0, 0)


_NO_CAP = np.zeros(1, np.int64)
_NO_INT = np.zeros(0, np.int64)
# what Evaluator.kernel_tables says of a pattern group with no truth table (the others: the
# table's number, or where the formula is settled, true or false)
_SETTLED, _FALSE, _WALKED = -1, -2, -3
_NO_TRUTH = (np.zeros(1, np.uint8), np.zeros(1, np.int64), np.zeros((1, 3), np.int64))
_OPS = {">=": 0, "<=": 1, "==": 2, "!=": 3}  # the comparisons, as the compiled walk numbers them


def _program(f: Node, lay: Layout) -> np.ndarray:
    """A rewritten formula as the compiled walk reads it (``_kernels.formula_truth``): its
    nodes in preorder, each as its type, the index just past it, then its own words:

    * and / or (types 0, 1): its children;  not (2): its child;
    * a comparison (3): the operator (>= <= == != as 0-3), the constant, the number of terms,
      then (offset, mask, coefficient) of each term's column: const + sum of the terms, op 0
      (a column test ``col op value`` is the comparison ``col - value op 0``);
    * pattern (4) and shape (5): their number, then four lengths each (-1 for any; a shape's
      longest first)."""
    plan, out = lay.plan, []

    def emit(x: Node) -> None:
        at = len(out)
        if isinstance(x, (And, Or)):
            out.extend([0 if isinstance(x, And) else 1, 0])
            for c in x.items:
                emit(c)
        elif isinstance(x, Not):
            out.extend([2, 0])
            emit(x.item)
        elif isinstance(x, ColTest):
            out.extend([3, 0, _OPS[x.op], -int(x.value), 1, *_field(lay, plan.index[x.key]), 1])
        elif isinstance(x, Cmp):
            out.extend([3, 0, _OPS[x.op], int(x.const), len(x.terms)])
            for c, ft in x.terms:
                out.extend([*_field(lay, plan.index[_feature_key(ft)]), int(c)])
        elif isinstance(x, (Pattern, Shape)):
            rows = x.patterns if isinstance(x, Pattern) else x.shapes
            out.extend([4 if isinstance(x, Pattern) else 5, 0, len(rows)])
            for row in rows:
                out.extend(-1 if v is None else int(v) for v in row)
        else:
            raise TypeError(f"cannot evaluate {x!r}")
        out[at + 1] = len(out)

    emit(f)
    return np.array(out, np.int64)


class _Shaper:
    """What happens to a state after a suit is added: capped columns back under their caps,
    dropped if no allowed pattern extends its lengths, unlooked-at columns zeroed."""

    def __init__(self, lay: Layout, allowed, keep, lite_rule, most=None, hcp_cap=None):
        self.lay, self.allowed, self.keep, self.lite, self.most = lay, allowed, keep, lite_rule, most
        self.hcp_cap = hcp_cap
        self.hcp_j = lay.plan.index[("hcp", None)]

    def __call__(self, k: int, keys: np.ndarray):
        keys = _recap(keys, self.lay)
        code = keys >> (self.lay.low + 12 - 4 * k)  # the lengths of the k + 1 suits dealt so far
        ok = self.allowed[k][code]
        if self.hcp_cap is not None:
            ok &= self.lay.column(keys, self.hcp_j) <= self.hcp_cap[k][code]
        if self.most is not None:
            ok &= self.lay.column(keys, self.most[0]) <= self.most[1]
        keys = keys & self.keep[k][code]
        if self.lite is not None:
            keys = self.final(keys)
        return keys, ok

    def final(self, keys: np.ndarray) -> np.ndarray:
        """The lite honour columns of full hands: which honours only below the honour cap."""
        if self.lite is None:
            return keys
        hj, t, bits = self.lite
        v = self.lay.column(keys, hj)
        keys = np.where(v >= t, keys & ~np.int64(bits), keys)
        off = int(self.lay.offs[hj])
        return keys - (np.maximum(v - t, 0) << off)


_TRUTH_TABLES: dict = {}


def _row_groups(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row of a 2-D uint8 array, the number of its group of equal rows (groups numbered
    in order of first appearance), and each group's first row.

    >>> g, first = _row_groups(np.array([[1, 0], [0, 1], [1, 0], [0, 0]], np.uint8))
    >>> g.tolist(), first.tolist()
    ([0, 1, 0, 2], [0, 1, 3])
    """
    if rows.shape[1] <= 8:  # each row as one number: sorting numbers is several times faster than bytes
        padded = np.zeros((len(rows), 8), np.uint8)
        padded[:, :rows.shape[1]] = rows
        v = padded.view(np.uint64).ravel()
    else:
        v = np.ascontiguousarray(rows).view(np.dtype((np.void, rows.shape[1]))).ravel()
    order, _, fresh = _runs(v)  # stable: each group's first row comes first in its run
    g = np.empty(len(v), np.int64)
    g[order] = np.cumsum(fresh) - 1
    first = order[fresh]
    rank = np.empty(len(first), np.int64)
    rank[np.argsort(first)] = np.arange(len(first))
    return rank[g], np.sort(first)


class _Evaluator:
    """A rewritten formula evaluated on packed states, one pattern group at a time.

    Patterns on which the same sub-formulas are settled by the lengths alone share one
    specialised formula (for a balanced pattern, "no opening" is often just an HCP test);
    each state is evaluated with the small formula of its pattern's group."""

    def __init__(self, n: Node, lay: Layout, memo: dict | None = None):
        self.lay = lay
        # truth-table entries this evaluator needs, counted whether made here or found made by
        # an earlier table, so that a table's work does not depend on what the process did before
        self.entries = 0
        self._counted: set = set()
        memo = {} if memo is None else memo  # _specialise's, perhaps shared with _relevance
        t, f = _specialise(n, lay.plan, memo)
        cols = [t, f]

        def walk(x: Node, live: np.ndarray):  # constness of the nodes a live parent looks at
            if not live.any() or memo[id(x)][2] or not isinstance(x, (And, Or, Not)):
                return
            for c in x.children():
                ct, cf = memo[id(c)][0]
                cols.extend((ct & live, cf & live))
                walk(c, live & ~(ct | cf))

        walk(n, ~(t | f))
        gid, first = _row_groups(np.packbits(np.stack(cols, axis=1), axis=1))
        index: dict[Node, int] = {}
        merged = np.array([index.setdefault(self._specialised(n, int(p), memo), len(index)) for p in first])
        self.gid = merged[gid.ravel()]
        self.formulas = list(index)
        self.live = np.array([f != FALSE for f in self.formulas])  # per group: can it hold
        self.tables = [self._table(f) for f in self.formulas]

    def _columns(self, f: Node) -> list[int]:
        plan = self.lay.plan
        out: set[int] = set()

        def walk(x):
            if isinstance(x, ColTest):
                out.add(plan.index[x.key])
            elif isinstance(x, Cmp):
                out.update(plan.index[_feature_key(ft)] for _, ft in x.terms)
            for c in x.children():
                walk(c)

        walk(f)
        return sorted(out)

    def _table(self, f: Node):
        """A truth table over the bits of the columns f looks at, when they are few."""
        if f in (TRUE, FALSE):
            return None
        cols = self._columns(f)
        widths = [int(self.lay.masks[j]).bit_length() for j in cols]
        if sum(widths) > 16:
            return None
        key = (f, tuple(self.lay.plan.columns[j].key for j in cols), tuple(widths))
        if key not in self._counted:
            self._counted.add(key)
            self.entries += 1 << sum(widths)
        hit = _TRUTH_TABLES.get(key)
        if hit is None:
            table, _, shifts = self._make_table(f, cols, widths)
            hit = _TRUTH_TABLES[key] = (table, shifts)
            if len(_TRUTH_TABLES) > 4096:
                _TRUTH_TABLES.pop(next(iter(_TRUTH_TABLES)))
        return hit[0], cols, hit[1]  # the same column keys in the same order: this plan's indices

    def _make_table(self, f: Node, cols: list[int], widths: list[int]):
        size = 1 << sum(widths)
        idx = np.arange(size, dtype=np.int64)
        values, shifts, at = {}, [], 0
        for j, w in zip(cols, widths, strict=True):
            values[j] = (idx >> at) & ((1 << w) - 1)
            shifts.append(at)
            at += w
        plan = self.lay.plan

        def other(x: Node):
            if isinstance(x, ColTest):
                return _compare(values[plan.index[x.key]], x.op, x.value)
            return None

        table = _truth(f, size, lambda ft: values[plan.index[_feature_key(ft)]], other)
        return table, cols, shifts

    def _specialised(self, n: Node, p: int, memo: dict) -> Node:
        (t, f), _, _ = memo[id(n)]
        if t[p]:
            return TRUE
        if f[p]:
            return FALSE
        if isinstance(n, And):
            return conj([self._specialised(c, p, memo) for c in n.items])
        if isinstance(n, Or):
            return disj([self._specialised(c, p, memo) for c in n.items])
        if isinstance(n, Not):
            return negate(self._specialised(n.item, p, memo))
        return n

    def __call__(self, keys: np.ndarray, pidx: np.ndarray) -> np.ndarray:
        g = self.gid[pidx]
        out = np.zeros(len(keys), bool)
        order = np.argsort(g, kind="stable")
        gs = g[order]
        cuts = np.flatnonzero(np.diff(gs)) + 1
        for s, e in zip(np.concatenate(([0], cuts)), np.concatenate((cuts, [len(gs)])), strict=True):
            if s == e:
                continue
            f = self.formulas[int(gs[s])]
            if f == TRUE:
                out[order[s:e]] = True
            elif f != FALSE:
                rows = order[s:e]
                out[rows] = self.truth_of(int(gs[s]), keys[rows])
        return out

    def kernel_tables(self):
        """The truth tables laid out for the compiled last-suit loop, made once: (all tables'
        entries end to end as bytes, where each starts, per table its columns as (offset,
        mask, shift) triples padded with zeros, per pattern group its table's number, or
        _SETTLED where its formula is true, _FALSE where false, _WALKED where it has no
        table)."""
        got = self.__dict__.get("_kernel_tables")
        if got is None:
            kind = np.full(len(self.formulas), _WALKED, np.int64)
            parts, at, cols = [], [0], []
            for gi, f in enumerate(self.formulas):
                if f == TRUE:
                    kind[gi] = _SETTLED
                elif f == FALSE:
                    kind[gi] = _FALSE
                elif self.tables[gi] is not None:
                    table, cs, shifts = self.tables[gi]
                    kind[gi] = len(parts)
                    parts.append(table.astype(np.uint8))
                    at.append(at[-1] + len(table))
                    cols.append([v for j, sh in zip(cs, shifts, strict=True) for v in (*_field(self.lay, j), sh)])
            width = max([len(c) for c in cols] + [3])
            tcols = np.zeros((max(len(cols), 1), width), np.int64)
            for t, c in enumerate(cols):
                tcols[t, :len(c)] = c
            truth = np.concatenate(parts) if parts else np.zeros(1, np.uint8)
            got = self._kernel_tables = (truth, np.array(at[:-1] or [0], np.int64), tcols, kind)
        return got

    def kernel_programs(self) -> tuple[np.ndarray, np.ndarray]:
        """The programs (:func:`_program`) of the groups walked node by node, end to end, and
        where each group's starts (-1 for a group with a table or settled), made once."""
        got = self.__dict__.get("_kernel_programs")
        if got is None:
            parts, at, size = [], np.full(len(self.formulas), -1, np.int64), 0
            for gi, f in enumerate(self.formulas):
                if f not in (TRUE, FALSE) and self.tables[gi] is None:
                    parts.append(_program(f, self.lay))
                    at[gi], size = size, size + len(parts[-1])
            got = self._kernel_programs = (np.concatenate(parts) if parts else np.zeros(1, np.int64), at)
        return got

    def hcp_ceiling(self) -> np.ndarray:
        """Per group, the most HCP with which its formula can hold (whatever the other columns
        are); 37 where the formula does not bound it, -1 where it never holds."""
        hj = self.lay.plan.index[("hcp", None)]
        out = np.full(len(self.formulas), 37, np.int64)
        for gi, f in enumerate(self.formulas):
            if f == FALSE:
                out[gi] = -1
                continue
            t = self.tables[gi]
            if t is None:
                continue
            table, cols, shifts = t
            if hj not in cols:
                continue
            i = cols.index(hj)
            w = int(self.lay.masks[hj]).bit_length()
            idx = np.flatnonzero(table)
            if len(idx) == 0:
                out[gi] = -1
                continue
            out[gi] = int(((idx >> shifts[i]) & ((1 << w) - 1)).max())
        return out

    def truth_of(self, gi: int, keys: np.ndarray) -> np.ndarray:
        t = self.tables[gi]
        if t is None:
            return self.truth(self.formulas[gi], keys)
        table, cols, shifts = t
        idx = np.zeros(len(keys), np.int64)
        for j, s in zip(cols, shifts, strict=True):
            idx |= self.lay.column(keys, j) << s
        return table[idx]

    def truth(self, f: Node, keys: np.ndarray) -> np.ndarray:
        if kernels.compiled is not None:  # the compiled walk, one state at a time (stopping where it is settled)
            programs = self.__dict__.setdefault("_programs", {})
            if f not in programs:
                programs[f] = _program(f, self.lay)
            keys = np.ascontiguousarray(keys, np.int64)
            return kernels.compiled.formula_truth(programs[f], keys.ravel(), self._lens).reshape(keys.shape)
        return self.numpy_truth(f, keys)

    @cached_property
    def _lens(self) -> np.ndarray:
        """The four length columns' offsets and masks, as the compiled walk reads them."""
        return np.array([v for s in SUITS for v in _field(self.lay, self.lay.plan.index[("len", s)])], np.int64)

    def numpy_truth(self, f: Node, keys: np.ndarray) -> np.ndarray:
        """The truth of ``f`` on packed states by numpy, node by node (what the compiled walk,
        where it was built, computes: the reference)."""
        lay, plan = self.lay, self.lay.plan
        cache: dict[int, np.ndarray] = {}

        def col(j: int) -> np.ndarray:
            if j not in cache:
                cache[j] = lay.column(keys, j)
            return cache[j]

        def other(x: Node):
            if isinstance(x, ColTest):
                return _compare(col(plan.index[x.key]), x.op, x.value)
            return None

        return _truth(f, len(keys), lambda ft: col(plan.index[_feature_key(ft)]), other)


# The programme for plans too wide to pack: rows of columns, deduplicated after each suit.
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
    uniq, inv = unique(keys, inverse=True)
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
        for n in unique(clen):
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


def _pattern_index(s, h, d, c) -> np.ndarray:
    return PAT_OF14[((s * 14 + h) * 14 + d) * 14 + c]


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
        """Each suit's least and most length over the patterns (computed once: a designer's walk
        asks it of the same result at every call that reads partner's long suits)."""
        return dict(self._spans) if self._spans is not None else None

    @cached_property
    def _spans(self) -> dict[str, tuple[int, int]] | None:
        if not self.patterns:
            return None
        return {s: (min(p[i] for p in self.patterns), max(p[i] for p in self.patterns))
                for i, s in enumerate(SUITS)}


def solve(formula: Node, avail: Available = Available(), patterns=None) -> Result:
    """Exact pattern set, HCP range and hand count of the hands satisfying a formula.

    Results that took a while to compute are kept on disk (see :mod:`canary_infer.caches`)."""
    from canary_infer.caches import solve_cached

    return solve_cached(_solve, Result, formula, avail, patterns)


def _solve(formula: Node, avail: Available, patterns) -> Result:
    t = build_seat(formula, avail, patterns)
    if t is not None:
        return t.result()
    return _solve_rows(formula, avail, patterns)


def _solve_rows(formula: Node, avail: Available, patterns) -> Result:
    """The row-based programme, for plans whose state does not pack into 62 bits."""
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
        uniq, inv = unique(key, inverse=True)
        sums = np.bincount(inv.ravel(), weights=counts)
        for k, c in zip(uniq.tolist(), sums.tolist(), strict=True):
            pats[(k // 2744, k // 196 % 14, k // 14 % 14, k % 14)] = c
    return Result(pats, (int(hcp.min()), int(hcp.max())) if len(rows) else None, float(counts.sum()))
