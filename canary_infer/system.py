"""Loading the system files: definitions, answer schedules and the call tree.

The format is described in ``constraints/README.md``.  In short::

    define balanced = shape 4333 | 4432 | 5332

    schedule second_relay(M, X, Y)  "opener's pattern after the second relay"  [A1170]
      step 1  "5 {M}, 3 {X}, 1 {Y}, 4 clubs"  = M == 5 and X == 3 and Y == 1 and C == 4

    tree opening
      2S  "11-16 HCP, 5-6 spades and 4-5 clubs"  [A36]
          = hcp in 11..16 and S in 5..6 and C in 4..5
        2N  "relay"  [A1141]
          3C  "short diamonds with 3+ hearts"  [A1157]
              = D <= 1 and H >= 3
            3D  "second relay"  [A1172]
                answers second_relay(S, H, D)

A malformed file raises :class:`SystemFileError` naming the file, the line and the reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from .auction import Call
from .expr import (
    FALSE,
    SUIT_NAMES,
    SUIT_SETS,
    TRUE,
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
from .features import FEATURES


class SystemFileError(ValueError):
    """A system file that cannot be loaded: ``path``, ``line`` (1-based) and the reason."""

    def __init__(self, path: str, line: int, reason: str):
        super().__init__(f"{path}:{line}: {reason}")
        self.path, self.line, self.reason = path, line, reason


@dataclass
class Rule:
    """One ``=`` line: a constraint, possibly only in some contexts (``when chair 1..2:``)."""

    text: str
    when: tuple[str, int, int] | None  # ("chair", lo, hi)
    formula: Node | None  # None for "denies siblings"
    line: int
    path: str

    def applies(self, ctx: dict) -> bool:
        if self.when is None:
            return True
        var, lo, hi = self.when
        return lo <= ctx.get(var, 0) <= hi


@dataclass
class CallNode:
    """A call in the tree: its meaning in words, its constraints and what may follow it."""

    call: str  # "2N", "P", or "(3D)" for an opponent's call
    meaning: str = ""
    source: str = ""
    status: str = "defined"  # defined | undefined
    interpretation: str = ""
    trump: str | None = None
    rules: list[Rule] = field(default_factory=list)
    covers: list[Rule] = field(default_factory=list)  # the hands its calls must cover (check-system)
    relay: bool = False
    priorities: list[tuple[tuple[str, str], str]] = field(default_factory=list)  # (better, worse), why
    children: dict[str, CallNode] = field(default_factory=dict)
    parent: CallNode | None = None
    path: str = ""
    line: int = 0
    declared: bool = False  # given a line of its own (not only created as a path step)
    _memo: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def is_relay(self) -> bool:
        """A relay: the partner describes his hand in answer (flag ``relay`` or meaning "relay...")."""
        return self.relay or (self.defined and self.meaning.lower().startswith("relay"))

    @property
    def is_opponents(self) -> bool:
        return self.call.startswith("(")

    def domain(self, ctx: dict) -> Node | None:
        """The hands the calls at this point are meant to cover, if the files say so."""
        parts = [r.formula for r in self.covers if r.applies(ctx)]
        return conj(parts) if parts else None

    @property
    def defined(self) -> bool:
        return self.status == "defined" and bool(self.meaning)

    def auction(self) -> list[str]:
        out, n = [], self
        while n is not None and n.parent is not None:
            out.append(n.call)
            n = n.parent
        return out[::-1]

    def constraint(self, ctx: dict) -> Node:
        """The formula this call adds to the caller's hand in a context."""
        key = tuple(sorted(ctx.items()))
        if key not in self._memo:
            self._memo[key] = self._constraint(ctx)
        return self._memo[key]

    def _constraint(self, ctx: dict) -> Node:
        parts = []
        for r in self.rules:
            if not r.applies(ctx):
                continue
            if r.formula is None:  # denies siblings
                sib = [c.constraint(ctx) for k, c in self.parent.children.items() if c is not self and c.defined]
                parts.append(negate(disj(sib)))
            else:
                parts.append(r.formula)
        return conj(parts) if parts else TRUE


@dataclass
class Schedule:
    name: str
    params: tuple[str, ...]
    meaning: str
    source: str
    steps: list[tuple[int, str, str, int, str]]  # (step, meaning, constraint text, line, path)


