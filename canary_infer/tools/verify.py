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

import gc
import os
import re
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
    # the lines of the files the finding is about: the two calls of an overlap, or the point and its
    # calls for a gap ((path, line, source) each), and the notes and interpretations they carry
    lines: list = field(default_factory=list)
    texts: list = field(default_factory=list)
    family: str = ""

    def as_json(self) -> dict:
        out = {"auction": self.auction, "calls": self.calls, "hand": self.hand, "patterns": self.patterns,
               "hands": self.hands}
        if self.family:
            out["family"] = self.family
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


def _patterns(res: Result, most: int = 12) -> list[str]:
    """A region's most frequent patterns first."""
    return [_pat(p) for p, _ in sorted(res.patterns.items(), key=lambda kv: -kv[1])[:most]]


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
        self.defer_witnesses = False
        self._deferred: dict[int, tuple] = {}

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
        calls = self.inf.read(a, tree=True)  # the tree as written: this point of it
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
        if self.defer_witnesses:  # one witness per family, found once they are grouped (check_system)
            f = Finding(auction, calls, None, [], int(res.hands), kind, **kw)
            self._deferred[id(f)] = (formula, res)
            return f
        return Finding(auction, calls, self.witness(formula, res), _patterns(res), int(res.hands), kind, **kw)

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
                gaps.append(self._finding("gap", auction, checked, f, res, note=note,
                                          **_about([node] + [c for c, _ in opts])))
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
                                              settled_by=why, **_about([node] + settling)))
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
                        settled_by=_priority(node, a.call, b.call), **_about([a, b], point=node)))
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

    def check_system(self, families: bool = True, loose_witnesses: bool = True, every_witness: bool = False,
                     workers: int | None = None) -> dict:
        """Gaps and overlaps at every point.  With ``families`` (the default), findings are grouped
        (:func:`group`) and only each family's first finding gets a witness hand, the others none
        (the same two lines of the files at every point a block stands: 70,000 witnesses were most
        of the time of a whole-system check); ``loose_witnesses=False`` finds none for families of
        overlaps with a call that states nothing about the hand (1,277 of the 1,856 families of the
        built-in system, which the report does not list by default); ``every_witness`` finds one
        for every finding (minutes on the whole system).  A large system's points and witnesses
        are shared among ``workers`` processes (by default one per core); the report is the same."""
        workers = _cores() if workers is None else workers
        self.defer_witnesses = families and not every_witness
        try:
            out = self._check_system(workers)
        finally:
            self.defer_witnesses = False
        if families:
            out["families"] = group(out["gaps"] + out["settled"] + out["overlaps"])
            wanted = []
            for fam in out["families"]:
                formula, res = self._deferred.get(id(fam.first), (None, None))
                if formula is not None and (loose_witnesses or not fam.unconstrained):
                    wanted.append((fam.first, formula, res))
            self._find_witnesses([(formula, res) for _, formula, res in wanted], workers)
            for first, formula, res in wanted:
                first.hand = self.witness(formula, res)
                first.patterns = _patterns(res)
        return out

    def fill_patterns(self, findings) -> None:
        """The patterns of every finding (check_system gives them to each family's first only)."""
        done: dict[int, list[str]] = {}  # by result: 70,000 findings of some 5,000 results (each kept alive)
        for f in findings:
            _, res = self._deferred.get(id(f), (None, None))
            if res is not None and not f.patterns:
                got = done.get(id(res))
                if got is None:
                    got = done[id(res)] = _patterns(res)
                f.patterns = list(got)

    def _check_system(self, workers: int = 1) -> dict:
        points = list(self._points())
        gaps: list[Finding] = []
        overlaps: list[Finding] = []
        for g, o in self._checked(points, workers):
            gaps += g
            overlaps += o
        settled = [g for g in gaps if g.settled_by]
        return {"nodes": len(points), "gaps": [g for g in gaps if not g.settled_by], "overlaps": overlaps,
                "settled": settled}

    def _points(self):
        """(node, prefix, cover, progress message) of every point check-system checks, in order."""
        root = self.system.root("opening")
        for prefix in ("", "P P"):  # the openings in 1st/2nd and in 3rd/4th chair
            chair = 1 if not prefix else 3
            yield root, prefix, root.domain({"chair": chair}), f"openings in chair {chair}"
        applied: set = set()  # a block attached by 'apply' is checked below its first call once (System.nodes)
        for tree in sorted(self.system.trees, key=lambda t: t != "opening"):  # ours, then over their openings
            start = self.system.root(tree)
            todo = [c for c in start.children.values() if tree != "opening" or c.call != "P"]
            while todo:
                n = todo.pop(0)
                if n.applied_key is not None:
                    if n.applied_key in applied:
                        continue
                    applied.add(n.applied_key)
                todo = [c for c in n.children.values()] + todo
                if len(self.options(n)) == 0:
                    continue
                yield n, "", TRUE if n.is_relay else n.domain({"chair": 1}), auction_text(n.lineage())

    def _checked(self, points: list, workers: int):
        """Each point's (gaps, overlaps), in order: here, or for a large system in ``workers``
        processes forked from this one, each a run of points at a time."""
        if workers <= 1 or len(points) < PARALLEL_POINTS:
            for node, prefix, cover, say in points:
                self.progress(say)
                g, o, _, _ = self.check_point(node, prefix, cover=cover)
                yield g, o
            return
        spans = _spans(len(points), workers * RUNS_PER_WORKER)
        for span, part in zip(spans, _forked(self, _check_run, spans, workers, points), strict=True):
            self.progress(points[span[0]][3])
            for g, o, deferred in part:
                for f, d in zip(g + o, deferred, strict=True):
                    if d is not None:
                        self._deferred[id(f)] = d
                yield g, o

    def _find_witnesses(self, wanted: list, workers: int) -> None:
        """Find the witnesses of :meth:`witness` for these (formula, result), each formula with its
        first result, in ``workers`` processes when there are many (each is found alone)."""
        first: dict = {}
        for formula, res in wanted:
            if formula not in self._witnesses and res.patterns:
                first.setdefault(formula, res)
        if workers <= 1 or len(first) < PARALLEL_WITNESSES:
            return  # found one by one as they are asked for
        todo = list(first.items())
        found = _forked(self, _witness_of, [(f, r, self.witness_seconds) for f, r in todo], workers)
        for (formula, _), hand in zip(todo, found, strict=True):
            self._witnesses[formula] = hand


