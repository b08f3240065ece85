"""The system files: definitions, answer schedules, options and the call trees (second edition).

The format is described, with examples, in ``constraints/README.md``; its grammar is
``system.lark`` beside this module, the very text the parser (:mod:`canary_infer.system.parser`)
reads every line with.  A file is read into *rule nodes* (:class:`RuleNode`): calls as
written, which may be generic (``1x for x in D, H, S``, ``next y``, ``cheapest``, ``(*e for e
in suits)``).  The auction tree a program walks is made of :class:`CallNode` objects: one
concrete call each, built from the rule nodes as the tree is walked, with every suit variable
bound and every symbolic call resolved against the auction so far::

    >>> s = load_text('''
    ... tree opening
    ...   1x for x in D, H, S  "11-16 HCP, 4+ {x}"  [A32]
    ...       = hcp in 11..16 and x >= 4
    ...     cheapest  "relay"  [A425]  relay
    ... ''')
    >>> one_heart = s.root().children["1H"]
    >>> one_heart.meaning, str(one_heart.constraint())
    ('11-16 HCP, 4+ hearts', 'hcp >= 11 and hcp <= 16 and len(H) >= 4')
    >>> sorted(s.root().children), list(s.root().children["1S"].children)
    (['1D', '1H', '1S'], ['1N'])

A malformed file raises :class:`SystemFileError` naming the file, the line and the reason; the
loader walks every tree once when the files are read, so that a clash between two patterns, a
variable that is never bound or a ``same as`` that leads nowhere is reported at load time.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from canary_infer.bridge.auction import STRAINS, AuctionError, Call
from canary_infer.bridge.cards import SEATS, SUIT_NAMES
from canary_infer.language.expr import (
    FALSE,
    SUIT_SETS,
    TRUE,
    And,
    Builder,
    ConstraintError,
    Definition,
    Node,
    conj,
    disj,
    negate,
    parse,
    parse_tree,
)
from canary_infer.language.features import FEATURES
from canary_infer.system.parser import GRAMMAR as GRAMMAR  # the files' grammar, system.lark's text
from canary_infer.system.parser import SystemFileError, parse_line, parse_pattern, strip_comment

TREES = ("opening", "defence")
FLAGS = ("undefined", "extension", "relay", "forcing", "game-forcing", "final", "artificial")
SUIT_ORDER = "SHDC"

# --------------------------------------------------------------------------- call patterns
_VARS = {c for c in "ABEFGIJKLMOPQRTUVWXYZabcdefghijklmnopqrstuvwxyz"}
@dataclass(frozen=True)
class Pattern:
    """A call as written in a tree: concrete (``2N``, ``P``, ``(X)``) or symbolic.

    kinds: ``call`` (a concrete call), ``bid`` (a level and a strain that may be a variable;
    level 0 is any level, ``*e``), ``next`` (the cheapest bid in a strain: a raise, a
    preference, a new suit at the cheapest level), ``jump`` (one level above ``next``),
    ``cheapest`` (the cheapest bid of all), ``step`` (the k-th bid above the last one),
    ``other`` (every legal call that no other line at this point gives a meaning; ``(other)`` for
    the opponents).

    >>> str(Pattern.parse("1x")), str(Pattern.parse("(*e)")), str(Pattern.parse("jump y"))
    ('1x', '(*e)', 'jump y')
    >>> Pattern.parse("2N").concrete, Pattern.parse("2y").variables()
    (True, ('y',))
    """

    kind: str
    opp: bool = False
    call: str = ""
    level: int = 0
    strain: str = ""
    k: int = 0

    @classmethod
    def parse(cls, text: str) -> Pattern:
        """A pattern from its text, read with the files' grammar (ValueError if it is none)."""
        return cls.build(*parse_pattern(text))

    @classmethod
    def build(cls, opp: bool, kind: str, value) -> Pattern:
        """A pattern from what the grammar read: ``bid`` 1x, ``word`` P, ``next`` y, ``jump`` y, ``step`` 2."""
        if kind in ("bid", "next", "jump"):
            strain = value[-1]
            if strain not in STRAINS and strain not in _VARS:
                raise ValueError(f"'{strain}' in '{value}' is neither a strain nor a suit variable")
            if kind != "bid":
                return cls(kind, opp, strain=strain)
            if strain in STRAINS and value[0] != "*":
                return cls("call", opp, value)
            return cls("bid", opp, level=0 if value[0] == "*" else int(value[0]), strain=strain)
        if kind == "word" and value in ("cheapest", "other"):
            return cls(value, opp)
        if kind == "word":
            return cls("call", opp, str(Call.parse(value)))
        if not 1 <= value <= 34:
            raise ValueError(f"step {value} is not a step (1 to 34)")
        return cls("step", opp, k=value)

    @property
    def concrete(self) -> bool:
        return self.kind == "call"

    @property
    def fills(self) -> bool:
        """``other`` takes only what no other line at the point takes."""
        return self.kind == "other"

    def variables(self) -> tuple[str, ...]:
        return (self.strain,) if self.strain and self.strain not in STRAINS else ()

    def body(self) -> str:
        if self.kind == "call":
            return self.call
        if self.kind == "bid":
            return f"{self.level or '*'}{self.strain}"
        if self.kind in ("next", "jump"):
            return f"{self.kind} {self.strain}"
        if self.kind == "step":
            return f"step {self.k}"
        return self.kind

    def __str__(self) -> str:
        return f"({self.body()})" if self.opp else self.body()


# --------------------------------------------------------------------------- suit sets and guards
_SET_WORDS = ("suits", "majors", "minors", "new", "unbid", "ours")


def _check_set(items: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    """``D, H, S`` / ``majors - M`` / ``new`` as the grammar read them: ((op, item), ...)."""
    for _, tok in items:
        if tok not in _SET_WORDS and tok not in "SHDC" and tok not in _VARS:
            raise ValueError(f"'{tok}' is not a suit, a suit variable or a set of suits ({', '.join(_SET_WORDS)})")
    return items


def _set_text(items) -> str:
    out = ""
    for i, (op, tok) in enumerate(items):
        out += tok if i == 0 else (f", {tok}" if op == "," else f" - {tok}")
    return out


@dataclass(frozen=True)
class Binding:
    var: str
    items: tuple[tuple[str, str], ...]

    def __str__(self) -> str:
        return f"for {self.var} in {_set_text(self.items)}"


@dataclass(frozen=True)
class Test:
    """One test of a guard (``if ...`` on a call) or of a rule condition (``when ...:``)."""

    kind: str  # suit-eq/-ne/-in/-above/-below below-* passed relays option fit chair vul forcing partner-long
    arg: str = ""
    items: tuple = ()
    lo: int = 0
    hi: int = 0
    neg: bool = False

    def __str__(self) -> str:
        n = "not " if self.neg else ""
        if self.kind == "suit-in":
            return f"{self.arg} {n}in {_set_text(self.items)}"
        if self.kind == "relays":
            return f"relays {'off' if self.neg else 'on'}"
        if self.kind == "chair":
            return f"chair {self.lo}" if self.lo == self.hi else f"chair {self.lo}..{self.hi}"
        text = _TEST_TEXT.get(self.kind, "{n}{kind}")
        return text.format(n=n, kind=self.kind, arg=self.arg, lo=self.lo, item=self.items[0] if self.items else "")


_TEST_TEXT = {  # how the printer writes a test ({n} is "not " when negated)
    "suit-eq": "{arg} == {item}", "suit-ne": "{arg} != {item}", "suit-above": "{n}{arg} above {item}",
    "suit-below": "{n}{arg} below {item}", "option": "{n}option {arg}",
    "below-game": "{n}below game", "below-call": "{n}below {lo} {arg}", "below-game-in": "{n}below game in {arg}",
    "partner-long": "{n}partner long {arg}", "fit": "fit {arg}",
}


def _suit_or_var(v: str, p: str) -> str:
    if v not in "SHDC" and v not in _VARS:
        raise ValueError(f"'{p}': '{v}' is neither a suit nor a suit variable")
    return v


def _check_test(t: Test) -> None:
    """ValueError where a test the grammar read names something that is not a suit."""
    if t.kind == "chair" and t.lo > t.hi:
        raise ValueError(f"'{t}': chair {t.lo}..{t.hi} is empty")
    if t.kind in ("suit-eq", "suit-ne") and t.items[0] not in "SHDC":
        raise ValueError(f"'{t}': a suit variable is compared with a suit (S, H, D, C)")
    if t.kind in ("below-game-in", "below-call", "partner-long", "fit", "suit-above", "suit-below"):
        _suit_or_var(t.arg, str(t))
    if t.kind in ("suit-above", "suit-below"):
        _suit_or_var(t.items[0], str(t))
    if t.kind == "suit-in":
        _check_set(t.items)


# --------------------------------------------------------------------------- what the files say
@dataclass(frozen=True)
class RuleSpec:
    """One ``=`` (or ``covers``) line as written: a constraint, or a rule about other calls.

    kinds: ``formula``; ``denies`` (args: ``siblings``, ``cheaper`` or call patterns);
    ``maximum`` / ``minimum`` (args: the feature, relative to what the caller has shown);
    ``replaces`` (args: features whose earlier limits this call withdraws)."""

    kind: str
    text: str
    when: tuple[Test, ...] = ()
    args: tuple[str, ...] = ()
    wider: str = ""  # "STRICT unless WIDER": the files settle what the notes leave open
    why: str = ""
    src: str = ""
    line: int = field(default=0, compare=False)
    path: str = field(default="", compare=False)

    def __str__(self) -> str:
        w = f"when {' and '.join(map(str, self.when))}: " if self.when else ""
        tail = ""
        if self.wider:
            tail = f" unless {self.wider}" + (f"  {_quote(self.why)}" if self.why else "") + (
                f"  [{self.src}]" if self.src else "")
        return w + self.text + tail


@dataclass
class RuleNode:
    """A call line of a tree (or a step of a schedule) with everything indented under it."""

    pattern: Pattern | None
    bindings: tuple[Binding, ...] = ()
    guard: tuple[Test, ...] = ()
    meaning: str = ""
    source: str = ""
    flags: tuple[str, ...] = ()
    trump: str | None = None
    relays: str | None = None  # "off": relays are off from this call on
    rules: list[RuleSpec] = field(default_factory=list)
    covers: list[RuleSpec] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    interpretations: list[str] = field(default_factory=list)
    priorities: list[tuple[tuple[Pattern, ...], str, str]] = field(default_factory=list)  # order, why, source
    same_as: tuple[Pattern, ...] | None = None
    answers: tuple[str, tuple[str, ...], bool] | None = None  # schedule, args, from first non-trump step
    examples: list[tuple[str, int]] = field(default_factory=list)
    inherit: bool = False
    includes: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)  # blocks whose calls follow too
    children: list[RuleNode] = field(default_factory=list)
    step: int = 0  # a schedule's step
    line: int = field(default=0, compare=False)
    path: str = field(default="", compare=False)

    @property
    def status(self) -> str:
        return "undefined" if "undefined" in self.flags else "extension" if "extension" in self.flags else "defined"

    def head(self) -> str:
        """The call line as the printer writes it."""
        parts = [str(self.pattern) if self.step == 0 else f"step {self.step}"]
        parts += [str(b) for b in self.bindings]
        if self.guard:
            parts.append("if " + " and ".join(map(str, self.guard)))
        if self.meaning:
            parts.append(_quote(self.meaning))
        if self.source:
            parts.append(f"[{self.source}]")
        parts += list(self.flags)
        if self.trump:
            parts.append(f"trump {self.trump}")
        if self.relays:
            parts.append(f"relays {self.relays}")
        return "  ".join(parts)


