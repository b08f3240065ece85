"""What changed between two versions of a system: ``canary-infer diff-system OLD NEW``.

Both call trees are walked in parallel.  A call in one version only is *added* or *removed*
(the topmost such call, with the calls below it).  For a call in both, each chair it can be
made in is read as the inferencer reads it (``Inferencer.read`` on the auction that reaches it,
the opening made in chair 1, 2, 3 or 4); where its constraint differs, the hands that make the
call at that point (its constraint and the caller's earlier calls, exactly what ``infer`` says
of the caller after it) are solved in both versions and compared:

* *changed*: some hands make the call in one version and not in the other.  The report gives
  the HCP range and each suit's length range before and after, the patterns gained and lost,
  the exact number of hands gained and lost, and a typical hand of each
  (:func:`canary_infer.engine.witness.typical_hand`);
* *rewritten*: the constraint is written differently but the same hands make the call (a
  refactoring that kept the meaning);
* *reworded*: only the meaning in words or the source changed.

    >>> from canary_infer.system.model import load_text
    >>> old = load_text('''tree opening
    ...   1S  "spades"  [T1]
    ...       = S >= 5 and hcp >= 12''')
    >>> new = load_text('''tree opening
    ...   1S  "five spades"  [T1]
    ...       = S >= 5 and hcp >= 11''')
    >>> d = diff_systems(old, old)
    >>> d.same, d.counts()
    (True, {'changed': 0, 'rewritten': 0, 'reworded': 0, 'added': 0, 'removed': 0})
    >>> d = diff_systems(old, new)
    >>> change = d.changes[0].differences[0]  # 1S now takes the 11 HCP hands with five spades
    >>> d.counts()["changed"], change.chairs, change.gained > 0, change.lost
    (1, [1, 2, 3, 4], True, 0)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from canary_infer.bridge.auction import Auction, AuctionError
from canary_infer.deal.infer import Inferencer
from canary_infer.engine.tables import Result, solve
from canary_infer.engine.witness import typical_hand
from canary_infer.language.expr import TRUE, Node, conj, disj, negate
from canary_infer.system.model import CallNode, System
from canary_infer.tools.verify import auction_text

CHAIRS = (1, 2, 3, 4)


def _pat(p) -> str:
    return "-".join(map(str, p))


def _by_count(patterns: dict) -> list[str]:
    return [_pat(p) for p, _ in sorted(patterns.items(), key=lambda kv: (-kv[1], kv[0]))]


@dataclass
class Summary:
    """The hands that make a call at a point in one version: count, HCP and length ranges, patterns."""

    hands: int
    hcp: tuple[int, int] | None
    lengths: dict[str, tuple[int, int]] | None
    patterns: list[str]

    @classmethod
    def of(cls, res: Result) -> Summary:
        return cls(int(res.hands), res.hcp, res.lengths(), _by_count(res.patterns))

    def as_json(self) -> dict:
        return {"hands": self.hands, "hcp": list(self.hcp) if self.hcp else None,
                "lengths": {s: list(v) for s, v in self.lengths.items()} if self.lengths else None,
                "patterns": self.patterns}


@dataclass
class Difference:
    """A call's change in some chairs (those of the caller, 1 = dealer), where the same
    question is asked: ``auction`` is the one the numbers were computed for."""

    chairs: list[int]
    auction: str
    constraint_old: str
    constraint_new: str
    old: Summary
    new: Summary
    gained: int
    lost: int
    patterns_gained: list[str]
    patterns_lost: list[str]
    example_gained: str | None = None
    example_lost: str | None = None

    def as_json(self) -> dict:
        return {"chairs": self.chairs, "auction": self.auction,
                "constraint": {"old": self.constraint_old, "new": self.constraint_new},
                "hands": {"old": self.old.hands, "new": self.new.hands, "gained": self.gained, "lost": self.lost},
                "hcp": {"old": list(self.old.hcp) if self.old.hcp else None,
                        "new": list(self.new.hcp) if self.new.hcp else None},
                "lengths": {"old": self.old.as_json()["lengths"], "new": self.new.as_json()["lengths"]},
                "patterns": {"gained": self.patterns_gained, "lost": self.patterns_lost},
                "examples": {"gained": self.example_gained, "lost": self.example_lost}}


@dataclass
class CallChange:
    """A call in both versions whose constraint, meaning or source differs."""

    tree: str
    auction: str
    calls: list[str]
    meaning: tuple[str, str]
    source: tuple[str, str]
    defined: tuple[bool, bool]
    differences: list[Difference] = field(default_factory=list)
    rewritten_chairs: list[int] = field(default_factory=list)

    @property
    def kind(self) -> str:
        if self.differences:
            return "changed"
        return "rewritten" if self.rewritten_chairs else "reworded"

    def as_json(self) -> dict:
        out = {"tree": self.tree, "auction": self.auction, "calls": self.calls,
               "meaning": {"old": self.meaning[0], "new": self.meaning[1]},
               "source": {"old": self.source[0], "new": self.source[1]},
               "defined": {"old": self.defined[0], "new": self.defined[1]}}
        if self.kind == "changed":
            out["differences"] = [d.as_json() for d in self.differences]
        if self.kind != "reworded":
            out["rewritten_chairs"] = self.rewritten_chairs
        return out


@dataclass
class CallEntry:
    """A call in one version only (the topmost one; ``below`` lists the calls under it)."""

    tree: str
    auction: str
    calls: list[str]
    meaning: str
    source: str
    defined: bool
    constraint: str
    below: list[str] = field(default_factory=list)
    below_more: bool = False  # more calls lie below than ``below`` lists (it stops at BELOW_MOST)

    def as_json(self) -> dict:
        return {"tree": self.tree, "auction": self.auction, "calls": self.calls, "meaning": self.meaning,
                "source": self.source, "defined": self.defined, "constraint": self.constraint, "below": self.below,
                "below_more": self.below_more}


@dataclass
class SystemDiff:
    old: str
    new: str
    added: list[CallEntry] = field(default_factory=list)
    removed: list[CallEntry] = field(default_factory=list)
    changes: list[CallChange] = field(default_factory=list)

    def of_kind(self, kind: str) -> list[CallChange]:
        return [c for c in self.changes if c.kind == kind]

    def counts(self) -> dict[str, int]:
        return {"changed": len(self.of_kind("changed")), "rewritten": len(self.of_kind("rewritten")),
                "reworded": len(self.of_kind("reworded")), "added": len(self.added), "removed": len(self.removed)}

    @property
    def same(self) -> bool:
        """True if every call is made with the same hands in both versions (rewordings aside)."""
        return not (self.added or self.removed or self.of_kind("changed"))

    def as_json(self) -> dict:
        return {"old": self.old, "new": self.new, "same": self.same, "counts": self.counts(),
                "changed": [c.as_json() for c in self.of_kind("changed")],
                "rewritten": [c.as_json() for c in self.of_kind("rewritten")],
                "reworded": [c.as_json() for c in self.of_kind("reworded")],
                "added": [e.as_json() for e in self.added], "removed": [e.as_json() for e in self.removed],
                "error": None}


# --------------------------------------------------------------------------- reading a call
@dataclass(frozen=True)
class _Reading:
    """One call in one version, in one chair: its own constraint, and everything the caller has
    shown once he has made it."""

    chair: int
    auction: str
    defined: bool
    meaning: str
    own: Node
    shown: Node


def _calls(node: CallNode) -> list[str]:
    return node.auction()


def _name(tree: str, node: CallNode) -> tuple[str, list[str]]:
    calls = node.auction()
    if tree == "opening":
        return auction_text(node.lineage()), calls
    return f"tree {tree}: {' '.join(calls)}", calls


def _readings(inf: Inferencer, tree: str, node: CallNode) -> list[_Reading]:
    """The call read in each chair: the opening tree by the inferencer, on the auction that
    reaches the call with 0 to 3 passes first; other trees on the call's own constraint."""
    out = []
    if tree == "opening":
        for k in range(4):
            try:
                a = Auction.parse(auction_text(node.lineage(), " ".join(["P"] * k)))
            except AuctionError:
                break
            readings = inf.read(a, tree=True)
            last = readings[-1]
            if last.node is not None and _calls(last.node) != _calls(node):
                break  # the inferencer reads that auction to another call: fall back
            seat = a.seat_of(len(a.calls) - 1)
            chair = ("NESW".index(seat) - "NESW".index(a.dealer)) % 4 + 1
            own = last.formula if last.defined and last.formula is not None else TRUE
            out.append(_Reading(chair, str(a), last.defined, last.meaning, own, conj(inf.seat_formulas(readings,
                                                                                                        seat))))
        if len(out) == 4:
            return sorted(out, key=lambda r: r.chair)
    label = _name(tree, node)[0]
    out = []
    for chair in CHAIRS:
        own = node.constraint({"chair": chair}) if node.defined else TRUE
        out.append(_Reading(chair, label, node.defined, node.meaning, own, own))
    return out


