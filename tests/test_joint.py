"""The deal-level engine, held to combinatorics computed here, independently of it."""

import math
import random
from itertools import combinations, permutations

import numpy as np
import pytest

from canary_infer.bridge.auction import Auction
from canary_infer.bridge.cards import RANKS, SUITS, Deal, Hand
from canary_infer.deal.infer import Inferencer
from canary_infer.deal.joint import Joint, classes_of, deal_of
from canary_infer.language.expr import TRUE, conj, evaluate, parse

ALL = math.comb(52, 13)
DEALS = math.factorial(52) // math.factorial(13) ** 4
HCP = {"A": 4, "K": 3, "Q": 2, "J": 1}
DECK = [(s, r) for s in SUITS for r in RANKS]


def hcp_counts(cards, take: int = 13) -> list[int]:
    """How many ``take``-card subsets of ``cards`` have each HCP total (a polynomial product)."""
    poly = [[0] * 41 for _ in range(take + 1)]  # poly[n][h]: subsets of n cards with h HCP
    poly[0][0] = 1
    for _, r in cards:
        v = HCP.get(r, 0)
        for n in range(take - 1, -1, -1):
            for h in range(40 - v, -1, -1):
                if poly[n][h]:
                    poly[n + 1][h + v] += poly[n][h]
    return poly[take]


# --------------------------------------------------------------------------- the classical tables
def test_suit_breaks_match_the_classical_table():
    # South holds 3 spades, North exactly 3: East and West share the other 7 (26 cards unseen
    # by the two of them): the classical table of how 7 missing cards break
    south = Hand.from_pbn("KQ2.A87.QJ54.962")
    j = Joint({"N": parse("S == 3")}, known=("S", south))
    d = j.distribution("E")
    p = {k: v / d.total for k, v in d.lengths["S"].items()}
    table = {k: math.comb(7, k) * math.comb(19, 13 - k) / math.comb(26, 13) for k in range(8)}
    for k in range(8):
        assert p.get(k, 0) == pytest.approx(table[k], rel=1e-12)
    assert round(100 * (p[3] + p[4]), 2) == 62.17  # the 4-3 break
    assert round(100 * (p[2] + p[5]), 2) == 30.52
    assert round(100 * (p[1] + p[6]), 2) == 6.78
    assert round(100 * (p[0] + p[7]), 2) == 0.52


def test_hand_pattern_frequencies_match_the_classical_table():
    d = Joint({}).distribution("N")
    assert d.total == DEALS and isinstance(d.total, int) and d.total > 2 ** 53
    by_shape: dict[str, int] = {}
    for pat, c in d.patterns.items():
        key = "".join(sorted(pat.split("-"), key=int, reverse=True))
        by_shape[key] = by_shape.get(key, 0) + c

    def share(shape):  # orderings of the lengths over the four suits, each a product of binomials
        ls = [int(x) for x in shape]
        ways = len(set(permutations(ls)))
        return ways * math.prod(math.comb(13, n) for n in ls) / ALL

    for shape, pct in (("4432", 21.55), ("5332", 15.52), ("5431", 12.93), ("5422", 10.58), ("4333", 10.54)):
        assert by_shape[shape] / d.total == pytest.approx(share(shape), rel=1e-12)
        assert round(100 * share(shape), 2) == pct


def test_hcp_distribution_of_a_random_hand():
    d = Joint({}).distribution("N")
    want = hcp_counts(DECK)
    for h in range(38):
        assert d.hcp.get(h, 0) * ALL == want[h] * d.total
    assert round(100 * want[10] / ALL, 2) == 9.41


# --------------------------------------------------------------------------- one constrained seat, brute force
def _north_hands_with_twelve_hearts(unseen):
    hearts = [c for c in unseen if c[0] == "H"]
    others = [c for c in unseen if c[0] != "H"]
    for keep in combinations(hearts, 12):
        for extra in others:
            yield Hand(list(keep) + [extra])
    yield Hand(hearts)


@pytest.mark.parametrize("text", ["H >= 12", "H >= 12 and hcp >= 13", "H >= 12 and (D >= 1 -> hasA(D))"])
def test_one_constrained_seat_by_brute_force(text):
    # South holds every spade, so the unseen cards are the 39 others; North holds 12+ hearts:
    # every North hand is enumerated, and for each the 26 cards left are split between East
    # and West in all C(26, 13) ways, counted by pattern and HCP with plain combinatorics
    south = Hand.from_pbn("AKQJT98765432...")
    f = parse(text)
    unseen = [c for c in DECK if c not in south.cards]
    pat_e: dict[tuple, int] = {}
    hcp_e = [0] * 41
    norths = 0
    for north in _north_hands_with_twelve_hearts(unseen):
        if not evaluate(f, north):
            continue
        norths += 1
        rest = [c for c in unseen if c not in north.cards]
        left = [sum(1 for c in rest if c[0] == s) for s in SUITS]
        for p in ((a, b, c, 13 - a - b - c) for a in range(14) for b in range(14) for c in range(14)):
            if min(p) < 0 or any(x > y for x, y in zip(p, left, strict=True)):
                continue
            pat_e[p] = pat_e.get(p, 0) + math.prod(math.comb(y, x) for x, y in zip(p, left, strict=True))
        for h, n in enumerate(hcp_counts(rest)):
            hcp_e[h] += n
    j = Joint({"N": f}, known=("S", south))
    assert j.exact and j.deals == norths * math.comb(26, 13)
    d = j.distribution("E")
    assert d.exact and d.total == j.deals
    assert {tuple(map(int, k.split("-"))): v for k, v in d.patterns.items()} == pat_e
    assert {h: v for h, v in d.hcp.items()} == {h: v for h, v in enumerate(hcp_e) if v}
    n = j.distribution("N")
    assert sum(n.hcp.values()) == j.deals
    e = j.seat("E")
    assert e.hcp == (min(h for h, v in enumerate(hcp_e) if v), max(h for h, v in enumerate(hcp_e) if v))
    assert set(e.patterns) == set(pat_e)


def test_questions_are_exact_where_the_counts_are():
    j = Joint({})
    a = j.ask("N", parse("S >= 5"))
    assert a.exact and a.of == DEALS
    assert a.count * ALL == sum(math.comb(13, k) * math.comb(39, 13 - k) for k in range(5, 14)) * DEALS
    # one constrained seat: a question on the free seat that looks at lengths only, or HCP only
    south = Hand.from_pbn("AKQJT98765432...")
    j = Joint({"N": parse("H >= 12")}, known=("S", south))
    d = j.distribution("E")
    a = j.ask("E", parse("D >= 7"))
    assert a.exact and a.count == sum(v for k, v in d.lengths["D"].items() if k >= 7)
    b = j.ask("E", parse("hcp in 8..12"))
    assert b.exact and b.count == sum(v for k, v in d.hcp.items() if 8 <= k <= 12)
    mixed = j.ask("E", parse("hcp >= 8 and D >= 5"), samples=4000)
    assert not mixed.exact and mixed.of == 4000 and mixed.se is not None


