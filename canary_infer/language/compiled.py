"""Formulas compiled to Python functions of a hand's four holding classes, for bidding at speed.

:func:`canary_infer.language.expr.evaluate` walks the formula tree and adds up :class:`~fractions.Fraction`
coefficients for every hand; that is exact and slow (most of a self-check's time).  Here a set
of formulas (the calls open to a player) becomes one generated function of the hand's holding
classes (``length * 64 + mask`` per suit, see :mod:`canary_infer.language.features`) that looks every
feature up in a table and compares whole numbers.  The answer is the same, exactly: a
comparison's coefficients are whole numbers once the constraint language has normalised it,
and any that is not is kept as a Fraction.  A formula that is one of the others (``P`` denies
the openings, which are its siblings) is computed once and reused.

    >>> from canary_infer.bridge.cards import Hand
    >>> from canary_infer.language.expr import parse, evaluate
    >>> fs = [parse("hcp in 11..16 and S >= 5"), parse("shape 4333 | 4432"), parse("losers <= 7.5")]
    >>> hand = Hand.from_pbn("AKQ83.J2.K4.QT92")
    >>> compile_formulas(fs)(hand_classes(hand)) == tuple(evaluate(f, hand) for f in fs)
    True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction

from canary_infer.bridge.cards import SUITS
from canary_infer.language.expr import And, Cmp, Feat, Node, Not, Or, Pattern, Shape
from canary_infer.language.features import BIT, FEATURES

_CLASS_OF: dict[str, int] = {}


def holding_index(ranks: str) -> int:
    """The holding class of one suit's ranks (e.g. ``"AQ52"``) as ``length * 64 + mask``."""
    idx = _CLASS_OF.get(ranks)
    if idx is None:
        mask = 0
        for r in ranks:
            mask |= BIT.get(r, 0)
        idx = _CLASS_OF[ranks] = len(ranks) * 64 + mask
    return idx


def hand_classes(hand) -> tuple[int, int, int, int]:
    """The four holding classes of a hand, spades first."""
    a, b, c, d = (holding_index(hand.suit(s)) for s in SUITS)
    return a, b, c, d


_TABLES: dict[str, list[int]] = {}


def table(name: str) -> list[int]:
    """A feature's value on every holding class (index ``length * 64 + mask``)."""
    t = _TABLES.get(name)
    if t is None:
        f = FEATURES[name].per_suit
        t = _TABLES[name] = [f(i >> 6, i & 63) if bin(i & 63).count("1") <= i >> 6 else 0
                             for i in range(14 * 64)]
    return t


class _Gen:
    """Writes the body of one generated function."""

    def __init__(self, shared: dict[Node, str]):
        self.shared = shared  # formulas already computed into a local variable
        self.consts: dict[str, object] = {}
        self.tables: set[str] = set()
        self.needs_shape = False

    def const(self, value) -> str:
        name = f"K{len(self.consts)}"
        self.consts[name] = value
        return name

    def feature(self, f: Feat) -> str:
        self.tables.add(f.name)
        t = f"T_{f.name}"
        if f.suit is not None:
            return f"{t}[{_VAR[f.suit]}]"
        return f"({t}[a] + {t}[b] + {t}[c] + {t}[d])"

    def expr(self, n: Node) -> str:
        hit = self.shared.get(n)
        if hit is not None:
            return hit
        if isinstance(n, And):
            return "(" + " and ".join(self.expr(i) for i in n.items) + ")" if n.items else "True"
        if isinstance(n, Or):
            return "(" + " or ".join(self.expr(i) for i in n.items) + ")" if n.items else "False"
        if isinstance(n, Not):
            return f"(not {self.expr(n.item)})"
        if isinstance(n, Cmp):
            parts = []
            for c, f in n.terms:
                coef = str(int(c)) if Fraction(c).denominator == 1 else self.const(Fraction(c))
                parts.append(f"{coef} * {self.feature(f)}")
            k = n.const
            parts.append(str(int(k)) if Fraction(k).denominator == 1 else self.const(Fraction(k)))
            op = {">=": ">=", "<=": "<=", "==": "==", "!=": "!="}[n.op]
            return f"({' + '.join(parts)} {op} 0)"
        if isinstance(n, Pattern):
            alts = []
            for pat in n.patterns:
                tests = [f"L{i} == {x}" for i, x in enumerate(pat) if x is not None]
                alts.append("(" + " and ".join(tests) + ")" if tests else "True")
            return "(" + " or ".join(alts) + ")" if alts else "False"
        if isinstance(n, Shape):
            self.needs_shape = True
            return f"(SHAPE in {self.const(frozenset(n.shapes))})"
        raise TypeError(f"cannot compile {n!r}")


