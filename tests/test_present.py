"""The seat picture and the example deals, against counts computed here card by card."""

from collections import Counter
from math import comb, prod, sqrt

import pytest

from canary_infer.bridge.auction import Auction
from canary_infer.bridge.cards import RANKS, SUITS, Hand
from canary_infer.language.expr import evaluate
from canary_infer.tools.present import SAMPLES, example_deals, scope_note, seat_picture

POINTS = {"A": 4, "K": 3, "Q": 2, "J": 1}


def suit_table(cards: str) -> dict[tuple[int, int], int]:
    """(length, hcp) -> number of holdings from the given ranks of one suit, by brute force over honours."""
    honours = [r for r in cards if r in POINTS]
    spots = len(cards) - len(honours)
    out: Counter = Counter()
    for mask in range(1 << len(honours)):
        chosen = [h for i, h in enumerate(honours) if mask >> i & 1]
        hcp = sum(POINTS[h] for h in chosen)
        for k in range(spots + 1):
            out[(len(chosen) + k, hcp)] += comb(spots, k)
    return out


def hand_counts(exclude: Hand | None = None) -> dict[tuple[tuple[int, ...], int], int]:
    """(pattern, hcp) -> number of 13-card hands from the unseen cards."""
    tables = []
    for s in SUITS:
        ranks = "".join(r for r in RANKS if not (exclude and exclude.has(s, r)))
        tables.append(suit_table(ranks))
    states = {((), 0): 1}
    for t in tables:
        nxt: Counter = Counter()
        for (pat, h), c in states.items():
            for (n, hh), cc in t.items():
                if sum(pat) + n <= 13:
                    nxt[(pat + (n,), h + hh)] += c * cc
        states = nxt
    return {k: v for k, v in states.items() if sum(k[0]) == 13}


def two_clubs(pattern, hcp) -> bool:  # the test system's 2C: 11-16 HCP, six clubs, no 4-card major
    s, h, _, c = pattern
    return 11 <= hcp <= 16 and c == 6 and s <= 3 and h <= 3


@pytest.fixture(scope="module")
def clubs(tmp_path_factory):
    """An inferencer for a one-call system whose counts are easy to make here, whatever the real system says."""
    from canary_infer.deal.infer import Inferencer
    from canary_infer.system.model import load_system

    path = tmp_path_factory.mktemp("system") / "clubs.canary"
    path.write_text('tree opening\n  2C  "11-16 HCP, six clubs, no four-card major"  [T1]\n'
                    "      = hcp in 11..16 and C == 6 and S <= 3 and H <= 3\n"
                    '    2D  "relay"  [T2]\n'
                    '      2H  "three hearts"  [T3]\n'
                    "          = H == 3\n"
                    '      2S  "three spades"  [T4]\n'
                    "          = S == 3\n")
    return Inferencer(load_system([path]))


def deals_of_the_rest(cards: int, hands: int) -> int:
    """Ways to deal ``cards`` unseen cards to ``hands`` hands of 13."""
    return prod(comb(cards - 13 * k, 13) for k in range(hands))


def test_no_call_gives_the_hcp_distribution_of_a_random_hand(inferencer):
    pic = seat_picture(inferencer, inferencer.infer(Auction.parse(""), prob=True, joint=True), "N")
    by_hcp = Counter()
    for (_, h), c in hand_counts().items():
        by_hcp[h] += c
    total = comb(52, 13)
    assert pic["hands"] == total and pic["scope"] == "exact"
    assert pic["deals"] == deals_of_the_rest(52, 4)
    assert set(pic["hcp_dist"]) == set(by_hcp) == set(range(38))
    for h, c in by_hcp.items():
        assert pic["hcp_dist"][h] == c / total  # exact counts: the shares correctly rounded


@pytest.mark.parametrize("known", [None, ("S", Hand.from_pbn("KQ2.A87.QJ54.962"))])
def test_patterns_and_hcp_of_a_2c_opener_are_exact(clubs, known):
    inf = clubs.infer(Auction.parse("2C"), known, prob=True, joint=True)
    pic = seat_picture(clubs, inf, "N", known)
    counts = {k: v for k, v in hand_counts(known[1] if known else None).items() if two_clubs(*k)}
    total = sum(counts.values())
    assert pic["hands"] == total
    # a deal is North's hand and any split of the rest among the other unseen seats
    rest = deals_of_the_rest(26, 2) if known else deals_of_the_rest(39, 3)
    assert pic["scope"] == "exact" and pic["deals"] == total * rest and pic["samples"] is None
    assert pic["standard_errors"] is None
    by_pattern, by_hcp = Counter(), Counter()
    for (p, h), c in counts.items():
        by_pattern["-".join(map(str, p))] += c
        by_hcp[h] += c
    assert {p["pattern"]: p["count"] for p in pic["patterns"]} == {k: v * rest for k, v in by_pattern.items()}
    assert all(type(p["count"]) is int for p in pic["patterns"])
    assert {p["pattern"]: p["p"] for p in pic["patterns"]} == {k: v / total for k, v in by_pattern.items()}
    assert [p["p"] for p in pic["patterns"]] == sorted((p["p"] for p in pic["patterns"]), reverse=True)
    assert pic["hcp_dist"] == {h: c / total for h, c in sorted(by_hcp.items())}
    assert pic["hcp"] == [min(by_hcp), max(by_hcp)] == [11, 16]
    assert sum(pic["length_dist"]["C"].values()) == pytest.approx(1) and pic["length_dist"]["C"] == {6: 1.0}