def _text(f: Node) -> str:
    """A constraint as written out ("" for none)."""
    return "" if f == TRUE else str(f)


def _chairs(chairs: list[int]) -> str:
    if list(chairs) == list(CHAIRS):
        return "every chair"
    if len(chairs) == 1:
        return f"chair {chairs[0]}"
    if chairs == list(range(chairs[0], chairs[-1] + 1)):
        return f"chairs {chairs[0]}-{chairs[-1]}"
    return "chairs " + ", ".join(map(str, chairs))


# --------------------------------------------------------------------------- the walk
BELOW_MOST = 50  # the calls listed below an added or removed call, at most
Progress = Callable[[str], None]


class _Differ:
    def __init__(self, old: System, new: System, progress: Progress | None, example_seconds: float):
        self.old_inf, self.new_inf = Inferencer(old), Inferencer(new)
        self.progress = progress or (lambda msg: None)
        self.seconds = example_seconds
        self._solved: dict[tuple, Result] = {}
        self._applied: set[tuple] = set()

    def solve(self, f: Node, within: Result | None = None) -> Result:
        key = (f, id(within))
        if key not in self._solved:
            if within is not None and not within.patterns:
                self._solved[key] = within
            else:
                pats = list(within.patterns) if within is not None else None
                self._solved[key] = solve(f, patterns=pats)
        return self._solved[key]

    def entry(self, tree: str, node: CallNode, inf: Inferencer) -> CallEntry:
        auction, calls = _name(tree, node)
        r = _readings(inf, tree, node)[0]
        below = []
        stack = list(node.children.values())[::-1]
        while stack and len(below) < BELOW_MOST:  # a whole development can hold tens of thousands
            n = stack.pop()
            below.append(_name(tree, n)[0])
            stack.extend(list(n.children.values())[::-1])
        return CallEntry(tree, auction, calls, node.meaning, node.source, node.defined, _text(r.own), below,
                         bool(stack))

    def compare(self, tree: str, a: CallNode, b: CallNode) -> CallChange | None:
        auction, calls = _name(tree, a)
        ra, rb = _readings(self.old_inf, tree, a), _readings(self.new_inf, tree, b)
        change = CallChange(tree, auction, calls, (a.meaning, b.meaning), (a.source, b.source),
                            (a.defined, b.defined))
        groups: dict[tuple, list[tuple[_Reading, _Reading]]] = {}
        for x, y in zip(ra, rb, strict=True):
            if x.own != y.own or x.defined != y.defined:
                groups.setdefault((x.shown, y.shown), []).append((x, y))
        if groups:
            self.progress(auction)
        for (old_f, new_f), pairs in groups.items():
            chairs = [x.chair for x, _ in pairs]
            if old_f == new_f:
                change.rewritten_chairs += chairs
                continue
            gained_f, lost_f = conj([new_f, negate(old_f)]), conj([old_f, negate(new_f)])
            if not self.solve(disj([gained_f, lost_f])).consistent:  # one solve proves a rewriting
                change.rewritten_chairs += chairs
                continue
            old_r, new_r = self.solve(old_f), self.solve(new_f)
            gained, lost = self.solve(gained_f, new_r), self.solve(lost_f, old_r)
            x, y = pairs[0]
            d = Difference(chairs, x.auction, _text(x.own), _text(y.own), Summary.of(old_r), Summary.of(new_r),
                           int(gained.hands), int(lost.hands),
                           _by_count({p: c for p, c in new_r.patterns.items() if p not in old_r.patterns}),
                           _by_count({p: c for p, c in old_r.patterns.items() if p not in new_r.patterns}))
            for res, f, attr in ((gained, gained_f, "example_gained"), (lost, lost_f, "example_lost")):
                if res.consistent:
                    hand = typical_hand(f, res, time_limit=self.seconds)
                    setattr(d, attr, hand.pbn() if hand is not None else None)
            change.differences.append(d)
        change.rewritten_chairs.sort()
        if groups or change.meaning[0] != change.meaning[1] or change.source[0] != change.source[1]:
            return change
        return None

    def walk(self, tree: str, a: CallNode, b: CallNode, out: SystemDiff, dirty: bool = False) -> None:
        """Compare the calls below ``a`` and ``b``.  A call whose meaning, source and constraint in
        every chair are the same in both versions, below calls that are all the same too, is the
        same call (what the caller showed before it is too): only the others are read and solved.
        An applied block's continuations, the same at every point it stands at, are compared below
        the first such point (unless a change above makes them differ)."""
        calls = list(a.children) + [c for c in b.children if c not in a.children]
        chairs = CHAIRS if _by_chair(a) or _by_chair(b) else CHAIRS[:1]
        for call in calls:
            x, y = a.children.get(call), b.children.get(call)
            if y is None:
                out.removed.append(self.entry(tree, x, self.old_inf))
            elif x is None:
                out.added.append(self.entry(tree, y, self.new_inf))
            else:
                differs = dirty or x.defined != y.defined or any(
                    x.constraint({"chair": ch}) != y.constraint({"chair": ch}) for ch in chairs)
                if differs or x.meaning != y.meaning or x.source != y.source:
                    c = self.compare(tree, x, y)
                    if c is not None:
                        out.changes.append(c)
                if x.applied_key is not None and y.applied_key is not None and not differs:
                    key = (x.applied_key, y.applied_key)
                    if key in self._applied:
                        continue
                    self._applied.add(key)
                self.walk(tree, x, y, out, differs)