@dataclass
class Schedule:
    """Answers defined once: step k is the k-th bid above the asking call."""

    name: str
    params: tuple[str, ...]
    meaning: str
    source: str
    steps: list[RuleNode] = field(default_factory=list)
    delete: list[tuple[tuple[int, ...], str, int]] = field(default_factory=list)  # steps, constraint, line
    notes: list[str] = field(default_factory=list)  # said of every step, shown with each
    interpretations: list[str] = field(default_factory=list)
    line: int = field(default=0, compare=False)
    path: str = field(default="", compare=False)


@dataclass
class Block:
    """Calls written once and included wherever the notes' rule applies (``include NAME(args)``);
    the lines written at the point itself take precedence over the block's."""

    name: str
    params: tuple[str, ...]
    meaning: str
    source: str
    body: RuleNode
    line: int = field(default=0, compare=False)
    path: str = field(default="", compare=False)


@dataclass
class DefinitionInfo:
    text: str
    params: tuple[str, ...]
    notes: list[str] = field(default_factory=list)
    interpretations: list[str] = field(default_factory=list)
    line: int = field(default=0, compare=False)
    path: str = field(default="", compare=False)


def _quote(s: str) -> str:
    return '"' + s + '"'


# --------------------------------------------------------------------------- bound rules
@dataclass
class Rule:
    """A rule bound to one concrete call: ``formula`` is resolved (None for rules about other
    calls, ``denies`` and the relative ones).  ``when`` keeps the old tuple form for chairs."""

    text: str
    when: tuple | None
    formula: Node | None
    line: int
    path: str
    kind: str = "formula"
    args: tuple[str, ...] = ()
    tests: tuple[Test, ...] = ()
    strict: Node | None = None  # the formula without what an 'unless' settles
    settles: str = ""  # why, with the source

    def applies(self, ctx: dict, node: CallNode | None = None) -> bool:
        return all(_ctx_test(t, ctx, node) for t in self.tests)


def _ctx_test(t: Test, ctx: dict, node) -> bool:
    if t.kind == "chair":
        chair = ctx.get("chair") or (node.chair if node is not None else 0)
        return t.lo <= chair <= t.hi
    if t.kind == "vul":
        v = ctx.get("vul")
        return v is not None and bool(v) != t.neg  # unknown: the rule adds nothing
    if t.kind == "forcing":
        v = node.forced if node is not None else False
        return v != t.neg
    if t.kind == "partner-long":  # unknown (no inference at hand): not long, the wider reading
        return (t.arg in (ctx.get("partner_long") or ())) != t.neg
    raise AssertionError(t.kind)


# --------------------------------------------------------------------------- the concrete tree
class _Part:
    """One rule node as it applies at a concrete call, with the suit variables bound there."""

    __slots__ = ("rule", "env")

    def __init__(self, rule: RuleNode, env: dict):
        self.rule, self.env = rule, env


class CallNode:
    """One concrete call of the auction tree: its meaning in words, its constraints, its children.

    Made by the system as the tree is walked (``node.children`` is computed on first use);
    ``constraint(ctx)`` is what the call says about the caller's hand."""

    def __init__(self, system: System, tree: str, call: str, parent: CallNode | None, parts: list[_Part],
                 seq: tuple[tuple[str, str], ...], lead: int):
        self.system, self.tree, self.call, self.parent = system, tree, call, parent
        self.parts = parts
        self.seq = seq  # the calls from the first bid on, with the implicit passes: (call, "us"|"them")
        self.lead = lead  # passes before the first bid
        self._children: dict[str, CallNode] | None = None
        self._memo: dict = {}
        self.applied_key: tuple | None = None  # set on the first call of a block attached by 'apply'
        self.in_applied = False
        # where the line's 'if fit T' fails at a point (read by the inference: see ``conditions``),
        # what the other lines there give the call (None: no meaning)
        self.fallback: CallNode | None = None
        main = next((p for p in parts if p.rule.meaning or p.rule.rules), parts[0] if parts else None)
        self._main = main
        self.env: dict[str, str] = dict(main.env) if main else {}

    # ------------------------------------------------------------------ what the files say
    @property
    def rule(self) -> RuleNode | None:
        return self._main.rule if self._main else None

    @property
    def meaning(self) -> str:
        text = self.bare_meaning
        if text and self.rule.guard and self.conditions:
            text += "; " + " and ".join(condition_text(t) for t in self.conditions)
        return text

    @property
    def bare_meaning(self) -> str:
        """The meaning as the line writes it, without the conditions that :attr:`meaning` adds."""
        return _fill(self.rule.meaning, self.env) if self.rule else ""

    @property
    def conditions(self) -> tuple[Test, ...]:
        """The tests of this call's line that only the inference can read, with its suit variables
        bound: ``fit T`` (our side's calls before this one guarantee 8+ cards in T).  The tree (a
        walk of check-system, export) keeps the call; inference and the bidder read it here only
        where they hold (``read_auction``'s ``admit``), and otherwise read ``fallback``."""
        if not self.rule or not self.rule.guard:
            return ()
        return tuple(replace(t, arg=self.env.get(t.arg, t.arg)) for t in self.rule.guard if t.kind == "fit")

    @property
    def source(self) -> str:
        """The line's own source; a schedule's step without one takes the schedule's."""
        own = [p.rule.source for p in self.parts if p.rule.source and not p.rule.step]
        steps = [p.rule.source or self.system.schedules[p.rule.schedule].source for p in self.parts
                 if p.rule.step and getattr(p.rule, "schedule", None) in self.system.schedules]
        return next((x for x in own + steps if x), "")

    @property
    def status(self) -> str:
        if self.rule is None:
            return "defined"
        st = self.rule.status
        if st == "extension" and self.system.extensions:
            return "defined"
        return st

    @property
    def defined(self) -> bool:
        return self.status == "defined" and bool(self.meaning)

    @property
    def path(self) -> str:
        return self.rule.path if self.rule else ""

    @property
    def line(self) -> int:
        return self.rule.line if self.rule else 0

    @property
    def declared(self) -> bool:
        return bool(self.parts)

    @property
    def flags(self) -> set[str]:
        return {f for p in self.parts for f in p.rule.flags}

    @property
    def relay(self) -> bool:
        return "relay" in self.flags

    @property
    def is_relay(self) -> bool:
        """A relay: the partner describes his hand in answer (flag ``relay`` or meaning "relay...")."""
        return self.relay or (self.defined and self.meaning.lower().startswith("relay"))

    @property
    def forcing(self) -> bool:
        return bool({"forcing", "game-forcing", "relay"} & self.flags)

    @property
    def is_opponents(self) -> bool:
        return self.call.startswith("(")

    @property
    def interpretation(self) -> str:
        return " ".join(self.interpretations())

    def interpretations(self) -> list[str]:
        """The call's own interpretations, then those of the definitions its constraints use."""
        out = [i for p in self.parts for i in p.rule.interpretations]
        for sch in self._schedules():
            out += [i for i in sch.interpretations if i not in out]
        for name in self._definitions_used():
            for i in self.system.definition_info[name].interpretations:
                out.append(f"({name}) {i}")
        return out

    def _definitions_used(self) -> list[str]:
        texts = [r.text for p in self.parts for r in p.rule.rules + p.rule.covers]
        seen: list[str] = []
        todo = [w for t in texts for w in re.findall(r"[A-Za-z_]\w*", t)]
        while todo:
            w = todo.pop(0)
            info = self.system.definition_info.get(w)
            if info is None or w in seen:
                continue
            seen.append(w)
            todo += re.findall(r"[A-Za-z_]\w*", info.text)
        return seen

    @property
    def notes(self) -> list[str]:
        own = [n for p in self.parts for n in p.rule.notes]
        return own + [n for sch in self._schedules() for n in sch.notes if n not in own]

    def _schedules(self) -> list[Schedule]:
        """The schedules whose steps this call is (their notes and interpretations are its own)."""
        names = dict.fromkeys(getattr(p.rule, "schedule", None) for p in self.parts)
        return [self.system.schedules[n] for n in names if n in self.system.schedules]

    @property
    def examples(self) -> list[tuple[str, str, int]]:
        return [(pbn, p.rule.path, line) for p in self.parts for pbn, line in p.rule.examples]

    @property
    def trump(self) -> str | None:
        """The suit agreed as trumps after this call (set here or earlier in the auction)."""
        if "trump" not in self._memo:
            own = self.sets_trump
            self._memo["trump"] = own if own else (self.parent.trump if self.parent is not None else None)
        return self._memo["trump"]

    @property
    def sets_trump(self) -> str | None:
        for p in self.parts:
            if p.rule.trump:
                return p.env.get(p.rule.trump, p.rule.trump)
        return None

    @property
    def relays_on(self) -> bool:
        for p in self.parts:
            if p.rule.relays:  # relays off
                return False
        return self.parent.relays_on if self.parent is not None else True

    @property
    def forced(self) -> bool:
        """Whether the caller's partner's last call was forcing."""
        n = self.parent
        while n is not None and n.parent is not None and n.is_opponents:
            n = n.parent
        return bool(n is not None and n.parent is not None and n.forcing)

    @property
    def index(self) -> int:
        """The call's position counted from the first bid (0), implicit passes included."""
        return len(self.seq) - 1

    @property
    def chair(self) -> int:
        """The caller's chair: 1 is the dealer."""
        return (self.lead + self.index) % 4 + 1 if self.parent is not None else self.lead + 1

    @property
    def passed(self) -> bool:
        """Whether the caller passed before the first bid."""
        return self.parent is not None and self.chair <= self.lead

    def lineage(self) -> list[CallNode]:
        """The calls from the tree's root down to this one (the root itself left out)."""
        out, n = [], self
        while n is not None and n.parent is not None:
            out.append(n)
            n = n.parent
        return out[::-1]

    def auction(self) -> list[str]:
        return [n.call for n in self.lineage()]

    def __repr__(self) -> str:
        return f"CallNode({self.tree}: {' '.join(self.auction()) or '(root)'})"

    # ------------------------------------------------------------------ constraints
    @property
    def rules(self) -> list[Rule]:
        if "rules" not in self._memo:
            self._memo["rules"] = [self.system.bind_rule(r, p.env, self) for p in self.parts for r in p.rule.rules]
        return self._memo["rules"]

    def priority_lines(self):
        """The ``priority`` lines that order the calls after this one, with the variables they
        are read with: (order, why, source, env).  Those written at this call, then those at
        the top of the blocks it includes (a block's own order goes wherever it is included)."""
        for p in self.parts:
            for order, why, src in p.rule.priorities:
                yield order, why, src, p.env
            for blk, benv in self.system.included(p):
                for order, why, src in blk.body.priorities:
                    yield order, why, src, benv

    @property
    def priorities(self) -> list[tuple[tuple[str, str], str]]:
        """Orders the files give between calls after this one: ((better, worse), why)."""
        out = []
        for order, why, src, env in self.priority_lines():
            calls = [self.system.resolve_one(pt, env, self) for pt in order]
            text = (why or " before ".join(map(str, calls))) + (f" [{src}]" if src else "")
            for a, b in zip(calls, calls[1:], strict=False):
                if a and b:
                    out.append(((a, b), text))
        return out

    def domain(self, ctx: dict | None = None) -> Node | None:
        """The hands the calls at this point are meant to cover, if the files say so."""
        ctx = ctx or {}
        parts = []
        for p in self.parts:
            for r in p.rule.covers:
                b = self.system.bind_rule(r, p.env, self)
                if b.applies(ctx, self):
                    parts.append(b.formula)
        return conj(parts) if parts else None

    def constraint(self, ctx: dict | None = None, priorities: bool = True, settled: bool = True) -> Node:
        """The formula this call adds to the caller's hand (chair and the rest from the tree unless
        ``ctx`` says otherwise; ``ctx["shown"]`` gives the ranges the caller has shown, for
        ``maximum``/``minimum``).  ``priorities=False`` leaves out what the files' ``priority``
        lines add (check-system reports such overlaps, marked with the rule); ``settled=False``
        leaves out what ``unless`` clauses add (the gaps they settle stay visible)."""
        return conj(self.constraint_parts(ctx, priorities, settled))

    @property
    def settles(self) -> list[str]:
        """Why this call's 'unless' clauses take hands the notes' words leave to no call."""
        return [r.settles for r in self.rules if r.settles]

    def constraint_parts(self, ctx: dict | None = None, priorities: bool = True, settled: bool = True) -> list[Node]:
        ctx = ctx or {}
        key = (_ctx_key(ctx), priorities, settled)
        hit = self._memo.get(key)
        if hit is None:
            if self._memo.get(("busy",) + key):
                raise SystemFileError(self.path, self.line, f"{' '.join(self.auction())}: the calls' 'denies' and "
                                                            "'priority' lines go round in a circle")
            self._memo[("busy",) + key] = True
            try:
                hit = self._memo[key] = self._constraint_parts(ctx, priorities, settled)
            finally:
                del self._memo[("busy",) + key]
        return hit

    def _constraint_parts(self, ctx: dict, priorities: bool, settled: bool = True) -> list[Node]:
        parts: list[Node] = []
        sibs = self.parent.children if self.parent is not None else {}
        for r in self.rules:
            if not r.applies(ctx, self):
                continue
            if r.kind == "formula":  # line by line, and a line's 'and' item by item ('replaces' drops items)
                f = r.formula if settled else r.strict
                parts.extend(f.items if isinstance(f, And) else [f])
            elif r.kind == "denies":
                denied = []
                for a in r.args:
                    if a == "siblings":
                        denied += [c for k, c in sibs.items() if c is not self and c.defined and not c.is_opponents]
                    elif a == "cheaper":
                        me = Call.parse(self.call.strip("()"))
                        denied += [c for c in sibs.values() if c is not self and c.defined and not c.is_opponents
                                   and _cheaper(c.call, me)]
                    else:
                        call = self.system.resolve_one(a, self._main.env, self.parent)
                        if call in sibs and sibs[call].defined:
                            denied.append(sibs[call])
                if denied:
                    parts.append(negate(disj([c.constraint(ctx, priorities, settled) for c in denied])))
            elif r.kind in ("maximum", "minimum"):
                feat = "hcp"
                shown = (ctx.get("shown") or {}).get(feat)
                if shown:
                    lo, hi = shown
                    mid = lo + (hi - lo + 1) // 2
                    f = parse(f"{feat} >= {mid}" if r.kind == "maximum" else f"{feat} <= {mid - 1}")
                    parts.append(f if lo < hi else TRUE)
        if priorities and self.parent is not None:
            for (better, worse), _ in self.parent.priorities:
                if worse == self.call and better in sibs and sibs[better].defined:
                    parts.append(negate(sibs[better].constraint(ctx, priorities, settled)))
        return [p for p in parts if p != TRUE]

    @property
    def relative(self) -> tuple[str, ...]:
        """The features this call reads relative to what the caller has shown (maximum/minimum)."""
        return tuple("hcp" for r in self.rules if r.kind in ("maximum", "minimum"))

    @property
    def asks(self) -> bool:
        """Whether partner must answer this call: a relay, a call a schedule answers, or one the
        same as those (so his answers must cover every hand)."""
        return self.system._asks(self, ())

    @property
    def reads_partner(self) -> bool:
        """Whether a rule of this call asks what partner has shown ('when partner long X')."""
        return any(t.kind == "partner-long" for r in self.rules for t in r.tests)

    @property
    def replaces(self) -> tuple[str, ...]:
        return tuple(a for r in self.rules if r.kind == "replaces" for a in r.args)

    # ------------------------------------------------------------------ children
    @property
    def children(self) -> dict[str, CallNode]:
        if self._children is None:
            self._children = {}
            self._children = self.system.expand(self)
        return self._children


