"""The constraint language: what a call says about the caller's hand.

A constraint is a boolean formula over hand features, written the way the notes write it:

    hcp in 11..16 and S >= 4 and not balanced
    losers <= 7 and (hcp >= 11 and qt >= 2 or hcp >= 14 and qt >= 1.5)
    pattern 5-3-1-4 | 6-x-x-4
    shape 4333 | 4432 | 5332
    all x in suits: len(x) == 1 -> hasA(x) or hasK(x)

* A bare suit letter (``S``) or a suit variable bound to a suit is that suit's length.
* A feature name alone is the hand's total (``hcp``, ``losers``, ``qt``); with a suit it is
  that suit's share (``hcp(S)``, ``control(H)``).  See :mod:`canary_infer.language.features`.
* ``define`` names (from the system files) expand in place; their parameters are suits.
* Numbers may be fractional (``1.5``, ``7.25``, ``1½``); comparisons are exact.
* ``->`` is implication, ``,`` is a synonym of ``and``.
* Suits compare by rank where a rule speaks of suit order: ``y above x``, ``y below x``,
  ``y is x``, ``y is not x`` (true or false once the suit variables are bound).

:func:`parse` turns text into an immutable AST of :class:`Node` objects with every suit
variable resolved, and :func:`evaluate` computes a node exactly on a concrete hand.

    >>> from canary_infer.bridge.cards import Hand
    >>> n = parse("hcp in 11..16 and S >= 4")
    >>> str(n)
    'hcp >= 11 and hcp <= 16 and len(S) >= 4'
    >>> evaluate(n, Hand.from_pbn("AKQ83.J2.K4.QT92")), evaluate(n, Hand.from_pbn("AKQ83.AJ2.K4.QT9"))
    (True, False)
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING

from canary_infer.bridge.cards import SUITS
from canary_infer.language.features import FEATURES

if TYPE_CHECKING:
    from lark import Tree

SUIT_SETS = {"suits": "SHDC", "majors": "SH", "minors": "DC"}


MAX_NUMBER = 1_000_000  # the largest number a constraint may write
MAX_TERM = 10**12  # the largest coefficient or constant of a comparison, once normalised (products)


class ConstraintError(ValueError):
    """A constraint that cannot be read or resolved; ``column`` is 1-based when known."""

    def __init__(self, message: str, column: int | None = None):
        super().__init__(message)
        self.column = column


GRAMMAR = r"""
?start: expr
?expr: quant | implies
quant: QUANT NAME ("in" suitset)? ":" expr
suitset: NAME ("," NAME)*
?implies: disj ("->" expr)?
?disj: conj ("or" conj)*
?conj: neg (("and" | ",") neg)*
?neg: "not" neg -> not_
    | comparison
?comparison: sum CMP sum -> cmp
    | NAME SUITREL NAME -> suit_rel
    | sum "in" sum ".." sum -> in_range
    | "pattern" PATTERN ("|" PATTERN)* -> pattern
    | "shape" SHAPE ("|" SHAPE)* -> shape
    | sum
?sum: product (ADDOP product)*
?product: atom ("*" atom)*
?atom: NUMBER -> number
    | "-" atom -> negative
    | NAME "(" [NAME ("," NAME)*] ")" -> call
    | NAME -> name
    | "true" -> true
    | "false" -> false
    | "(" expr ")"
