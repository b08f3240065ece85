"""What the explain command, the web page and the notebooks show: one seat's picture, the
words of a call, and example deals.

Everything they show of a seat goes through :func:`seat_picture`, and every example deal
through :func:`example_deals`.  A picture is the deal's: its ranges and patterns are the
deal-level engine's (every bound and pattern attained by a deal consistent with every
seat's calls and your hand), and so are its probabilities, when the inference was asked
for them (``infer(auction, known, prob=True, joint=True)``):

* *exact* (``scope`` ``"exact"``) when at most one unseen seat's calls constrain it: the
  share of each pattern, length or HCP total among all the deals consistent with the
  auction (and your hand), from exact integer counts of those deals;
* *estimated* (``"estimated"``) when two or more unseen seats are constrained: the shares
  among ``samples`` deals drawn uniformly from the consistent ones by the exact sampler,
  each with its standard error.

Where no deal fits every call (or the inference has no probabilities), the probabilities
fall back to each seat alone against the unseen cards (``"single-seat"``), and say so.
:func:`scope_note` says in words what a page's probabilities are.

    >>> from canary_infer.bridge.auction import Auction
    >>> from canary_infer.deal.infer import Inferencer
    >>> inf = Inferencer()
    >>> result = inf.infer(Auction.parse("2S P 2N P 3C"), prob=True, joint=True)
    >>> pic = seat_picture(inf, result, "N")
    >>> pic["scope"], pic["hcp"], [p["pattern"] for p in pic["patterns"]][:2]
    ('exact', [11, 16], ['5-3-1-4', '5-4-0-4'])
    >>> sum(p["count"] for p in pic["patterns"]) == pic["deals"], round(sum(p["p"] for p in pic["patterns"]), 12)
    (True, 1.0)
    >>> scope_note([pic])[:60]
    'exact: the share of each among all 69,703,634,629,943,622,64'
"""

from __future__ import annotations

import math
import random
import time
from functools import lru_cache

import numpy as np

from canary_infer.bridge.auction import SEATS
from canary_infer.bridge.cards import RANKS, SUITS, Deal, Hand
from canary_infer.caches import Bounded
from canary_infer.engine.tables import Available, build_table, make_plan, vector
from canary_infer.language.expr import TRUE, conj, disj, evaluate, negate
from canary_infer.language.words import definition_names, say

EXACT, ESTIMATED, SINGLE = "exact", "estimated", "single-seat"  # a picture's scope
SAMPLES = 2000
"""Deals drawn where the teaching views' probabilities are estimated (two or more unseen
seats constrained): the deal-level engine draws this many anyway for its witnesses, so
they cost nothing more, and a share's standard error is at most 1.1 percentage points."""


def scope_note(pictures, known: bool = False, auction: str = "the auction", count=None) -> str:
    """What the probabilities of these pictures are, in words (``known``: with your hand;
    ``count`` writes a number of deals, by default exactly with thousands separators)."""
    count = count or "{:,}".format
    hand = " and your hand" if known or any(p.get("known") for p in pictures) else ""
    pictures = [p for p in pictures if p.get("consistent") and not p.get("known")]
    scopes = {p["scope"] for p in pictures}
    both = EXACT in scopes and ESTIMATED in scopes
    parts = []
    if EXACT in scopes:
        deals = {p["deals"] for p in pictures if p["scope"] == EXACT}
        many = f"all {count(deals.pop())} deals" if len(deals) == 1 else "all the deals"
        where = " where at most one unseen seat's calls constrain it" if both else ""
        parts.append(f"exact: the share of each among {many} consistent with {auction}{hand}{where}")
    if ESTIMATED in scopes:
        n = {p["samples"] for p in pictures if p["scope"] == ESTIMATED}
        many = f"{n.pop():,} deals" if len(n) == 1 else "deals"
        where = " where two or more are constrained" if both else ""
        parts.append(f"estimated{where} from {many} drawn uniformly by the exact sampler from all the deals "
                     f"consistent with {auction}{hand}; ± is one standard error")
    if SINGLE in scopes:
        parts.append("each seat alone (no deal fits every call): its own calls against the cards you cannot see")
    return "; ".join(parts) if parts else "none: no hand fits"


def _avail(known) -> Available:
    return Available.excluding(known[1]) if known else Available()