FIT = 8  # 'an at least 8 card ... fit' [B64]: what 'fit T' asks of our side's guaranteed lengths


def condition_text(t: Test) -> str:
    """A condition of :attr:`CallNode.conditions` in words, as the meaning shows it."""
    if t.kind == "fit":
        return f"only where the calls before it guarantee an {FIT}+ card fit in {SUIT_NAMES.get(t.arg, t.arg)}"
    return str(t)


def _cheaper(call: str, than: Call) -> bool:
    c = Call.parse(call.strip("()"))
    if than.rank is None:
        return False
    return c.rank is not None and c.rank < than.rank


def _fill(text: str, env: dict) -> str:
    """``{x}`` in a meaning becomes the suit's name (``{x:letter}`` its letter)."""
    if "{" not in text:
        return text

    def sub(m):
        name, fmt = m.group(1), m.group(2)
        s = env.get(name)
        if s is None:
            return m.group(0)
        return s if fmt == "letter" else SUIT_NAMES.get(s, "notrump" if s == "N" else s)
    return re.sub(r"\{([A-Za-z_]\w*)(?::(\w+))?\}", sub, text)


# --------------------------------------------------------------------------- the system
class System:
    """The loaded system: definitions, schedules, options, and the rule trees ``opening``
    (our calls when our side opens) and ``defence`` (our calls when they open)."""

    def __init__(self):
        self.definitions: dict[str, Definition] = {}
        self.definition_info: dict[str, DefinitionInfo] = {}
        self.schedules: dict[str, Schedule] = {}
        self.blocks: dict[str, Block] = {}
        self.applies: list[tuple[str, int, str]] = []  # block, line, path
        self.applies_last: list[tuple[str, int, str]] = []  # the same, bound to the last suit bid
        self.options: dict[str, str] = {}
        self.trees: dict[str, RuleNode] = {}
        self.files: list[str] = []
        self.extensions = False
        self.uses_passed = False  # some line reads whether a player passed before the first bid
        self.options_on: set[str] = set()
        self.oracle = None  # possible(formulas) -> bool, set by the inference layer (deleted steps)
        self._roots: dict[tuple[str, int], CallNode] = {}
        self._formulas: dict = {}
        self._kept_formulas: dict = {}  # pickled formulas of a kept system, read when first asked for

    def __getstate__(self):
        """Pickled with its formulas one by one, so that a process reading a kept system (see
        :mod:`canary_infer.system.cache`) unpickles only the few its auctions use."""
        import pickle

        state = dict(self.__dict__)
        kept = dict(self._kept_formulas)
        kept.update((k, pickle.dumps(v, pickle.HIGHEST_PROTOCOL)) for k, v in self._formulas.items())
        state["_formulas"], state["_kept_formulas"] = {}, kept
        state["_roots"], state["oracle"] = {}, None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)

    # ------------------------------------------------------------------ comparing and copying
    def canonical(self):
        """Everything the files say, without line numbers: equal for equal systems."""
        return ({k: (v.text, v.params, tuple(v.notes), tuple(v.interpretations)) for k, v in
                 self.definition_info.items()},
                {k: (v.params, v.meaning, v.source, [_canon(s) for s in v.steps],
                     [(n, t) for n, t, _ in v.delete]) for k, v in
                 self.schedules.items()},
                dict(self.options), {k: _canon(v) for k, v in self.trees.items()},
                {k: (v.params, v.meaning, v.source, _canon(v.body)) for k, v in self.blocks.items()},
                [b for b, _, _ in self.applies], [b for b, _, _ in self.applies_last])

    def __eq__(self, other) -> bool:
        return isinstance(other, System) and self.canonical() == other.canonical()

    __hash__ = None

    def configure(self, *, extensions: bool | None = None, options: set[str] | None = None) -> System:
        """Turn on the calls marked ``extension`` and the named options (new trees are made)."""
        if extensions is not None:
            self.extensions = extensions
        if options is not None:
            unknown = set(options) - set(self.options)
            if unknown:
                raise ValueError(f"no option named {', '.join(sorted(unknown))} (the files define: "
                                 f"{', '.join(sorted(self.options)) or 'none'})")
            self.options_on = set(options)
        self._roots.clear()
        return self

    # ------------------------------------------------------------------ the concrete tree
    def root(self, name: str = "opening", lead: int = 0) -> CallNode:
        """The root of a tree; ``lead`` is how many passes came before the first bid."""
        key = (name, lead)
        if key not in self._roots:
            rule = self.trees.get(name)
            if rule is None:
                rule = RuleNode(None)
            self._roots[key] = CallNode(self, name, name, None, [_Part(rule, {})], (), lead)
        return self._roots[key]

    @property
    def roots(self) -> dict[str, CallNode]:
        return {name: self.root(name) for name in self.trees}

    def nodes(self, lead: int = 0, limit: int | None = None, every_applied: bool = False):
        """Every call node of every tree, depth first (the trees as seen with ``lead`` passes first).

        A block attached by ``apply`` (key-card asks after every agreed suit) stands at thousands
        of points with the same calls below: it is walked below its first call once per block,
        trump suit and call (``every_applied`` walks it everywhere)."""
        stack = [self.root(t, lead) for t in self.trees]
        n_out = 0
        seen: set = set()
        while stack:
            n = stack.pop()
            yield n
            n_out += 1
            if limit is not None and n_out >= limit:
                return
            if n.applied_key is not None and not every_applied:
                if n.applied_key in seen:
                    continue
                seen.add(n.applied_key)
            stack.extend(reversed(list(n.children.values())))

    def bind_rule(self, r: RuleSpec, env: dict, node: CallNode | None) -> Rule:
        when = None
        for t in r.when:
            if t.kind == "chair":
                when = ("chair", t.lo, t.hi)
        formula = strict = None
        settles = ""
        if r.kind == "formula":
            formula = strict = self.formula(r.text, env, node, r)
            if r.wider:
                formula = disj([strict, self.formula(r.wider, env, node, r)])
                settles = (r.why or f"unless {r.wider}") + (f" [{r.src}]" if r.src else "")
        tests = tuple(replace(t, arg=env.get(t.arg, t.arg)) if t.kind == "partner-long" else t for t in r.when)
        return Rule(str(r) if (r.when or r.wider) else r.text, when, formula, r.line, r.path, r.kind, r.args,
                    tests, strict, settles)

    def formula(self, text: str, env: dict, node: CallNode | None, r=None) -> Node:
        full = dict(env)
        if node is not None and node.trump and "trump" not in full:
            full["trump"] = node.trump
        key = (text, tuple(sorted(full.items())))
        hit = self._formulas.get(key)
        if hit is None and key in self._kept_formulas:
            import pickle

            hit = self._formulas[key] = pickle.loads(self._kept_formulas.pop(key))  # noqa: S301 - see __getstate__
        if hit is None:
            try:
                hit = self._formulas[key] = parse(text, self.definitions, full)
            except ConstraintError as e:
                where = f" at {' '.join(node.auction())}" if node is not None and node.parent is not None else ""
                raise SystemFileError(r.path if r else "", r.line if r else 0, f"{e}{where}") from None
        return hit

    # ------------------------------------------------------------------ resolving calls
    def suit_set(self, items, env: dict, node: CallNode) -> list[str]:
        out: list[str] = []
        for op, tok in items:
            if tok in SUIT_SETS:
                got = list(SUIT_SETS[tok])
            elif tok in ("new", "unbid", "ours"):
                ours = {c[1] for c, side in node.seq if side == "us" and len(c) == 2 and c[1] in "SHDC"}
                theirs = {c[1] for c, side in node.seq if side == "them" and len(c) == 2 and c[1] in "SHDC"}
                got = [s for s in SUIT_ORDER if (
                    s not in ours if tok == "new" else s not in ours | theirs if tok == "unbid"
                    else s in ours)]
            elif tok in env:
                got = [env[tok]]
            elif tok in "SHDC":
                got = [tok]
            else:
                raise KeyError(tok)
            if op == "-":
                out = [s for s in out if s not in got]
            else:
                out += [s for s in got if s not in out]
        return out

    def _guard(self, tests, env, node: CallNode) -> bool:
        for t in tests:
            if t.kind == "suit-eq":
                ok = env.get(t.arg) == t.items[0]
            elif t.kind == "suit-ne":
                ok = env.get(t.arg) != t.items[0]
            elif t.kind == "suit-in":
                ok = (env.get(t.arg) in self.suit_set(t.items, env, node)) != t.neg
            elif t.kind in ("suit-above", "suit-below"):  # by rank: S above H above D above C
                a, b = env.get(t.arg, t.arg), env.get(t.items[0], t.items[0])
                ia, ib = SUIT_ORDER.find(a), SUIT_ORDER.find(b)
                ok = (ia >= 0 and ib >= 0 and (ia < ib if t.kind == "suit-above" else ia > ib)) != t.neg
            elif t.kind == "passed":
                # the caller of the call being resolved: the next one of our side after ``node``
                ok = _next_caller_passed(node) != t.neg
            elif t.kind == "relays":
                ok = node.relays_on != t.neg
            elif t.kind == "option":
                ok = (t.arg in self.options_on) != t.neg
            elif t.kind in ("below-game", "below-call", "below-game-in"):
                continue  # a test of the call itself: see _call_guard
            elif t.kind == "fit":
                continue  # read where the inference is at hand: see CallNode.conditions
            else:
                raise AssertionError(t.kind)
            if not ok:
                return False
        return True

    def resolve(self, pat: Pattern, env: dict, node: CallNode) -> list[str]:
        """The concrete calls a pattern stands for after ``node`` (legal ones only)."""
        ctx = _Legal.of(node, pat.opp)
        strain = env.get(pat.strain, pat.strain) if pat.strain else ""
        if strain and strain not in STRAINS:
            return []
        if pat.kind == "call":
            cands = [pat.call]
        elif pat.kind == "bid":
            cands = [f"{lv}{strain}" for lv in ([pat.level] if pat.level else range(1, 8))]
        elif pat.kind in ("next", "jump"):
            r = ctx.next_rank(strain)
            if r is None:
                return []
            if pat.kind == "jump":
                r += 5
            cands = [str(Call.from_rank(r))] if r < 35 else []
        elif pat.kind == "cheapest":
            cands = [str(Call.from_rank(ctx.last + 1))] if ctx.last + 1 < 35 else []
        elif pat.kind == "step":
            cands = [str(Call.from_rank(ctx.last + pat.k))] if ctx.last + pat.k < 35 else []
        else:  # other: every legal call but a pass
            cands = ["X", "XX"] + [str(Call.from_rank(r)) for r in range(ctx.last + 1, 35)]
        out = [c for c in cands if ctx.legal(c)]
        return [f"({c})" for c in out] if pat.opp else out

    def resolve_one(self, pat: Pattern, env: dict, node: CallNode | None) -> str | None:
        if node is None:
            return None
        got = self.resolve(pat, env, node)
        return got[0] if len(got) == 1 else None

    def included(self, part) -> list[tuple[Block, dict]]:
        """The blocks a call's line includes, each with its variables bound to the arguments."""
        out = []
        for name, args in part.rule.includes:
            blk = self.blocks[name]
            env = dict(part.env)
            env.update({q: part.env.get(a, a) for q, a in zip(blk.params, args, strict=True)})
            out.append((blk, env))
        return out

    def _sources(self, node: CallNode, rank: int = 0, seen=()) -> list[tuple[int, list, dict, str | None]]:
        """Where a node's children come from: (rank, rule nodes, env, forced calls by rule) — its
        own lines (rank 0), the schedule it answers with, its ``same as`` target, and the calls
        after a pass when ``other calls retain their meaning``."""
        out = []
        for p in node.parts:
            r = p.rule
            out.append((rank, r.children, p.env, None))
            if r.answers:
                out.append((rank, *self._steps(r, p.env, node)))
        for p in node.parts:
            for blk, benv in self.included(p):
                out.append((rank + 1, blk.body.children, benv, None))
        if rank == 0 and "final" in node.flags and not node.is_opponents and not node.relay:
            # partner passes a call that is to play
            out.append((FINAL_RANK, [_final_pass(node.source, node.path, node.line)], {}, None))
        asks = self._asks(node, seen)  # partner answers: no slam tools then
        if self.applies and rank == 0 and node.parent is not None and not node.is_opponents and node.trump \
                and not asks:
            for name, _, _ in self.applies:  # wherever a trump suit is agreed, at the lowest precedence
                blk = self.blocks[name]
                out.append((APPLIED, blk.body.children, {blk.params[0]: node.trump}, None))
        if self.applies_last and rank == 0 and node.parent is not None and not node.is_opponents \
                and node.trump is None and not asks:
            last = _last_suit(node, lambda n: self._asks(n, seen))
            for name, _, _ in self.applies_last if last else ():
                blk = self.blocks[name]
                out.append((APPLIED, blk.body.children, {blk.params[0]: last}, None))
        for p in node.parts:
            if p.rule.same_as is not None:
                target = self._same_as_target(p, node, seen)
                out += [(rank + 1 + k, rules, env, forced) for k, rules, env, forced in
                        self._sources(target, 0, seen + (id(p.rule),))]
            if p.rule.inherit and node.parent is not None:
                base = node.parent
                out += [(rank + 2 + k, [c for c in rules if not (c.pattern and c.pattern.opp)], env, forced)
                        for k, rules, env, forced in self._sources(base, 0, seen)]
        return out

    def _asks(self, node: CallNode, seen) -> bool:
        """Whether partner must answer the call: a relay, or a call answered by a schedule (its
        own or that of the call it is the same as)."""
        if node.is_relay or any(p.rule.answers for p in node.parts):
            return True
        for p in node.parts:
            if p.rule.same_as is not None and id(p.rule) not in seen:
                target = self._same_as_target(p, node, seen)
                if target is not node and self._asks(target, seen + (id(p.rule),)):
                    return True
        return False

    def _same_as_target(self, p: _Part, node: CallNode, seen) -> CallNode:
        if id(p.rule) in seen:
            raise SystemFileError(p.rule.path, getattr(p.rule, "same_as_line", p.rule.line),
                                  "'same as' goes round in a circle")
        target = self.root(node.tree, node.lead)
        for pat in p.rule.same_as:
            call = self.resolve_one(pat, p.env, target)
            if call is None or call not in target.children:
                raise SystemFileError(p.rule.path, getattr(p.rule, "same_as_line", p.rule.line),
                                      f"'same as {' '.join(map(str, p.rule.same_as))}': no call {pat} after "
                                      f"{' '.join(target.auction()) or 'the start'}")
            target = target.children[call]
        n = node
        while n is not None:
            if n is target:
                raise SystemFileError(p.rule.path, getattr(p.rule, "same_as_line", p.rule.line),
                                      "'same as' cannot refer to the call itself or to a call above it")
            n = n.parent
        return target

    def _steps(self, r: RuleNode, env: dict, node: CallNode):
        name, args, skip_trump = r.answers
        sch = self.schedules[name]
        senv = dict(env)
        senv.update({p: (env.get(a, a)) for p, a in zip(sch.params, args, strict=True)})
        steps = list(sch.steps)
        for numbers, text, _line in sch.delete:
            if self.oracle is not None and not self.oracle(node, self.formula(text, senv, node)):
                steps = [s for s in steps if s.step not in numbers]
        ctx = _Legal.of(node, False)
        base = ctx.last
        trump = node.trump
        if skip_trump and trump and base + 1 < 35 and STRAINS[(base + 1) % 5] == trump:
            base += 1
        forced = {}
        for i, s in enumerate(steps, 1):
            if base + i >= 35:
                raise SystemFileError(r.path, getattr(r, "answers_line", r.line),
                                      f"step {i} of '{name}' would be above 7N")
            forced[id(s)] = str(Call.from_rank(base + i))
        return steps, senv, forced

    def expand(self, node: CallNode) -> dict[str, CallNode]:
        """The children of a node: every rule line that applies there, resolved to concrete calls."""
        cands: dict[str, list[tuple[int, RuleNode, dict]]] = {}
        for rank, rules, env, forced in self._sources(node):
            for r in rules:
                for benv in self._bindings(r, env, node):
                    if not self._guard(r.guard, benv, node):
                        continue
                    if forced is not None and id(r) in forced:
                        calls = [forced[id(r)]] if _Legal.of(node, False).legal(forced[id(r)]) else []
                    elif r.step:
                        continue
                    else:
                        calls = self.resolve(r.pattern, benv, node)
                    for c in calls:
                        if _call_guard(r.guard, c, benv):
                            cands.setdefault(c, []).append((rank, r, benv))
        out: dict[str, CallNode] = {}
        for call in sorted(cands, key=_call_order):
            chosen = self._choose(call, cands[call], node)
            if not chosen:
                continue
            opp = call.startswith("(")
            bare = call.strip("()")
            seq = node.seq
            if not opp and node.parent is not None and not node.is_opponents:
                seq = seq + (("P", "them"),)
            seq = seq + ((bare, "them" if opp else "us"),)
            child = out[call] = CallNode(self, node.tree, call, node, chosen, seq, node.lead)
            if any(t.kind == "fit" for t in chosen[0].rule.guard):
                # where the fit is not guaranteed, the call is what the other lines here give it
                rest = [c for c in cands[call] if not any(t.kind == "fit" for t in c[1].guard)]
                alt = self._choose(call, rest, node) if rest else []
                if alt:
                    child.fallback = CallNode(self, node.tree, call, node, alt, seq, node.lead)
                    child.fallback.in_applied = node.in_applied or node.applied_key is not None
            if node.applied_key is None and not node.in_applied and min(r for r, _, _ in cands[call]) >= APPLIED:
                child.applied_key = (id(chosen[0].rule), tuple(sorted(chosen[0].env.items())), call)  # the top of
                # an applied block: its calls below depend on the suit it is bound to, not on where it stands
            child.in_applied = node.in_applied or node.applied_key is not None or child.applied_key is not None
        return out

    def _choose(self, call: str, cands, node: CallNode) -> list[_Part]:
        """Which lines give a call its meaning: the nearest source; a concrete call over a pattern;
        lines with no meaning (steps on the way) merge with the one that has it."""
        meaningful = [(rank, r, e) for rank, r, e in cands if _says_something(r)]
        waypoints = [(rank, r, e) for rank, r, e in cands if not _says_something(r)]
        chosen: list[tuple[RuleNode, dict]] = []
        top = min((rank for rank, _, _ in meaningful), default=min(rank for rank, _, _ in cands))
        if meaningful:
            group = [(r, e) for rank, r, e in meaningful if rank == top]
            concrete = [(r, e) for r, e in group if not r.step and r.pattern.concrete]
            steps = [(r, e) for r, e in group if r.step]
            if concrete and steps:
                r2 = steps[0][0]
                asker = next((p.rule for p in node.parts if p.rule.answers), node.rule)
                raise SystemFileError(asker.path, getattr(asker, "answers_line", asker.line),
                                      f"{' '.join(node.auction() + [call])} has its own meaning and is also step "
                                      f"{r2.step} of '{getattr(r2, 'schedule', '?')}'")
            if concrete:
                group = concrete
            elif len(group) > 1:
                group = [(r, e) for r, e in group if r.step or not r.pattern.fills] or group[:1]
                if len(group) > 1:
                    group = self._ordered(group, node, call)
            if len(group) > 1:
                a, b = group[0][0], group[1][0]
                raise SystemFileError(b.path, b.line, f"{' '.join(node.auction() + [call])} is written twice: "
                                                      f"'{a.head()}' ({a.path}:{a.line}) and '{b.head()}'")
            chosen = group
        ways = [(r, e) for rank, r, e in waypoints if rank <= top]
        return [_Part(r, e) for r, e in chosen] + [_Part(r, e) for r, e in ways]

    def _ordered(self, group, node: CallNode, call: str):
        """Two patterns for one call: the parent's ``priority`` between the patterns decides."""
        for order, _, _, _ in node.priority_lines():
            for pat in order:
                hit = [(r, e) for r, e in group if r.pattern == pat]
                if hit:
                    return hit[:1]
        r1, r2 = group[0][0], group[1][0]
        raise SystemFileError(r2.path, r2.line,
                              f"two patterns give {' '.join(node.auction() + [call])} a meaning with no order "
                              f"between them: '{r1.head()}' ({r1.path}:{r1.line}) and '{r2.head()}' "
                              f"({r2.path}:{r2.line}); write one of them as a concrete call or give a "
                              "'priority' between them")

    def _bindings(self, r: RuleNode, env: dict, node: CallNode):
        if not r.bindings:
            yield env
            return
        domains = []
        for b in r.bindings:
            domains.append([(b.var, s) for s in self.suit_set(b.items, env, node)])
        for combo in itertools.product(*domains):
            e = dict(env)
            e.update(combo)
            yield e


