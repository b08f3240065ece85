"""The development after 1D, 1H and 1S (constraints/40-one-level.canary), checked against the
notes' own words (inventory sections 2-7, 14 and 15).

Every expectation here is read off the notes, not off the engine: "5+ card suit and 8+ HCP"
[A294] is a lower bound of 5 and 8; "3-4-1-5" [A326] is exactly one pattern; "shortness in
diamonds" [A402] is at most one diamond.  The hypothesis tests build a hand from a call's
meaning in words and check that inference of that call never excludes it.
"""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from canary_infer.bridge.auction import Auction
from canary_infer.bridge.cards import Hand
from canary_infer.deal.infer import Inferencer
from canary_infer.language.expr import evaluate
from canary_infer.system.model import load_system

RANKS = "AKQJT98765432"
HCP = {"A": 4, "K": 3, "Q": 2, "J": 1}


@cache
def _inferencer(options: frozenset) -> Inferencer:
    system = load_system()
    if options:
        system = system.configure(options=set(options))
    return Inferencer(system)


@cache
def _infer(text: str, options: frozenset = frozenset()):
    inf = _inferencer(options)
    auction = Auction.parse(text)
    return inf, inf.read(auction), inf.infer(auction)


def last(text: str, options: frozenset = frozenset()):
    """The last call's reading and the inference of its caller."""
    _, reading, inference = _infer(text, options)
    r = reading[-1]
    return r, inference.hands[r.seat]


def seat_of(text: str, back: int):
    """The seat that made the call ``back`` calls before the end (0 = the last call)."""
    _, reading, inference = _infer(text)
    r = reading[-1 - back]
    return r, inference.hands[r.seat]


def patterns(seat) -> set[str]:
    return set(seat.patterns)


def lengths(pattern: str) -> dict[str, int]:
    return dict(zip("SHDC", map(int, pattern.split("-")), strict=True))


# --------------------------------------------------------------------------- section 2: first responses
@pytest.mark.parametrize("text, suit, least, hcp_least", [
    ("1D P 1H", "H", 5, 8), ("1D P 1S", "S", 5, 8), ("1H P 1S", "S", 5, 8),      # [A134, A143, A294]
    ("1D P 2C", "C", 5, 9), ("1H P 2D", "D", 5, 9), ("1S P 2D", "D", 5, 9),      # 2 over 1 [A166]
])
def test_natural_new_suit_responses_show_five_cards_and_their_points(text, suit, least, hcp_least):
    r, seat = last(text)
    assert r.defined and r.forcing
    assert seat.lengths[suit][0] == least and seat.hcp[0] == hcp_least


def test_a_two_over_one_by_a_passed_hand_is_not_forcing():
    # "It is forcing unless responder is a passed hand" [A166]
    r, seat = last("P P 1H P 2C")
    assert r.defined and not r.forcing and seat.lengths["C"][0] == 5 and seat.hcp[0] == 9


def test_the_relay_shows_6_to_29_hcp_and_nothing_else():
    # "It shows 6 to 29 HCP and asks for a further description of my hand" [A425]
    for text in ("1D P 1N", "1H P 1N", "1S P 1N"):
        r, seat = last(text)
        assert r.defined and r.forcing and r.node.status != "undefined"
        assert tuple(seat.hcp) == (6, 29)
        assert len(seat.patterns) == 560  # every pattern: the relay says nothing of shape


@pytest.mark.parametrize("text, suit", [("1D P 2N", "D"), ("1H P 2N", "H"), ("1S P 2N", "S")])
def test_the_2n_raise_promises_five_trumps_headed_by_an_honour(text, suit):
    # "2N game forcing D raise (D \Hxxxx minimum)" [A138, A146, A155, A549]
    r, seat = last(text)
    assert r.defined and r.forcing and r.trump == suit and seat.lengths[suit][0] == 5


def test_1s_2h_is_constructive_and_not_forcing():
    r, seat = last("1S P 2H")  # [A153, A270]
    assert r.defined and not r.forcing and seat.lengths["H"][0] == 5


