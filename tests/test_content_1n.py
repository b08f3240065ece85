"""The forcing 1N and the 2N raise after 1D/1H/1S (inventory sections 8-13), checked against
the notes' words.  Every expected pattern set below is computed here from the words (the
combinations a shape description allows), never taken from the engine's output."""

import itertools

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from canary_infer.bridge.auction import Auction
from canary_infer.bridge.cards import Hand
from canary_infer.language.expr import TRUE, evaluate

RANKS = "AKQJT98765432"


def infer(inferencer, auction):
    return inferencer.infer(Auction.parse(auction, dealer="N"))


def patterns(inferencer, auction, seat="N"):
    return set(infer(inferencer, auction).hands[seat].patterns)


def all_patterns(**fixed):
    """Every S-H-D-C pattern with the given lengths fixed (ranges as tuples)."""
    out = set()
    for p in itertools.product(range(14), repeat=4):
        if sum(p) != 13:
            continue
        ok = True
        for i, s in enumerate("SHDC"):
            want = fixed.get(s)
            if want is None:
                continue
            lo, hi = want if isinstance(want, tuple) else (want, want)
            ok = ok and lo <= p[i] <= hi
        if ok:
            out.add("-".join(map(str, p)))
    return out


def node(system, *calls):
    n = system.root()
    for c in calls:
        n = n.children[c]
    return n


def holds(n, pbn):
    return evaluate(n.constraint(), Hand.from_pbn(pbn))


# --------------------------------------------------------------------------- section 8
def test_1d_1n_2c_is_five_clubs_and_exactly_four_diamonds(inferencer):
    # [A431] "2C shows 5+ Cs and exactly 4 Ds"
    got = patterns(inferencer, "1D P 1N P 2C")
    assert got and all(p.split("-")[2] == "4" and int(p.split("-")[3]) >= 5 for p in got)
    assert {"3-1-4-5", "1-3-4-5", "2-1-4-6"} <= got


def test_1d_1n_3n_is_seven_diamonds_four_clubs(inferencer):
    # [A437] 7 diamonds and 4 clubs: the two majors hold the other two cards
    assert patterns(inferencer, "1D P 1N P 3N") == all_patterns(D=7, C=4)


def test_1m_1n_3n_is_seven_of_the_major_four_clubs(inferencer):
    # [A445, A452]; and a 7-4 hand is not balanced or a three-suiter, so every split is open
    assert patterns(inferencer, "1H P 1N P 3N") == all_patterns(H=7, C=4)
    assert patterns(inferencer, "1S P 1N P 3N") == all_patterns(S=7, C=4)


def test_minimum_one_suiter_and_the_maximum_2n(inferencer):
    r = infer(inferencer, "1H P 1N P 2H")
    assert r.hands["N"].hcp == (11, 13)  # minimum: the lower half of 11-16
    assert r.hands["N"].lengths["H"][0] >= 5 and r.hands["N"].lengths["S"][1] <= 3
    r = infer(inferencer, "1S P 1N P 2N")
    assert r.hands["N"].hcp == (14, 16)  # extra values
    assert r.hands["N"].lengths["S"] == (5, 6)  # a broken 6-card or a good 5-card suit [A807]


def test_jump_to_three_of_a_higher_suit_is_six_cards(inferencer):
    # [A436] 1D-1N-3H: 6 hearts; the opening's four+ diamonds with the canapé rule (H >= D)
    got = patterns(inferencer, "1D P 1N P 3H")
    assert got and all(p.split("-")[1] == "6" and 4 <= int(p.split("-")[2]) <= 6 for p in got)


def test_three_level_canape_after_1s(inferencer):
    # [A450] 1S-1N-3H: canapé (hearts longer than spades)
    got = patterns(inferencer, "1S P 1N P 3H")
    assert got and all(int(p.split("-")[1]) > int(p.split("-")[0]) for p in got)


def test_rebid_tables_differ_by_the_suit_opened(system):
    assert set(node(system, "1D", "1N").children) >= {"2C", "2D", "2H", "2S", "2N", "3C", "3D", "3H", "3S", "3N"}
    assert "non-canapé" in node(system, "1D", "1N", "3C").meaning
    assert "canapé, 4 or 5 losers" in node(system, "1S", "1N", "3H").meaning
    assert "6-card" in node(system, "1H", "1N", "3S").meaning
    assert "semi-solid" in node(system, "1H", "1N", "3H").meaning


