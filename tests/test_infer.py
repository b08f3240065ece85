"""Inference on auctions, checked against what the system notes say."""

from dataclasses import replace

from canary_infer.bridge.auction import Auction
from canary_infer.bridge.cards import Hand
from canary_infer.engine.tables import solve
from canary_infer.language.expr import conj, evaluate, parse


def pats(inferencer, auction, seat="N", dealer="N"):
    r = inferencer.infer(Auction.parse(auction, dealer=dealer))
    return set(r.hands[seat].patterns), r


def test_two_spades_shows_five_or_six_spades_and_four_or_five_clubs(inferencer):
    got, r = pats(inferencer, "2S")
    # [A36] 5/6 of the major with 4/5 clubs: every split of the other 2-4 cards
    want = {(s, h, 13 - s - c - h, c) for s in (5, 6) for c in (4, 5) for h in range(0, 14 - s - c)}
    assert got == {"-".join(map(str, p)) for p in want}
    assert r.hands["N"].hcp == (11, 16)


def test_two_diamonds_is_a_three_suiter(inferencer, system):
    got, _ = pats(inferencer, "2D")
    # [A987-988] 4441, or 5440 with the void in a minor
    assert got == {"4-4-4-1", "4-4-1-4", "4-1-4-4", "1-4-4-4", "5-4-4-0", "4-5-4-0", "4-4-5-0",
                   "5-4-0-4", "4-5-0-4", "4-4-0-5"}
    two_d = system.root().children["2D"].constraint({"chair": 1})
    # 12+ when the singleton is a major [A988]
    assert solve(conj([two_d, parse("pattern 4-1-4-4")])).hcp == (12, 16)
    assert solve(conj([two_d, parse("pattern 4-4-4-1")])).hcp == (11, 16)
    # never a singleton ace or king [A983]
    assert not evaluate(two_d, Hand.from_pbn("KQ32.QJ32.QJ32.A"))
    assert evaluate(two_d, Hand.from_pbn("KQ32.AJ32.QJ32.2"))


def test_one_notrump_shapes(inferencer, system):
    got, r = pats(inferencer, "1N")
    assert r.hands["N"].hcp == (13, 16)
    assert {"4-3-3-3", "4-4-3-2", "5-3-3-2", "4-4-4-1", "2-2-4-5"} <= got
    assert "5-4-2-2" not in got and "4-4-5-0" not in got
    one_nt = system.root().children["1N"].constraint({"chair": 1})
    # 4441 only with a singleton A or K; a 5-card major only with one high honour [A33]
    assert evaluate(one_nt, Hand.from_pbn("KJ32.QJ32.KJ32.A"))
    assert not evaluate(one_nt, Hand.from_pbn("KJ32.QJ32.AJ32.Q"))
    assert evaluate(one_nt, Hand.from_pbn("AJ432.Q32.KJ2.Q2"))
    assert not evaluate(one_nt, Hand.from_pbn("AK432.Q32.J32.Q2"))


def test_pass_denies_every_opening(inferencer, system):
    _, r = pats(inferencer, "P")
    assert r.hands["N"].hcp == (0, 16)  # 17+ always opens 1C [A31]
    p = system.root().children["P"].constraint({"chair": 1})
    assert not evaluate(p, Hand.from_pbn("KJ2.QJ3.KJ32.A32"))  # 15 HCP 4333-ish: opens 1N
    assert evaluate(p, Hand.from_pbn("KJ2.QJ3.J432.432"))  # 9 HCP
    # 11-12 HCP 4441 with a singleton king fits neither 1N (13+) nor 2D (no singleton K) [A983],
    # and without two quick tricks no 1-level opening in 1st chair: it passes
    assert evaluate(p, Hand.from_pbn("KJ32.QJ32.J432.K"))


def test_first_and_second_chair_requirements(system):
    one_s = system.root().children["1S"]
    # 12 HCP, 5 spades, one quick trick: not enough to open 1S in 1st/2nd chair [A108-111]
    hand = Hand.from_pbn("KQJ32.QJ3.QJ32.2")
    assert not evaluate(one_s.constraint({"chair": 1}), hand)
    assert evaluate(one_s.constraint({"chair": 3}), hand)
    p3 = system.root().children["P"].constraint({"chair": 3})
    assert not evaluate(p3, hand)


def test_relays_after_two_spades(inferencer):
    got, _ = pats(inferencer, "2S P 2N P 3H")
    assert got == {"6-2-1-4", "6-1-2-4"}  # "2-1 in the side suits" is never resolved [A1162]
    got, _ = pats(inferencer, "2S P 2N P 3C P 3D P 3H")
    assert got == {"5-3-1-4"}
    got, _ = pats(inferencer, "2S P 2N P 3D P 3H P 4D")
    assert got == {"5-0-4-4"}