@dataclass
class System:
    definitions: dict[str, Definition] = field(default_factory=dict)
    schedules: dict[str, Schedule] = field(default_factory=dict)
    roots: dict[str, CallNode] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)

    def root(self, name: str = "opening") -> CallNode:
        return self.roots[name]

    def nodes(self):
        """Every call node, depth first."""
        stack = list(self.roots.values())
        while stack:
            n = stack.pop()
            yield n
            stack.extend(reversed(list(n.children.values())))


_BARE = r"(?:[1-7](?:C|D|H|S|N)|P|X|XX)"
_CALL = rf"(?:\({_BARE}\)|{_BARE})"
_NODE = re.compile(rf"^(?P<call>{_CALL})(?=\s|$)\s*(?P<rest>.*)$")
_MEANING = re.compile(r'"([^"]*)"')
_SOURCE = re.compile(r"\[([^\]]*)\]")
_WHEN = re.compile(r"^when\s+(chair)\s+(\d)\s*(?:\.\.\s*(\d))?\s*:\s*(.*)$")
_DEFINE = re.compile(r"^define\s+(\w+)\s*(?:\(([^)]*)\))?\s*=\s*(.+)$")
_SCHEDULE = re.compile(r"^schedule\s+(\w+)\s*\(([^)]*)\)\s*(.*)$")
_STEP = re.compile(r"^step\s+(\d+)\s+(.*)$")
_ANSWERS = re.compile(r"^answers\s+(\w+)\s*\(([^)]*)\)\s*$")


def _strip_comment(line: str) -> str:
    out, quoted = [], False
    for ch in line:
        if ch == '"':
            quoted = not quoted
        if ch == "#" and not quoted:
            break
        out.append(ch)
    return "".join(out).rstrip()


def _canon_call(tok: str) -> str:
    opp = tok.startswith("(")
    c = str(Call.parse(tok.strip("()")))
    return f"({c})" if opp else c


