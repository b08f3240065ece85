"""Reading of a random sample of inventory entries (issue 34, part 2 of the 60-entry sample).

The expectations come from the notes' words: [A123] is line 123 of canary-club-system.txt,
[B12] line 12 of slam-conventions.txt.  The helpers drive the command line (test_fidelity).
"""
from __future__ import annotations

import pytest
from test_fidelity import cards, fits, last_call, refused_by_last_call


# ------------------------------------------------------------ 2M-(X): running [A1552-1557]
@pytest.mark.parametrize("auction,hand", [
    ("2H X 3D", "32.2.QJ5432.5432"),
    ("2S X 3D", "32.2.J543.Q95432"),
    ("2S X 3H", "2.QJ5432.432.432"),
])
def test_running_to_a_suit_of_our_own_is_natural(auction, hand):
    # [A1552-1557] "3C or 3D: running", "Other major: running"; [A9] "there is no bid in the
    # system of a suit less than 4 cards in length unless the bid is pre-defined as artificial".
    assert cards(hand) == 13
    assert fits(auction, hand, "S")
    suit = auction.split()[-1][1]
    short = {"D": "32.2.Q32.QJ95432", "H": "2.Q32.5432.J5432"}[suit]
    assert cards(short) == 13
    assert refused_by_last_call(auction, short, "S")


def test_running_to_opener_s_clubs_gives_no_length():
    # [A1552-1553] 3C is running to opener's second suit [A1122]: the notes give no length.
    hand = "5432.32.5432.Q32"
    assert cards(hand) == 13
    assert fits("2H X 3C", hand, "S")



# ------------------------------------------------------------ the lines cited are the notes' own
@pytest.mark.parametrize("auction,line", [
    ("1H 1N", "A1838"),    # "The 1N overcall shows 17-20 HCP"
    ("1H 2S", "A1836"),    # "most jump overcalls are preemptive in nature"
    ("1H 3H", "A1846"),    # "jump cue bid is for Ds and the unbid Major with a big hand"
    ("1S 2S", "A1847"),    # "cue bid shows Cs and the unbid Major (top and bottom)"
    ("1D 3D", "A1854"),    # "3D is Ss and Cs with a big hand"
    ("1N 2H 2N", "A1695"),  # "2N" / "forces opener to bid 3C" [A1695-1696]
    ("1N 2H 2N P 3C", "A1696"),
])
def test_a_call_cites_the_line_that_gives_its_meaning(auction, line):
    assert line in last_call(auction)["source"]


# ------------------------------------------------------------ vague words: an interpretation beside the call
@pytest.mark.parametrize("auction,hand,seat", [
    ("1C 1H", "KQ32.J432.32.432", "E"),          # RAnk: majors or minors [A1891-1892]
    ("1C 1S", "K432.32.QJ32.432", "E"),          # SHape: pointed [A1893-1894]
    ("1C P 1D 1S", "KQ32.J432.32.432", "W"),     # RAnk [A1906-1907]
    ("1C P 1D 1N", "32.K432.32.QJ432", "W"),     # SHape: rounded [A1908-1909]
    ("1N X P P XX P 2C", "Q432.2.32.J65432", "S"),  # C + S [A1643-1644]
    ("1N X P P XX P 2H", "Q432.J432.32.432", "S"),  # H + S [A1647-1648]
])
def test_two_suited_calls_without_a_length_say_how_they_are_read(auction, hand, seat):
    # The notes name the two suits and no length: a 4-4 hand fits, and the reading is marked.
    assert cards(hand) == 13
    assert fits(auction, hand, seat)
    assert "4+ cards" in (last_call(auction).get("interpretation") or "")


# ------------------------------------------------------------ (1x)-X-(new suit)-advancer's suit-...-raise
@pytest.mark.parametrize("auction", ["1D X 1H 1S P 2S", "1D X 1H 1S 2H 2S"])
def test_doubler_raises_advancer_freely_with_four_card_support(auction):
    # [A1875] "If responder bids a new suit, a new suit by advancer is natural and encouraging,
    # doubler raises freely (i.e. doesn't show extra values) with 4 card support": whether
    # opener's side bids again in between is not a condition of the rule.
    minimum = "KQ32.32.32.AQ432"     # 11 HCP, the bottom of the double: no extras needed
    three = "KQ3.32.432.AQ432"
    assert cards(minimum) == 13 and cards(three) == 13
    assert fits(auction, minimum, "E")
    assert refused_by_last_call(auction, three, "E")