# --------------------------------------------------------------------------- section 9
def test_the_1h_1n_2c_sample_table(system):
    # [A492-504], word by word
    want = {"2D": "second relay", "2H": "3 trumps", "2S": "natural, game force", "2N": "long diamonds",
            "3C": "invitational", "3D": "solid", "3H": "4-card support", "3S": "solid", "3N": "to play",
            "4C": "very invitational", "4H": "to play"}
    at = node(system, "1H", "1N", "2C")
    for call, word in want.items():
        assert word in at.children[call].meaning, call
    assert at.children["2D"].is_relay


def test_the_1h_1n_2d_sample_table(system):
    # [A505-517]: the relay is 2H, opener's own suit [A484]
    want = {"2H": "second relay", "2S": "natural, game force", "2N": "natural, limit", "3C": "natural, game force",
            "3D": "invitational", "3H": "4-card support", "3S": "solid", "3N": "to play", "4C": "solid",
            "4D": "very invitational", "4H": "to play"}
    at = node(system, "1H", "1N", "2D")
    for call, word in want.items():
        assert word in at.children[call].meaning, call
    assert at.children["2H"].is_relay


def test_2n_by_its_three_cases(system):
    # [A488]: relay after 2S; natural limit after a touching descending canapé; else the displaced suit
    assert node(system, "1D", "1N", "2S", "2N").is_relay
    assert node(system, "1S", "1N", "2S", "2N").is_relay
    assert "natural, limit" in node(system, "1S", "1N", "2H", "2N").meaning
    assert "long spades" in node(system, "1D", "1N", "2H", "2N").meaning
    assert "long hearts" in node(system, "1S", "1N", "2D", "2N").meaning


def test_preferences_by_level(inferencer):
    r = infer(inferencer, "1H P 1N P 2C P 2H")
    assert r.hands["S"].lengths["H"] == (3, 3) and r.hands["S"].hcp == (10, 12)  # 3 trumps, about 11
    r = infer(inferencer, "1H P 1N P 2C P 3H")
    assert r.hands["S"].lengths["H"] == (4, 4) and r.hands["S"].lengths["C"] == (1, 1)


def test_jump_shift_is_solid(inferencer):
    r = infer(inferencer, "1H P 1N P 2C P 3D")
    assert r.hands["S"].lengths["D"][0] >= 6
    assert r.hands["S"].hcp[0] >= 9  # A, K and Q of diamonds


def test_new_suit_forbids_a_singleton(inferencer):
    got = patterns(inferencer, "1H P 1N P 2C P 2S", seat="S")
    assert got and all(min(map(int, p.split("-"))) >= 2 and int(p.split("-")[0]) >= 4 for p in got)


# --------------------------------------------------------------------------- section 12
def test_relay_answers_after_a_canape(inferencer):
    # [A688, A702-704] 1S-1N-2H-2S-3H: 4 spades and 6 hearts, every split of the minors
    assert patterns(inferencer, "1S P 1N P 2H P 2S P 3H") == all_patterns(S=4, H=6)
    # [A721-723] 3N: 5 spades, 4 hearts, 2-2
    assert patterns(inferencer, "1H P 1N P 2S P 2N P 3N") == {"5-4-2-2"}
    # [A688] 5431 bids the 3-card suit: 1D-1N-2S-2N-3C = 5 spades, 4 diamonds, 3 clubs, a heart
    assert patterns(inferencer, "1D P 1N P 2S P 2N P 3C") <= {"5-1-4-3", "6-0-4-3"}
    assert "5-1-4-3" in patterns(inferencer, "1D P 1N P 2S P 2N P 3C")
    # [A714] "shows 5S & 6H" (a descending 2H is longer than the spades; with 55 open 1H)
    assert patterns(inferencer, "1S P 1N P 2H P 2S P 3S") == all_patterns(S=5, H=6)


def test_one_suiter_answers_after_the_second_relay(inferencer):
    # [A782]: 6+ no singleton, 5 no singleton, a splinter; [A786-788] 1D-1N-2D-2H-3C secondary clubs
    got = patterns(inferencer, "1S P 1N P 2S P 2N P 3N")
    # five spades, no singleton, no other four-card suit but clubs or weak (suppressed) diamonds [A106]
    assert got == {"5-2-3-3", "5-3-2-3", "5-3-3-2", "5-2-2-4", "5-2-4-2"}
    got = patterns(inferencer, "1S P 1N P 2S P 2N P 3H")
    assert got and all(int(p.split("-")[1]) <= 1 for p in got)
    r = infer(inferencer, "1D P 1N P 2D P 2H P 3C")
    assert r.hands["N"].lengths["C"][0] >= 4