def _last_suit(node: CallNode, asks) -> str | None:
    """The last suit our side has bid naturally: not a suit of theirs (a cue bid), not an answer to
    an asking call (``asks(call)``: a relay, a call a schedule answers, or one the same as
    those), not an asking call itself nor a call flagged ``artificial`` (a transfer, Stayman);
    None if that bid is not a natural one."""
    theirs = {c[1] for c, side in node.seq if side == "them" and len(c) == 2 and c[1] in "SHDC"}
    n = node
    while n is not None and n.parent is not None:
        c = n.call
        if not n.is_opponents and len(c) == 2 and c[1] in "SHDC":
            artificial = "artificial" in n.flags or asks(n.parent) or asks(n)
            return None if artificial or c[1] in theirs else c[1]
        n = n.parent
    return None


GAME_LEVEL = {"N": 3, "S": 4, "H": 4, "D": 5, "C": 5}


def _call_guard(tests, call: str, env: dict) -> bool:
    """Tests of the call a pattern resolved to: 'below game' (below 3N, 4H/4S, 5C/5D in its own
    strain), 'below game in T' (below game in the suit T: a cue bid below the trumps' game) and
    'below 6 T' (below six of the suit T)."""
    for t in tests:
        if t.kind in ("below-game", "below-call", "below-game-in"):
            c = Call.parse(call.strip("()"))
            if c.rank is None:  # a pass, double or redouble is below nothing
                below = False
            else:
                strain = c.strain if t.kind == "below-game" else env.get(t.arg, t.arg)
                level = t.lo if t.kind == "below-call" else GAME_LEVEL[strain]
                below = c.rank < Call.parse(f"{level}{strain}").rank
            if below == t.neg:
                return False
    return True


