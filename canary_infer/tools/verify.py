"""Proofs about the system: relays resolve shape, no hand falls between two calls or fits two.

Every check is exact (the DP engine decides it on all hands at once); each gap or overlap
comes with a concrete hand from the card-level CP-SAT model as a witness: a typical one, of
the region's most frequent pattern and its median HCP count.

* :func:`verify_relays` walks every relay tree: at each relay the describer's answers must
  cover every hand that reaches it (a *gap* is a hand that fits none) and no hand may fit two
  (an *overlap*); at each leaf it gives the exact patterns left, whether the shape is
  resolved, and the exact share of the tree's hands that end there.
* :func:`check_system` runs the overlap check at every point of the tree, and the coverage
  check wherever the calls are meant to cover all hands: answers to relays and schedules,
  and the points the files mark with ``covers`` (the openings).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import combinations

from canary_infer.bridge.auction import Auction
from canary_infer.deal.infer import Inferencer
from canary_infer.engine.tables import Result, solve
from canary_infer.engine.witness import typical_hand
from canary_infer.language.expr import TRUE, Node, conj, disj, negate
from canary_infer.system.model import CallNode

Progress = Callable[[str], None]


@dataclass
class Finding:
    """A gap (no call fits) or an overlap (two calls fit), with a witness hand."""

    auction: str
    calls: list[str]
    hand: str | None
    patterns: list[str]
    hands: int
    kind: str
    note: str = ""
    unconstrained: bool = False
    settled_by: str | None = None

    def as_json(self) -> dict:
        out = {"auction": self.auction, "calls": self.calls, "hand": self.hand, "patterns": self.patterns,
               "hands": self.hands}
        if self.kind == "overlap":
            out["unconstrained"] = self.unconstrained
            out["settled_by"] = self.settled_by
        elif self.settled_by:
            out["settled_by"] = self.settled_by
        if self.note:
            out["note"] = self.note
        return out


@dataclass
class Leaf:
    auction: str
    patterns: list[str]
    resolved: bool
    share: float
    hands: int

    def as_json(self) -> dict:
        return {"auction": self.auction, "patterns": self.patterns, "resolved": self.resolved,
                "share": round(self.share, 6), "hands": self.hands}


@dataclass
class TreeReport:
    start: str
    leaves: list[Leaf] = field(default_factory=list)
    gaps: list[Finding] = field(default_factory=list)
    overlaps: list[Finding] = field(default_factory=list)
    nodes: int = 0

    def as_json(self) -> dict:
        return {"start": self.start, "nodes": self.nodes, "leaves": [x.as_json() for x in self.leaves],
                "gaps": [x.as_json() for x in self.gaps], "overlaps": [x.as_json() for x in self.overlaps]}


class _ReadsAll:
    """Stands for any call at a point in ``Inferencer.call_context``: the context then holds what
    every call there may read (the HCP range shown, partner's long suits)."""

    relative = ("hcp",)
    reads_partner = True


_READS_ALL = _ReadsAll()


def _pat(p) -> str:
    return "-".join(map(str, p))


def auction_text(nodes: list[CallNode], prefix: str = "") -> str:
    """The auction of a tree path, with the opponents' passes put in: 2S P 2N P 3C."""
    calls = prefix.split() if prefix else []
    ours_last = False
    for n in nodes:
        if n.is_opponents:
            calls.append(n.call.strip("()"))
            ours_last = False
            continue
        if ours_last:
            calls.append("P")
        calls.append(n.call)
        ours_last = True
    return " ".join(calls)


class Verifier:
    def __init__(self, inferencer: Inferencer | None = None, progress: Progress | None = None,
                 witness_seconds: float = 10.0):
        self.inf = inferencer or Inferencer()
        self.system = self.inf.system
        self.progress = progress or (lambda msg: None)
        self.witness_seconds = witness_seconds
        self._results: dict[Node, Result] = {}
        self._restricted: dict[tuple, Result] = {}  # (formula, patterns) -> result: see solve_among
        self._witnesses: dict[Node, str | None] = {}

    # ------------------------------------------------------------------ helpers
    def solve(self, formula: Node, within: Result | None = None) -> Result:
        if formula in self._results:
            return self._results[formula]
        pats = list(within.patterns) if within is not None else None
        res = solve(formula, patterns=pats) if pats is None or pats else within
        self._results[formula] = res
        return res

    def reach(self, node: CallNode, prefix: str = "") -> tuple[Node, dict, str]:
        """For the player who chooses among a node's calls: his constraints so far, the context
        of his next call, and his seat (after our call the opponent's pass is put in)."""
        path = node.lineage()
        auction = auction_text(path, prefix)
        if path and not path[-1].is_opponents:
            auction += " P"
        a = Auction.parse(auction)
        calls = self.inf.read(a)
        seat = a.turn
        chair = (("NESW".index(seat) - "NESW".index(a.dealer)) % 4) + 1
        # what the calls read besides the hand, as inference reads it ('maximum'/'minimum': the
        # range shown so far; 'when partner long X'), so that the proofs and inference agree
        ctx = self.inf.call_context(calls, seat, chair, _READS_ALL)
        return conj(self.inf.seat_formulas(calls, seat)), ctx, seat

    def solve_among(self, formula: Node, patterns) -> Result:
        """The formula's result among some patterns, solved once: the tree repeats itself ('same as',
        schedules), so check-system asks the same overlap question many times (700 solves of 175
        distinct questions)."""
        key = (formula, frozenset(patterns))
        hit = self._restricted.get(key)
        if hit is None:
            full = self._results.get(formula)
            if full is not None and set(full.patterns) <= key[1]:
                return full  # the restriction leaves out no pattern the formula allows
            hit = self._restricted[key] = solve(formula, patterns=sorted(patterns))
        return hit

    def witness(self, formula: Node, result: Result) -> str | None:
        """A typical hand (PBN) satisfying the formula (once per formula): of the region's most frequent
        pattern and with the median HCP count of the region's hands of that pattern (see
        :func:`canary_infer.engine.witness.typical_hand`), found by CP-SAT."""
        if not result.patterns:
            return None
        if formula not in self._witnesses:
            h = typical_hand(formula, result, time_limit=self.witness_seconds)
            self._witnesses[formula] = h.pbn() if h is not None else None
        return self._witnesses[formula]

    def _finding(self, kind, auction, calls, formula, res, **kw) -> Finding:
        pats = [_pat(p) for p, _ in sorted(res.patterns.items(), key=lambda kv: -kv[1])]
        return Finding(auction, calls, self.witness(formula, res), pats[:12], int(res.hands), kind, **kw)

    def options(self, node: CallNode) -> list[CallNode]:
        return [c for c in node.children.values() if not c.is_opponents and c.defined]

    # ------------------------------------------------------------------ the two checks
    def check_point(self, node: CallNode, prefix: str = "", cover: Node | None = None,
                    overlaps: bool = True) -> tuple[list[Finding], list[Finding], Result, list]:
        """Gaps (if ``cover`` is given: those hands must all fit some call) and overlaps at a node."""
        auction = auction_text(node.lineage(), prefix)
        reach, ctx, _ = self.reach(node, prefix)
        base = self.solve(reach)
        # without what 'priority' lines add: an overlap the files settle stays visible, marked
        opts = [(c, c.constraint(ctx, priorities=False)) for c in self.options(node)]
        gaps: list[Finding] = []
        found_overlaps: list[Finding] = []
        if cover is not None and base.consistent:
            real = [f for c, f in opts if not (c.call == "P" and any(r.formula is None for r in c.rules))]
            f = conj([reach, cover, negate(disj(real))])
            res = self.solve(f, base)
            if res.consistent:
                note = "" if opts else "no call is encoded here"
                checked = [c.call for c, _ in opts
                           if not (c.call == "P" and any(r.formula is None for r in c.rules))]
                gaps.append(self._finding("gap", auction, checked, f, res, note=note))
            settling = [c for c, _ in opts if c.settles]
            if settling:  # hands only an 'unless' clause of the files gives a call: the notes' own gap
                strict = [c.constraint(ctx, priorities=False, settled=False) for c, _ in opts
                          if not (c.call == "P" and any(r.formula is None for r in c.rules))]
                fs = conj([reach, cover, negate(disj(strict)), disj(real)])
                res = self.solve(fs, base)
                if res.consistent:
                    why = "; ".join(f"{c.call}: {w}" for c in settling for w in c.settles)
                    gaps.append(self._finding("gap", auction, [c.call for c in settling], fs, res,
                                              note="the notes' words give these hands no call",
                                              settled_by=why))
        if overlaps and base.consistent:
            each = {c.call: self.solve(conj([reach, f]), base) for c, f in opts}
            for (a, fa), (b, fb) in combinations(opts, 2):
                ra, rb = each[a.call], each[b.call]
                common = set(ra.patterns) & set(rb.patterns)
                if not common:
                    continue
                f = conj([reach, fa, fb])
                res = self.solve_among(f, common)
                if res.consistent:
                    found_overlaps.append(self._finding(
                        "overlap", auction, [a.call, b.call], f, res,
                        unconstrained=(fa == TRUE or fb == TRUE),
                        settled_by=_priority(node, a.call, b.call)))
        return gaps, found_overlaps, base, opts

    def relay_trees(self, starts: list[str] | None = None) -> list[TreeReport]:
        roots = [n for n in self.system.nodes() if n.is_relay and not any(
            a.is_relay for a in n.lineage()[:-1])]
        reports = []
        for r in roots:
            start = auction_text(r.lineage())
            if starts and not any(_same(start, s) for s in starts):
                continue
            self.progress(f"relays from {start}")
            rep = TreeReport(start)
            reach, _, _ = self.reach(r)
            total = self.solve(reach).hands
            self._walk(r, rep, total)
            reports.append(rep)
        return reports

    def _walk(self, relay: CallNode, rep: TreeReport, total: float) -> None:
        rep.nodes += 1
        gaps, overlaps, base, opts = self.check_point(relay, cover=TRUE)
        rep.gaps += gaps
        rep.overlaps += overlaps
        reach, _, _ = self.reach(relay)
        for answer, f in opts:
            nxt = [c for c in answer.children.values() if c.is_relay and not c.is_opponents]
            if nxt:
                for r in nxt:
                    self._walk(r, rep, total)
                continue
            res = self.solve(conj([reach, f]), base)
            pats = [_pat(p) for p, _ in sorted(res.patterns.items(), key=lambda kv: -kv[1])]
            rep.leaves.append(Leaf(auction_text(answer.lineage()), pats, len(pats) == 1,
                                   res.hands / total if total else 0.0, int(res.hands)))

    def check_system(self) -> dict:
        nodes = 0
        gaps: list[Finding] = []
        overlaps: list[Finding] = []
        root = self.system.root("opening")
        for prefix in ("", "P P"):  # the openings in 1st/2nd and in 3rd/4th chair
            chair = 1 if not prefix else 3
            self.progress(f"openings in chair {chair}")
            g, o, _, _ = self.check_point(root, prefix, cover=root.domain({"chair": chair}))
            gaps += g
            overlaps += o
            nodes += 1
        todo = [c for c in root.children.values() if c.call != "P"]
        applied: set = set()  # a block attached by 'apply' is checked below its first call once (System.nodes)
        while todo:
            n = todo.pop(0)
            if n.applied_key is not None:
                if n.applied_key in applied:
                    continue
                applied.add(n.applied_key)
            todo = [c for c in n.children.values()] + todo
            if len(self.options(n)) == 0:
                continue
            nodes += 1
            self.progress(f"{auction_text(n.lineage())}")
            cover = TRUE if n.is_relay else n.domain({"chair": 1})
            g, o, _, _ = self.check_point(n, cover=cover)
            gaps += g
            overlaps += o
        settled = [g for g in gaps if g.settled_by]
        return {"nodes": nodes, "gaps": [g for g in gaps if not g.settled_by], "overlaps": overlaps,
                "settled": settled}


def _same(a: str, b: str) -> bool:
    return Auction.parse(a).calls == Auction.parse(b).calls


def _priority(node: CallNode, a: str, b: str) -> str | None:
    """The rule in the files that settles an overlap between two calls, if any."""
    for pair, why in node.priorities:
        if {a, b} == set(pair):
            return f"{pair[0]} over {pair[1]}: {why}"
    return None