QUANT.2: /(all|any)(?![A-Za-z_0-9])/
CMP: ">=" | "<=" | "==" | "!=" | ">" | "<" | "="
SUITREL.2: /(above|below|is\s+not|is)(?![A-Za-z_0-9])/
ADDOP: "+" | "-"
PATTERN: /[0-9x]{1,2}-[0-9x]{1,2}-[0-9x]{1,2}-[0-9x]{1,2}/
SHAPE: /[0-9]{4}/
NUMBER: /[0-9]+(\.[0-9]+)?[¼½¾]?|[¼½¾]/
NAME: /[A-Za-z_][A-Za-z_0-9]*/
%import common.WS
%ignore WS
"""

Token = None  # lark's Token class, once a constraint has been parsed (see _parser)


@lru_cache(maxsize=1)
def _parser():
    """The parser, built on the first constraint read: a process that finds every constraint
    it needs already parsed (a kept system, see :mod:`canary_infer.system.cache`) never imports lark."""
    global Token
    from lark import Lark
    from lark import Token as token

    Token = token
    return Lark(GRAMMAR, parser="lalr", maybe_placeholders=False, cache=True)


# --------------------------------------------------------------------------- the AST
class Node:
    """Base of the AST.  Nodes are immutable and hashable, so they can key caches."""

    def __getstate__(self):
        # a cached hash (see _cached_hash) is not carried to another process, whose string
        # hashes differ
        state = dict(self.__dict__)
        state.pop("_h", None)
        return state

    def children(self) -> tuple[Node, ...]:
        return ()


def _cached_hash(self) -> int:
    """A compound node's hash, computed once: caches are keyed by whole formulas, and hashing
    one walked every node (and every Fraction) below it each time."""
    h = self.__dict__.get("_h")
    if h is None:
        h = hash((type(self).__name__,) + tuple(v for k, v in self.__dict__.items() if k != "_h"))
        object.__setattr__(self, "_h", h)
    return h


@dataclass(frozen=True)
class Feat(Node):
    """A feature: ``name`` from FEATURES, ``suit`` None for the hand total."""

    name: str
    suit: str | None = None

    def __str__(self):
        return f"{self.name}({self.suit})" if self.suit else self.name


@dataclass(frozen=True)
class Cmp(Node):
    """``sum(coef * feat) + const  op  0`` with op one of >= <= == !=; all exact."""
    __hash__ = _cached_hash


    terms: tuple[tuple[Fraction, Feat], ...]
    const: Fraction
    op: str

    def __str__(self):
        if len(self.terms) == 1:
            (c, f), = self.terms
            scale = FEATURES[f.name].scale
            op = self.op if c > 0 else {">=": "<=", "<=": ">="}.get(self.op, self.op)
            value = -self.const / c / scale
            if FEATURES[f.name].boolean and f.suit and value == 1 and op == ">=":
                return str(f)
            return f"{f} {op} {_num(value)}"
        parts = []
        for i, (c, f) in enumerate(self.terms):
            real = c * FEATURES[f.name].scale  # coefficient of the feature in its own unit
            mag = abs(real)
            term = str(f) if mag == 1 else f"{_num(mag)}*{f}"
            parts.append(term if i == 0 and real > 0 else (f"-{term}" if i == 0 else
                                                             (f"+ {term}" if real > 0 else f"- {term}")))
        return f"{' '.join(parts)} {self.op} {_num(-self.const)}"


@dataclass(frozen=True)
class And(Node):
    __hash__ = _cached_hash

    items: tuple[Node, ...]

    def children(self):
        return self.items

    def __str__(self):
        return " and ".join(_wrap(i, (Or,)) for i in self.items) if self.items else "true"


@dataclass(frozen=True)
class Or(Node):
    __hash__ = _cached_hash

    items: tuple[Node, ...]

    def children(self):
        return self.items

    def __str__(self):
        return " or ".join(_wrap(i, (And,)) for i in self.items) if self.items else "false"


@dataclass(frozen=True)
class Not(Node):
    __hash__ = _cached_hash

    item: Node

    def children(self):
        return (self.item,)

    def __str__(self):
        return f"not {_wrap(self.item, (And, Or))}"


@dataclass(frozen=True)
class Pattern(Node):
    """Exact suit lengths S-H-D-C, ``None`` for "any" (written x)."""

    patterns: tuple[tuple[int | None, ...], ...]

    def __str__(self):
        return "pattern " + " | ".join(
            "-".join("x" if n is None else str(n) for n in p) for p in self.patterns
        )


@dataclass(frozen=True)
class Shape(Node):
    """Suit lengths in any order, e.g. 4333 = some 4-3-3-3."""

    shapes: tuple[tuple[int, ...], ...]

    def __str__(self):
        return "shape " + " | ".join("".join(map(str, s)) for s in self.shapes)


TRUE = And(())
FALSE = Or(())


def _num(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else str(float(x))


def _wrap(n: Node, kinds) -> str:
    return f"({n})" if isinstance(n, kinds) and len(n.children()) > 1 else str(n)


def conj(items) -> Node:
    flat = []
    for i in items:
        if isinstance(i, And):
            flat.extend(i.items)
        elif i == FALSE:
            return FALSE
        else:
            flat.append(i)
    return flat[0] if len(flat) == 1 else And(tuple(flat))


def disj(items) -> Node:
    flat = []
    for i in items:
        if isinstance(i, Or):
            flat.extend(i.items)
        elif i == TRUE:
            return TRUE
        else:
            flat.append(i)
    return flat[0] if len(flat) == 1 else Or(tuple(flat))


def negate(n: Node) -> Node:
    if isinstance(n, Not):
        return n.item
    if n == TRUE:
        return FALSE
    if n == FALSE:
        return TRUE
    return Not(n)


def feats(n: Node) -> set[Feat]:
    """Every feature a formula looks at."""
    if isinstance(n, Cmp):
        return {f for _, f in n.terms}
    if isinstance(n, (Pattern, Shape)):
        return {Feat("len", s) for s in SUITS}
    out: set[Feat] = set()
    for c in n.children():
        out |= feats(c)
    return out


def lengths_only(n: Node) -> bool:
    """Whether a formula looks at suit lengths only (a relay answer's shape, say)."""
    return all(f.name == "len" and f.suit is not None for f in feats(n))


def hcp_only(n: Node) -> bool:
    """Whether a formula looks at the hand's HCP total only."""
    return all(f.name == "hcp" and f.suit is None for f in feats(n))


# --------------------------------------------------------------------------- building
class Definition:
    """A named formula from a system file (``define name(x, y) = ...``); its parse tree is read
    from the text when first used (and is not part of a pickled definition)."""

    __slots__ = ("name", "params", "text", "_tree", "_built")

    def __init__(self, name: str, params: tuple[str, ...], tree: Tree | None, text: str):
        self.name, self.params, self.text, self._tree = name, tuple(params), text, tree
        # per binding of its suits: (the definitions it was read with, its formula, the work it took)
        self._built: dict[tuple, tuple[dict, Node, int]] = {}

    @property
    def tree(self) -> Tree:
        if self._tree is None:
            self._tree = parse_tree(self.text)
        return self._tree

    def __eq__(self, other) -> bool:
        return isinstance(other, Definition) and (self.name, self.params, self.text) == \
            (other.name, other.params, other.text)

    def __hash__(self) -> int:
        return hash((self.name, self.params, self.text))

    def __repr__(self) -> str:
        return f"Definition({self.name!r}, {self.params!r}, {self.text!r})"

    def __reduce__(self):
        return Definition, (self.name, self.params, None, self.text)


class _Lin:
    """A linear expression during building: {Feat: coef} + const."""

    def __init__(self, terms=None, const=Fraction(0)):
        self.terms: dict[Feat, Fraction] = dict(terms or {})
        self.const = Fraction(const)

    def add(self, other: _Lin, sign: int = 1) -> _Lin:
        out = _Lin(self.terms, self.const + sign * other.const)
        for f, c in other.terms.items():
            out.terms[f] = out.terms.get(f, Fraction(0)) + sign * c
        return out

    def scale(self, k: Fraction) -> _Lin:
        return _Lin({f: c * k for f, c in self.terms.items()}, self.const * k)


def _number(tok: str) -> Fraction:
    frac = {"¼": Fraction(1, 4), "½": Fraction(1, 2), "¾": Fraction(3, 4)}
    extra = Fraction(0)
    if tok and tok[-1] in frac:
        extra, tok = frac[tok[-1]], tok[:-1]
    return (Fraction(tok) if tok else Fraction(0)) + extra


def _scale_of(f: Feat) -> int:
    return FEATURES[f.name].scale


MAX_WORK = 20_000
"""Conditions and terms one constraint may expand to: the largest of the built-in system's
builds about 110; ``all x in suits:`` nested eight times would build 4^8 = 65,536 (and took 23 s
and 345 MB before this bound), a definition used twice in the next, 18 deep, 2^18."""


class Builder:
    """Turns parse trees into AST nodes, resolving names against definitions and suit bindings."""

    def __init__(self, definitions: dict[str, Definition] | None = None):
        self.definitions = definitions if definitions is not None else {}
        self._work = 0  # conditions and terms built for the constraint at hand (see MAX_WORK)

    # public
    def build(self, tree: Tree, env: dict[str, str] | None = None) -> Node:
        self._work = 0
        try:
            return self._bool(tree, dict(env or {}), ())
        except RecursionError:
            raise ConstraintError(f"the constraint is nested too deeply (more than about "
                                  f"{sys.getrecursionlimit() // 4} levels): write it more simply") from None

    def _count(self) -> None:
        self._work += 1
        if self._work > MAX_WORK:
            raise ConstraintError(f"the constraint expands to more than {MAX_WORK:,} conditions (quantifiers or "
                                  "definitions nested in each other multiply): write it more simply")

    # helpers
    def _suit(self, tok, env) -> str:
        name = str(tok)
        if name in env:
            return env[name]
        if name in SUITS and len(name) == 1:
            return name
        raise ConstraintError(f"'{name}' is not a suit here (expected S, H, D, C or a suit variable)",
                              getattr(tok, "column", None))

    def _is_suit(self, name, env) -> bool:
        return name in env or (len(name) == 1 and name in SUITS)

    def _expand(self, d: Definition, args, env, stack, tok) -> Tree | Node:
        if d.name in stack:
            raise ConstraintError(f"definition '{d.name}' refers to itself", getattr(tok, "column", None))
        if len(args) != len(d.params):
            raise ConstraintError(
                f"'{d.name}' takes {len(d.params)} suit argument(s), got {len(args)}", getattr(tok, "column", None)
            )
        bound = {p: self._suit(a, env) for p, a in zip(d.params, args, strict=True)}
        return d.tree, bound, stack + (d.name,)

    def _defined(self, d: Definition, tree: Tree, bound: dict, stack) -> Node:
        """A definition's formula, built once per binding of its suits and shared after that, as the
        file shares it (a chain of definitions each using the one before is built in linear time);
        the work it took is counted again at every use, so what would explode is still refused."""
        key = tuple(sorted(bound.items()))
        hit = d._built.get(key)
        if hit is not None and hit[0] is self.definitions:
            self._work += hit[2] - 1
            self._count()
            return hit[1]
        before = self._work
        node = self._bool(tree, bound, stack)
        d._built[key] = (self.definitions, node, self._work - before)
        return node

    def _bool(self, t, env, stack) -> Node:
        self._count()
        if isinstance(t, Token):
            raise ConstraintError(f"'{t}' is a number, not a condition", getattr(t, "column", None))
        k = t.data
        if k == "quant":
            q, var, *rest = t.children
            suits = "SHDC"
            if len(rest) == 2:
                suits = self._suitset(rest[0], env)
            body = rest[-1]
            items = [self._bool(body, {**env, str(var): s}, stack) for s in suits]
            return conj(items) if str(q) == "all" else disj(items)
        if k == "implies":
            a, b = t.children
            return disj([negate(self._bool(a, env, stack)), self._bool(b, env, stack)])
        if k == "disj":
            return disj([self._bool(c, env, stack) for c in t.children])
        if k == "conj":
            return conj([self._bool(c, env, stack) for c in t.children])
        if k == "not_":
            return negate(self._bool(t.children[0], env, stack))
        if k == "true":
            return TRUE
        if k == "false":
            return FALSE
        if k == "cmp":
            a, op, b = t.children
            return self._cmp(self._lin(a, env, stack).add(self._lin(b, env, stack), -1), str(op))
        if k == "suit_rel":
            a, rel, b = t.children
            x, y = self._suit(a, env), self._suit(b, env)
            rel = " ".join(str(rel).split())
            order = "CDHS"
            truth = {"above": order.index(x) > order.index(y), "below": order.index(x) < order.index(y),
                     "is": x == y, "is not": x != y}[rel]
            return TRUE if truth else FALSE
        if k == "in_range":
            x, lo, hi = (self._lin(c, env, stack) for c in t.children)
            return conj([self._cmp(x.add(lo, -1), ">="), self._cmp(x.add(hi, -1), "<=")])
        if k == "pattern":
            pats = []
            for p in t.children:
                parts = str(p).split("-")
                if any(x != "x" and not (x.isascii() and x.isdigit() and len(x) <= 2) for x in parts):
                    raise ConstraintError(f"pattern {p}: each length is a number from 0 to 13, or x", p.column)
                pat = tuple(None if x == "x" else int(x) for x in parts)
                fixed = [n for n in pat if n is not None]
                if sum(fixed) > 13 or (None not in pat and sum(fixed) != 13):
                    raise ConstraintError(f"pattern {p} does not add up to 13 cards", p.column)
                pats.append(pat)
            return Pattern(tuple(pats))
        if k == "shape":
            shapes = []
            for s in t.children:
                digits = tuple(sorted((int(c) for c in str(s)), reverse=True))
                if sum(digits) != 13:
                    raise ConstraintError(f"shape {s} does not add up to 13 cards", s.column)
                shapes.append(digits)
            return Shape(tuple(shapes))
        if k in ("name", "call"):
            name = str(t.children[0])
            d = self.definitions.get(name)
            if d is not None:
                args = t.children[1:]
                tree, bound, st = self._expand(d, args, env, stack, t.children[0])
                return self._defined(d, tree, bound, st)
            if name in FEATURES and FEATURES[name].boolean:
                return self._cmp(self._lin(t, env, stack).add(_Lin(const=Fraction(1)), -1), ">=")
            if name not in FEATURES and not self._is_suit(name, env):
                kind = "function" if k == "call" else "name"
                raise ConstraintError(f"unknown {kind} '{name}'", getattr(t.children[0], "column", None))
            raise ConstraintError(f"'{name}' is a number here, not a condition; compare it with something",
                                  getattr(t.children[0], "column", None))
        raise ConstraintError(f"a number is used where a condition is expected ({k})")

    def _suitset(self, t: Tree, env) -> str:
        out = ""
        for tok in t.children:
            name = str(tok)
            out += SUIT_SETS[name] if name in SUIT_SETS else self._suit(tok, env)
        return out

    def number(self, tree: Tree, env: dict[str, str] | None = None) -> _Lin:
        """Resolve a numeric expression (a numeric definition's body)."""
        self._work = 0
        try:
            return self._lin(tree, dict(env or {}), ())
        except RecursionError:
            raise ConstraintError("the expression is nested too deeply: write it more simply") from None

    def _lin(self, t, env, stack) -> _Lin:
        self._count()
        if isinstance(t, Token):
            raise ConstraintError(f"unexpected '{t}'", t.column)
        k = t.data
        if k == "number":
            value = _number(str(t.children[0]))
            if value > MAX_NUMBER:  # no feature comes near; and the engine counts in 64-bit integers
                raise ConstraintError(f"the number {t.children[0]} is too large (at most {MAX_NUMBER:,})",
                                      getattr(t.children[0], "column", None))
            return _Lin(const=value)
        if k == "negative":
            return self._lin(t.children[0], env, stack).scale(Fraction(-1))
        if k == "sum":
            out = self._lin(t.children[0], env, stack)
            for op, term in zip(t.children[1::2], t.children[2::2], strict=True):
                out = out.add(self._lin(term, env, stack), 1 if str(op) == "+" else -1)
            return out
        if k == "product":
            parts = [self._lin(c, env, stack) for c in t.children]
            out = parts[0]
            for p in parts[1:]:
                if p.terms and out.terms:
                    raise ConstraintError("only a number may multiply a feature (the language is linear)")
                out = out.scale(p.const) if not p.terms else p.scale(out.const)
            return out
        if k == "name":
            tok = t.children[0]
            name = str(tok)
            if self._is_suit(name, env):
                return _Lin({Feat("len", self._suit(tok, env)): Fraction(1)})
            if name in FEATURES and not FEATURES[name].of_suit:
                return _Lin({Feat(name): Fraction(1, _scale_of(Feat(name)))})
            if name in FEATURES:
                raise ConstraintError(f"'{name}' needs a suit: {name}(S)", tok.column)
            d = self.definitions.get(name)
            if d is not None:
                tree, bound, st = self._expand(d, [], env, stack, tok)
                return self._lin(tree, bound, st)
            raise ConstraintError(f"unknown name '{name}'", tok.column)
        if k == "call":
            tok, *args = t.children
            name = str(tok)
            if name in FEATURES:
                if len(args) != 1:
                    raise ConstraintError(f"'{name}' takes one suit", tok.column)
                f = Feat(name, self._suit(args[0], env))
                return _Lin({f: Fraction(1, _scale_of(f))})
            d = self.definitions.get(name)
            if d is not None:
                tree, bound, st = self._expand(d, args, env, stack, tok)
                return self._lin(tree, bound, st)
            raise ConstraintError(f"unknown function '{name}'", tok.column)
        raise ConstraintError("a condition is used where a number is expected")

    def _cmp(self, lin: _Lin, op: str) -> Node:
        """Normalise ``lin op 0`` into integer units (losers in quarters, qt in halves)."""
        terms = {f: c for f, c in lin.terms.items() if c != 0}  # coefficients per unit
        const = lin.const
        if not terms:
            v = {"=": const == 0, "==": const == 0, "!=": const != 0, ">=": const >= 0,
                 "<=": const <= 0, ">": const > 0, "<": const < 0}[op]
            return TRUE if v else FALSE
        # bring everything to integers: multiply by the lcm of denominators
        den = 1
        for c in list(terms.values()) + [const]:
            den = den * c.denominator // _gcd(den, c.denominator)
        terms = {f: int(c * den) for f, c in terms.items()}
        const = Fraction(const * den)
        if op == ">":
            op, const = ">=", const - 1
        elif op == "<":
            op, const = "<=", const + 1
        elif op == "=":
            op = "=="
        # canonical form: coefficients without common factor, the first one positive
        ordered = sorted(terms.items(), key=lambda fc: (fc[0].name, fc[0].suit or ""))
        if ordered[0][1] < 0:
            ordered = [(f, -c) for f, c in ordered]
            const = -const
            op = {">=": "<=", "<=": ">="}.get(op, op)
        g = 0
        for _, c in ordered:
            g = _gcd(g, abs(c))
        k = const / g
        if op == ">=":  # sum >= -k  <=>  sum >= ceil(-k)
            k = Fraction(math.floor(k))
        elif op == "<=":  # sum <= -k  <=>  sum <= floor(-k)
            k = Fraction(math.ceil(k))
        elif k.denominator != 1:
            return FALSE if op == "==" else TRUE
        biggest = max(abs(k), *(abs(c // g) for _, c in ordered))
        if biggest > MAX_TERM:
            raise ConstraintError(f"the number {biggest} (after multiplying out) is too large to evaluate: "
                                  "keep numbers and their products small")
        return Cmp(tuple((Fraction(c // g), f) for f, c in ordered), k, op)


def _gcd(a: int, b: int) -> int:
    while b:
        a, b = b, a % b
    return a


@lru_cache(maxsize=4096)
def parse_tree(text: str) -> Tree:
    """Parse text into a lark tree (syntax only), raising ConstraintError with the column.
    The trees are only read, so one text's tree is shared."""
    from lark.exceptions import LarkError, UnexpectedInput

    parser = _parser()
    try:
        return parser.parse(text)
    except UnexpectedInput as e:
        col = getattr(e, "column", None)
        near = text[max(0, (col or 1) - 1):][:15]
        raise ConstraintError(f"cannot read the constraint at column {col} near '{near}'", col) from None
    except LarkError as e:
        raise ConstraintError(f"cannot read the constraint: {e}") from None


def parse(text: str, definitions: dict[str, Definition] | None = None,
          env: dict[str, str] | None = None) -> Node:
    """Parse and resolve a constraint."""
    return Builder(definitions).build(parse_tree(text), env)


# --------------------------------------------------------------------------- exact evaluation
def feature_value(f: Feat, hand) -> int:
    """A feature's value on a concrete hand, in its integer unit."""
    return FEATURES[f.name].value(hand, f.suit) if f.suit else sum(
        FEATURES[f.name].suit_value(hand, s) for s in SUITS
    )


def evaluate(n: Node, hand) -> bool:
    """Exact truth of a formula on a concrete hand."""
    if isinstance(n, And):
        return all(evaluate(i, hand) for i in n.items)
    if isinstance(n, Or):
        return any(evaluate(i, hand) for i in n.items)
    if isinstance(n, Not):
        return not evaluate(n.item, hand)
    if isinstance(n, Cmp):
        v = sum(c * feature_value(f, hand) for c, f in n.terms) + n.const
        return {">=": v >= 0, "<=": v <= 0, "==": v == 0, "!=": v != 0}[n.op]
    lengths = tuple(hand.length(s) for s in SUITS)
    if isinstance(n, Pattern):
        return any(all(p is None or p == x for p, x in zip(pat, lengths, strict=True)) for pat in n.patterns)
    if isinstance(n, Shape):
        return tuple(sorted(lengths, reverse=True)) in n.shapes
    raise TypeError(f"not a formula: {n!r}")