@lru_cache(maxsize=256)
def _hcp_counts(formulas: tuple, avail: Available, patterns: tuple | None) -> tuple[float, ...]:
    """Number of hands with each HCP total (0..37) that satisfy every formula."""
    formula = conj(formulas) if formulas else TRUE
    plan, rewritten = make_plan(formula)
    table = build_table(plan, avail, list(patterns) if patterns else None)
    mask = np.ones(len(table.rows), bool) if rewritten == TRUE else vector(rewritten, table)
    hcp = table.rows[mask][:, plan.index[("hcp", None)]]
    counts = np.bincount(hcp, weights=table.counts[mask], minlength=38)
    return tuple(float(x) for x in counts[:38])


def seat_picture(inferencer, inference, seat: str, known: tuple[str, Hand] | None = None,
                 histogram: bool = True) -> dict:
    """One seat's picture after an auction: ranges, patterns with probabilities, HCP histogram.

    ``inference`` is ``inferencer.infer(auction, known, prob=True, joint=True)`` (without
    ``prob`` the probabilities are each seat's alone, ``scope`` ``"single-seat"``).  Keys:
    ``seat``, ``consistent``, ``known`` (your own hand), ``hcp`` and ``lengths`` (exact
    ranges), ``patterns`` (every pattern left, most frequent first, each ``{"pattern", "p",
    "count"}``, plus ``"se"`` when estimated), ``hcp_dist`` (``{hcp: p}``; with
    ``histogram``), ``length_dist`` (``{suit: {n: p}}``), ``scope`` (``"exact"``,
    ``"estimated"`` or ``"single-seat"``), ``deals`` (the exact number of consistent deals
    the counts are out of, when exact), ``samples`` (the deals drawn, when estimated),
    ``standard_errors`` (``{"patterns": {pattern: se}, "lengths": {suit: {n: se}}, "hcp":
    {hcp: se}}`` when estimated, else None), ``hands`` (how many hands fit the seat's own
    calls) and ``conflict`` (positions of calls that contradict each other, when nothing
    fits).  Counts are exact Python integers.
    """
    got = inference.hands[seat]
    pic = {"seat": seat, "consistent": got.consistent, "known": got.known, "scope": EXACT,
           "hcp": list(got.hcp) if got.hcp else None,
           "lengths": {s: list(v) for s, v in got.lengths.items()} if got.lengths else None,
           "hands": int(got.hands), "patterns": [], "hcp_dist": {}, "length_dist": {},
           "deals": None, "samples": None, "standard_errors": None, "conflict": got.conflict,
           "breaks": got.breaks, "no_deal_because": got.no_deal_because}
    if got.known:  # your own hand, whether or not it fits your calls
        hand = known[1] if known else got.hand
        pic["hand"] = hand.pbn()
        pic["hcp"] = [hand.hcp, hand.hcp]
        pic["lengths"] = {s: [hand.length(s)] * 2 for s in SUITS}
        pic["patterns"] = [{"pattern": hand.pattern, "p": 1.0, "count": 1}]
        pic["hcp_dist"] = {hand.hcp: 1.0}
        pic["length_dist"] = {s: {hand.length(s): 1.0} for s in SUITS}
        return pic
    if not got.consistent:
        return pic
    d = got.distribution
    if d is None or not d.total:
        return _single_seat(pic, inferencer, inference, seat, known, histogram)
    total = d.total
    counts = d.patterns
    order = list(got.patterns) + [p for p in counts if p not in set(got.patterns)]
    ranked = sorted(order, key=lambda p: -counts.get(p, 0))  # stable: the engine's order among equals
    pic["patterns"] = [{"pattern": p, "p": counts.get(p, 0) / total, "count": int(counts.get(p, 0))} for p in ranked]
    pic["length_dist"] = {s: {n: c / total for n, c in d.lengths[s].items()} for s in SUITS}
    if histogram:
        pic["hcp_dist"] = {h: c / total for h, c in sorted(d.hcp.items())}
    if d.exact:
        pic["deals"] = int(total)
        return pic
    pic["scope"], pic["samples"] = ESTIMATED, int(total)

    def se(c):
        q = c / total
        return math.sqrt(q * (1 - q) / total)

    for pt in pic["patterns"]:
        pt["se"] = se(pt["count"])
    pic["standard_errors"] = {"patterns": {pt["pattern"]: pt["se"] for pt in pic["patterns"]},
                              "lengths": {s: {n: se(c) for n, c in d.lengths[s].items()} for s in SUITS},
                              "hcp": {h: se(c) for h, c in sorted(d.hcp.items())} if histogram else {}}
    return pic