def test_relays_after_two_hearts(inferencer):
    got, _ = pats(inferencer, "2H P 2S P 3C P 3D P 4C")
    assert got == {"4-5-0-4"}
    got, r = pats(inferencer, "2H P 2S P 3S")
    assert not r.calls[-1].defined  # "3S undefined" [A1337-1338]
    assert len(got) == 16  # so opener is known only from the opening


def test_opponents_interference_is_read(inferencer):
    got, r = pats(inferencer, "2S P 2N 3D X")
    assert r.calls[3].defined is False  # the overcall itself is theirs
    assert r.calls[4].defined and got == {"5-1-3-4"}  # [A1591-1592]


def test_undefined_call_adds_nothing_and_inference_goes_on(inferencer):
    _, r = pats(inferencer, "1S P 7N")
    assert r.calls[0].defined and not r.calls[2].defined
    assert r.hands["S"].hcp == (0, 37)  # each seat alone (the default of the Python API)
    assert r.hands["N"].hcp == (11, 16)
    j = inferencer.infer(Auction.parse("1S P 7N"), joint=True)
    assert j.hands["S"].hcp == (0, 40 - 11)  # and jointly: North holds 11+ of the 40


def test_seats_follow_the_dealer(inferencer):
    r = inferencer.infer(Auction.parse("P P 1S", dealer="E"))
    assert r.calls[2].seat == "W" and r.hands["W"].lengths["S"][0] == 4
    assert r.hands["E"].hcp == (0, 16) and r.hands["S"].hcp == (0, 16)


def test_known_hand_is_excluded_from_the_others(inferencer):
    mine = Hand.from_pbn("AKQ.J32.5432.432")
    r = inferencer.infer(Auction.parse("2S"), known=("S", mine))
    assert r.hands["S"].known and r.hands["S"].patterns == ["3-3-4-3"]
    # North holds 5-6 spades among the ten left; with A K Q gone, at most 10 HCP in spades...
    assert r.hands["N"].lengths["S"] == (5, 6)
    assert r.hands["N"].hands < inferencer.infer(Auction.parse("2S")).hands["N"].hands
    assert r.hands["E"].lengths["S"][1] == 10 - 5 + 5  # E alone may hold up to all 10 spades left
    j = inferencer.infer(Auction.parse("2S"), known=("S", mine), joint=True)
    assert j.hands["E"].lengths["S"][1] == 10 - 5  # but of the ten left North holds 5+


def test_contradiction_names_the_calls(inferencer):
    # a known hand that contradicts its own call is reported inconsistent
    mine = Hand.from_pbn("AKQ.AKQ.AKQ.AKQJ")
    r = inferencer.infer(Auction.parse("P"), known=("N", mine))
    assert r.hands["N"].known and not r.hands["N"].consistent
    # for an unknown seat, calls that cannot hold together are named by a CP-SAT core
    calls = inferencer.read(Auction.parse("2S P 2N P 3C P 3D P 3H"))
    from canary_infer.engine.tables import Available

    # a contradiction with the 2S opening, on a copy: the readings are the session inferencer's,
    # kept for every later test (changing one in place poisoned the round-trip test's auctions)
    calls[-1] = replace(calls[-1], formula=parse("S <= 4"), parts=())
    assert inferencer.conflict(calls, "N", Available()) == [0, 8]


def test_a_seat_in_no_deal_holds_no_hand(inferencer):
    # North's 1D shows 11+ HCP and East's 1N overcall 17-20; South holds 17: 45 points in a
    # 40-point deck, so no deal fits and no seat has a hand in one (found by the fuzz run)
    r = inferencer.infer(Auction.parse("1D 1N 3S 6C 6S 7D X P"), joint=True,
                         known=("S", Hand.from_pbn("AQJ54.T95.AK9.K7")))
    assert r.deals == 0
    assert r.no_deal or r.hands["S"].breaks  # the deck, or South's own calls, leave no deal
    for s in "NEW":
        h = r.hands[s].as_json()
        assert not h["consistent"] and h["hands"] == 0 and not h["patterns"]


def test_an_inferencer_and_its_tables_go_when_it_goes(system):
    """Nothing the system or a joint answer keeps holds an Inferencer (and all its tables) alive:
    once dropped it is freed at once, without the garbage collector's help."""
    import gc
    import weakref

    from canary_infer.deal.infer import Inferencer

    gc.collect()
    was = gc.isenabled()
    gc.disable()
    try:
        for auction in ("2S", "P P", "2H P 2N P 3D"):  # the first sets the system's oracle; joint answers
            inf = Inferencer(system)
            inf.infer(Auction.parse(auction), joint=True)
            gone = weakref.ref(inf)
            del inf
            assert gone() is None, auction
    finally:
        if was:
            gc.enable()