PARALLEL_POINTS = 2000  # fewer points are checked in this process (forking costs more than it saves)
PARALLEL_WITNESSES = 40
RUNS_PER_WORKER = 8  # runs of neighbouring points (which share their questions) given out as workers free up
_FORKED: list = []  # (verifier, what it shares) a forked worker inherits: set only while its pool runs


def _cores() -> int:
    """The cores this process may use, or 1 where processes cannot be forked (Windows)."""
    import multiprocessing

    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _spans(n: int, parts: int) -> list[tuple[int, int]]:
    """``n`` items cut into at most ``parts`` runs of nearly equal length."""
    cuts = [n * i // parts for i in range(parts + 1)]
    return [(a, b) for a, b in zip(cuts, cuts[1:], strict=False) if b > a]


def _forked(verifier: Verifier, task, args: list, workers: int, shared=None) -> list:
    """``[task(a) for a in args]`` in ``workers`` processes forked from this one, where ``task``
    finds the verifier and ``shared`` in ``_FORKED`` (they inherit them unpickled, with the
    system's call tree as it stands and the questions answered so far)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    _FORKED.append((verifier, shared))
    gc.freeze()  # the workers' collections then leave the inherited objects (and their pages) alone
    try:
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            return list(pool.map(task, args))
    finally:
        gc.unfreeze()
        _FORKED.pop()


def _check_run(arg) -> list:
    """In a forked worker: check a run of points; each one's gaps, overlaps and their deferred
    (formula, result) for the witnesses."""
    start, stop = arg
    v, points = _FORKED[-1]
    v.progress = lambda msg: None
    out = []
    for node, prefix, cover, _ in points[start:stop]:
        g, o, _, _ = v.check_point(node, prefix, cover=cover)
        out.append((g, o, [v._deferred.get(id(f)) for f in g + o]))
    return out


def _witness_of(arg) -> str | None:
    """In a forked worker: the typical hand of :meth:`Verifier.witness` (PBN), or None."""
    formula, res, seconds = arg
    h = typical_hand(formula, res, time_limit=seconds)
    return h.pbn() if h is not None else None


def _about(nodes, point=None) -> dict:
    """The lines of the files behind a finding and the notes and interpretations they carry (and,
    for an overlap, the point's notes that leave its calls open)."""
    lines, texts = [], []
    for n in nodes:
        if n is None or n.parent is None and not n.path:
            continue
        lines.append((n.path, n.line, n.source))
        texts += list(n.notes) + list(n.interpretations())
    return {"lines": lines, "texts": texts + _left_open_here(point)}


NEXT_OPEN = "Next calls left open by the notes"
"""How a note at a point (on its call, under a tree's header, at the top of a block included
there) starts when it says the notes leave the order of the calls after it open."""


def _left_open_here(point) -> list[str]:
    if point is None:
        return []
    texts = list(point.notes) + [t for p in point.parts for blk, _ in point.system.included(p)
                                 for t in blk.body.notes]
    return [t for t in texts if t.startswith(NEXT_OPEN)]


# what marks a finding as the notes' own: the files cite the inventory's list of the notes'
# contradictions (section 29), or say in a note or interpretation that the notes leave it open
_ITEM = re.compile(r"section 29,? items? (\d+)")
_OPEN = re.compile(r"the notes (give no|do not say|say nothing|leave)|not said|left open|no order|"
                   r"notes' own (gap|overlap|contradiction)|the notes' words give", re.I)


@dataclass
class Family:
    """Findings of one kind about the same lines of the files (the same two calls wherever a block or
    a schedule puts them): one line of the report."""

    kind: str  # "gap" or "overlap"
    lines: list
    findings: list[Finding]
    verdict: str  # "settled", "left open by the notes" or "an encoding defect"
    why: str  # the rule that settles it, or the items and lines that leave it open
    items: list[int]

    @property
    def first(self) -> Finding:
        return self.findings[0]

    @property
    def count(self) -> int:
        return len(self.findings)

    @property
    def unconstrained(self) -> bool:
        return all(f.unconstrained for f in self.findings)

    def rule(self) -> str:
        """The lines of the files: an overlap's two calls; a gap's point (the call before its calls)."""
        if self.kind == "gap":
            return f"{self.lines[0][0]}:{self.lines[0][1]}" if self.lines and self.first.auction not in ("", "P P") \
                else "the openings"
        return " / ".join(f"{p}:{n}" for p, n, _ in self.lines)

    def as_json(self) -> dict:
        f = self.first
        return {"kind": self.kind, "id": f.family, "rule": self.rule(), "count": self.count,
                "verdict": self.verdict, "why": self.why, "items": self.items,
                "sources": sorted({src for _, _, src in self.lines if src}),
                "calls": f.calls, "unconstrained": self.unconstrained,
                "witness": {"auction": f.auction, "hand": f.hand, "patterns": f.patterns, "hands": f.hands},
                "auctions": [x.auction for x in self.findings[:20]]}


def group(findings: list[Finding]) -> list[Family]:
    """Findings grouped by kind and lines of the files, each family marked: *settled* (a 'priority'
    or 'unless' line of the files, named), *left open by the notes* (the files cite the notes'
    own contradiction, inventory section 29, or say the notes leave it open; with the notes'
    lines), else *an encoding defect*.  Largest families first within each verdict."""
    fams: dict[tuple, list[Finding]] = {}
    for f in findings:
        key = (f.kind, bool(f.settled_by), tuple(sorted((p, n) for p, n, _ in f.lines)) if f.kind == "overlap"
               else tuple((p, n) for p, n, _ in f.lines[:1]) + tuple(sorted(f.calls)))
        fams.setdefault(key, []).append(f)
    out = []
    for key, fs in fams.items():
        first = fs[0]
        texts = [t for f in fs[:1] for t in f.texts]
        items = sorted({int(m) for t in texts for m in _ITEM.findall(t)})
        sources = sorted({src for _, _, src in first.lines if src})
        if first.settled_by:
            verdict, why = "settled", first.settled_by
        elif items or any(_OPEN.search(t) for t in texts):
            verdict = "left open by the notes"
            why = (f"inventory section 29 item {', '.join(map(str, items))}; " if items else "") + \
                  "the notes' lines " + (", ".join(f"[{x}]" for x in sources) or "(none given)")
        else:
            verdict, why = "an encoding defect", ""
        out.append(Family(key[0], first.lines, fs, verdict, why, items))
    order = {"an encoding defect": 0, "left open by the notes": 1, "settled": 2}
    out.sort(key=lambda x: (order[x.verdict], x.unconstrained, -x.count))
    for i, fam in enumerate(out):
        for f in fam.findings:
            f.family = f"F{i + 1}"
    return out


def summary(r: dict) -> dict:
    """The counts a report starts with."""
    fams = r.get("families", [])
    by = {v: [f for f in fams if f.verdict == v] for v in ("an encoding defect", "left open by the notes", "settled")}
    return {"points": r["nodes"], "gaps": len(r["gaps"]), "overlaps": len(r["overlaps"]),
            "settled": len(r["settled"]), "families": len(fams),
            **{v.replace(" ", "_"): {"families": len(fs), "findings": sum(f.count for f in fs)}
               for v, fs in by.items()}}


def _same(a: str, b: str) -> bool:
    return Auction.parse(a).calls == Auction.parse(b).calls


def _priority(node: CallNode, a: str, b: str) -> str | None:
    """The rule in the files that settles an overlap between two calls, if any."""
    for pair, why in node.priorities:
        if {a, b} == set(pair):
            return f"{pair[0]} over {pair[1]}: {why}"
    return None