class _Loader:
    def __init__(self):
        self.system = System()
        self.pending_answers: list[tuple[CallNode, str, tuple[str, ...], str, int]] = []
        self.pending_same: list[tuple[CallNode, list[str], str, int]] = []

    def fail(self, path, line, reason):
        raise SystemFileError(path, line, reason)

    def load_text(self, text: str, path: str) -> None:
        self.system.files.append(path)
        lines = text.splitlines()
        stack: list[tuple[int, CallNode]] = []  # (indent, node)
        current_tree: CallNode | None = None
        schedule: Schedule | None = None
        last_define: str | None = None
        for no, raw in enumerate(lines, 1):
            if "\t" in raw[: len(raw) - len(raw.lstrip())]:
                self.fail(path, no, "indent with spaces, not tabs")
            line = _strip_comment(raw)
            if not line.strip():
                continue
            indent = len(line) - len(line.lstrip())
            body = line.strip()
            if indent == 0:
                stack, schedule, last_define, current_tree = [], None, None, None
                if body.startswith("define "):
                    self._define(body, path, no)
                    last_define = _DEFINE.match(body).group(1) if _DEFINE.match(body) else None
                elif body.startswith("schedule "):
                    schedule = self._schedule(body, path, no)
                elif body.startswith("tree "):
                    current_tree = self._tree(body, path, no)
                    stack = [(-1, current_tree)]
                else:
                    self.fail(path, no, f"expected 'define', 'schedule' or 'tree' at the margin, got '{body[:20]}'")
                continue
            if schedule is not None:
                m = _STEP.match(body)
                if not m:
                    self.fail(path, no, "a schedule holds 'step N \"meaning\" = constraint' lines")
                rest = m.group(2)
                meaning = _MEANING.search(rest)
                if "=" not in rest or not meaning:
                    self.fail(path, no, "a step needs a meaning in quotes and '= constraint'")
                schedule.steps.append((int(m.group(1)), meaning.group(1), rest.split("=", 1)[1].strip(), no, path))
                continue
            if last_define is not None and body.startswith(("note", "interpretation")):
                continue  # notes on definitions are for the reader
            if current_tree is None:
                self.fail(path, no, "indented line outside a tree, schedule or definition")
            dedent = stack[-1][0] > indent
            while stack and stack[-1][0] > indent:
                stack.pop()
            if stack and stack[-1][0] == indent and len(stack) > 1:
                stack.pop()  # a sibling of the call at this indentation
            elif dedent:
                self.fail(path, no, "indentation does not match any enclosing call")
            if not stack:
                self.fail(path, no, "indentation does not match any enclosing call")
            parent_indent, parent = stack[-1]
            m = _NODE.match(body)
            if m:
                node = self._node(parent, m, path, no)
                stack.append((indent, node))
                continue
            # an attribute line of the node at the top of the stack
            if parent is current_tree and parent_indent == -1 and not body.startswith(("covers", "note", "priority")):
                self.fail(path, no, f"expected a call, got '{body[:20]}'")
            self._attribute(parent, body, path, no)
        return None

    # ---------------------------------------------------------------- pieces
    def _define(self, body, path, no):
        m = _DEFINE.match(body)
        if not m:
            self.fail(path, no, "expected 'define name(params) = constraint'")
        name, params, text = m.group(1), m.group(2), m.group(3)
        if name in self.system.definitions:
            self.fail(path, no, f"'{name}' is defined twice")
        if name in FEATURES or name in SUIT_SETS or (len(name) == 1 and name in "SHDC"):
            self.fail(path, no, f"'{name}' is a built-in word of the language; choose another name")
        ps = tuple(p.strip() for p in params.split(",")) if params and params.strip() else ()
        try:
            tree = parse_tree(text)
        except ConstraintError as e:
            self.fail(path, no, str(e))
        self.system.definitions[name] = Definition(name, ps, tree, text)
        # check it resolves (with dummy suits for its parameters)
        env = {p: s for p, s in zip(ps, "SHDC", strict=False)}
        try:
            try:
                parse(text, self.system.definitions, env)
            except ConstraintError as first:
                try:
                    Builder(self.system.definitions).number(tree, env)
                except ConstraintError:
                    raise first from None
        except ConstraintError as e:
            del self.system.definitions[name]
            self.fail(path, no, f"in '{name}': {e}")

    def _schedule(self, body, path, no):
        m = _SCHEDULE.match(body)
        if not m:
            self.fail(path, no, "expected 'schedule name(params) \"meaning\" [source]'")
        rest = m.group(3)
        mm, ms = _MEANING.search(rest), _SOURCE.search(rest)
        sch = Schedule(m.group(1), tuple(p.strip() for p in m.group(2).split(",") if p.strip()),
                       mm.group(1) if mm else "", ms.group(1) if ms else "", [])
        if sch.name in self.system.schedules:
            self.fail(path, no, f"schedule '{sch.name}' is defined twice")
        self.system.schedules[sch.name] = sch
        return sch

    def _tree(self, body, path, no) -> CallNode:
        parts = body.split()
        if len(parts) < 2:
            self.fail(path, no, "expected 'tree NAME [CALL ...]'")
        root = self.system.roots.setdefault(parts[1], CallNode(call=parts[1], path=path, line=no))
        node = root
        for tok in parts[2:]:
            try:
                c = _canon_call(tok)
            except ValueError as e:
                self.fail(path, no, f"'{tok}' is not a call: {e}")
            if c not in node.children:
                self.fail(path, no, f"no call {' '.join(node.auction() + [c])} to attach to (define it first)")
            node = node.children[c]
        return node

    def _node(self, parent: CallNode, m, path, no) -> CallNode:
        try:
            call = _canon_call(m.group("call"))
        except ValueError as e:
            self.fail(path, no, f"'{m.group('call')}' is not a call: {e}")
        rest = m.group("rest")
        node = parent.children.get(call)
        if node is None:
            node = CallNode(call=call, parent=parent, path=path, line=no)
            parent.children[call] = node
        elif node.declared and (_MEANING.search(rest) or node.meaning == ""):
            if _MEANING.search(rest):
                self.fail(path, no, f"{' '.join(node.auction())} is already defined at {node.path}:{node.line}")
        node.declared = True
        mm = _MEANING.search(rest)
        if mm:
            node.meaning = mm.group(1)
            node.path, node.line = path, no
        ms = _SOURCE.search(rest)
        if ms:
            node.source = ms.group(1)
        words = _SOURCE.sub("", _MEANING.sub("", rest)).split()
        i = 0
        while i < len(words):
            w = words[i]
            if w == "undefined":
                node.status = "undefined"
            elif w == "trump" and i + 1 < len(words) and words[i + 1] in "SHDC":
                node.trump = words[i + 1]
                i += 1
            elif w == "relay":
                node.relay = True
            elif w in ("forcing", "interpretation"):
                pass
            else:
                self.fail(path, no, f"unexpected '{w}' after the call (meanings go in double quotes)")
            i += 1
        return node

    def _attribute(self, node: CallNode, body: str, path: str, no: int) -> None:
        if body.startswith("covers"):
            rule = self._rule(body[len("covers"):].strip(), path, no)
            if rule.formula is None:
                self.fail(path, no, "covers takes a constraint")
            node.covers.append(rule)
            return
        if body.startswith("="):
            node.rules.append(self._rule(body[1:].strip(), path, no))
            return
        if body.startswith("interpretation"):

            mm = _MEANING.search(body)
            if not mm:
                self.fail(path, no, 'expected interpretation "what was chosen and why"')
            node.interpretation = (node.interpretation + " " + mm.group(1)).strip()
            return
        if body.startswith("note"):
            return
        if body.startswith("priority"):
            m = re.match(rf'^priority\s+({_CALL})\s*>\s*({_CALL})\s*(.*)$', body)
            if not m:
                self.fail(path, no, 'expected priority CALL > CALL "why" [source]')
            why = _MEANING.search(m.group(3))
            src = _SOURCE.search(m.group(3))
            text = why.group(1) if why else f"{m.group(1)} before {m.group(2)}"
            text += f" [{src.group(1)}]" if src else ""
            node.priorities.append(((_canon_call(m.group(1)), _canon_call(m.group(2))), text))
            return
        if body.startswith("same as"):
            target = body[len("same as"):].split()
            if not target:
                self.fail(path, no, "expected 'same as CALL CALL ...' (a path from the opening)")
            self.pending_same.append((node, target, path, no))
            return
        m = _ANSWERS.match(body)
        if m:
            args = tuple(a.strip() for a in m.group(2).split(",") if a.strip())
            self.pending_answers.append((node, m.group(1), args, path, no))
            return
        self.fail(path, no, "expected a call, '= constraint', 'answers', 'note' or 'interpretation',"
                            f" got '{body[:25]}'")

    def _rule(self, text: str, path: str, no: int) -> Rule:
        """``CONSTRAINT``, ``when chair a..b: CONSTRAINT`` or ``denies siblings``."""
        when = None
        m = _WHEN.match(text)
        if m:
            lo = int(m.group(2))
            hi = int(m.group(3) or lo)
            when, text = (m.group(1), lo, hi), m.group(4)
        if text == "denies siblings":
            return Rule(text, when, None, no, path)
        try:
            formula = parse(text, self.system.definitions)
        except ConstraintError as e:
            self.fail(path, no, str(e))
        if formula == FALSE:
            self.fail(path, no, "this constraint can never hold")
        return Rule(text, when, formula, no, path)

    def _copy_children(self, src: CallNode, dst: CallNode) -> None:
        for call, child in src.children.items():
            if call in dst.children:
                continue  # a call written here keeps its own meaning
            twin = CallNode(call=child.call, meaning=child.meaning, source=child.source, status=child.status,
                            interpretation=child.interpretation, trump=child.trump, rules=list(child.rules),
                            covers=list(child.covers), relay=child.relay, parent=dst, path=child.path,
                            line=child.line, declared=child.declared)
            dst.children[call] = twin
            self._copy_children(child, twin)

    def finish(self) -> System:
        self._finish_answers()
        for node, target, path, no in self.pending_same:
            src = self.system.roots.get("opening")
            for tok in target:
                try:
                    c = _canon_call(tok)
                except ValueError as e:
                    self.fail(path, no, f"'{tok}' is not a call: {e}")
                if src is None or c not in src.children:
                    self.fail(path, no, f"'same as {' '.join(target)}': no such call in the tree")
                src = src.children[c]
            if src is node or node in _ancestors(src):
                self.fail(path, no, "'same as' cannot refer to the call itself or to a call above it")
            self._copy_children(src, node)
        return self.system

    def _finish_answers(self) -> None:
        for node, name, args, path, no in self.pending_answers:
            sch = self.system.schedules.get(name)
            if sch is None:
                self.fail(path, no, f"no schedule named '{name}'")
            if len(args) != len(sch.params):
                self.fail(path, no, f"'{name}' takes {len(sch.params)} suits, got {len(args)}")
            bad = [a for a in args if a not in SUIT_NAMES]
            if bad:
                self.fail(path, no, f"'{bad[0]}' is not a suit (answers take S, H, D or C)")
            env = dict(zip(sch.params, args, strict=True))
            last = Call.parse(node.call.strip("()"))
            if last.rank is None:
                self.fail(path, no, f"answers must follow a bid, not '{node.call}'")
            for step, meaning, text, sline, spath in sch.steps:
                if last.rank + step > 34:
                    self.fail(path, no, f"step {step} of '{name}' would be above 7N")
                call = _canon_call(str(Call.from_rank(last.rank + step)))
                child = node.children.get(call)
                if child is None:
                    child = CallNode(call=call, parent=node, path=path, line=no)
                    node.children[call] = child
                elif child.meaning:
                    where = " ".join(child.auction())
                    self.fail(path, no, f"{where} has its own meaning and is also step {step} of '{name}'")
                words = meaning
                for p, s in env.items():
                    words = words.replace("{" + p + "}", SUIT_NAMES[s])
                child.meaning = words
                child.source = child.source or sch.source
                try:
                    child.rules.append(Rule(text, None, parse(text, self.system.definitions, env), sline, spath))
                except ConstraintError as e:
                    self.fail(spath, sline, f"in step {step} of '{name}': {e}")


