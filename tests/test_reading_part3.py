"""Reading of a second random sample of inventory entries (issue 34, part 3: seed 20261208).

The expectations come from the notes' words: [A123] is line 123 of canary-club-system.txt,
[B12] line 12 of slam-conventions.txt.  The helpers drive the command line (test_fidelity).
"""
from __future__ import annotations

import pytest
from test_fidelity import bid, cards, fits, last_call, refused_by_last_call


# ------------------------------------------------------------ 1x-2y-(jump raise): keycard Gerber [A180]
@pytest.mark.parametrize("auction", ["1H P 2C P 4C P 4N", "1S P 2D P 4D P 4N", "1D P 2C P 4C P 5N"])
def test_after_keycard_gerber_responder_answers_and_asks_nothing(auction):
    # [A180] "A jump raise of responder's suit with 5+ card support (this is keycard 'Gerber')":
    # the raise asks, responder answers; the answers are not described, so 4N is not RKCB
    # and 5N not the grand slam force.
    call = last_call(auction)
    assert not call["defined"]
    assert "RKCB" not in call["meaning"].split("not RKCB")[0]


def test_after_keycard_gerber_the_bidder_has_no_ask_to_make():
    hand = "32.32.AK2.AQ5432"
    assert cards(hand) == 13
    assert bid(hand, "1H P 2C P 4C P")["status"] == "undefined"


# ------------------------------------------------------------ 3-level and game-level preferences [A200-203]
def test_1d_2c_2n_3d_is_the_forcing_preference_with_three_cards():
    # [A203] "Forcing if opener raised responder's suit or bid 2N ... This forcing preference can
    # be made on 3 card support".
    call = last_call("1D P 2C P 2N P 3D")
    assert call["defined"] and "forcing" in call["meaning"]
    assert fits("1D P 2C P 2N P 3D", "A32.32.Q32.KJ432", "S")
    assert refused_by_last_call("1D P 2C P 2N P 3D", "AQ3.432.32.KJ432", "S")


@pytest.mark.parametrize("auction", ["1H P 2D P 2N P 4H", "1S P 2C P 2N P 4S", "1D P 2C P 2N P 5D",
                                     "1D P 2C P 3C P 5D"])
def test_the_game_level_preference_after_2n_or_a_raise_is_a_preference(auction):
    # [A203] "Thus the preference at the game level is weaker than the (forcing) 3 level
    # preference": after opener's 2N or raise the game bid in his first suit is a preference.
    assert "preference at the game level" in last_call(auction)["meaning"]


# ------------------------------------------------------------ 1S-2H-2S agrees nothing [A274, B64]
@pytest.mark.parametrize("auction", ["1S P 2H P 2S P 3N", "1S P 2H P 2S P 4N"])
def test_1s_2h_2s_is_no_fit_so_no_serious_3n_and_no_rkcb(auction):
    # [A274] "2S is not encouraging": opener rebids his own suit, responder has shown hearts.
    # [B64] the serious 3NT needs an 8-card major fit guaranteed by the bidding.
    call = last_call(auction)
    assert "serious" not in call.get("meaning", "")
    assert "RKCB" not in call.get("meaning", "")


# ------------------------------------------------------------ 1D-1N-2N with 4 clubs [A433, A807, A618]
def test_1d_1n_2n_takes_a_good_five_card_diamond_maximum_with_four_clubs():
    # [A807] 2N "shows a maximum hand with a broken 6 card suit or a good 5 card suit. The hand
    # can contain a singleton"; the diamond-club table [A618] sends only 4 clubs 6 diamonds
    # maximum to 3C.
    hand = "2.K32.AQJ32.KJ32"
    assert cards(hand) == 13
    assert fits("1D P 1N P 2N", hand, "N")
    assert set(bid(hand, "1D P 1N P")["calls"]) == {"2N", "3C"}
    assert refused_by_last_call("1D P 1N P 2N", "A2.2.AKJ432.KJ32", "N")


# ------------------------------------------------------------ opener's third bid 3H [A690]
@pytest.mark.parametrize("call,shows", [("3S", "spades"), ("4C", "clubs")])
def test_1h_1n_2d_2h_3h_controls_agree_hearts(call, shows):
    # [A690] "If one of opener's natural suits can be bid below game and the other cannot, then a
    # bid of that suit is natural and other bids show a control and agree the second suit":
    # over 3H hearts cannot be set below game, diamonds can (4D).
    c = last_call(f"1H P 1N P 2D P 2H P 3H P {call}")
    assert c["defined"] and "agreeing hearts" in c["meaning"] and shows in c["meaning"]
    assert "agrees diamonds" in last_call("1H P 1N P 2D P 2H P 3H P 4D")["meaning"]


@pytest.mark.parametrize("prefix", ["1D P 1N P 2H P 2S P 3H", "1H P 1N P 2D P 2H P 3H"])
def test_over_3h_the_spade_control_is_bid_first_and_denies_no_club_control(prefix):
    # [A690] other bids show a control; cue bids are made up the line [B60] "We always bid the
    # cheapest suit we have control in": over 3H that is 3S, so 3S with both controls, and 4C
    # (which bypassed 3S) denies a spade control.
    both = "A32.432.32.A5432"
    clubs_only = "432.432.32.AK432"
    assert cards(both) == 13 and cards(clubs_only) == 13
    assert fits(f"{prefix} P 3S", both, "S")
    assert refused_by_last_call(f"{prefix} P 4C", both, "S")
    assert fits(f"{prefix} P 4C", clubs_only, "S")