@pytest.mark.parametrize("known", [None, ("S", Hand.from_pbn("KQ2.A87.QJ54.962"))])
def test_the_other_seats_after_a_2c_opening_follow_from_the_opener_by_combinatorics(clubs, known):
    """Only North is constrained: a free seat's pattern counts are North's hands times the
    ways to take that pattern from what North leaves, times the ways to deal the rest; the
    free seats are alike, and a free seat's mean HCP is what North leaves, shared out."""
    inf = clubs.infer(Auction.parse("2C"), known, prob=True, joint=True)
    mine = known[1] if known else None
    north = {k: v for k, v in hand_counts(mine).items() if two_clubs(*k)}
    unseen = [13 - (mine.length(s) if mine else 0) for s in SUITS]
    free = [s for s in "ESW" if not (known and s == known[0])]
    rest = deals_of_the_rest(13 * (len(free) - 1), len(free) - 1)
    want: Counter = Counter()
    patterns = {p for p, _ in hand_counts()}  # every pattern of 13 cards
    for (pn, _), c in north.items():
        left = [u - n for u, n in zip(unseen, pn, strict=True)]
        for pe in patterns:
            ways = prod(comb(x, k) for x, k in zip(left, pe, strict=True))
            if ways:
                want["-".join(map(str, pe))] += c * ways * rest
    deals = sum(north.values()) * deals_of_the_rest(13 * len(free), len(free))
    assert sum(want.values()) == deals
    unseen_hcp = 40 - (mine.hcp if mine else 0)
    north_hcp = sum(h * c for (_, h), c in north.items()) / sum(north.values())
    pics = [seat_picture(clubs, inf, s, known) for s in free]
    for pic in pics:
        assert pic["scope"] == "exact" and pic["deals"] == deals
        assert {p["pattern"]: p["count"] for p in pic["patterns"] if p["count"]} == dict(want)
        assert sorted(p["pattern"] for p in pic["patterns"]) == sorted(inf.hands[pic["seat"]].patterns)
        assert sum(p["count"] for p in pic["patterns"]) == deals
        assert sum(pic["hcp_dist"].values()) == pytest.approx(1, abs=1e-12)
        assert sum(h * p for h, p in pic["hcp_dist"].items()) == pytest.approx((unseen_hcp - north_hcp) / len(free),
                                                                             rel=1e-12)
        assert pic["patterns"] == pics[0]["patterns"] and pic["hcp_dist"] == pics[0]["hcp_dist"]
    note = scope_note(pics + [seat_picture(clubs, inf, "N", known)], known is not None)
    assert note == f"exact: the share of each among all {deals:,} deals consistent with the auction" + (
        " and your hand" if known else "")


def test_two_constrained_seats_are_estimated_from_exact_samples(inferencer):
    """1H X P 1S: North, East and West are constrained: the shares of SAMPLES deals drawn,
    each with its standard error, the same as infer --prob --samples gives."""
    inf = inferencer.infer(Auction.parse("1H X P 1S"), prob=True, joint=True, samples=SAMPLES)
    pics = {s: seat_picture(inferencer, inf, s) for s in "NESW"}
    for s, pic in pics.items():
        d = inf.hands[s].distribution
        assert pic["scope"] == "estimated" and pic["samples"] == SAMPLES == d.total and pic["deals"] is None
        assert sum(p["count"] for p in pic["patterns"]) == SAMPLES
        assert sum(p["p"] for p in pic["patterns"]) == pytest.approx(1, abs=1e-12)
        assert {p["pattern"] for p in pic["patterns"]} == set(inf.hands[s].patterns)  # the deal's exact set
        for pt in pic["patterns"]:
            q = pt["count"] / SAMPLES
            assert pt["p"] == q == d.probabilities()["patterns"].get(pt["pattern"], 0.0)
            assert pt["se"] == pytest.approx(sqrt(q * (1 - q) / SAMPLES), rel=1e-12)
            assert pic["standard_errors"]["patterns"][pt["pattern"]] == pt["se"]
        assert set(pic["standard_errors"]["hcp"]) == set(pic["hcp_dist"])
        assert max(pt["se"] for pt in pic["patterns"]) <= sqrt(0.25 / SAMPLES)
    assert "estimated from 2,000 deals drawn uniformly by the exact sampler" in scope_note(list(pics.values()))