_VAR = dict(zip(SUITS, "abcd", strict=True))


def _subnodes(n: Node):
    yield n
    for c in n.children():
        yield from _subnodes(c)


def _order(formulas: Sequence[Node]) -> list[int]:
    """An order to compute the formulas in so that one that contains another comes after it."""
    index = {}
    for i, f in enumerate(formulas):
        index.setdefault(f, i)
    deps = {i: {index[s] for s in _subnodes(f) if s in index and index[s] != i and s is not f}
            for i, f in enumerate(formulas)}
    out: list[int] = []
    state: dict[int, int] = {}

    def visit(i: int) -> bool:
        if state.get(i) == 2:
            return True
        if state.get(i) == 1:
            return False  # a cycle: cannot happen for trees, compute without sharing
        state[i] = 1
        for j in sorted(deps[i]):
            if not visit(j):
                return False
        state[i] = 2
        out.append(i)
        return True

    for i in range(len(formulas)):
        if not visit(i):
            return list(range(len(formulas)))
    return out


_COMPILED: dict[tuple[Node, ...], Callable] = {}


def compile_formulas(formulas: Sequence[Node]) -> Callable[[tuple[int, int, int, int]], tuple[bool, ...]]:
    """One function computing every formula's truth on a hand's holding classes, in order
    (compiled once per list of formulas: many points of the tree offer the same calls).

    :raises TypeError: for a node the compiler does not know (the caller may fall back to
        :func:`~canary_infer.language.expr.evaluate`)."""
    key = tuple(formulas)
    f = _COMPILED.get(key)
    if f is None:
        if len(_COMPILED) >= 20_000:
            _COMPILED.clear()
        f = _COMPILED[key] = _compile(list(formulas))
    return f


def _compile(formulas: list[Node]) -> Callable[[tuple[int, int, int, int]], tuple[bool, ...]]:
    shared: dict[Node, str] = {}
    gen = _Gen(shared)
    lines = []
    for i in _order(formulas):
        code = gen.expr(formulas[i])
        lines.append(f"    v{i} = bool({code})")
        shared.setdefault(formulas[i], f"v{i}")
    head = ["def f(h):", "    a, b, c, d = h", "    L0, L1, L2, L3 = a >> 6, b >> 6, c >> 6, d >> 6"]
    if gen.needs_shape:
        head.append("    SHAPE = tuple(sorted((L0, L1, L2, L3), reverse=True))")
    body = head + lines + [f"    return ({''.join(f'v{i}, ' for i in range(len(formulas)))})"]
    scope = {**gen.consts, **{f"T_{t}": table(t) for t in gen.tables}}
    try:
        exec(compile("\n".join(body), "<canary_infer.language.compiled>", "exec"), scope)  # noqa: S102
    except (SyntaxError, RecursionError, MemoryError) as e:  # nesting deeper than Python's parser takes
        raise TypeError(f"cannot compile: {e}") from None
    return scope["f"]


def compile_formula(formula: Node) -> Callable[[tuple[int, int, int, int]], bool]:
    """One formula's truth as a function of a hand's holding classes."""
    many = compile_formulas([formula])
    return lambda h: many(h)[0]
