"""Reading of a third random sample of inventory entries (issue 34, part 5: seed 20261209).

The expectations come from the notes' words: [A123] is line 123 of canary-club-system.txt,
[B12] line 12 of slam-conventions.txt.  The helpers drive the command line (test_fidelity).
"""
from __future__ import annotations

import pytest
from test_fidelity import _run, bid, cards, fits, last_call


# ------------------------------------------------------------ 1M-2y-2N-3C: opener's rebid [A192]
@pytest.mark.parametrize("auction, hand", [("1H P 2D P 2N P 3C P 4H", "KQ2.AKJ654.2.K32"),
                                           ("1S P 2D P 2N P 3C P 4S", "AKJ654.KQ2.2.K32")])
def test_after_3c_the_one_suiter_may_rebid_his_major_at_game(auction, hand):
    # [A192] "After the 3C bid, opener rebids his major if he has the 15-16 HCP one suiter.
    # Any other rebid by opener shows the C canapé": 4 of his major is a rebid of his major,
    # so the 15-16 one-suiter (stoppers in the unbid suits for 2N [A183-188]) is not refused.
    assert cards(hand) == 13
    assert fits(auction, hand, "N")


def test_after_3c_a_new_suit_is_still_the_club_canape():
    # [A192] "Any other rebid by opener shows the C canapé".
    assert "club canapé" in last_call("1H P 2D P 2N P 3C P 3S")["meaning"]
    assert not fits("1H P 2D P 2N P 3C P 3S", "KQ2.AKJ654.2.K32", "N")


# ------------------------------------------------------------ 1x-2N-3x-3N: trump honours [A549]
@pytest.mark.parametrize("auction", ["1H P 2N P 3H P 3N", "1H P 2N P 3H P 3S P 3N"])
def test_the_trump_ask_says_which_honours_it_counts(auction):
    # [A549] "the response shows the number of honors (step 1 = no honors; step 2 = 1 honor
    # etc.)" names no honours: the reading chosen must be reported with the ask.
    step = _run("explain", auction)["steps"][-1]
    assert "trump-asking" in step["meaning"]
    assert "A, K, Q" in step["interpretation"]


# ------------------------------------------------------------ 1x-JS-(minimum NT) [A646]
@pytest.mark.parametrize("auction", ["1S P 3C P 3N P", "1H P 3D P 3N P"])
def test_the_minimum_notrump_at_the_three_level_is_a_sign_off(auction):
    # [A646] "Minimum notrump - non-committal if 2N, else sign-off": responder passes it.
    hand = "A2.32.32.AKQJ432" if "3C" in auction else "A2.32.AKQJ432.32"
    assert cards(hand) == 13
    assert bid(hand, auction)["calls"] == ["P"]