def test_without_probabilities_or_a_consistent_deal_the_seats_are_alone(clubs):
    inf = clubs.infer(Auction.parse("2C"))  # each seat alone: no probabilities asked for
    pic = seat_picture(clubs, inf, "N")
    assert pic["scope"] == "single-seat" and sum(p["p"] for p in pic["patterns"]) == pytest.approx(1)
    assert "each seat alone" in scope_note([pic])


def test_known_seat_and_impossible_seat(inferencer):
    known = ("S", Hand.from_pbn("KQ2.A87.QJ54.962"))
    inf = inferencer.infer(Auction.parse("P P 1S"), known, prob=True, joint=True)
    mine = seat_picture(inferencer, inf, "S", known)  # a 1S opening with three spades: my hand does not fit
    assert mine["known"] and not mine["consistent"]
    assert mine["patterns"] == [{"pattern": "3-3-4-3", "p": 1.0, "count": 1}]
    assert mine["hcp_dist"] == {12: 1.0}
    # 35 HCP in my hand leave 5: a 1C opener (17+) cannot exist
    big = ("S", Hand.from_pbn("AKQJT.AKQ.AKQ.AK"))
    pic = seat_picture(inferencer, inferencer.infer(Auction.parse("1C"), big, prob=True, joint=True), "N", big)
    assert not pic["consistent"] and pic["patterns"] == [] and pic["conflict"] == [0]


@pytest.mark.parametrize("prob", [False, True])
def test_example_deals_fit_every_seat_and_are_reproducible(inferencer, prob):
    """With ``prob`` the deals come from the inference's own deal-level engine (kept by the
    inferencer), without it from a new one: either way every seat's calls fit."""
    from canary_infer.tools.present import _joint_of

    auction = Auction.parse("2H P 2N P 3H")
    inf = inferencer.infer(auction, prob=prob, joint=True)
    assert (_joint_of(inferencer, inf, None) is not None) == prob
    deals = example_deals(inferencer, inf, 5, seed=3)
    assert len(deals) == 5 and deals == example_deals(inferencer, inf, 5, seed=3)
    assert len(set(deals)) == 5
    for d in deals:
        for seat in "NESW":
            assert all(d[seat] is not None for seat in "NESW")
            for c in inf.calls:
                if c.seat == seat and c.formula is not None:
                    assert evaluate(c.formula, d[seat]), (d, seat, c.call)
        assert d["N"].length("H") == 6 and d["S"].length("S") >= 6


@pytest.mark.parametrize("prob", [False, True])
def test_example_deals_keep_my_hand(inferencer, prob):
    known = ("S", Hand.from_pbn("KQ2.A87.QJ54.962"))
    inf = inferencer.infer(Auction.parse("1N"), known, prob=prob, joint=True)
    deals = example_deals(inferencer, inf, 3, seed=1, known=known)
    assert len(deals) == 3 and all(d["S"] == known[1] for d in deals)
    assert all(13 <= d["N"].hcp <= 16 for d in deals)


@pytest.mark.parametrize("prob", [False, True])
def test_example_deals_are_uniform_over_the_deals_that_fit(clubs, prob):
    """North's pattern frequencies over many 2C deals against the exact shares counted here
    (drawn by a new deal-level engine, or with ``prob`` by the inference's own)."""
    inf = clubs.infer(Auction.parse("2C"), prob=prob, joint=True)
    deals = example_deals(clubs, inf, 600, seed=11, time_limit=60)
    assert len(deals) == 600
    counts = Counter()
    for (p, h), c in hand_counts().items():
        if two_clubs(p, h):
            counts[p] += c
    total = sum(counts.values())
    seen = Counter(d["N"].lengths for d in deals)
    assert set(seen) <= set(counts)
    # chi-square over the patterns with an expected count of 5 or more (the rest pooled)
    big = [p for p in counts if counts[p] / total * 600 >= 5]
    chi, cells = 0.0, 0
    for p in big:
        e = counts[p] / total * 600
        chi += (seen[p] - e) ** 2 / e
        cells += 1
    rest_e = 600 - sum(counts[p] / total * 600 for p in big)
    rest_o = 600 - sum(seen[p] for p in big)
    if rest_e >= 5:
        chi += (rest_o - rest_e) ** 2 / rest_e
        cells += 1
    assert chi < 3 * cells + 10, (chi, cells)  # far above the 99.9% point only if the draw is biased