def _says_something(r: RuleNode) -> bool:
    return bool(r.meaning or r.rules or r.flags or r.trump or r.answers or r.same_as is not None)


def _ctx_key(ctx: dict) -> tuple:
    out = []
    for k, v in sorted(ctx.items()):
        if isinstance(v, dict):
            v = tuple(sorted(v.items()))
        elif isinstance(v, set | frozenset | list):
            v = tuple(sorted(v))
        out.append((k, v))
    return tuple(out)


def _next_caller_passed(node: CallNode) -> bool:
    """Whether the player who calls after ``node`` (on the tree's side) passed before the first bid."""
    if node.parent is None:
        return False
    idx = node.index + (1 if node.is_opponents else 2)
    chair = (node.lead + idx) % 4 + 1
    return chair <= node.lead


def _call_order(call: str):
    bare = call.strip("()")
    order = {"P": -3, "X": -2, "XX": -1}
    return (call.startswith("("), order.get(bare, Call.parse(bare).rank if bare not in order else 0))


_RANK = {f"{lv}{st}": (lv - 1) * 5 + i for lv in range(1, 8) for i, st in enumerate(STRAINS)}


class _Legal:
    """What may be called next after a node, by our side or (``opp``) by theirs."""

    _memo: dict = {}

    def __init__(self, calls: tuple[str, ...]):
        # the laws of the auction, for calls the tree already holds (so always readable)
        self.last = -1
        last_call, last_by = None, -1  # the last call that was not a pass, and who made it
        for i, c in enumerate(calls):
            if c != "P":
                last_call, last_by = c, i
                if c not in ("X", "XX"):
                    self.last = _RANK[c]
        n = len(calls)
        self.over = n >= 4 and all(c == "P" for c in calls[-3:]) and (last_call is not None or n >= 4)
        theirs = last_by >= 0 and (n - last_by) % 2 == 1  # made by the other side than the next caller
        self.double = theirs and last_call not in (None, "X", "XX")
        self.redouble = theirs and last_call == "X"

    @classmethod
    def of(cls, node: CallNode, opp: bool) -> _Legal:
        calls = tuple(c for c, _ in node.seq)
        if node.parent is not None and not opp and not node.is_opponents:
            calls += ("P",)  # the opponent's implicit pass
        hit = cls._memo.get(calls)
        if hit is None:
            hit = cls._memo[calls] = cls(calls)
        return hit

    def legal(self, call: str) -> bool:
        if self.over:
            return False
        if call == "P":
            return True
        if call == "X":
            return self.double
        if call == "XX":
            return self.redouble
        r = _RANK.get(call)
        return r is not None and r > self.last

    def next_rank(self, strain: str) -> int | None:
        i = STRAINS.index(strain)
        for r in range(self.last + 1, 35):
            if r % 5 == i:
                return r
        return None


def _canon(r: RuleNode):
    return (r.pattern, r.bindings, r.guard, r.meaning, r.source, r.flags, r.trump, r.relays, tuple(r.rules),
            tuple(r.covers), tuple(r.notes), tuple(r.interpretations), tuple(r.priorities), r.same_as, r.answers,
            tuple(p for p, _ in r.examples), r.inherit, tuple(r.includes), r.step, tuple(_canon(c) for c in r.children))


# --------------------------------------------------------------------------- reading the files
_STARTS = {"define": "in_define", "schedule": "in_schedule", "tree": "in_root", "nodes": "in_call"}