def test_agreement_when_the_third_bid_leaves_no_room(system):
    # [A692-700] 1D-1N-2S-2N-3S
    at = node(system, "1D", "1N", "2S", "2N", "3S")
    assert at.children["4C"].trump == "S" and at.children["4D"].trump == "D" and at.children["4H"].trump == "S"
    assert holds(at.children["4H"], "32.A32.KQ32.5432") and not holds(at.children["4H"], "32.A32.KQ3.A5432")
    # [A702-710] 1S-1N-2H-2S-3H: 3S agrees spades, 4C/4D controls agreeing hearts
    at = node(system, "1S", "1N", "2H", "2S", "3H")
    assert at.children["3S"].trump == "S" and at.children["4C"].trump == "H" and at.children["4D"].trump == "H"
    # [A712-727] 4C agrees hearts, 4D spades
    for path in (("1S", "1N", "2H", "2S", "3S"), ("1H", "1N", "2S", "2N", "3N")):
        at = node(system, *path)
        assert at.children["4C"].trump == "H" and at.children["4D"].trump == "S"


def test_after_2n_the_3c_singleton_ask(inferencer, system):
    # [A814] opener bids his singleton; the rebid of his suit shows a club singleton
    assert node(system, "1S", "1N", "2N", "3C").is_relay
    assert infer(inferencer, "1S P 1N P 2N P 3C P 3D").hands["N"].lengths["D"] == (1, 1)
    assert infer(inferencer, "1S P 1N P 2N P 3C P 3S").hands["N"].lengths["C"] == (1, 1)


def test_after_the_jump_rebid(system):
    at = node(system, "1S", "1N", "3S")
    assert "control" in at.children["4C"].meaning and at.children["4C"].trump == "S"
    assert "not encouraging" in at.children["4S"].meaning


# --------------------------------------------------------------------------- section 10
def test_responder_shows_his_own_suit(inferencer):
    # [A583-587]
    r = infer(inferencer, "1S P 1N P 3D P 4H")
    assert r.hands["S"].lengths["H"][0] >= 5
    r = infer(inferencer, "1S P 1N P 2N P 4C")
    assert r.hands["S"].lengths["C"][0] >= 5


# --------------------------------------------------------------------------- section 13
def test_trump_ask_by_honour_steps(system):
    at = node(system, "1H", "2N", "3H", "3N")
    assert list(at.children) == ["4C", "4D", "4H", "4S"]  # no honour, one, two, three
    hands = {"4C": "A32.J9432.A32.32", "4D": "A32.AJ943.A32.32", "4H": "A32.AK943.A32.32",
             "4S": "A32.AKQ43.A32.32"}
    for call, pbn in hands.items():
        assert [c for c, n in at.children.items() if holds(n, pbn)] == [call]


def test_no_trump_ask_after_1d(system):
    assert "3N" not in node(system, "1D", "2N", "3D").children


def test_control_ask_steps_partition_every_holding(system):
    at = node(system, "1S", "2N", "4H")  # a jump cue in hearts: steps from the first non-spade bid
    steps = list(at.children)
    assert steps == ["4N", "5C", "5D", "5H", "5S", "5N"]
    holding = {"xx": "AK32.32.AK32.A32", "x": "AK32.2.AK432.A32", "K": "AK32.K2.AK32.A32",
               "Ax": "AK32.A2.AK32.A32", "void": "AK32..AK432.A432", "AK": "AK3.AK2.AK32.A32",
               "A": "AK32.A.AK432.A32"}
    want = {"xx": "4N", "x": "5C", "K": "5D", "Ax": "5H", "void": "5S", "AK": "5N", "A": "5N"}
    for name, pbn in holding.items():
        assert [c for c in steps if holds(at.children[c], pbn)] == [want[name]], name


# --------------------------------------------------------------------------- never excluded
SUITS = "SHDC"


def build(draw, lengths, honours):
    """A hand with the given suit lengths, the named honours, the other cards chosen at random."""
    cards = []
    for s, n in zip(SUITS, lengths, strict=True):
        hon = list(honours.get(s, ""))
        rest = [r for r in RANKS if r not in hon and r not in "AKQJ"]
        small = draw(st.lists(st.sampled_from(rest), min_size=n - len(hon), max_size=n - len(hon), unique=True))
        cards += [(s, r) for r in hon + small]
    return Hand.from_cards(cards)