@pytest.mark.parametrize("text, suit", [("1D P 2H", "H"), ("1D P 2S", "S"), ("1D P 3C", "C"),
                                        ("1H P 2S", "S"), ("1H P 3C", "C"), ("1H P 3D", "D"),
                                        ("1S P 3C", "C"), ("1S P 3D", "D")])
def test_jump_shifts_are_six_card_suits_with_two_top_honours(text, suit):
    # "game force; suit of HHxxxx; not solid" [A137, A145, A156]
    r, seat = last(text)
    assert r.defined and seat.lengths[suit][0] == 6


@pytest.mark.parametrize("text, short, trump, only_singleton", [
    ("1D P 3H", "H", "D", False), ("1D P 3S", "S", "D", False), ("1D P 4C", "C", "D", False),  # [A139]
    ("1H P 3S", "S", "H", False), ("1H P 4C", "C", "H", False), ("1H P 4D", "D", "H", False),  # [A147]
    ("1S P 4C", "C", "S", True), ("1S P 4D", "D", "S", True), ("1S P 4H", "H", "S", True),     # [A158]
])
def test_splinters_show_shortness_in_the_suit_bid(text, short, trump, only_singleton):
    r, seat = last(text)
    assert r.defined and r.trump == trump
    assert tuple(seat.lengths[short]) == ((1, 1) if only_singleton else (0, 1))


def test_1s_3h_is_a_good_six_card_heart_suit():
    r, seat = last("1S P 3H")  # "Invitational, good H suit (\HJ10xxx minimum strength)" [A157]
    assert r.defined and seat.lengths["H"][0] == 6


def test_1d_3n_is_reported_undefined():
    r, seat = last("1D P 3N")  # "3N not defined" [A140]
    assert not r.defined and r.node.status == "undefined"


def test_3n_over_a_major_is_a_balanced_raise():
    for text, suit in (("1H P 3N", "H"), ("1S P 3N", "S")):  # [A148, A159]
        r, seat = last(text)
        assert r.trump == suit
        shapes = {tuple(sorted(map(int, p.split("-")), reverse=True)) for p in seat.patterns}
        assert shapes <= {(4, 3, 3, 3), (4, 4, 3, 2), (5, 3, 3, 2)}
        assert all(lengths(p)[suit] >= 3 for p in seat.patterns)


# --------------------------------------------------------------------------- section 3: 2 over 1
def test_opener_rebidding_his_suit_has_no_second_suit_as_long():
    # "He will re-bid his opened suit with a 1-suiter" [A166, A172]
    r, seat = last("1H P 2D P 2H")
    assert r.defined and not r.forcing
    assert all(max(n for s, n in lengths(p).items() if s != "H") < lengths(p)["H"] for p in seat.patterns)


def test_a_new_suit_at_the_two_level_is_at_least_as_long_as_the_first():
    # "bid his second suit (which is at least as long as the first)" [A166, A178]
    r, seat = last("1H P 2C P 2D")
    assert r.defined and r.forcing
    assert all(lengths(p)["D"] >= lengths(p)["H"] for p in seat.patterns)
    assert "2-4-5-2" in patterns(seat)


def test_opener_raising_the_two_over_one_holds_three():
    r, seat = last("1S P 2D P 3D")  # "promising 3+ card support" [A173]
    assert r.defined and not r.forcing and seat.lengths["D"][0] == 3 and r.trump == "D"


def test_opener_s_2n_after_a_2c_response_is_a_15_16_one_suiter():
    # "if the response was 2C, then the C Canapé is not possible" [A188]
    r, seat = last("1H P 2C P 2N")
    assert tuple(seat.hcp) == (15, 16)


def test_the_leaps_to_four_of_a_minor_agree_the_suits_the_notes_give():
    # [A230-243]
    for text, trump in (("1S P 2C P 2H P 4C", "H"), ("1S P 2C P 2H P 4D", "S"),
                        ("1H P 2D P 2H P 4C", "H"), ("1H P 2D P 2H P 4D", "H"),
                        ("1H P 2C P 2D P 4C", "H"), ("1H P 2C P 2D P 4D", "D")):
        r, _ = last(text)
        assert r.defined and r.trump == trump, text