# --------------------------------------------------------------------------- joint ranges
def test_one_spade_with_a_known_hand(inferencer):
    # North's 1S shows 11-16 HCP and 4+ spades [A32]; South, yet to call, holds 12 HCP and 3
    # spades: East and West hold at most 40 - 12 - 11 = 17 HCP and 13 - 3 - 4 = 6 spades
    south = Hand.from_pbn("KQ2.A87.QJ54.962")
    r = inferencer.infer(Auction.parse("1S P"), known=("S", south), joint=True)
    for seat in "EW":
        assert r.hands[seat].hcp == (0, 40 - 12 - 11)
        assert r.hands[seat].lengths["S"] == (0, 13 - 3 - 4)
        assert r.hands[seat].proven
    assert r.hands["N"].hcp == (11, 16) and r.hands["N"].lengths["S"] == (4, 13 - 3)
    # the bounds are attained: deals written out by hand, checked by the exact evaluator
    calls = inferencer.read(Auction.parse("1S P"))
    north_f = conj(inferencer.seat_formulas(calls, "N"))
    top = Deal.from_pbn("N:AT987.6.AK3.8754 J.KQJT95.T9.AKQJ KQ2.A87.QJ54.962 6543.432.8762.T3")
    long = Deal.from_pbn("N:AT98.6.AK3.87543 J76543.KQJ.T9.AK KQ2.A87.QJ54.962 .T95432.8762.QJT")
    for d in (top, long):
        assert evaluate(north_f, d["N"]) and d["S"] == south
    assert top["E"].hcp == 17 and long["E"].length("S") == 6
    # every North hand leaves 26 cards that East and West split in C(26, 13) ways
    assert r.deals % math.comb(26, 13) == 0 and r.deals // math.comb(26, 13) == r.hands["N"].hands


def test_two_constrained_seats_length_only_are_exact():
    # East holds one spade: North's 7+ and South's 5+ take all twelve others
    east = Hand.from_pbn("2.AKQJT9.AKQJ.AK")
    j = Joint({"N": parse("S >= 7"), "S": parse("S >= 5")}, known=("E", east))
    assert not j.exact
    n, s, w = j.seat("N"), j.seat("S"), j.seat("W")
    assert n.lengths()["S"] == (7, 7) and s.lengths()["S"] == (5, 5) and w.lengths()["S"] == (0, 0)
    assert n.proven and s.proven and w.proven
    # HCP: the spades left are AKQJT9876543 (10 HCP); the rest, 40 - 32 - 10... none but spades
    left = 40 - east.hcp
    assert n.hcp[1] <= left and w.hcp[0] == 0


def _lengths(test) -> list[tuple[int, int, int, int]]:
    """Every pattern (S, H, D, C lengths) with ``test`` true."""
    return [p for p in ((a, b, c, 13 - a - b - c) for a in range(14) for b in range(14 - a)
                        for c in range(14 - a - b)) if test(p)]


def test_the_shape_plan_counts_the_ways_to_deal_the_seats_that_look_at_lengths_only():
    from canary_infer.deal.joint import _ShapePlan

    def ways(left, seats):  # the ways to give each seat a pattern it allows and its cards, in turn
        if not seats:
            return 1
        total = 0
        for p in seats[0]:
            if all(k <= n for n, k in zip(left, p, strict=True)):
                rest = [n - k for n, k in zip(left, p, strict=True)]
                total += math.prod(math.comb(n, k) for n, k in zip(left, p, strict=True)) * ways(rest, seats[1:])
        return total

    south, west = _lengths(lambda p: p[0] >= 6), _lengths(lambda p: p[1] >= 4 and p[3] <= 3)
    # North, the anchor: what each of its patterns leaves South and West (East takes the rest)
    j = Joint({"N": parse("hcp >= 15 and S <= 3 and H <= 3 and D <= 4"), "S": parse("S >= 6"),
               "W": parse("H >= 4 and C <= 3")})
    got = _ShapePlan(j, ["S", "W"], 1, "N").anchor_weights()
    north = np.flatnonzero(j.tables["N"].ph.sum(axis=1) > 0)
    assert len(north) >= 5
    from canary_infer.engine.tables import ALL_PATTERNS

    for i in north:
        assert got[i] == pytest.approx(ways([13 - k for k in ALL_PATTERNS[i]], [south, west]), rel=1e-12)
    # no anchor: the ways to deal South and West from the whole deck (North and East take the
    # rest); the plan's weights are floats, close to the integers
    j = Joint({"S": parse("S >= 6"), "W": parse("H >= 4 and C <= 3")})
    assert _ShapePlan(j, ["S", "W"], 2).total() == pytest.approx(ways([13] * 4, [south, west]), rel=1e-12)


def _consistent_deals(formulas: dict, n: int, seed: int):
    """Plain rejection: random deals that fit every formula (slow, independent of the engine)."""
    rng = random.Random(seed)
    out, tries = [], 0
    while len(out) < n and tries < 200 * n:
        tries += 1
        d = Deal.random(rng)
        if all(evaluate(f, d[s]) for s, f in formulas.items()):
            out.append(d)
    return out


@pytest.mark.parametrize("auction,n", [("P P", 150), ("P 1S", 80), ("2H P 2N P 3D", 25)])
def test_several_constrained_seats_contain_every_consistent_deal(inferencer, auction, n):
    calls = inferencer.read(Auction.parse(auction))
    formulas = {s: conj(inferencer.seat_formulas(calls, s)) for s in "NESW"}
    formulas = {s: f for s, f in formulas.items() if f != TRUE}
    assert len(formulas) >= 2
    r = inferencer.infer(Auction.parse(auction), joint=True)
    for d in _consistent_deals(formulas, n, 3):
        for s in "NESW":
            h = r.hands[s]
            assert h.hcp[0] <= d[s].hcp <= h.hcp[1], (auction, s, d)
            assert d[s].pattern in h.patterns, (auction, s, d)


def test_joint_counts_add_up_and_are_integers():
    j = Joint({"N": parse("hcp >= 20 and S >= 5")})
    d = j.distribution("E")
    assert all(isinstance(v, int) for v in d.hcp.values())
    assert sum(d.hcp.values()) == sum(d.patterns.values()) == j.deals
    for s in SUITS:
        assert sum(d.lengths[s].values()) == j.deals
    assert j.deals == round(j.tables["N"].hands) * math.factorial(39) // math.factorial(13) ** 3


