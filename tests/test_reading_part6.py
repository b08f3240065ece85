"""Issue 34, third sample, part 6: what the reading of its 30 entries fixed.

Expectations come from the notes' words ([A123] = canary-club-system.txt, [B12] =
slam-conventions.txt), driven through the command line as in test_fidelity.
"""
from __future__ import annotations

import pytest
from test_fidelity import cards, fits, last_call, refused_by_last_call


def test_no_exclusion_double_when_the_doubler_is_a_passed_hand():
    # [A1866] "we don't use exclusion (defined below) bids if doubler is a passed hand -- whether
    # advancer is a passed hand or not is irrelevant"; [A1876] "a double is an exclusion bid of the
    # newly bid suit".  Dealer N: N, E and S pass, W opens 1H, N (a passed hand) doubles.
    c = last_call("P P P 1H X 1S X")
    assert c["call"] == "X" and not c["defined"]
    # four spades: no exclusion of spades is shown
    assert fits("P P P 1H X 1S X", "AJ32.32.K432.Q32", "S")


def test_the_exclusion_double_stays_when_the_doubler_has_not_passed():
    # [A1876-1877]: advancer's double of responder's new suit is an exclusion of it.
    c = last_call("P 1H X 1S X")
    assert c["defined"] and c["meaning"].startswith("exclusion of spades")


@pytest.mark.parametrize("auction, hand", [
    ("3C P 4H", "A2.432.K432.5432"),    # 3C-4H final [A1616-1617]
    ("3C P 4S", "432.A2.K432.5432"),    # 3C-4S final
    ("2H P 4S", "432.A2.K432.5432"),    # 2M-4(other major) to play [A1128]
])
def test_a_suit_bid_to_play_shows_four_cards(auction, hand):
    # [A9] "there is no bid in the system of a suit less than 4 cards in length unless the bid is
    # pre-defined as artificial": three cards in the suit named are refused.
    assert cards(hand) == 13
    assert refused_by_last_call(auction, hand, "S")


def test_after_3c_3h_3s_responders_cue_bid_needs_no_control_in_an_unbypassed_suit():
    # [B60-61] "We always bid the cheapest suit we have control in ... If we bypassed a suit, and
    # partner continues cuebidding, it shows that partner has a control both in the suit that was
    # bypassed and in the suit he showed control in".  3S over 3H bypasses no suit, so 4D with a
    # diamond control and no heart control is responder's cheapest cue bid.
    hand = "Q32.Q32.AK2.KQ32"
    assert cards(hand) == 13
    assert fits("3C P 3H P 3S P 4D", hand, "S")
