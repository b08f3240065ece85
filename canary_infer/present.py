"""What the explain command, the web page and the notebooks show: one seat's picture, the
words of a call, and example deals.

Everything they show of a seat goes through :func:`seat_picture`, and every example deal
through :func:`example_deals`, so that the deal-level engine can take their place in one
spot each.  Today a picture is *single-seat*: each seat is solved alone against the
unseen cards (the other seats' calls are not taken into account), and its probabilities
are the shares of those hands.

    >>> from canary_infer.auction import Auction
    >>> from canary_infer.infer import Inferencer
    >>> inf = Inferencer()
    >>> result = inf.infer(Auction.parse("2S P 2N P 3C"))
    >>> pic = seat_picture(inf, result, "N")
    >>> pic["hcp"], [p["pattern"] for p in pic["patterns"]][:2]
    ([11, 16], ['5-3-1-4', '5-4-0-4'])
    >>> round(sum(p["p"] for p in pic["patterns"]), 9)
    1.0
"""

from __future__ import annotations

import random
import time
from functools import lru_cache

import numpy as np

from .auction import SEATS
from .cards import RANKS, SUITS, Deal, Hand
from .engine import Available, build_table, make_plan, vector
from .expr import TRUE, conj, disj, evaluate, negate
from .words import definition_names, say

SCOPE = "single-seat"
SCOPE_NOTE = ("each seat alone: its own calls against the cards you cannot see (the other seats' calls are not "
              "yet taken into account)")


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

    ``inference`` is ``inferencer.infer(auction, known)``.  Keys: ``seat``, ``consistent``,
    ``known`` (your own hand), ``hcp`` and ``lengths`` (exact ranges), ``patterns`` (every
    pattern left, most frequent first, each ``{"pattern", "p", "count"}``), ``hcp_dist``
    (``{hcp: p}``; with ``histogram``), ``length_dist`` (``{suit: {n: p}}``), ``hands``
    (how many hands fit), ``scope`` (what the probabilities are about) and ``conflict``
    (positions of calls that contradict each other, when nothing fits).
    """
    got = inference.hands[seat]
    pic = {"seat": seat, "consistent": got.consistent, "known": got.known, "scope": SCOPE,
           "hcp": list(got.hcp) if got.hcp else None,
           "lengths": {s: list(v) for s, v in got.lengths.items()} if got.lengths else None,
           "hands": int(got.hands), "patterns": [], "hcp_dist": {}, "length_dist": {},
           "conflict": got.conflict}
    if got.known:  # your own hand, whether or not it fits your calls
        hand = known[1]
        pic["patterns"] = [{"pattern": hand.pattern, "p": 1.0, "count": 1}]
        pic["hcp_dist"] = {hand.hcp: 1.0}
        pic["length_dist"] = {s: {hand.length(s): 1.0} for s in SUITS}
        return pic
    if not got.consistent:
        return pic
    avail = _avail(known)
    formulas = inferencer.seat_formulas(inference.calls, seat)
    res = inferencer._solve_chain(formulas, avail)
    total = res.hands
    joint = set(got.patterns)  # the patterns some whole deal allows (the inference's own list)
    ranked = sorted(((p, c) for p, c in res.patterns.items() if "-".join(map(str, p)) in joint),
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
_NAMES: dict[int, tuple] = {}


def _names(system) -> dict:
    hit = _NAMES.get(id(system))
    if hit is None or hit[0] is not system:
        hit = _NAMES[id(system)] = (system, definition_names(system))
    return hit[1]


def _denied(node, ctx) -> list[str] | None:
    """The sibling calls a call's constraint denies, if it is exactly "none of the others"."""
    parent = getattr(node, "parent", None)
    if parent is None:
        return None
    sibs = [c for c in parent.children.values() if c is not node and c.defined and not c.is_opponents]
    if not sibs:
        return None
    if node.constraint(ctx) == negate(disj([c.constraint(ctx) for c in sibs])):
        return [c.call for c in sibs]
    return None


def call_words(system, node, chair: int | None = None) -> str:
    """A call's constraint in plain words, for one chair (1 = dealer) or, with ``chair``
    None, for every chair (chair-dependent parts are then said per chair)."""
    names = _names(system)

    def one(ch):
        ctx = {"chair": ch}
        denied = _denied(node, ctx)
        if denied:
            return "none of the other calls here (" + " ".join(denied) + ")"
        f = node.constraint(ctx)
        return "" if f == TRUE else say(f, names)

    if chair is not None:
        return one(chair)
    chairs = (1, 2, 3, 4)
    texts = [one(ch) for ch in chairs]
    if len(set(texts)) == 1:
        return texts[0]
    if any(_denied(node, {"chair": ch}) for ch in chairs):
        return "; ".join(f"in chair {ch}: {t or 'nothing about the hand'}" for ch, t in zip(chairs, texts, strict=True))
    # what every chair shares, then what some chairs add
    parts_of = {ch: _conjuncts(node.constraint({"chair": ch})) for ch in chairs}
    common = [p for p in parts_of[1] if all(p in parts_of[ch] for ch in chairs)]
    groups: dict = {}
    for ch in chairs:
        extra = tuple(p for p in parts_of[ch] if p not in common)
        groups.setdefault(extra, []).append(ch)
    out = [say(conj(common), names)] if common else []
    for extra, chs in groups.items():
        if extra:
            where = f"chair {chs[0]}" if len(chs) == 1 else (f"chairs {chs[0]}-{chs[-1]}"
                                                            if chs == list(range(chs[0], chs[-1] + 1))
                                                            else "chairs " + ", ".join(map(str, chs)))
            out.append(f"in {where} also: {say(conj(list(extra)), names)}")
    return "; ".join(out)


def _conjuncts(f) -> list:
    from .expr import And

    return list(f.items) if isinstance(f, And) else ([] if f == TRUE else [f])


# ------------------------------------------------------------------ example deals
def _fits(formulas, hand) -> bool:
    return all(evaluate(f, hand) for f in formulas)


def example_deals(inferencer, inference, n: int = 4, seed: int = 1, known: tuple[str, Hand] | None = None,
                  time_limit: float = 3.0) -> list[Deal]:
    """Up to ``n`` deals drawn uniformly from all deals that fit every seat's calls.

    The method: the most constrained seat's hand is drawn uniformly from the hands that
    fit its calls (a pattern by its exact count, then that pattern's cards at random,
    kept only if the exact evaluator says the calls fit); the other cards are dealt at
    random and the deal is kept only if every seat's calls fit.  Each deal that fits has
    the same chance.  Fewer than ``n`` come back if ``time_limit`` seconds run out.
    """
    try:  # the exact dealer of the deal-level engine (canary_infer.dealing), built suit by suit
        from .dealing import deal

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