CASES = [
    # (auction, seat, lengths S-H-D-C from the words, honours that make the opening and the call)
    ("1S P 1N P 2H P 2S P 3H", "N", (4, 6, 3, 0), {"S": "AK", "H": "AQ"}),   # 4 S 6 H [A704]
    ("1S P 1N P 2H P 2S P 3H", "N", (4, 6, 1, 2), {"S": "AK", "H": "AQ"}),
    ("1H P 1N P 2S P 2N P 3N", "N", (5, 4, 2, 2), {"S": "AK", "H": "AQ"}),   # 5S4H22 [A723]
    ("1D P 1N P 2S P 2N P 3D", "N", (5, 1, 5, 2), {"S": "AK", "D": "AQ"}),   # 5+S 5+D [A731]
    ("1D P 1N P 2C", "N", (2, 2, 4, 5), {"D": "AQ", "C": "AK"}),             # 5+C 4D [A431]
    ("1D P 1N P 3N", "N", (1, 1, 7, 4), {"D": "AK", "C": "A"}),              # 7D 4C [A437]
    ("1S P 1N P 2S P 2N P 3H", "N", (6, 1, 3, 3), {"S": "AK", "D": "A"}),    # heart splinter [A782]
]


@pytest.mark.parametrize("auction,seat,lengths,honours", CASES)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_hand_built_from_the_meaning_is_never_excluded(inferencer, data, auction, seat, lengths, honours):
    hand = build(data.draw, lengths, honours)
    assert len(hand) == 13
    # opening strength by the words: 11-16 HCP; the earlier calls must let it through
    assume(11 <= hand.hcp <= 16)
    prefix = " ".join(auction.split()[:-1])
    assume(inferencer.infer(Auction.parse(prefix, dealer="N"), known=(seat, hand)).hands[seat].consistent)
    r = inferencer.infer(Auction.parse(auction, dealer="N"), known=(seat, hand))
    assert r.hands[seat].consistent, f"{hand.pbn()} excluded by {auction}"


# --------------------------------------------------------------------------- what the notes leave open
@pytest.mark.parametrize("auction", [
    "1D P 2N P 3D P 3N",        # the trump ask is 'except if 1D is opened' [A549]
    "1S P 1N P 3S P 5C",        # after the jump rebid only new suits, 3N and game are given [A799-803]
    "1H P 1N P 2S P 3N",        # responder's 3N is given only in the 1H-1N-2C/2D samples [A502, A514]
])
def test_calls_the_notes_do_not_define_are_reported_undefined(inferencer, auction):
    calls = infer(inferencer, auction).calls
    assert calls[-1].defined is False
    assert all(c.defined for c in calls[:-1] if c.seat in "NS")


# --------------------------------------------------------------------------- section 12: one-suited answers
@pytest.mark.parametrize("auction, calls, agree", [
    # a splinter: 3N, or opener's suit to set it (below game, and the game) [A688, A782]
    (("1S", "1N", "2S", "2N", "3H"), {"3N": None, "3S": "S", "4S": "S"}, "S"),
    (("1H", "1N", "2H", "2S", "3S"), {"3N": None, "4H": "H"}, "H"),
    # the suit a third time, and the 5-card suit's cheapest notrump
    (("1H", "1N", "2H", "2S", "3H"), {"3N": None, "4H": "H"}, "H"),
    (("1H", "1N", "2H", "2S", "2N"), {"3H": "H", "3N": None, "4H": "H"}, "H"),
    # 1D-1N-2D-2H-3C, the secondary clubs [A784-788]: either of opener's two suits, or 3N
    (("1D", "1N", "2D", "2H", "3C"), {"3D": "D", "4C": "C", "3N": None}, None),
])
def test_responder_sets_the_suit_or_notrump_after_a_one_suited_answer(system, auction, calls, agree):
    """'Responder bids No Trump or one of opener's suits at his third call' [A688], said of every
    relay auction after 1D/1H/1S, the one-suited answers [A782] among them."""
    n = node(system, *auction)
    ours = {c: k for c, k in n.children.items() if not k.is_opponents and k.defined and k.applied_key is None}
    assert set(calls) <= set(ours), (auction, sorted(ours))
    for c, trump in calls.items():
        if trump is not None:
            assert ours[c].trump == trump, (auction, c)
    assert all(k.constraint() == TRUE for k in ours.values())  # they add nothing to the hand


def test_partner_passes_3n_to_play_after_the_relays(system):
    """'3N to play' [A688] is flagged final: opener's pass after it is a call of the system."""
    p = node(system, "1S", "1N", "2S", "2N", "3H", "3N").children["P"]
    assert p.defined and "to play" in p.meaning and p.constraint() == TRUE