def test_the_sampler_fits_every_call_and_is_reproducible():
    f = {"N": parse("hcp in 11..16 and H == 6 and C in 4..5"), "S": parse("S >= 6"), "E": parse("hcp <= 10")}
    j = Joint(f)
    a = j.sample(300, np.random.default_rng(5))
    b = j.sample(300, np.random.default_rng(5))
    assert (a == b).all() and len(a) == 300
    for row in a[:100]:
        d = deal_of(row)
        assert all(evaluate(x, d[s]) for s, x in f.items())
    # the distribution of a seat drawn by construction (South, lengths only) matches the exact count
    j2 = Joint({"N": f["N"], "S": f["S"]})
    owner = j2.sample(4000, np.random.default_rng(1))
    share = (classes_of(owner, 2) // 64)[:, 0].tolist().count(6) / len(owner)
    # South's spades given North's hand: North holds 0-3 of them; exactly, by the deals drawn
    # with plain rejection from North's own table (a different route to the same distribution)
    j3 = Joint({"N": f["N"], "S": parse("S >= 6 and hcp >= 0")})
    owner3 = j3.sample(4000, np.random.default_rng(2))
    share3 = (classes_of(owner3, 2) // 64)[:, 0].tolist().count(6) / len(owner3)
    assert abs(share - share3) < 4 * math.sqrt(share * (1 - share) / 2000)


@pytest.mark.parametrize("text,known", [
    ("hcp <= 2", None), ("hcp <= 2", "T98.T98.T987.T98"), ("hcp <= 5 and S >= 4", "J98.T98.T987.T98"),
    ("hcp in 3..9", "AKQ.T98.T987.T98"), ("hcp >= 12", None), ("hcp <= 1", "QJ8.J98.T987.T98"),
])
def test_free_seat_hcp_range_matches_the_full_distribution(text, known):
    # the free seats' HCP range (from the constrained seat's honour count) against the support
    # of their exact HCP distribution (from its honours by rank), and against the hand-made
    # extremes for the first two cases: X without honours leaves all sixteen, and a 13-card hand
    # takes at most 13 of them (the three jacks left out) and, from 26 cards, at least the
    # three jacks its partner cannot hold
    kh = ("S", Hand.from_pbn(known)) if known else None
    j = Joint({"N": parse(text)}, known=kh)
    lo, hi = j.seat("E").hcp
    d = j.distribution("E")
    assert (lo, hi) == (min(d.hcp), max(d.hcp)), text
    if text == "hcp <= 2":
        assert hi == 37 and lo == (1 if known else 0)


def test_a_busy_machine_gets_the_same_answer(monkeypatch):
    """The proofs' budget is counted in work, not read off a clock: with a clock that runs a
    second per reading (a machine far busier than this one) the answer is the same."""
    import time

    from canary_infer.deal.infer import Inferencer

    auctions = ["1S X 2S", "P P P 2H P 2S P 2N P 3C P 3D"]
    calm = [Inferencer(joint=True).infer(Auction.parse(a)).as_json() for a in auctions]
    ticks = iter(range(10**9))
    monkeypatch.setattr(time, "process_time", lambda: float(next(ticks)))
    busy = [Inferencer(joint=True).infer(Auction.parse(a)).as_json() for a in auctions]
    assert busy == calm


def test_the_deal_model_answers_by_hand_worked_cases():
    """North holds seven spades and no HCP, East six spades: between them they hold all 13.
    East's most HCP: the four spade honours (10) and the best seven other cards (the three
    other aces, the three kings and a queen: 23), 33; West can hold no spade; East can hold
    6-7-0-0."""
    from canary_infer.deal.bounds import DealModel

    j = Joint({"N": parse("S == 7 and hcp == 0"), "E": parse("S == 6")})
    m = DealModel(j)
    for bound in (None, 33, 34, 36):
        assert m.hcp_extreme("E", "max", 10.0, bound) == 33, bound
    assert m.hcp_extreme("N", "min", 10.0, 0) == 0
    # a value a deal is known to reach is not asked again: 34 refuted, 33 is the answer
    solves = []
    real = m._solve
    m._solve = lambda *a, **k: solves.append(a) or real(*a, **k)
    assert m.hcp_extreme("E", "max", 10.0, 34, seen=33) == 33
    assert len(solves) == 1 and m.deal is None
    del m._solve
    assert m.pattern_possible("W", (1, 4, 4, 4), 10.0) is False
    assert m.pattern_possible("W", (0, 5, 4, 4), 10.0) is True
    assert m.pattern_possible("E", (6, 7, 0, 0), 10.0) is True
    d = deal_of(m.deal[0])  # the witness of the last question
    assert d["E"].pattern == "6-7-0-0" and d["N"].hcp == 0 and d["N"].pattern.startswith("7-")


def test_swaps_give_consistent_deals_one_swap_away():
    from canary_infer.deal.bounds import swap_moves

    f = {"N": parse("hcp in 11..16 and H >= 5"), "E": parse("hcp <= 9 and S >= 4"), "S": parse("hcp >= 6")}
    j = Joint(f)
    start = j.sample(40, np.random.default_rng(3))
    want = {s: np.ones(560, bool) for s in "NESW"}
    out, looked = swap_moves(j, start, want, {s: 99 for s in "NESW"}, {s: -1 for s in "NESW"})
    assert looked > 0 and len(out) > 0
    for row in out:
        d = deal_of(row)
        assert all(len(d[s].cards) == 13 for s in "NESW")
        assert all(evaluate(x, d[s]) for s, x in f.items())
        # exactly two cards changed hands, between two seats, from one of the deals started from
        assert ((start != row[None, :]).sum(axis=1) == 2).any()


def test_a_sample_capped_by_deals_dealt_is_consistent_and_reproducible():
    # one seat is drawn from its table, the other by rejection: of 2,000 deals dealt only some fit
    f = {"N": parse("hcp in 11..16 and H >= 5"), "E": parse("hcp >= 20")}
    j = Joint(f)
    a = j.sample(500, np.random.default_rng(4), max_tries=2000)
    b = j.sample(500, np.random.default_rng(4), max_tries=2000)
    assert 0 < len(a) < 500 and (a == b).all()
    for row in a:
        d = deal_of(row)
        assert all(evaluate(x, d[s]) for s, x in f.items())
    assert len(j.sample(50, np.random.default_rng(4))) == 50  # uncapped: as many as asked


def test_deals_too_rare_to_draw_are_still_found():
    """East holds 11+ spades, North the other two with 22+ HCP and 7+ hearts: fewer than one
    deal in 20,000 of those dealt around East's hand fits, so the first draw finds none, yet
    such deals exist.  By hand: North holds the two spades East lacks (AK at best), AKQJ of
    hearts and four more cards (A K of diamonds and of clubs at best): 7 + 10 + 14 = 31.  East
    holds at least the Q J of spades (3); at most AKQJ of spades (10) and two honours that
    leave North 22 from the 30 HCP outside spades (A Q or K K, 6): 16."""
    j = Joint({"E": parse("S >= 11 and hcp >= 0"), "N": parse("hcp >= 22 and H >= 7 and S >= 2")})
    assert len(j.sample(500, np.random.default_rng(j.seed), max_tries=20_000)) == 0
    n, e = j.seat("N"), j.seat("E")
    assert n.consistent and e.consistent and n.proven and e.proven
    assert n.hcp == (22, 31) and e.hcp == (3, 16)
    assert n.lengths()["S"] == (2, 2) and e.lengths()["S"] == (11, 11)


def test_estimates_from_deals_too_rare_to_draw_end_and_say_so():
    # the deals of the rare case above: at most 100 dealt per deal wanted, then an estimate
    # from what was found (none here), exact False, rather than dealing for ever
    j = Joint({"E": parse("S >= 11 and hcp >= 0"), "N": parse("hcp >= 22 and H >= 7 and S >= 2")})
    d = j.distribution("N", samples=200)
    assert not d.exact and d.total < 200 and sum(d.hcp.values()) == d.total


def test_the_exact_tail_shares_out_the_last_two_hands():
    # three seats of at most 14 HCP and West with none: they hold all 40, so two of them hold
    # 13-14 and the third 12-14; random completions almost never do, the exact tail does
    from canary_infer.deal.bounds import _Search, outer_bounds

    f = {s: parse("hcp <= 14") for s in "NES"}
    j = Joint(f)
    found = _Search(j, np.random.default_rng(2)).exact_tail({"W": (None, 0)}, outer_bounds(j)[0], "min")
    assert found is not None and len(found) > 0
    for row in found:
        d = deal_of(row)
        assert d["W"].hcp == 0 and all(evaluate(x, d[s]) for s, x in f.items())
        assert sorted(d[s].hcp for s in "NES")[0] >= 12


def test_seats_that_say_the_same_share_what_is_seen_and_lose_nothing(inferencer):
    """Two passes in first and second chair say the same thing, so North's and East's hands
    are interchangeable and the engine searches for one of them only.  Written the same
    but in another order, East's formula is no longer recognised as North's, and both are
    searched for: the answers must be the same, and the same for the free seats."""
    from canary_infer.language.expr import Not, Or

    calls = inferencer.read(Auction.parse("P P"))
    north, east = (conj(inferencer.seat_formulas(calls, s)) for s in "NE")
    assert north == east and isinstance(east, Not) and isinstance(east.item, Or)  # no opening fits
    reordered = Not(Or(tuple(reversed(east.item.items))))
    assert reordered != north
    shared = Joint({"N": north, "E": east})
    apart = Joint({"N": north, "E": reordered})
    for s in "NESW":
        a, b = shared.seat(s), apart.seat(s)
        assert a.proven and b.proven
        assert a.hcp == b.hcp and set(a.patterns) == set(b.patterns), s
    assert set(shared.seat("N").patterns) == set(shared.seat("E").patterns)


def test_a_small_budget_leaves_items_open_but_never_excludes():
    """Four seats of at most 14 HCP between them hold all 40 (the exact-tail case above, and
    West at most 0): with almost no budget, what is not proven is still reported possible
    (the outer bound), listed as not proven; with the default, everything is proven and the
    answers lie inside the small budget's."""
    f = {s: parse("hcp <= 14") for s in "NES"} | {"W": parse("hcp <= 3")}
    small, full = Joint(f, budget=0.01), Joint(f)
    for s in "NESW":
        a, b = small.seat(s), full.seat(s)
        assert b.proven
        assert a.hcp[0] <= b.hcp[0] and b.hcp[1] <= a.hcp[1]
        assert set(b.patterns) <= set(a.patterns)
        if not a.proven:
            assert a.unproven
    assert not all(small.seat(s).proven for s in "NESW")
    # by hand: West holds 0-3, so the others hold 37-40 between them, at most 14 each:
    # each holds at least 37 - 28 = 9, and West at least 40 - 42 < 0, so 0
    assert full.seat("W").hcp == (0, 3)
    assert all(full.seat(s).hcp == (9, 14) for s in "NES")


def _spying(views, seen: list):
    """joint_views that records each answer's (table work, work counted) in ``seen``."""
    def spy(j):
        out = views(j)
        seen.append((j.table_work, out.work))
        return out
    return spy


def _counted_work(monkeypatch) -> list:
    from canary_infer.deal import bounds

    seen: list = []
    monkeypatch.setattr(bounds, "joint_views", _spying(bounds.joint_views, seen))
    return seen


def test_the_budget_does_not_depend_on_the_truth_tables_an_earlier_answer_made(monkeypatch):
    """A table's work counts the truth tables its formula needs whether they are made for it
    or were made for an earlier table in the same process (they are shared).  Counted only
    when made, the same auction got a smaller count, and so a different answer, in a process
    that had answered other auctions first: P P P left West's 37 HCP unproven in a fresh
    process and proved it after a warm-up."""
    from canary_infer.engine import tables as engine

    seen = _counted_work(monkeypatch)
    monkeypatch.setattr(engine, "_TRUTH_TABLES", {})  # as in a process that has made none
    auction = Auction.parse("1H X P 1S")
    cold = Inferencer(budget=0.3).infer(auction, joint=True)
    assert engine._TRUTH_TABLES  # the cold answer made them; the warm one finds them made
    warm = Inferencer(budget=0.3).infer(auction, joint=True)
    (tw_cold, work_cold), (tw_warm, work_warm) = seen
    assert tw_cold == tw_warm > 0 and work_cold == work_warm
    for s in "NESW":
        a, b = cold.hands[s], warm.hands[s]
        assert (a.hcp, a.lengths, a.patterns, a.unproven) == (b.hcp, b.lengths, b.patterns, b.unproven)


def test_the_budget_counts_the_tables_however_they_were_come_by():
    """The budget bounds the whole answer, the seats' tables included: their work is counted
    whether the Inferencer builds them for this auction or already holds them from its
    prefixes.  So an auction answered in a fresh Inferencer and in one that has answered its
    prefixes gets the same answer, even where the budget cuts the search short (and the
    tables' work is part of what was counted)."""
    from canary_infer.deal import bounds

    auction = "1H X P 1S"
    seen = []
    views = bounds.joint_views
    spy = _spying(views, seen)
    for budget in (0.08, 0.3):
        fresh = Inferencer(budget=budget)
        warm = Inferencer(budget=budget)
        for k in range(1, 4):
            warm.infer(Auction.parse(" ".join(auction.split()[:k])), joint=True)
        bounds.joint_views = spy
        try:
            a = fresh.infer(Auction.parse(auction), joint=True)
            b = warm.infer(Auction.parse(auction), joint=True)
        finally:
            bounds.joint_views = views
        for s in "NESW":
            ha, hb = a.hands[s], b.hands[s]
            assert (ha.hcp, ha.lengths, ha.patterns, ha.unproven) == (hb.hcp, hb.lengths, hb.patterns, hb.unproven)
        (tw_a, work_a), (tw_b, work_b) = seen[-2:]
        assert tw_a == tw_b > 0 and work_a == work_b >= tw_a


def _pair_hcp_law(north, south) -> dict[int, float]:
    """P(North holds h HCP) over the deals where North's HCP satisfy ``north`` and South's
    ``south`` (predicates), counted independently of the engine: the four cards of each
    honour rank and the 36 spot cards shared out between North, South and the rest, by
    combinatorics."""
    states = {(0, 0, 0, 0): 1}  # (North's HCP, South's, North's cards, South's) -> ways
    for value in (4, 3, 2, 1):
        nxt: dict = {}
        for (hn, hs, cn, cs), w in states.items():
            for i in range(5):
                for k in range(5 - i):
                    key = (hn + i * value, hs + k * value, cn + i, cs + k)
                    nxt[key] = nxt.get(key, 0) + w * math.comb(4, i) * math.comb(4 - i, k)
        states = nxt
    law: dict[int, int] = {}
    for (hn, hs, cn, cs), w in states.items():
        if north(hn) and south(hs) and cn <= 13 and cs <= 13:
            spots = math.comb(36, 13 - cn) * math.comb(36 - (13 - cn), 13 - cs)
            law[hn] = law.get(hn, 0) + w * spots
    total = sum(law.values())
    return {h: w / total for h, w in law.items()}


@pytest.mark.parametrize("north, south, law_n, law_s, top", [
    ("hcp >= 14", "hcp >= 14", lambda h: h >= 14, lambda h: h >= 14, 26),
    # North fits half of all hands: its hands are drawn as any hands kept where they fit
    ("hcp <= 9", "hcp >= 14", lambda h: h <= 9, lambda h: h >= 14, 9),
])
def test_paired_hands_are_consistent_deals_drawn_uniformly(north, south, law_n, law_s, top):
    """With two constrained seats and the others free, the first deals may pair hands drawn
    for each seat, kept when they share no card: every deal must fit both seats' calls, and
    the uniform part must follow the exact law of the whole deal (North's HCP, from
    combinatorics), which North's hands drawn without regard to South's do not."""
    from canary_infer.deal.bounds import _Search

    f = {"N": parse(north), "S": parse(south)}
    j = Joint(f)
    search = _Search(j, np.random.default_rng(7))
    assert ("N" in search.tight) == (north == "hcp >= 14")
    # 2,048 hands a seat (the search pairs fewer): the deals share hands, so their spread is
    # wider than that of as many independent deals
    uniform, more = search.paired(2048)
    assert len(uniform) > 1000 and len(more) > 0
    for rows in (uniform, more):
        assert ((rows >= 0).all() and (np.stack([(rows == k).sum(axis=1) for k in range(4)]) == 13).all())
        for s, x in f.items():
            assert j.tables[s].holds(classes_of(rows, "NESW".index(s))).all()
            assert all(evaluate(x, deal_of(r)[s]) for r in rows[:50])
    law = _pair_hcp_law(law_n, law_s)
    assert max(law) == top
    hcp = (uniform == 0).astype(np.int64) @ np.tile(np.array([4, 3, 2, 1] + [0] * 9), 4)
    seen = np.bincount(hcp, minlength=38) / len(hcp)
    tv = 0.5 * sum(abs(seen[h] - law.get(h, 0.0)) for h in range(38))
    alone = Joint({"N": f["N"]}).distribution("N", samples=4000)
    alone_law = {h: c / alone.total for h, c in alone.hcp.items()}
    tv_alone = 0.5 * sum(abs(alone_law.get(h, 0.0) - law.get(h, 0.0)) for h in range(38))
    assert tv < 0.06 < tv_alone, (tv, tv_alone)


def _hands_with_hcp(ok) -> int:
    """Hands of 13 of the 52 cards whose HCP pass ``ok``: the honours chosen, the rest of the
    36 small cards (combinatorics, not the engine)."""
    ways = {(0, 0): 1}  # (honours held, their HCP) -> ways
    for value in [4, 3, 2, 1] * 4:
        nxt = dict(ways)
        for (k, h), w in ways.items():
            nxt[(k + 1, h + value)] = nxt.get((k + 1, h + value), 0) + w
        ways = nxt
    return sum(w * math.comb(36, 13 - k) for (k, h), w in ways.items() if k <= 13 and ok(h))


@pytest.mark.parametrize("checked", [9, 11, 12, 13, 14, 16])
def test_two_seats_are_paired_at_once_where_their_tables_say_the_draw_would_stop(checked):
    """The draw that starts two constrained seats' search deals the seat with fewer hands and
    checks the other's, and would soon stop where the checked seat fits too few deals; it is
    not started where that seat's share of all hands (from combinatorics) times PAIR_AFTER is
    below PAIR_SHORT of the 500 deals wanted.  The answer is the same either way."""
    from canary_infer.deal import bounds

    j = Joint({"N": parse("hcp >= 17"), "S": parse(f"hcp >= {checked}")})
    share = _hands_with_hcp(lambda h: h >= checked) / math.comb(52, 13)
    assert j.tables["S"].hands == _hands_with_hcp(lambda h: h >= checked)
    assert bounds._pair_at_once(j) == (share * bounds.PAIR_AFTER < bounds.PAIR_SHORT * 500)
    # a seat that looks at lengths only is dealt by its patterns, never checked
    assert not bounds._pair_at_once(Joint({"N": parse("hcp >= 17"), "S": parse("S >= 6")}))
    if bounds._pair_at_once(j):
        views = {s: j.seat(s) for s in "NESW"}
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(bounds, "_pair_at_once", lambda j: False)
            drawn_first = Joint({"N": parse("hcp >= 17"), "S": parse(f"hcp >= {checked}")})
            for s in "NESW":
                v, w = views[s], drawn_first.seat(s)
                assert v.proven and w.proven and v.hcp == w.hcp and set(v.patterns) == set(w.patterns)


@pytest.mark.parametrize("formulas,known", [
    ({"N": "hcp <= 9", "E": "hcp <= 9"}, None),  # two weak seats, two free
    ({"N": "hcp <= 9", "E": "hcp >= 12 and S >= 5", "S": "hcp <= 7 and H <= 4"}, None),
    ({"N": "hcp <= 9 and not (S >= 6)", "E": "hcp <= 9"}, "AKQ.KQJ.AKQJ.AKQ"),
    # East needs five of the nine small spades: North cannot hold more than four of them
    ({"N": "hcp == 0", "E": "hcp == 0 and S >= 5"}, None),
    # three weak seats: North's patterns need room for two fillers, which only North's hands
    # with three honours or more leave (the second proof, by each pattern's most HCP)
    ({"N": "hcp <= 9", "E": "hcp <= 9", "S": "hcp <= 9"}, None),
])
def test_what_fillers_prove_a_whole_deal_model_confirms(formulas, known):
    """Each pattern fillers prove a seat can hold is one that the card-level CP-SAT model of
    the whole deal (another method) finds a deal for, and so are the least and most HCP
    claimed."""
    from canary_infer.deal.bounds import DealModel, filler_proofs
    from canary_infer.engine.tables import ALL_PATTERNS

    kh = ("W", Hand.from_pbn(known)) if known else None
    j = Joint({s: parse(f) for s, f in formulas.items()}, known=kh)
    proofs = filler_proofs(j)
    assert proofs, "some seat has fillers to prove with"
    model = DealModel(j)
    rng = random.Random(5)
    for seat, (pats, lo, hi) in proofs.items():
        table = j.tables[seat] if seat in j.tables else j.free_table()
        assert set(pats.tolist()) <= set(np.flatnonzero(table.ph.sum(axis=1) > 0).tolist())
        for v in (lo, hi):
            lit = model.model.NewBoolVar("")
            model.model.Add(model.hands[seat].hcp == v).OnlyEnforceIf(lit)
            _, st = model._solve([lit], time_limit=20.0)
            assert st in (model.cp.OPTIMAL, model.cp.FEASIBLE), (seat, v)
        for i in rng.sample(pats.tolist(), min(4, len(pats))):  # the rarest shapes included
            assert model.pattern_possible(seat, ALL_PATTERNS[i], 20.0) is True, (seat, ALL_PATTERNS[i])
        for key in (lambda p: p[0], max):  # the longest spades, the longest suit
            extreme = ALL_PATTERNS[max(pats.tolist(), key=lambda i: key(ALL_PATTERNS[i]))]
            assert model.pattern_possible(seat, extreme, 20.0) is True, (seat, extreme)


def test_fillers_claim_nothing_when_the_small_cards_run_out():
    # North holds at most two honours (so eleven small cards or more), East and South none:
    # 37 small cards, of 36; no deal fits, and the fillers prove nothing
    from canary_infer.deal.bounds import DealModel, filler_proofs

    j = Joint({"N": parse("hcp <= 2"), "E": parse("hcp == 0"), "S": parse("hcp == 0")})
    assert filler_proofs(j) == {}
    assert DealModel(j).pattern_possible("N", (4, 3, 3, 3), 20.0) is False


def test_a_seat_without_fillers_proves_nothing_for_the_others():
    # East's calls fit no hand without an honour (it holds 12+ HCP): North's patterns are
    # left to the search, while East's own patterns are proven by North's fillers
    from canary_infer.deal.bounds import filler_proofs

    j = Joint({"N": parse("hcp <= 9"), "E": parse("hcp >= 12")})
    proofs = filler_proofs(j)
    assert "N" not in proofs and "S" not in proofs and "E" in proofs
    assert proofs["E"][1:] == (12, 37)


def test_a_free_seat_holding_the_best_cards_is_a_witness_when_the_others_fit():
    from canary_infer.deal.bounds import _Search

    j = Joint({"N": parse("hcp <= 9"), "E": parse("hcp <= 9")})
    found = _Search(j, np.random.default_rng(1)).extreme("S", "max", 37, 64)
    assert found is not None and len(found)
    for row in found:
        d = deal_of(row)
        assert d["S"].hcp == 37 and d["N"].hcp <= 9 and d["E"].hcp <= 9
    # a value the best 13 cards are not worth: no such deal is made
    assert _Search(j, np.random.default_rng(1)).extreme("S", "max", 36, 64) is None


def test_small_card_sums_and_the_room_they_leave_by_brute_force():
    """The fillers' grid arithmetic against itertools: the cells one row of each set adds up
    to, and whether every way of holding small cards between two bounds leaves room."""
    from itertools import product

    from canary_infer.deal.bounds import _at_or_below, _fit_everywhere, _plus, _taken

    rng = np.random.default_rng(11)
    spots = np.array([5, 4, 6, 3])
    shape = tuple(spots + 1)
    for _ in range(20):
        sets = [rng.integers(0, 4, size=(int(rng.integers(1, 7)), 4)) for _ in range(2)]
        want = np.zeros(shape, bool)
        for a, b in product(*sets):
            c = a + b
            if (c <= spots).all():
                want[tuple(c)] = True
        assert (_taken(sets, spots) == want).all()
        start = np.zeros(shape, bool)
        start[tuple(sets[0].T)] = True
        assert (_plus(start, sets[1]) == want).all()
        fits = _at_or_below(want)
        lo = rng.integers(0, 3, size=(6, 4))
        hi = lo + rng.integers(0, 3, size=(6, 4))
        hi = np.minimum(hi, spots)
        lo = np.minimum(lo, hi)
        most = lo.sum(axis=1) + rng.integers(0, 5, size=6)
        got = _fit_everywhere(fits, spots, lo, hi, most)
        for i in range(6):
            ways = [v for v in product(*[range(lo[i, s], hi[i, s] + 1) for s in range(4)])
                    if sum(v) == most[i]]
            assert got[i] == (bool(ways) and all(fits[tuple(spots - np.array(v))] for v in ways))


def test_small_card_sums_by_shifting_grids_match_the_pairs(monkeypatch):
    # _plus has two ways (every pair at once, or shifted grids when the pairs are many)
    import canary_infer.deal.bounds as bounds

    rng = np.random.default_rng(3)
    spots = np.array([9, 8, 9, 7])
    sets = [rng.integers(0, 6, size=(40, 4)) for _ in range(3)]
    pairs = bounds._taken(sets, spots)
    monkeypatch.setattr(bounds, "_PLUS_PAIRS", 0)
    assert (bounds._taken(sets, spots) == pairs).all() and pairs.any()


def test_deals_shared_anew_fit_every_call_and_give_the_patterns_wanted():
    """bounds.reshare: a constrained seat and the free seats share their cards anew; every
    deal it returns has 13 cards a seat and each constrained hand fits its formula (the exact
    evaluator), and a weak seat gets long-suit patterns its drawn hands did not show."""
    from canary_infer.deal.bounds import reshare
    from canary_infer.engine.tables import ALL_PATTERNS

    f = {"N": parse("hcp <= 9"), "E": parse("hcp >= 12 and S >= 5")}
    j = Joint(f)
    drawn = j.sample(64, np.random.default_rng(2))
    want = {s: np.zeros(len(ALL_PATTERNS), bool) for s in "NESW"}
    targets = [ALL_PATTERNS.index(p) for p in [(0, 10, 2, 1), (1, 0, 11, 1), (0, 4, 4, 5)]]
    want["N"][targets] = True
    out, work = reshare(j, drawn, want, low_hcp=True)
    assert len(out) and work > 0
    shown = set()
    for row in out:
        d = deal_of(row)
        assert all(len(d[s].cards) == 13 for s in "NESW")
        for s, formula in f.items():
            assert evaluate(formula, d[s]), (s, d[s])
        shown.add(tuple(len(d["N"].suit(x)) for x in SUITS))
    assert {ALL_PATTERNS[i] for i in targets} <= shown


def _reshare_gives_long_hearts(f: dict, seat: str, seed: int, low_hcp: bool) -> None:
    """reshare on deals drawn for the calls ``f``, asked for long-heart patterns of ``seat``
    its drawn hands did not show: every deal returned is whole and fits every call (the
    exact evaluator), and each pattern asked for is given."""
    from canary_infer.deal.bounds import reshare
    from canary_infer.engine.tables import ALL_PATTERNS

    j = Joint(f)
    drawn = j.sample(64, np.random.default_rng(seed))
    drawn_p = {tuple(len(deal_of(row)[seat].suit(x)) for x in SUITS) for row in drawn}
    targets = [p for p in [(1, 8, 2, 2), (2, 9, 1, 1), (0, 8, 3, 2), (3, 7, 3, 0)] if p not in drawn_p]
    assert len(targets) >= 3
    want = {s: np.zeros(len(ALL_PATTERNS), bool) for s in "NESW"}
    want[seat][[ALL_PATTERNS.index(p) for p in targets]] = True
    out, work = reshare(j, drawn, want, low_hcp=low_hcp)
    assert len(out) and work > 0
    shown = set()
    for row in out:
        d = deal_of(row)
        assert all(len(d[s].cards) == 13 for s in "NESW")
        assert len({c for s in "NESW" for c in d[s].cards}) == 52
        for s, formula in f.items():
            assert evaluate(formula, d[s]), (s, d[s])
        shown.add(tuple(len(d[seat].suit(x)) for x in SUITS))
    assert set(targets) <= shown


def test_deals_shared_anew_give_the_free_seat_patterns_its_draws_did_not_show():
    """bounds.reshare, for the one free seat: it and a constrained seat pool their cards, the
    constrained seat keeps the lowest of the pool (less the pattern wanted) and the free seat
    takes the rest."""
    f = {"N": parse("hcp <= 9"), "E": parse("hcp >= 12 and S >= 5"), "S": parse("hcp <= 11")}
    _reshare_gives_long_hearts(f, "W", seed=2, low_hcp=False)


def test_deals_shared_anew_between_two_constrained_seats_when_none_is_free():
    """bounds.reshare with every unseen seat constrained: a seat wanting a pattern pools its
    cards with another constrained seat, takes the lowest of the pattern, and the other takes
    the rest; both seats' calls are checked."""
    f = {"N": parse("hcp <= 9"), "E": parse("hcp <= 10"), "S": parse("hcp <= 11"), "W": parse("hcp >= 13 and D >= 4")}
    _reshare_gives_long_hearts(f, "N", seed=5, low_hcp=True)


def test_an_attempt_for_a_long_suit_draws_the_tight_seat_among_the_patterns_left_room():
    """_Search.attempt with a seat held to 13 diamonds (or 12 hearts and a club): the tight
    seat's pool is drawn among the patterns that fit beside one of those (no diamond, or at
    most one heart and at most twelve clubs: checked pattern by pattern), and the deals the
    attempt finds are whole and fit every call."""
    from canary_infer.deal.bounds import _Search
    from canary_infer.engine.tables import ALL_PATTERNS

    f = {"E": parse("hcp >= 12 and S >= 5")}
    j = Joint(f)
    search = _Search(j, np.random.default_rng(3))
    assert search.tight == ["E"]
    wanted = [(0, 0, 13, 0), (0, 12, 0, 1)]
    weight = np.zeros(len(ALL_PATTERNS))
    weight[[ALL_PATTERNS.index(p) for p in wanted]] = 1.0
    room = search._room({"S": (weight, None)})
    assert {ALL_PATTERNS[i] for i in np.flatnonzero(room)} == {
        q for q in ALL_PATTERNS if any(all(a + b <= 13 for a, b in zip(p, q, strict=True)) for p in wanted)}
    pool = search.pool("E", room)
    lengths = {tuple(int(x) for x in row) for row in pool.reshape(len(pool), 4, 13).sum(axis=2)}
    assert lengths and all(room[ALL_PATTERNS.index(q)] for q in lengths)
    found = search.attempt({"S": (weight, None)}, tries=256)
    assert found is not None
    for row in found:
        d = deal_of(row)
        assert len({c for s in "NESW" for c in d[s].cards}) == 52
        assert evaluate(f["E"], d["E"])
        assert tuple(len(d["S"].suit(x)) for x in SUITS) in wanted


def test_outer_bound_grids_kept_between_answers_give_the_same_bounds(monkeypatch):
    """Joints that share a grids memo (as one Inferencer's answers do) reuse the outer bound's
    grids of summed lengths where the seats' tables and the unseen cards are the same, and
    their outer bounds are those computed afresh; with a hand known (other unseen cards) or
    other calls for every seat, nothing is reused."""
    from canary_infer.deal import bounds

    made = []
    add = bounds._Grid.add
    monkeypatch.setattr(bounds._Grid, "add", lambda self, *a: made.append(1) or add(self, *a))
    passes = {"N": parse("hcp <= 9"), "E": parse("hcp <= 9")}
    third = {**passes, "S": parse("hcp <= 11 and H >= 5")}
    hand = ("W", Hand.from_pbn("AKQ2.A87.QJ54.96"))
    memo: dict = {}
    bounds.outer_bounds(Joint(passes, grids=memo))
    other = {"N": parse("hcp <= 8"), "E": parse("hcp <= 8"), "S": parse("hcp <= 10 and H >= 5")}
    for formulas, known, reused in [(third, None, True), (third, hand, False), (other, None, False)]:
        made.clear()
        with_memo, _ = bounds.outer_bounds(Joint(formulas, known, grids=memo))
        n_memo = len(made)
        made.clear()
        fresh, _ = bounds.outer_bounds(Joint(formulas, known))
        assert (n_memo < len(made)) == reused, (formulas, known)
        assert with_memo.keys() == fresh.keys()
        for s in fresh:
            for a, b in zip(with_memo[s], fresh[s], strict=True):
                assert np.array_equal(a, b)


def test_a_free_seats_hands_are_drawn_uniformly_without_its_table():
    """_Search.hands for a free seat with pattern weights and no HCP condition: hands of the
    unseen cards only, of the patterns asked, each pattern as often as its weight times its
    number of hands (binomials) and each unseen card of a suit equally often."""
    from canary_infer.deal.bounds import _Search
    from canary_infer.engine.tables import ALL_PATTERNS

    mine = Hand.from_pbn("AKQ2.A87.QJ54.96")
    j = Joint({"N": parse("hcp <= 9")}, ("W", mine))
    search = _Search(j, np.random.default_rng(4))
    a, b = ALL_PATTERNS.index((4, 3, 3, 3)), ALL_PATTERNS.index((5, 2, 2, 4))
    weight = np.zeros(len(ALL_PATTERNS))
    weight[a], weight[b] = 1.0, 3.0
    n = 20_000
    hands = search.hands("S", n, weight)
    assert hands.shape == (n, 52) and not hands[:, ~j.unseen].any()
    lengths = hands.reshape(n, 4, 13).sum(axis=2)
    unseen = [13 - mine.length(x) for x in SUITS]
    count = {p: math.prod(math.comb(u, k) for u, k in zip(unseen, p, strict=True))
             for p in [(4, 3, 3, 3), (5, 2, 2, 4)]}
    share = 3 * count[(5, 2, 2, 4)] / (count[(4, 3, 3, 3)] + 3 * count[(5, 2, 2, 4)])
    is_b = (lengths == (5, 2, 2, 4)).all(axis=1)
    assert (is_b | (lengths == (4, 3, 3, 3)).all(axis=1)).all()
    assert abs(is_b.mean() - share) < 5 * math.sqrt(share * (1 - share) / n)
    spades = hands[:, :13][:, j.unseen[:13]]  # each unseen spade: 4/9 or 5/9 of the time
    p = (4 * (1 - share) + 5 * share) / unseen[0]
    assert np.abs(spades.mean(axis=0) - p).max() < 5 * math.sqrt(p * (1 - p) / n)


def test_filler_proofs_the_same_for_twins_and_with_sums_kept_between_answers(monkeypatch):
    """filler_proofs gives a twin (a seat with the same calls) its leader's proof without
    working it out again, and the sums of fillers kept in a grids memo give what they give
    afresh: the same as each seat worked out on its own (distinct seen dicts) with no memo."""
    from canary_infer.deal import bounds

    f = {"N": parse("hcp <= 9"), "E": parse("hcp <= 9"), "S": parse("hcp <= 11 and H <= 4")}
    alone = bounds.filler_proofs(Joint(f), {s: {} for s in "NESW"})
    assert {"N", "E", "S"} <= alone.keys()
    sums = []  # the fillers added to a sum (bounds._plus)
    plus = bounds._plus
    monkeypatch.setattr(bounds, "_plus", lambda *a: sums.append(1) or plus(*a))
    memo: dict = {}
    bounds.filler_proofs(Joint({"N": f["N"], "E": f["E"]}, grids=memo))
    made = {}
    for name, grids in (("afresh", None), ("kept", memo)):
        sums.clear()
        got = bounds.filler_proofs(Joint(f, grids=grids))
        made[name] = len(sums)
        assert got.keys() == alone.keys()
        for s, (pats, lo, hi) in alone.items():
            assert np.array_equal(got[s][0], pats) and got[s][1:] == (lo, hi), s
    assert 0 < made["kept"] < made["afresh"]


def test_a_draw_told_it_may_fall_short_stops_once_its_rate_says_so():
    """Joint.sample with ``short``: where few deals fit (North 17+ HCP, South 10+ HCP with
    five hearts), it stops after its first batch, its deals consistent, instead of dealing all
    max_tries; where most fit, it deals on to n as without it."""
    f = {"N": parse("hcp >= 17"), "S": parse("hcp >= 10 and H >= 5")}
    j = Joint(f)
    full = j.sample(500, np.random.default_rng(1), max_tries=2500)
    assert j.tried == 2500 and len(full) < 400
    cut = j.sample(500, np.random.default_rng(1), max_tries=2500, short=0.8)
    assert j.tried < 2500 and 0 < len(cut) < len(full)
    for row in cut:
        d = deal_of(row)
        assert all(evaluate(x, d[s]) for s, x in f.items())
    wide = Joint({"N": parse("hcp >= 15"), "S": parse("hcp >= 10")})  # fewer than 500 in 500 tries
    assert len(wide.sample(500, np.random.default_rng(1), max_tries=2500, short=0.8)) == 500


def test_deals_made_from_the_cards_give_a_seat_its_long_suit_patterns():
    """_Search.shaped: a seat takes the highest (or lowest) cards of a pattern, the others are
    dealt the rest at random, and each constrained hand is checked: every deal returned is
    whole, fits every call (the exact evaluator) and gives the seat an asked pattern; the
    13-card suits, which the draws from tables seldom reach, are among them."""
    from canary_infer.deal.bounds import _Search
    from canary_infer.engine.tables import ALL_PATTERNS

    f = {"N": parse("hcp <= 9"), "E": parse("hcp >= 12 and S >= 5")}
    j = Joint(f)
    for seat in ("W", "N"):  # a free seat, and a constrained one (whose own hand is checked too)
        targets = [(0, 0, 13, 0), (0, 13, 0, 0), (0, 12, 0, 1), (0, 0, 0, 13)]
        out = _Search(j, np.random.default_rng(1)).shaped(
            seat, [ALL_PATTERNS.index(p) for p in targets], 64, np.random.default_rng(2))
        assert out is not None
        shown = set()
        for row in out:
            d = deal_of(row)
            assert len({c for s in "NESW" for c in d[s].cards}) == 52
            assert all(len(d[s].cards) == 13 for s in "NESW")
            for s, formula in f.items():
                assert evaluate(formula, d[s]), (s, d[s])
            shown.add(tuple(len(d[seat].suit(x)) for x in SUITS))
        assert shown <= set(targets)
        # W takes any of them; N's 13 diamonds (or hearts, or clubs) are 10 HCP, within its 9 only
        # as the lowest twelve hearts and a club
        assert shown == (set(targets) if seat == "W" else {(0, 12, 0, 1)})