class _Loader:
    def __init__(self):
        self.system = System()
        self.texts: list[str] = []

    def fail(self, path, line, reason):
        raise SystemFileError(path, line, reason)

    # ------------------------------------------------------------------ lines
    def load_text(self, text: str, path: str) -> None:
        """Read one file: each line is parsed (see ``system.lark``) from what it stands under."""
        self.system.files.append(path)
        self.texts.append(text)
        stack: list[tuple[int, str, object]] = []  # (indent, kind, object): define schedule tree nodes option
        for no, raw in enumerate(text.splitlines(), 1):
            if "\t" in raw[: len(raw) - len(raw.lstrip())]:
                self.fail(path, no, "indent with spaces, not tabs")
            line = strip_comment(raw)
            if not line.strip():
                continue
            if line.count('"') % 2:
                self.fail(path, no, "a meaning's closing quote is missing")
            indent, body = len(line) - len(line.lstrip()), line.strip()
            if indent == 0:
                stack = [(-1, *self._margin(parse_line(body, "margin", path, no), path, no))]
                continue
            kind, obj = self._enclosing(stack, indent, path, no)
            made = self._line(kind, obj, parse_line(body, _STARTS[kind], path, no, indent), path, no)
            if made is not None:
                if len(stack) > MAX_DEPTH:  # the tree's walks recurse call by call
                    self.fail(path, no, f"calls nested more than {MAX_DEPTH} deep under each other: the loader "
                                        "goes no deeper")
                stack.append((indent, "nodes", made))

    def _enclosing(self, stack, indent: int, path, no):
        """What an indented line stands under (the stack loses what it closes)."""
        if not stack:
            self.fail(path, no, "indented line outside a tree, schedule or definition")
        popped = None
        while len(stack) > 1 and stack[-1][0] >= indent:
            popped = stack.pop()[0]
        top_indent, kind, obj = stack[-1]
        if top_indent >= indent or (popped is not None and popped != indent):
            self.fail(path, no, "indentation does not match any enclosing call")
        if kind not in _STARTS:
            self.fail(path, no, "nothing is indented under an 'option' or an 'apply' line")
        return kind, obj

    def _line(self, kind: str, obj, item: tuple, path, no):
        """Add an indented line to what it stands under; the rule nodes it makes, if any."""
        tag = item[0]
        if kind == "define":
            getattr(obj, tag + "s").append(item[1])  # notes, interpretations
        elif kind == "schedule":
            if tag == "step":
                return self._step(obj, item, path, no)
            if tag == "delete":
                self._delete(obj, item, path, no)
            if tag in ("note", "interpretation"):
                getattr(obj, tag + "s").append(item[1])
        elif tag == "call":
            return [self._call(p, item, path, no) for p in obj]  # the tree root, a call, or a line's steps
        else:
            for p in obj:
                self._attribute(p, item, path, no)
        return None

    def _margin(self, item: tuple, path, no):
        tag = item[0]
        if tag == "define":
            return "define", self._define(item, path, no)
        if tag == "schedule":
            return "schedule", self._schedule(item, path, no)
        if tag in ("block", "tree"):
            return "tree", [self._block(item, path, no) if tag == "block" else self._tree(item, path, no)]
        if tag == "apply":
            _, name, suit = item
            (self.system.applies_last if suit == "last" else self.system.applies).append((name, no, path))
            return "option", None
        _, name, text = item
        if name in self.system.options:
            self.fail(path, no, f"option '{name}' is declared twice")
        self.system.options[name] = text
        return "option", None

    # ------------------------------------------------------------------ definitions
    def _define(self, item, path, no) -> DefinitionInfo:
        _, name, ps, text = item
        if name in self.system.definitions:
            self.fail(path, no, f"'{name}' is defined twice")
        if name in FEATURES or name in SUIT_SETS or (len(name) == 1 and name in "SHDC") or name == "trump":
            self.fail(path, no, f"'{name}' is a built-in word of the language; choose another name")
        try:
            tree = parse_tree(text)
        except ConstraintError as e:
            self.fail(path, no, str(e))
        self.system.definitions[name] = Definition(name, ps, tree, text)
        try:
            self._usable(name, text, tree, {p: s for p, s in zip(ps, "SHDC", strict=False)})
        except ConstraintError as e:
            del self.system.definitions[name]
            self.fail(path, no, f"in '{name}': {e}")
        info = DefinitionInfo(text, ps, line=no, path=path)
        self.system.definition_info[name] = info
        return info

    def _usable(self, name: str, text: str, tree, env: dict) -> None:
        """A definition reads as a condition or as a number (ConstraintError if neither)."""
        try:
            parse(text, self.system.definitions, env)
        except ConstraintError as first:
            try:
                Builder(self.system.definitions).number(tree, env)
            except ConstraintError:
                raise first from None

    # ------------------------------------------------------------------ schedules and blocks
    def _params(self, what: str, params, path, no) -> tuple[str, ...]:
        bad = [p for p in params if p not in _VARS]
        if bad:
            self.fail(path, no, f"'{bad[0]}' cannot be a {what}'s parameter: use one letter other than C D H S N")
        return params

    def _schedule(self, item, path, no) -> Schedule:
        _, name, params, meaning, source = item
        sch = Schedule(name, self._params("schedule", params, path, no), meaning, source, line=no, path=path)
        if name in self.system.schedules:
            self.fail(path, no, f"schedule '{name}' is defined twice")
        self.system.schedules[name] = sch
        return sch

    def _block(self, item, path, no) -> RuleNode:
        _, name, params, meaning, source = item
        params = self._params("block", params, path, no)
        if name in self.system.blocks:
            self.fail(path, no, f"block '{name}' is defined twice")
        self._root = root = RuleNode(None, line=no, path=path)
        self.system.blocks[name] = Block(name, params, meaning, source, root, no, path)
        return root

    def _step(self, sch: Schedule, item, path, no) -> list[RuleNode]:
        """A step line: one step, or a step for each k of ``step k for k in 1..6``."""
        _, var, lo, hi, meaning, source, rule = item
        if var is not None and var[0] != var[1]:
            self.fail(path, no, f"'step {var[0]} for {var[1]} in ...' names two variables: write "
                                f"'step {var[0]} for {var[0]} in {lo}..{hi}'")
        if var is not None and (lo > hi or lo < 1):
            self.fail(path, no, f"steps {lo}..{hi} are empty")
        if hi > 35:  # found at once, not after making every step up to it
            self.fail(path, no, f"step {hi} would be above 7N: there are 35 bids, so a schedule has at most 35 steps")
        made = []
        for k in range(lo, hi + 1):
            if any(s.step == k for s in sch.steps):
                self.fail(path, no, f"step {k} of '{sch.name}' is written twice")
            words = meaning if var is None else _numeric_fill(meaning, var[0], k)
            node = RuleNode(None, meaning=words, source=source, step=k, line=no, path=path)
            if rule is not None:
                try:
                    node.rules.append(self._rule_spec(rule if var is None else _numbered(rule, var[0], k), path, no))
                except SystemFileError as e:
                    self.fail(path, no, f"in step {k} of '{sch.name}': {e.reason}")
            node.schedule = sch.name
            sch.steps.append(node)
            made.append(node)
        return made

    def _delete(self, sch: Schedule, item, path, no):
        _, nums, text = item
        self._rule_spec(((), "formula", text, "", "", ""), path, no)
        sch.delete.append((nums, text, no))

    # ------------------------------------------------------------------ trees
    def _tree(self, item, path, no) -> RuleNode:
        _, name, calls = item
        if name not in TREES:
            self.fail(path, no, f"no tree named '{name}': the trees are {' and '.join(TREES)}")
        root = self.system.trees.setdefault(name, RuleNode(None, line=no, path=path))
        self._root = node = root
        for t in calls:
            pat = self._pattern(t, path, no)
            hit = [c for c in node.children if c.pattern == pat]
            if not hit:
                where = " ".join(_rule_path(node, root))
                self.fail(path, no, f"no call {pat} to attach to {'after ' + where if where else 'in tree ' + name}"
                                    " (write it first)")
            node = hit[0]
        return node

    def _pattern(self, t: tuple, path, no, where: str = "") -> Pattern:
        try:
            return Pattern.build(*t)
        except (ValueError, AuctionError) as e:
            self.fail(path, no, f"{where}: {e}" if where else f"'{_pattern_text(t)}' is not a call: {e}")

    def _call(self, parent: RuleNode, item, path, no) -> RuleNode:
        _, t, clauses, meaning, source, flags = item
        pat = self._pattern(t, path, no)
        node = RuleNode(pat, meaning=meaning, source=source, line=no, path=path)
        for clause in clauses:
            if clause[0] == "for":
                if clause[1] not in _VARS:
                    self.fail(path, no, f"'{clause[1]}' cannot be a suit variable: use one letter other than C D H S N")
                node.bindings += (Binding(clause[1], self._set(clause[2], path, no)),)
            else:
                node.guard = self._tests(clause[1], path, no)
                if any(t.kind == "passed" for t in node.guard):
                    self.system.uses_passed = True
        self._flags(node, flags, path, no)
        return self._merged(parent, node, path, no)

    def _merged(self, parent: RuleNode, node: RuleNode, path, no) -> RuleNode:
        """The node added under its parent, or the line it continues (same call, bindings, guard)."""
        for sib in parent.children:
            if sib.pattern == node.pattern and sib.bindings == node.bindings and sib.guard == node.guard:
                if sib.meaning and node.meaning:
                    where = " ".join(_rule_path(sib, self._root) or [str(node.pattern)])
                    self.fail(path, no, f"{where} is already defined at {sib.path}:{sib.line}")
                for attr in ("meaning", "source", "trump", "relays"):  # a second line adds what the first lacks
                    if getattr(node, attr) and not getattr(sib, attr):
                        setattr(sib, attr, getattr(node, attr))
                        if attr == "meaning":
                            sib.path, sib.line = path, no
                sib.flags = tuple(dict.fromkeys(sib.flags + node.flags))
                return sib
        parent.children.append(node)
        return node

    def _set(self, items, path, no):
        try:
            return _check_set(items)
        except ValueError as e:
            self.fail(path, no, str(e))

    def _tests(self, found: list[dict], path, no) -> tuple[Test, ...]:
        tests = tuple(Test(**d) for d in found)
        for t in tests:
            try:
                _check_test(t)
            except ValueError as e:
                self.fail(path, no, str(e))
        return tests

    def _flags(self, node: RuleNode, flags, path, no):
        words = []
        for kind, word in flags:
            if kind == "flag":
                words.append(word)
            elif kind == "relays":
                node.relays = word
            elif word not in "SHDC" and word not in _VARS:
                self.fail(path, no, f"'trump {word}': name a suit (S, H, D, C) or a suit variable")
            else:
                node.trump = word
        if "undefined" in words and "extension" in words:
            self.fail(path, no, "a call cannot be both undefined and an extension")
        node.flags = tuple(dict.fromkeys(words))

    # ------------------------------------------------------------------ lines under a call
    def _attribute(self, node: RuleNode, item: tuple, path: str, no: int) -> None:
        tag = item[0]
        if tag in ("rule", "covers"):
            (node.rules if tag == "rule" else node.covers).append(self._rule_spec(item[1], path, no))
        elif tag in ("note", "interpretation"):
            getattr(node, tag + "s").append(item[1])
        elif tag == "priority":
            order = tuple(self._pattern(t, path, no, "in priority") for t in item[1])
            node.priorities.append((order, item[2], item[3]))
        elif tag == "same_as":
            if node.same_as is not None:
                self.fail(path, no, "a call has one 'same as'")
            node.same_as = tuple(self._pattern(t, path, no, "in 'same as'") for t in item[1])
            node.same_as_line = no
        elif tag == "answers":
            node.answers = item[1:]
            node.answers_line = no
        elif tag == "example":
            self._example(node, item[1], path, no)
        elif tag == "include":
            node.includes.append(item[1:])
            node.include_lines = getattr(node, "include_lines", []) + [no]
        elif node.pattern is None or not node.pattern.opp:  # inherit
            self.fail(path, no, "'other calls retain their meaning' belongs under an opponent's call")
        else:
            node.inherit = True

    def _example(self, node: RuleNode, pbn: str, path, no) -> None:
        from canary_infer.bridge.cards import Hand

        try:
            Hand.from_pbn(pbn)
        except ValueError as e:
            self.fail(path, no, f"example {pbn}: {e}")
        node.examples.append((pbn, no))

    def _rule_spec(self, rule: tuple, path: str, no: int) -> RuleSpec:
        """A parsed rule (its tests, kind and what follows: see ``system.lark``) as a RuleSpec."""
        tests, kind, *rest = rule
        when = self._tests(tests, path, no)
        if kind == "formula":
            text, wider, why, src = rest
            for words, prefix in ((wider, "after 'unless': "), (text, "")):
                try:
                    if words:
                        parse_tree(words)
                except ConstraintError as e:
                    self.fail(path, no, f"{prefix}{e}")
            return RuleSpec("formula", text, when, (), wider, why, src, no, path)
        args = rest[0]
        if kind == "denies":
            args = tuple(a if isinstance(a, str) else self._pattern(a, path, no, "in denies") for a in args)
            return RuleSpec("denies", "denies " + ", ".join(map(str, args)), when, args, line=no, path=path)
        bad = [a for a in args if a not in FEATURES]
        if bad:
            self.fail(path, no, f"'{bad[0]}' is not a feature (e.g. hcp, losers, controls)")
        return RuleSpec(kind, " ".join([kind, ", ".join(args)]).strip(), when, args, line=no, path=path)

    # ------------------------------------------------------------------ after all files
    def finish(self, remembered: bool = True) -> System:
        """Check the system loaded; ``remembered``: skip the walk of every tree if these very
        files passed it before (:func:`load_system` keeps the whole checked system instead)."""
        s = self.system
        stamp = _checked_stamp(self.texts) if remembered else None
        if stamp is not None and stamp.exists():
            return s  # these very files passed every check below before
        for name, tree in s.trees.items():
            self._check_static(tree, set(), name)
        for sch in s.schedules.values():
            for st in sch.steps:
                self._check_static(st, set(sch.params) | {"trump"}, None, schedule=sch)
        for blk in s.blocks.values():
            for c in blk.body.children:
                self._check_static(c, set(blk.params) | {"trump"}, None)
        for name, line, path in s.applies + s.applies_last:
            blk = s.blocks.get(name)
            if blk is None:
                self.fail(path, line, f"no block named '{name}'")
            if len(blk.params) != 1:
                self.fail(path, line, f"'{name}' must take one suit (the trump suit, or the last suit bid)")
        _check_tree(s)
        if stamp is not None:
            try:
                stamp.parent.mkdir(parents=True, exist_ok=True)
                stamp.touch()
            except OSError:
                pass
        return s

    def _check_use(self, word: str, used, name: str, args, here, path, line) -> None:
        """An 'answers' line's schedule or an 'include' line's block: it exists, and it is given
        as many suits as it takes, each a suit or a variable bound here."""
        if used is None:
            self.fail(path, line, f"no {'schedule' if word == 'answers' else 'block'} named '{name}'")
        if len(args) != len(used.params):
            self.fail(path, line, f"'{name}' takes {len(used.params)} suits, got {len(args)}")
        bad = [a for a in args if a not in SUIT_NAMES and a not in here]
        if bad:
            self.fail(path, line, f"'{bad[0]}' is not a suit ({word} take{'' if word == 'answers' else 's'} S, H, D, "
                                  "C or a suit variable)")

    def _check_static(self, node: RuleNode, scope: set[str], tree: str | None, schedule=None):
        """Variables used where they are bound; schedules and features named exist; constraints
        that can never hold."""
        here = set(scope)
        if node.pattern is not None:
            for b in node.bindings:
                for _, tok in b.items:
                    if tok in _VARS and tok not in here:
                        self.fail(node.path, node.line, f"unknown variable '{tok}' in '{b}'")
                here.add(b.var)
            for v in node.pattern.variables():
                if v not in here:
                    self.fail(node.path, node.line, f"unknown variable '{v}' in the call '{node.pattern}' (bind it "
                                                    f"with 'for {v} in ...' here or above)")
        for t in node.guard:
            if t.arg and t.kind != "option" and t.arg not in here and t.arg not in "SHDC":  # a suit or variable
                self.fail(node.path, node.line, f"unknown variable '{t.arg}' in the condition '{t}'")
            if t.kind in ("suit-above", "suit-below") and t.items[0] not in "SHDC" and t.items[0] not in here:
                self.fail(node.path, node.line, f"unknown variable '{t.items[0]}' in the condition '{t}'")
            if t.kind == "option" and t.arg not in self.system.options:
                self.fail(node.path, node.line, f"no option named '{t.arg}' (declare it: option {t.arg} \"...\")")
        if node.trump and node.trump not in "SHDC" and node.trump not in here:
            self.fail(node.path, node.line, f"unknown variable '{node.trump}' in 'trump {node.trump}'")
        for v in re.findall(r"\{([A-Za-z_]\w*)(?::\w+)?\}", node.meaning):
            if v not in here:
                self.fail(node.path, node.line, f"unknown variable '{v}' in the meaning")
        env = {v: "S" for v in here}
        env.setdefault("trump", "S")
        for r in node.rules + node.covers:
            for t in r.when:
                if t.kind == "option" and t.arg not in self.system.options:
                    self.fail(r.path, r.line, f"no option named '{t.arg}'")
            if r.kind != "formula":
                continue
            try:
                f = parse(r.text, self.system.definitions, env)
            except ConstraintError as e:
                msg = str(e)
                m = re.search(r"'(\w+)' is not a suit here", msg)
                if m and len(m.group(1)) == 1:
                    msg = f"unknown variable '{m.group(1)}' in the constraint"
                self.fail(r.path, r.line, msg)
            if f == FALSE and not r.wider:
                self.fail(r.path, r.line, "this constraint can never hold")
            if r.wider:
                try:
                    parse(r.wider, self.system.definitions, env)
                except ConstraintError as e:
                    self.fail(r.path, r.line, f"after 'unless': {e}")
        if node.answers:
            name, args, _ = node.answers
            line = getattr(node, "answers_line", node.line)
            self._check_use("answers", self.system.schedules.get(name), name, args, here, node.path, line)
            if node.pattern is not None and node.pattern.concrete and Call.parse(node.pattern.call).rank is None:
                self.fail(node.path, line, f"answers must follow a bid, not '{node.pattern}'")
        for i, (name, args) in enumerate(node.includes):
            line = getattr(node, "include_lines", [node.line] * (i + 1))[i]
            self._check_use("include", self.system.blocks.get(name), name, args, here, node.path, line)
        for c in node.children:
            self._check_static(c, here, tree, schedule)