def _by_chair(parent: CallNode) -> bool:
    """Whether some call at this point has a line for some chairs only (the calls' constraints, a
    'denies' line's too, are otherwise the same in every chair)."""
    return any(t.kind == "chair" for c in parent.children.values() for r in c.rules for t in r.tests)


def diff_systems(old: System, new: System, old_label: str = "old", new_label: str = "new",
                 progress: Progress | None = None, example_seconds: float = 5.0) -> SystemDiff:
    """Every call added, removed or changed from one version of a system to another."""
    d = _Differ(old, new, progress, example_seconds)
    out = SystemDiff(old_label, new_label)
    trees = list(old.roots) + [t for t in new.roots if t not in old.roots]
    for tree in trees:
        a, b = old.roots.get(tree), new.roots.get(tree)
        if a is None or b is None:
            root = a or b
            inf = d.old_inf if b is None else d.new_inf
            for child in root.children.values():
                (out.removed if b is None else out.added).append(d.entry(tree, child, inf))
            continue
        d.walk(tree, a, b, out)
    return out


# --------------------------------------------------------------------------- text
def _range(r) -> str:
    if r is None:
        return "no hand"
    return str(r[0]) if r[0] == r[1] else f"{r[0]}-{r[1]}"


def _short(text: str, width: int = 160) -> str:
    text = text or "(nothing)"
    return text if len(text) <= width else text[: width - 1] + "…"