def test_4d_after_a_rebid_major_denies_a_club_control():
    # "4D shows a D control lacking a C control (remember that control means A, K, singleton or void)" [A225]
    _, seat = last("1H P 2D P 2H P 4D")
    assert seat.lengths["C"][0] >= 2  # a singleton or void in clubs would be a club control


def test_the_double_fit_preference_is_forcing():
    r, _ = last("1H P 2C P 3C P 3H")  # [A245-248]
    assert r.defined and r.forcing


def test_a_third_suit_is_forcing_at_the_three_level_only():
    r2, _ = last("1H P 2C P 2H P 2S")  # [A250-253]
    r3, _ = last("1H P 2C P 2H P 3D")
    assert r2.defined and not r2.forcing and r3.defined and r3.forcing


# --------------------------------------------------------------------------- section 4: 1S-2H
def test_1s_2h_continuations():
    r, seat = last("1S P 2H P 3S")  # "3S is very encouraging, but denies 3Hs" [A277]
    assert r.defined and seat.lengths["H"][1] <= 2
    r, seat = last("1S P 2H P 2N P 3C P 3S")  # "6S with 3Hs, maximum hand (forcing)" [A285]
    assert r.defined and r.forcing and tuple(seat.lengths["S"]) == (6, 6) and tuple(seat.lengths["H"]) == (3, 3)
    assert seat.hcp[0] >= 14 and seat.hcp[1] == 16
    r, seat = last("1S P 2H P 2N P 3C P 3H")  # "maximum hand with 2Hs" [A284]
    assert tuple(seat.lengths["H"]) == (2, 2) and seat.hcp[0] >= 14


# --------------------------------------------------------------------------- section 5: 1D-2D
def test_1d_2d_invites_a_forcing_major():
    r, seat = last("1D P 2D P 2H")  # [A290]
    assert r.defined and r.forcing and seat.lengths["H"][0] == 5  # an ascending canapé over 1D
    r, seat = last("1D P 2D")
    assert seat.hcp[1] <= 10 and seat.lengths["D"][0] >= 3


# --------------------------------------------------------------------------- section 6: one-level responses
@pytest.mark.parametrize("text, expected", [
    ("1D P 1H P 2H P 2S P 3C", {"1-3-5-4", "1-3-4-5"}),  # [A313]
    ("1D P 1S P 2S P 2N P 3C", {"3-1-5-4", "3-1-4-5"}),  # [A320]
    ("1H P 1S P 2S P 2N P 3C", {"3-4-1-5"}),              # [A326]
    ("1H P 1S P 2S P 2N P 3D", {"3-4-5-1"}),              # [A327]
])
def test_the_relay_answers_after_a_raise_give_the_exact_patterns(text, expected):
    r, seat = last(text)
    assert r.defined and patterns(seat) == expected


def test_the_relay_after_a_raise_is_the_cheapest_call():
    for text in ("1D P 1H P 2H P 2S", "1D P 1S P 2S P 2N", "1H P 1S P 2S P 2N"):
        r, _ = last(text)
        assert r.defined and r.node.flags and "relay" in r.node.flags


def test_relay_answers_with_long_suits():
    _, seat = last("1D P 1H P 2H P 2S P 3H")  # "5+ Ss (minimum)" [A315]
    assert seat.lengths["S"][0] == 5 and seat.hcp[1] <= 13 and tuple(seat.lengths["H"]) == (3, 3)
    _, seat = last("1D P 1H P 2H P 2S P 3S")  # "5+ Ss (maximum)" [A316]
    assert seat.lengths["S"][0] == 5 and seat.hcp[0] >= 14
    _, seat = last("1H P 1S P 2S P 2N P 3H")  # "5+ Hs" [A328]
    assert seat.lengths["H"][0] == 5 and tuple(seat.lengths["S"]) == (3, 3)


