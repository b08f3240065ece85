"""``canary-infer explain``: call by call, against inference of each prefix and counts made here."""

import json
from math import comb, prod

import pytest

from canary_infer.bridge.auction import Auction
from canary_infer.bridge.cards import Hand
from canary_infer.tools.explain import explain, render

STRONG = ("S", Hand.from_pbn("AKQ.AKJT4.K.AKT7"))  # leaves North no 2S-then-3C hand, though each call alone fits




def test_each_step_matches_inference_of_the_auction_so_far(inferencer):
    auction = Auction.parse("2S P 2N P 3C")
    ex = explain(inferencer, auction)
    assert [s["call"] for s in ex["steps"]] == ["2S", "P", "2N", "P", "3C"]
    for k, st in enumerate(ex["steps"]):  # the deal's ranges: every seat's calls and the shared deck
        before = inferencer.infer(Auction(auction.calls[:k]), joint=True).hands[st["seat"]]
        after = inferencer.infer(Auction(auction.calls[:k + 1]), joint=True).hands[st["seat"]]
        assert st["before"]["hcp"] == list(before.hcp) and st["after"]["hcp"] == list(after.hcp)
        assert st["after"]["patterns"] == len(after.patterns) and st["before"]["patterns"] == len(before.patterns)
        assert st["after"]["lengths"] == {s: list(v) for s, v in after.lengths.items()}
    two_s, _, relay, _, three_c = ex["steps"]
    assert two_s["words"] == "11-16 HCP, 5-6 spades, 4-5 clubs, 5-6 Roman losers" and two_s["narrows"]
    assert "A36" in two_s["source"] and two_s["defined"]
    assert relay["meaning"] == "relay" and relay["words"] == "" and not relay["narrows"]
    assert not ex["steps"][1]["defined"] and not ex["steps"][1]["narrows"]
    assert three_c["words"] == "at most 1 diamond, 3+ hearts"
    assert three_c["after"]["lengths"]["D"] == [0, 1] and three_c["before"]["lengths"]["D"] == [0, 4]
    assert ex["contradictions"] == [] and ex["your_hand_fits"]


def test_share_of_the_patterns_left_is_the_chance_a_random_hand_has_one(inferencer):
    """Before the first call every hand is possible: the share is a sum of multinomial counts."""
    ex = explain(inferencer, Auction.parse("2S"))
    step = ex["steps"][0]
    left = [tuple(map(int, p.split("-"))) for p in inferencer.infer(Auction.parse("2S")).hands["N"].patterns]
    expected = sum(prod(comb(13, n) for n in p) for p in left) / comb(52, 13)
    assert step["patterns_share"] == expected and step["patterns_share_se"] is None  # exact counts
    assert step["before"]["scope"] == "exact" and step["before"]["deals"] == prod(comb(13 * k, 13) for k in (4, 3, 2))
    assert step["before"]["patterns"] == 560 and step["after"]["patterns"] == len(left)


def test_interpretations_are_marked(inferencer):
    ex = explain(inferencer, Auction.parse("1D"))
    assert "Three-suiters" in ex["steps"][0]["interpretation"]
    assert "interpretation: Three-suiters" in render(ex)


def test_impossible_auction_names_the_calls_that_contradict_each_other(inferencer):
    auction = Auction.parse("2S P 2N P 3C")
    ex = explain(inferencer, auction, STRONG)
    (c,) = ex["contradictions"]
    assert c["seat"] == "N" and c["calls"] == [0, 4]
    assert [w["words"] for w in c["words"]] == ["11-16 HCP, 5-6 spades, 4-5 clubs, 5-6 Roman losers",
                                                "at most 1 diamond, 3+ hearts"]
    # the set is the smallest: either call alone leaves North some hand
    assert inferencer.infer(Auction.parse("2S"), STRONG).hands["N"].consistent
    north_3c = inferencer.infer(auction, None).calls[4].formula
    from canary_infer.engine.tables import Available, solve
    assert solve(north_3c, Available.excluding(STRONG[1])).consistent
    text = render(ex)
    assert "No hand fits N: these calls contradict each other:" in text
    assert "call 5 3C: at most 1 diamond, 3+ hearts" in text


def test_cli_text_json_and_errors(run):
    status, out, _ = run("explain", "2S", "P", "2N", "P", "3C")
    assert status == 0 and "shows: at most 1 diamond, 3+ hearts" in out and "patterns 16 -> 4" in out
    status, out, _ = run("explain", "1S", "--json", "--dealer", "e")
    obj = json.loads(out)
    assert status == 0 and obj["dealer"] == "E" and obj["steps"][0]["seat"] == "E" and obj["error"] is None
    status, out, err = run("explain", "1S 1S")
    assert status == 2 and "insufficient" in err and out == ""
    status, out, _ = run("explain", "1S 1S", "--json")
    assert status == 2 and json.loads(out)["error"]["kind"] == "illegal"
    status, _, err = run("explain", "1S", "--hand", "S:AKQ")
    assert status == 2 and err.startswith("error:")