def _single_seat(pic: dict, inferencer, inference, seat: str, known, histogram: bool) -> dict:
    """The probabilities of the seat alone: its calls against the unseen cards (where no deal
    fits every call, or the inference was not asked for probabilities)."""
    got = inference.hands[seat]
    pic["scope"] = SINGLE
    avail = _avail(known)
    formulas = inferencer.seat_formulas(inference.calls, seat)
    res = inferencer._solve_chain(formulas, avail)
    total = res.hands
    allowed = set(got.patterns)
    ranked = sorted(((p, c) for p, c in res.patterns.items() if "-".join(map(str, p)) in allowed),
                    key=lambda kv: (-kv[1], kv[0]))
    pic["patterns"] = [{"pattern": "-".join(map(str, p)), "p": c / total, "count": int(c)} for p, c in ranked]
    for i, s in enumerate(SUITS):
        dist: dict[int, float] = {}
        for p, c in res.patterns.items():
            dist[p[i]] = dist.get(p[i], 0.0) + c / total
        pic["length_dist"][s] = dict(sorted(dist.items()))
    if histogram:
        counts = _hcp_counts(formulas, avail, tuple(sorted(res.patterns)))
        pic["hcp_dist"] = {k: c / total for k, c in enumerate(counts) if c}
    return pic


# ------------------------------------------------------------------ calls in words
_NAMES: Bounded[int, tuple] = Bounded(8)  # by the system's id; the entry keeps the system alive


def _names(system) -> dict:
    hit = _NAMES.get(id(system))
    if hit is None or hit[0] is not system:
        hit = _NAMES[id(system)] = (system, definition_names(system))
    return hit[1]


def _denied(node, ctx, memo: dict | None = None) -> list[str] | None:
    """The sibling calls a call's constraint denies, if it is exactly "none of the others"
    (``memo``: a dict kept across calls, holding each point's calls and their constraints)."""
    parent = getattr(node, "parent", None)
    if parent is None:
        return None
    if memo is not None and not any(r.kind == "denies" for r in node.rules):
        return None  # only a 'denies' line makes a constraint "none of the others" (an export asks 50,000 times)
    key = ("sibs", id(parent), ctx.get("chair"))
    here = memo.get(key) if memo is not None else None
    if here is None:
        here = [(c, c.constraint(ctx)) for c in parent.children.values() if c.defined and not c.is_opponents]
        if memo is not None:
            memo[key] = here
    sibs = [(c, f) for c, f in here if c is not node]
    if not sibs:
        return None
    if node.constraint(ctx) == negate(disj([f for _, f in sibs])):
        return [c.call for c, _ in sibs]
    return None


def call_words(system, node, chair: int | None = None, memo: dict | None = None) -> str:
    """A call's constraint in plain words, for one chair (1 = dealer) or, with ``chair``
    None, for every chair (chair-dependent parts are then said per chair).  ``memo``, a dict
    kept across calls of the same system (an export of the whole tree), saves saying the
    same constraint twice."""
    names = _names(system)

    def words(f) -> str:
        if memo is None:
            return say(f, names)
        hit = memo.get(("say", f))
        if hit is None:
            hit = memo[("say", f)] = say(f, names)
        return hit

    def one(ch):
        ctx = {"chair": ch}
        denied = _denied(node, ctx, memo)
        if denied:
            return "none of the other calls here (" + " ".join(denied) + ")"
        f = node.constraint(ctx)
        return "" if f == TRUE else words(f)

    if chair is not None:
        return one(chair)
    chairs = (1, 2, 3, 4)
    texts = [one(ch) for ch in chairs]
    if len(set(texts)) == 1:
        return texts[0]
    if any(_denied(node, {"chair": ch}, memo) for ch in chairs):
        return "; ".join(f"in chair {ch}: {t or 'nothing about the hand'}" for ch, t in zip(chairs, texts, strict=True))
    # what every chair shares, then what some chairs add
    parts_of = {ch: _conjuncts(node.constraint({"chair": ch})) for ch in chairs}
    common = [p for p in parts_of[1] if all(p in parts_of[ch] for ch in chairs)]
    groups: dict = {}
    for ch in chairs:
        extra = tuple(p for p in parts_of[ch] if p not in common)
        groups.setdefault(extra, []).append(ch)
    out = [words(conj(common))] if common else []
    for extra, chs in groups.items():
        if extra:
            where = f"chair {chs[0]}" if len(chs) == 1 else (f"chairs {chs[0]}-{chs[-1]}"
                                                            if chs == list(range(chs[0], chs[-1] + 1))
                                                            else "chairs " + ", ".join(map(str, chs)))
            out.append(f"in {where} also: {words(conj(list(extra)))}")
    return "; ".join(out)