def test_opener_s_raises_of_a_one_level_response():
    r, seat = last("1H P 1S P 2S")  # "3 card support ... forcing to the 3-level" [A298]
    assert r.forcing and tuple(seat.lengths["S"]) == (3, 3)
    r, seat = last("1D P 1H P 3H")  # "5+ card support and is forcing" [A299]
    assert r.forcing and seat.lengths["H"][0] == 5
    r, seat = last("1D P 1S P 4S")  # "5 card support and a minimum" [A301]
    assert tuple(seat.lengths["S"]) == (5, 5) and seat.hcp[1] <= 13
    r, seat = last("1H P 1S P 3N")  # "5+ card support with 5 - 6 losers" [A300]
    assert seat.lengths["S"][0] == 5


def test_a_new_suit_by_opener_denies_three_card_support():
    for text, resp in (("1D P 1H P 1S", "H"), ("1D P 1S P 2H", "S"), ("1H P 1S P 2C", "S"), ("1H P 1S P 2D", "S")):
        r, seat = last(text)  # "A new suit is normal Canapé and denies 3 card (or more) support" [A302]
        assert r.defined and seat.lengths[resp][1] <= 2, text
    _, seat = last("1D P 1H P 1S")  # an ascending canapé: the spades are 5+ and as long as the diamonds
    assert all(lengths(p)["S"] >= max(5, lengths(p)["D"]) for p in seat.patterns)


def test_the_1n_rebids():
    _, seat = last("1D P 1H P 1N")  # "a secondary C suit (i.e. a shorter C suit than the Ds)" [A303]
    assert all(4 <= lengths(p)["C"] < lengths(p)["D"] for p in seat.patterns)
    _, seat = last("1H P 1S P 1N")  # "5 H332 or 6 bad H322 minimum hand" [A304]
    for p in seat.patterns:
        n = lengths(p)
        shape = tuple(sorted(n.values(), reverse=True))
        assert (n["H"], shape) in ((5, (5, 3, 3, 2)), (6, (6, 3, 2, 2))), p
    assert seat.hcp[1] <= 13


def test_the_2n_rebid_is_15_16_without_support():
    _, seat = last("1H P 1S P 2N")  # "one suited hand (semi-balanced) without 3 card support (15 - 16 HCP)" [A305]
    assert tuple(seat.hcp) == (15, 16) and seat.lengths["S"][1] <= 2


@pytest.mark.parametrize("call, words", [
    ("2H", "simple preference"), ("2S", "sign off"), ("2N", "natural"), ("3C", "forcing"),
    ("3D", "invitational"), ("3H", "4+"), ("3S", "invitation"), ("3N", "sign off"),
    ("4C", "slam try"), ("4D", "slam try"), ("4H", "sign off"), ("4S", "sign off"),
])
def test_the_1h_1s_2d_table_is_complete(call, words):
    r, _ = last(f"1H P 1S P 2D P {call}")  # [A359-373]
    assert r.defined and words in r.meaning


def test_1h_1s_2d_3h_shows_four_hearts_and_4c_an_artificial_heart_fit():
    r, seat = last("1H P 1S P 2D P 3H")
    assert seat.lengths["H"][0] == 4
    r, seat = last("1H P 1S P 2D P 4C")
    assert r.trump == "H" and seat.lengths["H"][0] == 4


# --------------------------------------------------------------------------- section 7: Ewen game tries
@pytest.mark.parametrize("text, short", [
    ("1S P 2S P 2N P 3C P 3D", "D"), ("1S P 2S P 2N P 3C P 3H", "H"), ("1S P 2S P 2N P 3C P 3S", "C"),  # [A402]
    ("1H P 2H P 2S P 2N P 3C", "C"), ("1H P 2H P 2S P 2N P 3D", "D"), ("1H P 2H P 2S P 2N P 3H", "S"),  # [A408]
])
def test_ewen_short_suit_answers(text, short):
    r, seat = last(text)
    assert r.defined and seat.lengths[short][1] <= 1


def test_ewen_long_suit_tries_are_the_default_and_an_option_makes_them_natural():
    r, _ = last("1S P 2S P 3C")
    assert "Ewen" in r.meaning
    r, _ = last("1S P 2S P 3C", frozenset({"natural_game_tries"}))
    assert "natural" in r.meaning and "game try" not in r.meaning


