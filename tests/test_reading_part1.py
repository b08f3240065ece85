"""Reading of a random sample of the inventory (issue 34, seed 20261207, part 1): defects
found, each test's expectation taken from the notes' words.  [A123] is line 123 of
canary-club-system.txt.  See docs/reading-60-part1.md.
"""
from __future__ import annotations

from test_fidelity import fits, last_call


def test_1d_1n_2s_2n_3d_is_five_plus_in_both_suits():
    # [A729] 1D-1N-2S-2N-3D "shows 5+S & 5+D": six-six and seven-five hands are in.
    assert fits("1D P 1N P 2S P 2N P 3D", "AKJ432..KQ5432.2", "N")
    assert fits("1D P 1N P 2S P 2N P 3D", "AKJ8432..KQ543.2", "N")
    assert fits("1D P 1N P 2S P 2N P 3D", "AKJ43.2.KQ543.32", "N")


def test_leaps_to_four_of_a_minor_after_1n_and_2n_rebids_follow_the_2_over_1_rules():
    # [A351] "If opener does not show 3+ card support of responder's suit, then responder's
    # jumps to the 4 level in minors follow the same rules as after forcing 2 over 1";
    # [A221] "Agrees that minor if it is one of opener's suits"; 1D-1S-1N shows diamonds and
    # "a secondary C suit" [A303].
    assert "agrees diamonds" in last_call("1D P 1S P 1N P 4D")["meaning"]
    assert "agrees clubs" in last_call("1D P 1H P 1N P 4C")["meaning"]
    # [A221-223] "Otherwise artificially agrees one of opener's majors": after 1H-1S-1N
    # (5H332 or 6H322 [A304]) and 1H-1S-2N (one-suited [A305]) his only major is hearts.
    for auction in ("1H P 1S P 1N P 4C", "1H P 1S P 1N P 4D", "1H P 1S P 2N P 4C"):
        assert "agreeing hearts" in last_call(auction)["meaning"], auction
    # After 1D-1H-2N clubs are not opener's suit and he has no major: no meaning.
    assert not last_call("1D P 1H P 2N P 4C")["defined"]


def test_a_jump_rebid_to_game_after_opener_s_2n_is_not_invitational():
    # [A355] "A jump rebid is invitational": after 1H-1S-2N the jump to 4S is game, which
    # cannot invite; the notes give it no other meaning. Below game the rule holds.
    assert not last_call("1H P 1S P 2N P 4S")["defined"]
    assert not last_call("1D P 1H P 2N P 4H")["defined"]
    assert last_call("1H P 1S P 1N P 3S")["meaning"] == "jump rebid of responder's suit: invitational"


def test_a_minimum_5h332_below_the_1n_range_opens_1h_and_rebids_1n():
    # [A304] 1H-1S-1N "shows a 5 H332 ... minimum hand", whatever the honours; 1N opens
    # 13-16 [A33], so an 11-12 HCP 5H332 (here with opening values [A108-111]: 12 HCP, two
    # quick tricks, seven losers) can only open 1H.
    hand = "32.A5432.KQ2.QJ2"
    assert fits("1H P 1S P 1N", hand, "N")
    assert fits("P P 1H P 1S P 1N", "K32.KJ543.Q2.K32", "S")
    # With 13 HCP and one high honour in the five-card major the opening is 1N [A33].
    assert not fits("1H", "32.A5432.KQ2.KJ2", "N")