@dataclass
class Step:
    """One call of an auction read against the tree: ``node`` is the call's node (None off the
    tree), ``side`` "opening" for the side the tree describes, "defence" for the others, and
    "none" for passes before anyone has bid."""

    index: int
    seat: str
    call: str
    chair: int
    side: str
    node: CallNode | None


def walk(system: System, auction) -> tuple[list[Step], CallNode | None, str | None]:
    """Read every call of an auction against the tree.

    Returns the steps, the node whose children are the opening side's next calls (the root
    while nobody has bid), and the opener's seat (None while nobody has bid)."""
    seats = "NESW"
    root = system.root("opening")
    node: CallNode | None = root
    opener: str | None = None
    steps = []
    for i, call in enumerate(auction.calls):
        seat = auction.seat_of(i)
        name = str(call)
        chair = (seats.index(seat) - seats.index(auction.dealer)) % 4 + 1
        if opener is None:
            child = root.children.get(name)
            side = "none" if name == "P" else "opening"
            if name != "P":
                opener, node = seat, child
        elif seat in (opener, seats[(seats.index(opener) + 2) % 4]):
            child = node.children.get(name) if node is not None else None
            node, side = child, "opening"
        else:  # the defenders: an explicit (call) child keeps the opening side on the tree
            child = node.children.get(f"({name})") if node is not None else None
            side = "defence"
            if child is not None:
                node = child
            elif name != "P":
                node = None
        steps.append(Step(i, seat, name, chair, side, child))
    return steps, node, opener


def _ancestors(node: CallNode):
    while node.parent is not None:
        node = node.parent
        yield node


def builtin_dir():
    """The built-in system files: installed as the package ``canary_infer.constraints``, or
    ``constraints/`` beside the package when running from a source checkout."""
    try:
        return resources.files("canary_infer.constraints")
    except ModuleNotFoundError:
        return Path(__file__).resolve().parent.parent / "constraints"


def load_system(paths: list[str | Path] | None = None) -> System:
    """Load the system files (by default the built-in ``constraints/*.canary``)."""
    loader = _Loader()
    if paths is None:
        base = builtin_dir()
        files = sorted((p for p in base.iterdir() if p.name.endswith(".canary")), key=lambda p: p.name)
        for p in files:
            loader.load_text(p.read_text(encoding="utf-8"), f"constraints/{p.name}")
    else:
        for p in paths:
            p = Path(p)
            loader.load_text(p.read_text(encoding="utf-8"), str(p))
    return loader.finish()