def test_after_interference_over_the_raise_only_long_suit_tries():
    r, seat = last("1S P 2S 3C 3D")  # [A421]
    assert r.defined and "long-suit" in r.meaning and seat.lengths["D"][0] >= 3


# --------------------------------------------------------------------------- sections 14 and 15: jump shifts
def test_a_third_chair_jump_shift_is_a_flower_bid():
    r, seat = last("P P 1H P 2S")  # "a 4 card fit and a source of tricks (flower bids)" [A634]
    assert r.defined and r.forcing and "flower" in r.meaning
    assert seat.lengths["H"][0] == 4 and seat.lengths["S"][0] == 4
    r1, seat1 = last("1H P 2S")  # in first chair the game-forcing HHxxxx jump
    assert seat1.lengths["S"][0] == 6 and "flower" not in r1.meaning


def test_the_jump_shift_development():
    _, seat = last("1S P 3C P 4S")  # "minimal support (\Hx, xxx) ... and a real suit" [A640]
    assert 2 <= seat.lengths["C"][0] and seat.lengths["C"][1] == 3
    _, seat = last("1H P 2S P 4S")  # "a truly miserable opening" [A644]
    assert seat.hcp[1] <= 13
    r, seat = last("1S P 3C P 4H")  # "A fit with responder and shows opener's long suit" [A645, A656-657]
    assert r.trump == "C" and seat.lengths["C"][0] >= 2
    assert all(lengths(p)["H"] >= lengths(p)["S"] for p in seat.patterns)
    r, _ = last("1H P 2S P 2N")  # "non-committal if 2N" [A646]
    assert r.defined and "non-committal" in r.meaning
    r, _ = last("1S P 3C P 3N")  # "else sign-off"
    assert r.defined and "sign-off" in r.meaning


# --------------------------------------------------------------------------- hands built from the words
def _hand(draw, spec: dict[str, tuple[int, int]]) -> Hand:
    """A hand whose suit lengths lie in ``spec`` (suit -> (lo, hi)), cards drawn at random."""
    lo = {s: spec.get(s, (0, 13))[0] for s in "SHDC"}
    hi = {s: spec.get(s, (0, 13))[1] for s in "SHDC"}
    n = {}
    for s in "SHD":
        n[s] = draw(st.integers(lo[s], hi[s]))
    n["C"] = 13 - n["S"] - n["H"] - n["D"]
    assume(lo["C"] <= n["C"] <= hi["C"])
    cards = []
    for s in "SHDC":
        ranks = draw(st.permutations(RANKS))
        cards += [(s, r) for r in ranks[: n[s]]]
    return Hand.from_cards(cards)


def _hcp(hand: Hand, suit: str | None = None) -> int:
    return sum(HCP.get(r, 0) for s, r in hand if suit is None or s == suit)


def _top3(hand: Hand, suit: str) -> int:
    return sum(1 for s, r in hand if s == suit and r in "AKQ")


MEANINGS = {
    # auction: (suit lengths, a test of the hand from the words)
    "1H P 1S": ({"S": (5, 9)}, lambda h: _hcp(h) >= 8),                                  # [A294]
    "1D P 2C": ({"C": (5, 9)}, lambda h: _hcp(h) >= 9),                                  # [A166]
    "1S P 2D": ({"D": (5, 9)}, lambda h: _hcp(h) >= 9),
    "1S P 1N": ({}, lambda h: 6 <= _hcp(h) <= 29),                                       # [A425]
    "1S P 2H": ({"H": (5, 8)}, lambda h: _hcp(h) >= 8),                                  # [A153]
    "1H P 2N": ({"H": (5, 8)}, lambda h: _top3(h, "H") >= 1),                            # [A146, A549]
    "1H P 3S": ({"S": (0, 1), "H": (4, 8)}, lambda h: True),                             # [A147]
    "1H P 2S": ({"S": (6, 8)}, lambda h: _top3(h, "S") == 2),                            # HHxxxx, not solid
    # a flower bid [A634] by a passed hand: at most 10 HCP, below every opening's 11 [A31-38]
    "P P 1H P 2S": ({"S": (4, 8), "H": (4, 8)}, lambda h: _top3(h, "S") >= 2 and _hcp(h) <= 10),
}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.sampled_from(sorted(MEANINGS)), st.data())
def test_a_hand_built_from_a_response_s_words_is_never_excluded(text, data):
    spec, test = MEANINGS[text]
    hand = _hand(data.draw, spec)
    assume(test(hand))
    inf, reading, inference = _infer(text)
    r = reading[-1]
    assert r.defined
    assert all(evaluate(x.formula, hand) for x in reading if x.seat == r.seat and x.defined), (text, hand.pbn())
    seat = inference.hands[r.seat]
    assert hand.pattern in seat.patterns and seat.hcp[0] <= hand.hcp <= seat.hcp[1]