def _conjuncts(f) -> list:
    from canary_infer.language.expr import And

    return list(f.items) if isinstance(f, And) else ([] if f == TRUE else [f])


# ------------------------------------------------------------------ example deals
def _fits(formulas, hand) -> bool:
    return all(evaluate(f, hand) for f in formulas)


def _joint_of(inferencer, inference, known):
    """The deal-level engine (a :class:`canary_infer.deal.joint.Joint`) the inferencer built for
    this inference with probabilities, if it still holds it: drawing from it costs only the
    draw, where a new one would build its tables and prove its bounds again."""
    joints = getattr(inferencer, "_joints", None)
    if joints is None:
        return None
    formulas = tuple(inferencer.seat_formulas(inference.calls, s) for s in SEATS)
    try:
        return joints.get((formulas, known, True))
    except TypeError:  # unhashable: not a key the inferencer keeps
        return None


def example_deals(inferencer, inference, n: int = 4, seed: int = 1, known: tuple[str, Hand] | None = None,
                  time_limit: float = 3.0) -> list[Deal]:
    """Up to ``n`` deals drawn uniformly from all deals that fit every seat's calls.

    From the deal-level engine the inference used when the inferencer still holds it (an
    inference asked with ``prob``), else from a new one (:func:`canary_infer.deal.dealing.deal`).

    The method: the most constrained seat's hand is drawn uniformly from the hands that
    fit its calls (a pattern by its exact count, then that pattern's cards at random,
    kept only if the exact evaluator says the calls fit); the other cards are dealt at
    random and the deal is kept only if every seat's calls fit.  Each deal that fits has
    the same chance.  Fewer than ``n`` come back if ``time_limit`` seconds run out.
    """
    joint = _joint_of(inferencer, inference, known)
    if joint is not None:  # the inference's own deal-level engine, its tables and proofs already built
        if not all(h.consistent for h in inference.hands.values()):
            return []
        from canary_infer.deal.deck import deal_of

        return [deal_of(row) for row in joint.sample(n, np.random.default_rng(seed), time_limit=time_limit)]
    try:  # the exact dealer of the deal-level engine (canary_infer.deal.dealing), built suit by suit
        from canary_infer.deal.dealing import deal

        return list(deal(inference.auction, n, seed=seed, known=known, inferencer=inferencer,
                         time_limit=time_limit).deals)
    except (ValueError, MemoryError):
        pass  # formulas too wide for its tables: the simple sampler below
    rng = random.Random(seed)
    formulas = {s: inferencer.seat_formulas(inference.calls, s) for s in SEATS}
    avail = _avail(known)
    if known and not _fits(formulas[known[0]], known[1]):
        return []
    free = [s for s in SEATS if not (known and s == known[0])]
    results = {s: inferencer._solve_chain(formulas[s], avail) for s in free}
    if any(not r.consistent for r in results.values()):
        return []
    pivot = min(free, key=lambda s: (results[s].hands, SEATS.index(s)))
    unseen = [(s, r) for s in SUITS for r in RANKS if not (known and (s, r) in known[1].cards)]
    by_suit = {s: [c for c in unseen if c[0] == s] for s in SUITS}
    pats = list(results[pivot].patterns.items())
    weights = [c for _, c in pats]
    deadline = time.monotonic() + time_limit
    out: list[Deal] = []
    while len(out) < n and time.monotonic() < deadline:
        pattern = rng.choices([p for p, _ in pats], weights)[0]
        hand = None
        while time.monotonic() < deadline:
            cards = [c for s, k in zip(SUITS, pattern, strict=True) for c in rng.sample(by_suit[s], k)]
            h = Hand(cards)
            if _fits(formulas[pivot], h):
                hand = h
                break
        if hand is None:
            break
        rest = [c for c in unseen if c not in hand.cards]
        rng.shuffle(rest)
        hands = {pivot: hand}
        if known:
            hands[known[0]] = known[1]
        others = [s for s in free if s != pivot]
        for k, s in enumerate(others):
            hands[s] = Hand(rest[13 * k:13 * k + 13])
        if all(_fits(formulas[s], hands[s]) for s in others):
            out.append(Deal(hands))
    return out