def _rule_path(node: RuleNode, root: RuleNode) -> list[str]:
    def find(cur, path):
        if cur is node:
            return path
        for c in cur.children:
            got = find(c, path + [str(c.pattern)])
            if got is not None:
                return got
        return None
    return find(root, []) or []


def _numeric_fill(text: str, var: str, k: int) -> str:
    def sub(m):
        expr = m.group(1).replace(" ", "")
        mm = re.fullmatch(rf"{var}(?:([+-])(\d+))?", expr)
        if not mm:
            return m.group(0)
        v = k + (int(mm.group(2)) * (1 if mm.group(1) == "+" else -1) if mm.group(1) else 0)
        return str(v)
    return re.sub(r"\{([^{}]+)\}", sub, text)


def _numbered(rule: tuple, var: str, k: int) -> tuple:
    """A step's rule with the step's variable replaced by its number (``step k for k in 1..6``)."""
    tests, kind, *rest = rule
    if kind != "formula":
        return rule
    text, wider, why, src = rest
    fill = functools.partial(re.sub, rf"(?<![\w.]){var}(?![\w(])", str(k))
    return (tests, kind, fill(text), fill(wider), why, src)


def _pattern_text(t: tuple) -> str:
    opp, kind, value = t
    body = f"{kind} {value}" if kind in ("next", "jump", "step") else str(value)
    return f"({body})" if opp else body


LOAD_CHECK_LIMIT = 200_000
MAX_DEPTH = 120  # calls nested under each other (the built-in system goes about 20 deep)
APPLIED = 100  # the rank of the calls a block attached by 'apply' gives (below everything else)
FINAL_RANK = 50  # partner's pass after a call flagged 'final': below the call's own lines and blocks


@functools.cache
def _final_pass(source: str, path: str, line: int) -> RuleNode:
    """Partner's pass after a call flagged ``final``, cited to that call's line."""
    return RuleNode(Pattern("call", call="P"), meaning="pass: partner's call is to play", source=source, path=path,
                    line=line,
                    interpretations=["A call the notes call 'to play', 'sign off' or 'final' (flag final) is "
                                     "passed by partner: the standard meaning of those words. The pass says "
                                     "nothing of the hand."])


def _checked_stamp(texts: list[str]) -> Path | None:
    """Where the walk of every tree is remembered for these exact texts (and this loader), so that
    it runs once per edit of a text loaded with :func:`load_text`; None when the loaded-system
    cache is off (``CANARY_INFER_SYSTEM_CACHE=off``, see :mod:`canary_infer.system.cache`)."""
    import hashlib

    from canary_infer.system.cache import quiet_folder

    base = quiet_folder()
    if base is None:
        return None
    h = hashlib.sha256()
    for name in ("model.py", "parser.py", "system.lark"):  # the loader's code and grammar
        h.update(Path(__file__).with_name(name).read_bytes())
    for t in texts:
        h.update(b"\0" + t.encode("utf-8"))
    return base / f"checked-{h.hexdigest()[:32]}"


def _check_tree(s: System) -> None:
    """Walk every tree once (with no passes first and with two, where passed hands differ): clashes,
    ``same as`` targets, schedule steps above 7N, patterns that never match."""
    used: set[int] = set()
    leads = (0, 2) if s.uses_passed else (0,)
    for lead in leads:
        count = 0
        for n in s.nodes(lead):
            count += 1
            for p in n.parts:
                used.add(id(p.rule))
            n.rules  # noqa: B018 - binds every constraint, so an error names its line now
            if count > LOAD_CHECK_LIMIT:
                s._roots.clear()
                return
    s._roots.clear()  # built again on use, with the inference layer's oracle
    for sch in s.schedules.values():
        for st in sch.steps:
            used.add(id(st))

    def unused(r: RuleNode):
        for c in r.children:
            if id(c) not in used and not c.guard and not (c.pattern and c.pattern.fills):
                reachable = any(id(p) in used for p in [r]) or r.pattern is None
                if reachable:
                    raise SystemFileError(c.path, c.line, f"the call '{c.pattern}' can never be made here "
                                                          "(no legal call matches it)")
            unused(c)
    for t in s.trees.values():
        unused(t)