# --------------------------------------------------------------------------- verify-relays after a raise
@cache
def _relay_tree(start: str):
    from canary_infer.tools.verify import Verifier

    inf = _inferencer(frozenset())
    trees = {t.start: t for t in Verifier(inf).relay_trees(starts=[start])}
    return trees[start]


# What the notes' answers leave: opener holds exactly three of responder's suit [A298] and an
# unbalanced or semi-balanced 1x opening [A32].  Worked out by hand from the words:
# - 1D-1H-2H-2S: 2N (no singleton or void: with three hearts only 2-3-6-2, since 1D is never
#   balanced), 3C 1-3-5-4/1-3-4-5, 3D 5+ diamonds, 3H/3S 5+ spades.  With four diamonds and
#   fewer than five spades, S + C = 6: 0-6 is left (1-5 is 3C; 2-4, 3-3, 4-2 are balanced).
#   5-3-5-0 has both 5+ diamonds and 5+ spades.
# - 1D-1S-2S-2N: the same with the majors swapped: 3-0-4-6 left, 3-5-5-0 in 3D and 3H.
# - 1H-1S-2S-2N: 3C 3-4-1-5, 3D 3-4-5-1, 3H 5+ hearts; with four hearts D + C = 6: 0-6 and 6-0
#   are left (1-5 and 5-1 are named, 2-4, 3-3, 4-2 balanced).
RELAY_GAPS = {
    "1D P 1H P 2H P 2S": ({"0-3-4-6"}, {"5-3-5-0"}),
    "1D P 1S P 2S P 2N": ({"3-0-4-6"}, {"3-5-5-0"}),
    "1H P 1S P 2S P 2N": ({"3-4-0-6", "3-4-6-0"}, set()),
}


@pytest.mark.parametrize("start", sorted(RELAY_GAPS))
def test_verify_relays_finds_the_hands_the_notes_leave_without_an_answer(start):
    gaps, overlapping = RELAY_GAPS[start]
    t = _relay_tree(start)
    assert {p for g in t.gaps for p in g.patterns} == gaps
    assert {p for o in t.overlaps for p in o.patterns} == overlapping
    leaves = {x.auction.rsplit(" ", 1)[1]: x for x in t.leaves}
    if start.startswith("1H"):
        assert leaves["3C"].patterns == ["3-4-1-5"] and leaves["3C"].resolved
        assert leaves["3D"].patterns == ["3-4-5-1"] and leaves["3D"].resolved
        assert all(lengths(p)["H"] >= 5 and lengths(p)["S"] == 3 for p in leaves["3H"].patterns)
    if start.startswith("1D P 1H"):
        assert leaves["2N"].patterns == ["2-3-6-2"]
        assert set(leaves["3C"].patterns) == {"1-3-5-4", "1-3-4-5"} and not leaves["3C"].resolved


@pytest.mark.parametrize("text, shorts", [("1S P 2S P 2N", "DHC"), ("1H P 2H P 2S", "CDS")])  # [A402, A408]
def test_the_short_suit_ask_shows_a_shortness(text, shorts):
    """The ask is made to show a shortness next: some pattern of the asker has a singleton or
    void in one of the three suits, and none has no shortness there."""
    _, seat = last(text)
    for p in seat.patterns:
        assert any(lengths(p)[s] <= 1 for s in shorts), p
    assert any(lengths(p)[shorts[0]] <= 1 for p in seat.patterns)