def _apart(old: str, new: str, width: int = 160, context: int = 40) -> tuple[str, str]:
    """Two long constraints cut to where they differ (with some context on each side).

    >>> _apart("a and " * 40 + "hcp >= 14 and b", "a and " * 40 + "hcp >= 13 and b", context=8)
    ('…hcp >= 14 and b', '…hcp >= 13 and b')
    """
    old, new = old or "(nothing)", new or "(nothing)"
    if len(old) <= width and len(new) <= width:
        return old, new
    pre = 0
    while pre < min(len(old), len(new)) and old[pre] == new[pre]:
        pre += 1
    suf = 0
    while suf < min(len(old), len(new)) - pre and old[-1 - suf] == new[-1 - suf]:
        suf += 1
    start = max(0, pre - context)
    while start > 0 and old[start - 1] != " ":  # begin at a word
        start -= 1

    def cut(text: str) -> str:
        end = min(len(text), len(text) - suf + context)
        out = ("…" if start > 0 else "") + text[start:end] + ("…" if end < len(text) else "")
        return _short(out, width)
    return cut(old), cut(new)


def _patterns(pats: list[str], most: int = 10) -> str:
    if not pats:
        return "none"
    more = f" … and {len(pats) - most} more" if len(pats) > most else ""
    return " ".join(pats[:most]) + more