def builtin_dir():
    """The built-in system files: ``constraints/`` beside the package when running from a source
    checkout (so a checkout always reads its own files, whatever copy is installed), else the
    installed package ``canary_infer.constraints``."""
    here = Path(__file__).resolve().parents[2] / "constraints"
    if (here / "README.md").exists() and any(here.glob("*.canary")):
        return here
    from importlib import resources  # only for an installed package: it imports tempfile, shutil, random

    try:
        return resources.files("canary_infer.constraints")
    except ModuleNotFoundError:
        return here


def _read(p, shown: str) -> str:
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise SystemFileError(shown, 0, "no such file") from None
    except IsADirectoryError:
        raise SystemFileError(shown, 0, "a folder, not a system file (give the folder's .canary files, or use "
                                        "--system DIR)") from None
    except OSError as e:
        raise SystemFileError(shown, 0, f"cannot be read: {e.strerror or e}") from None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]  # a byte-order mark is not part of the text
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise SystemFileError(shown, line, f"not UTF-8 text (byte 0x{data[e.start]:02x}); save the file as "
                                           "UTF-8") from None


def load_text(text: str, path: str = "<text>", partial: bool = False) -> System:
    """Load a system from one text (as :func:`load_system` does with files)."""
    loader = _Loader()
    loader.load_text(text, path)
    return _finished(loader, partial)


def _finished(loader: _Loader, partial: bool = False, remembered: bool = True) -> System:
    return _complete(loader.finish(remembered), partial)


def _complete(s: System, partial: bool) -> System:
    if "opening" not in s.trees and not partial:
        raise SystemFileError(s.files[-1] if s.files else "<system>", 0,
                              "the system has no 'tree opening': nothing says what the openings mean")
    return s


def load_system(paths: list[str | Path] | None = None, partial: bool = False) -> System:
    """Load the system files (by default the built-in ``constraints/*.canary``).  A system needs a
    ``tree opening`` unless ``partial`` (a file of definitions alone, say)."""
    if paths is None:
        base = builtin_dir()
        files = sorted((p for p in base.iterdir() if p.name.endswith(".canary")), key=lambda p: p.name)
        texts = [(f"constraints/{p.name}", _read(p, f"constraints/{p.name}")) for p in files]
    else:
        texts = [(str(Path(p)), _read(Path(p), str(Path(p)))) for p in paths]
    from canary_infer.system import cache as syscache

    where = syscache.quiet_folder()
    k = syscache.key(texts) if where is not None else None
    if where is not None:
        kept = syscache.load(where, k, [shown for shown, _ in texts], System)
        if kept is not None:
            return _complete(kept, partial)  # these very files loaded and passed every check before
    loader = _Loader()
    for shown, text in texts:
        loader.load_text(text, shown)
    s = _finished(loader, partial, remembered=False)
    if where is not None:
        syscache.store(where, k, s)
    return s


# --------------------------------------------------------------------------- printing
def format_system(system: System) -> str:
    """The system as one text in the file format: ``load_text(format_system(s)) == s``."""
    out: list[str] = []
    for name, info in system.definition_info.items():
        params = f"({', '.join(info.params)})" if info.params else ""
        out.append(f"define {name}{params} = {info.text}")
        out += [f"  note {_quote(n)}" for n in info.notes]
        out += [f"  interpretation {_quote(i)}" for i in info.interpretations]
        out.append("")
    for name, text in system.options.items():
        out.append(f"option {name} {_quote(text)}")
    if system.options:
        out.append("")
    for sch in system.schedules.values():
        out.append(_head("schedule", sch))
        out += [f"  note {_quote(n)}" for n in sch.notes]
        out += [f"  interpretation {_quote(i)}" for i in sch.interpretations]
        for st in sch.steps:
            line = f"  step {st.step}  {_quote(st.meaning)}"
            if st.source:
                line += f"  [{st.source}]"
            if st.rules:
                line += f"  = {st.rules[0]}"
            out.append(line)
            _print_body(st, 4, out, skip_first_rule=True)
        for nums, text, _ in sch.delete:
            out.append(f"  delete steps {', '.join(map(str, nums))} if impossible: {text}")
        out.append("")
    for blk in system.blocks.values():
        out.append(_head("block", blk))
        _print_body(blk.body, 2, out)
        out.append("")
    for name, _, _ in system.applies:
        out.append(f"apply {name}(trump) where trump agreed")
    for name, _, _ in system.applies_last:
        out.append(f"apply {name}(last) where no trump agreed")
    if system.applies or system.applies_last:
        out.append("")
    for name, tree in system.trees.items():
        out.append(f"tree {name}")
        _print_body(tree, 2, out)
        out.append("")
    return "\n".join(out)


def _head(word: str, x) -> str:
    """``schedule NAME(params)  "meaning"  [source]`` (or ``block ...``)."""
    head = f"{word} {x.name}({', '.join(x.params)})"
    if x.meaning:
        head += f"  {_quote(x.meaning)}"
    if x.source:
        head += f"  [{x.source}]"
    return head


def _print_body(r: RuleNode, indent: int, out: list[str], skip_first_rule: bool = False) -> None:
    pad = " " * indent
    rules = r.rules[1:] if skip_first_rule else r.rules
    out += [f"{pad}= {x}" for x in rules]
    out += [f"{pad}covers {x}" for x in r.covers]
    out += [f"{pad}interpretation {_quote(i)}" for i in r.interpretations]
    out += [f"{pad}note {_quote(n)}" for n in r.notes]
    for order, why, src in r.priorities:
        line = f"{pad}priority {' > '.join(map(str, order))}"
        if why:
            line += f"  {_quote(why)}"
        if src:
            line += f"  [{src}]"
        out.append(line)
    if r.same_as is not None:
        out.append(f"{pad}same as {' '.join(map(str, r.same_as))}")
    if r.answers:
        name, args, skip = r.answers
        out.append(f"{pad}answers {name}({', '.join(args)})" + (" from first non-trump step" if skip else ""))
    out += [f"{pad}example {pbn}" for pbn, _ in r.examples]
    if r.inherit:
        out.append(f"{pad}other calls retain their meaning")
    out += [f"{pad}include {name}({', '.join(args)})" for name, args in r.includes]
    for c in r.children:
        out.append(f"{pad}{c.head()}")
        _print_body(c, indent + 4, out)


# --------------------------------------------------------------------------- reading an auction
@dataclass
class Step:
    """One call of an auction read against the trees: ``node`` is the call's node in its own
    side's tree (None off the tree, or when that side does not play the system), ``other`` the
    same call as the other side's tree sees it (an opponent's call there, with any constraint
    written on it); ``side`` is "opening" for the side that opened, "defence" for the others,
    "none" for passes before anyone has bid."""

    index: int
    seat: str
    call: str
    chair: int
    side: str
    node: CallNode | None
    other: CallNode | None = None
    plays: bool = True  # whether the caller's side plays the system (--we)
    refused: CallNode | None = None  # the tree's call, whose conditions the inference found unmet


@dataclass
class Reading:
    """A whole auction read against the trees: its steps, the opener, and where each side stands."""

    steps: list[Step]
    opener: str | None
    lead: int
    cursors: dict[str, CallNode | None]

    def position(self, system: System, seat: str) -> tuple[CallNode | None, str]:
        """The node whose children are ``seat``'s options next, and that seat's side."""
        if self.opener is None:
            return system.root("opening", len(self.steps)), "none"
        side = "opening" if _partners(seat, self.opener) else "defence"
        return self.cursors[side], side


def _partners(a: str, b: str) -> bool:
    return (SEATS.index(a) - SEATS.index(b)) % 2 == 0


def read_auction(system: System, auction, we: str | None = None,
                 admit: Callable[[CallNode, int], bool] | None = None) -> Reading:
    """Read every call of an auction against the trees: the side that opens with the opening tree,
    the other side with the defence tree; ``we`` ("NS" or "EW") says only that pair plays the
    system (the other pair's calls then take no meaning from it).

    ``admit(node, i)`` says whether the :attr:`CallNode.conditions` of our call ``node``, the
    ``i``-th of the auction, hold after the calls before it (the inference reads them); where
    they do not, the call is read as its ``fallback`` (None: off the tree).  Without ``admit``
    the tree is read as written (the conditions taken as met)."""
    steps: list[Step] = []
    opener: str | None = None
    lead = 0
    cur: dict[str, CallNode | None] = {"opening": None, "defence": None}
    for i, call in enumerate(auction.calls):
        seat = auction.seat_of(i)
        name = str(call)
        chair = (SEATS.index(seat) - SEATS.index(auction.dealer)) % 4 + 1
        plays = we is None or seat in we
        if opener is None:
            if name == "P":
                steps.append(Step(i, seat, name, chair, "none", system.root("opening", i).children.get("P"),
                                  plays=plays))
                continue
            opener, lead = seat, i
            node = system.root("opening", lead).children.get(name)
            refused = None
            if admit is not None and node is not None and node.conditions and not admit(node, i):
                refused, node = node, node.fallback
            cur["opening"] = node
            cur["defence"] = system.root("defence", lead).children.get(f"({name})")
            steps.append(Step(i, seat, name, chair, "opening", cur["opening"], cur["defence"], plays, refused))
            continue
        mine = "opening" if _partners(seat, opener) else "defence"
        theirs = "defence" if mine == "opening" else "opening"
        node = cur[mine].children.get(name) if cur[mine] is not None else None
        refused = None
        if admit is not None and node is not None and node.conditions and not admit(node, i):
            refused, node = node, node.fallback
        other = None
        if name != "P":  # their tree leaves this side's passes implicit
            other = cur[theirs].children.get(f"({name})") if cur[theirs] is not None else None
            cur[theirs] = other
        cur[mine] = node
        steps.append(Step(i, seat, name, chair, mine, node, other, plays, refused))
    return Reading(steps, opener, lead, cur)


def walk(system: System, auction) -> tuple[list[Step], CallNode | None, str | None]:
    """Read every call of an auction (see :func:`read_auction`).

    Returns the steps, the node whose children are the opening side's next calls (the root
    while nobody has bid), and the opener's seat (None while nobody has bid)."""
    r = read_auction(system, auction)
    node = r.cursors["opening"] if r.opener else system.root("opening", len(r.steps))
    return r.steps, node, r.opener