CLUBS = ('tree opening\n  2C  "11-16 HCP, six clubs, no four-card major"  [T1]\n'
         "      = hcp in 11..16 and C == 6 and S <= 3 and H <= 3\n"
         '    2D  "relay"  [T2]\n'
         '      2S  "three spades"  [T4]\n'
         "          = S == 3\n")


@pytest.fixture(scope="module")
def clubs(tmp_path_factory):
    from canary_infer.deal.infer import Inferencer
    from canary_infer.system.model import load_system

    path = tmp_path_factory.mktemp("system") / "clubs.canary"
    path.write_text(CLUBS)
    return Inferencer(load_system([path]))


def opener_hands(exclude=None):
    """pattern -> the number of 2C openings (11-16 HCP, six clubs, no four-card major) from the
    unseen cards, by brute force over each suit's honours and spot cards."""
    from collections import Counter

    from canary_infer.bridge.cards import RANKS, SUITS

    points = {"A": 4, "K": 3, "Q": 2, "J": 1}
    states = Counter({((), 0): 1})
    for s in SUITS:
        ranks = [r for r in RANKS if not (exclude and exclude.has(s, r))]
        honours = [r for r in ranks if r in points]
        spots = len(ranks) - len(honours)
        nxt = Counter()
        for (pat, h), c in states.items():
            for mask in range(1 << len(honours)):
                held = [x for i, x in enumerate(honours) if mask >> i & 1]
                for k in range(spots + 1):
                    n = len(held) + k
                    if sum(pat) + n <= 13:
                        nxt[(pat + (n,), h + sum(points[x] for x in held))] += c * comb(spots, k)
        states = nxt
    out = Counter()
    for (p, h), c in states.items():
        if sum(p) == 13 and 11 <= h <= 16 and p[3] == 6 and p[0] <= 3 and p[1] <= 3:
            out[p] += c
    return out


@pytest.mark.parametrize("known", [None, ("E", Hand.from_pbn("A2.KQ432.K85.J92"))])
def test_share_before_a_call_is_exact_over_the_deals_so_far(clubs, known):
    """2C P 2D P 2S: before 2S, only North is constrained, so the share of North's deals
    with three spades is the share of his 2C hands that have three (a deal is his hand and
    any split of the rest): counted here card by card."""
    ex = explain(clubs, Auction.parse("2C P 2D P 2S"), known)
    step = ex["steps"][4]
    hands = opener_hands(known[1] if known else None)
    expected = sum(c for p, c in hands.items() if p[0] == 3) / sum(hands.values())
    assert step["call"] == "2S" and step["before"]["scope"] == "exact" and step["patterns_share_se"] is None
    assert step["patterns_share"] == expected
    rest = prod(comb(13 * k, 13) for k in ((2, 1) if known else (3, 2, 1)))
    assert step["before"]["deals"] == sum(hands.values()) * rest
    assert step["after"]["patterns"] == sum(1 for p in hands if p[0] == 3)
    assert ex["scope"] == "exact" and ex["probabilities"].startswith("exact: the share of each among all the deals")
    text = render(ex)
    assert f"(they had {expected:.1%} of the deals before)" in text
    assert ("and your hand" in text) == (known is not None)


def test_two_constrained_seats_give_estimates_with_their_standard_error(inferencer):
    """1H X P 1S: after the double two seats are constrained: West's share before his 1S is
    estimated from SAMPLES exact samples, the same share infer --prob --samples gives."""
    from canary_infer.tools.present import SAMPLES

    auction = Auction.parse("1H X P 1S")
    ex = explain(inferencer, auction)
    step = ex["steps"][3]
    assert step["before"]["scope"] == "estimated" and step["before"]["samples"] == SAMPLES
    before = inferencer.infer(Auction(auction.calls[:3]), prob=True, joint=True, samples=SAMPLES).hands["W"]
    left = set(inferencer.infer(auction, joint=True).hands["W"].patterns)
    kept = sum(c for p, c in before.distribution.patterns.items() if p in left)
    share = kept / SAMPLES
    assert step["patterns_share"] == share
    assert step["patterns_share_se"] == pytest.approx((share * (1 - share) / SAMPLES) ** 0.5, rel=1e-12)
    assert ex["steps"][0]["before"]["scope"] == "exact" and ex["scope"] == "mixed"
    text = render(ex)
    assert f"(they had {share:.1%} ± {step['patterns_share_se']:.1%} of the deals before)" in text
    assert "estimated where two or more are constrained from 2,000 deals drawn" in text