def _example(pbn: str | None) -> str:
    from canary_infer.bridge.cards import Hand

    if pbn is None:
        return "(none found in time)"
    h = Hand.from_pbn(pbn)
    return f"{pbn}  ({h.hcp} HCP, {h.pattern})"


def _call_head(word: str, auction: str, meaning: str, source: str) -> str:
    src = f"  [{source}]" if source else ""
    return f"{word:<8} {auction}  \"{meaning}\"{src}" if meaning else f"{word:<8} {auction}{src}"


def render_text(diff: SystemDiff) -> str:
    c = diff.counts()
    lines = [f"From {diff.old}", f"  to {diff.new}:",
             f"  {c['changed']} changed (other hands make the call), {c['rewritten']} rewritten (same hands), "
             f"{c['reworded']} reworded, {c['added']} added, {c['removed']} removed"]
    if diff.same and not c["rewritten"] and not c["reworded"]:
        lines.append("  The two systems make every call with the same hands.")
    for ch in diff.of_kind("changed"):
        lines += ["", _call_head("changed", ch.auction, ch.meaning[1], ch.source[1])]
        if ch.meaning[0] != ch.meaning[1]:
            lines.append(f"    meaning was \"{ch.meaning[0]}\"")
        if ch.defined[0] != ch.defined[1]:
            lines.append(f"    {'now undefined (adds nothing)' if ch.defined[0] else 'was undefined, now defined'}")
        for d in ch.differences:
            where = _chairs(d.chairs) + (f", as in {d.auction}" if d.auction != ch.auction else "")
            lines.append(f"    in {where}:")
            before, after = _apart(d.constraint_old, d.constraint_new)
            lines.append(f"      constraint  {before}")
            lines.append(f"               -> {after}")
            lines.append(f"      hands       {d.old.hands:,} -> {d.new.hands:,}: "
                         f"{d.gained:,} gained, {d.lost:,} lost")
            lines.append(f"      HCP         {_range(d.old.hcp)} -> {_range(d.new.hcp)}")
            moved = []
            for s in "SHDC":
                lo = d.old.lengths[s] if d.old.lengths else None
                hi = d.new.lengths[s] if d.new.lengths else None
                if lo != hi:
                    moved.append(f"{s} {_range(lo)} -> {_range(hi)}")
            lines.append(f"      lengths     {', '.join(moved) if moved else 'unchanged'}")
            lines.append(f"      patterns    gained: {_patterns(d.patterns_gained)}")
            lines.append(f"                  lost:   {_patterns(d.patterns_lost)}")
            if d.gained:
                lines.append(f"      gained e.g. {_example(d.example_gained)}")
            if d.lost:
                lines.append(f"      lost e.g.   {_example(d.example_lost)}")
        if ch.rewritten_chairs:
            lines.append(f"    in {_chairs(ch.rewritten_chairs)}: rewritten, the same hands")
    for word, entries in (("added", diff.added), ("removed", diff.removed)):
        for e in entries:
            lines += ["", _call_head(word, e.auction, e.meaning, e.source) + ("" if e.defined else "  (undefined)")]
            if e.constraint:
                lines.append(f"    = {_short(e.constraint)}")
            if e.below:
                n = len(e.below)
                count = f"{n}+ calls" if e.below_more else f"{n} call{'s' if n > 1 else ''}"
                lines.append(f"    and {count} below it: {_patterns(e.below, 6)}")
    rewritten = diff.of_kind("rewritten")
    if rewritten:
        lines += ["", "rewritten (the constraint reads differently, the same hands make the call):"]
        lines += [f"  {ch.auction}  ({_chairs(ch.rewritten_chairs)})" for ch in rewritten]
    reworded = diff.of_kind("reworded")
    if reworded:
        lines += ["", "reworded (the same constraint):"]
        for ch in reworded:
            if ch.meaning[0] != ch.meaning[1]:
                lines.append(f"  {ch.auction}  \"{ch.meaning[0]}\" -> \"{ch.meaning[1]}\"")
            if ch.source[0] != ch.source[1]:
                lines.append(f"  {ch.auction}  source [{ch.source[0]}] -> [{ch.source[1]}]")
    return "\n".join(lines)
