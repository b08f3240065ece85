"""Fidelity to the notes (issue 34): hands the notes allow are not refused, conventions are
not applied where the notes rule them out, and the bidder settles what the notes settle.

Every test drives the command line (``python -m canary_infer ... --json``) so that it keeps
its meaning whatever the package's inner modules are called.  [A123] is line 123 of
canary-club-system.txt, [B12] line 12 of slam-conventions.txt.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _run(*args: str) -> dict:
    env = dict(os.environ)
    env.pop("CANARY_SYSTEM", None)
    out = subprocess.run([sys.executable, "-m", "canary_infer", *args, "--json"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode in (0, 1), out.stderr
    return json.loads(out.stdout)


def infer(auction: str, hand: str | None = None, seat: str = "N") -> dict:
    assert hand is None or cards(hand) == 13, hand
    args = ["infer", auction] + (["--hand", f"{seat}:{hand}"] if hand else [])
    return _run(*args)


def bid(hand: str, auction: str, *more: str) -> dict:
    assert cards(hand) == 13, hand
    return _run("bid", hand, "--auction", auction, *more)


def last_call(auction: str) -> dict:
    return infer(auction)["calls"][-1]


def fits(auction: str, hand: str, seat: str) -> bool:
    """The hand lies inside what inference says the seat holds after the auction."""
    h = infer(auction, hand, seat)["hands"][seat]
    return h["consistent"] and not h["breaks"]


def refused_by_last_call(auction: str, hand: str, seat: str) -> bool:
    """The hand fits every call of the auction but the last one."""
    h = infer(auction, hand, seat)["hands"][seat]
    return h["breaks"] == [len(auction.split()) - 1]


def cards(pbn: str) -> int:
    return sum(len(s) for s in pbn.split("."))


# ------------------------------------------------------------ hands the notes allow, refused
@pytest.mark.parametrize("hand", ["K2.A432.QJ5432.A", "K2.AQ432.QJ2.A32"])
def test_the_notes_examples_of_the_jump_shift_raise_are_allowed_and_bid(hand):
    # [A641] "Raise - tentatively this shows support without a second suit you wish to show";
    # [A659-660] 1H-2S-3S with "SKx HAxxx DQJxxxx CA" and "SKx HAQxxx DQJx CAxx".
    assert cards(hand) == 13
    assert fits("1H P 2S P 3S", hand, "N")
    assert "3S" in bid(hand, "1H P 2S P")["calls"]


def test_the_notes_example_of_the_suit_rebid_after_a_jump_shift():
    # [A642] "Suit rebid - nothing special"; [A662-663] 1H-3C-3H "SAxx HKQxxxx DKxx Cx".
    hand = "A32.KQ5432.K32.2"
    assert cards(hand) == 13
    assert fits("1H P 3C P 3H", hand, "N")
    assert "3H" in bid(hand, "1H P 3C P")["calls"]


@pytest.mark.parametrize("auction,hand,level", [
    ("1H 1S 3N", "KQ93.Q32.A72.K93", "3N"),   # 14 HCP: game values
    ("1H 1S 2N", "KQ93.Q32.A72.932", "2N"),   # 11 HCP: invitational
    ("1H 1S 1N", "KQ93.932.A72.932", "1N"),   # 9 HCP
])
def test_natural_notrump_over_their_overcall_is_limited_per_level(auction, hand, level):
    # [A824] "No Trump bids are natural and limit": a range for the level bid, not one cap
    # of 12 HCP for every level (the 1H-(1S)-3N with 14 HCP was refused).
    assert cards(hand) == 13
    assert fits(auction, hand, "S")
    assert level in bid(hand, "1H 1S")["calls"]


# ------------------------------------------------------------ conventions the notes rule out
@pytest.mark.parametrize("auction", [
    "2S P 4C P 4N",
    "2S P 4C P 4D P 4N",               # after one cue bid
    "2S P 3N P 4C P 4N",
    "2H P 4C P 4D P 4H P 4N",          # after a cue bid and a continuation
])
def test_no_blackwood_after_2m_4c_and_2m_3n_even_after_cue_bids(auction):
    # [A1538-1540] "2 Major - 4C or 2 Major - 3N: Cue bidding commences in the partnership's
    # methods. Neither partner can call blackwood."
    c = last_call(auction)
    assert c["call"] == "4N" and not c["defined"] and "RKCB" not in c["meaning"]


def test_rkcb_still_follows_a_serious_3n():
    # The ban is for 2M-4C and 2M-3N only; after the serious 3NT [B64] the general RKCB [B3-8] holds.
    assert "RKCB" in last_call("1S P 2H P 3H P 3N P 4C P 4N")["meaning"]


@pytest.mark.parametrize("auction", [
    "2N P 3C P 5N",          # Stayman's 3C [A1728-1729]
    "2N P 3D P 5N",          # a transfer's 3D [A1730-1731]
    "2C P 2D P 5N",          # 2C-2D, a transfer to hearts [A898-899]
    "2N P 3S P 3N P 5N",     # 3S transfer to 3N [A1734-1735]
    "1C P 5N",               # the strong club: 17+ HCP, 'all hand patterns' [A31]
    "2D P 5N",               # the three-suiter: 4441 may hold one diamond [A35]
    "1S P 2H P 2N P 3C P 5N",  # 2N forces 3C [A278]: the puppet shows no clubs
])
def test_the_grand_slam_force_does_not_accept_an_artificial_suit(auction):
    # [B68] "the bidding of 5NT implicitly accepts the last bid suit": a transfer or Stayman
    # names no suit held, so there is none to accept.
    c = last_call(auction)
    assert c["call"] == "5N" and not c["defined"]


def test_the_grand_slam_force_still_accepts_a_natural_last_suit():
    # [B68]: 1S-2C-2D, diamonds bid naturally (canapé [A64-66]).
    assert last_call("1S P 2C P 2D P 5N")["meaning"].startswith("grand slam force: seven diamonds")


def test_responders_double_after_opener_passes_is_take_out_only_through_2s():
    # [A865-867] "LHO bid a suit and partner passed: ... Double is for takeout (through 2S)".
    assert last_call("1H P 1N 2C P P X")["meaning"] == "take-out (through 2S)"
    assert last_call("1S P 1N 2H P P X")["meaning"] == "take-out (through 2S)"
    assert not last_call("1H P 1N 3C P P X")["defined"]


# ------------------------------------------------------------ looser than the notes
@pytest.mark.parametrize("auction", ["1D P 1H P 1N", "1D P 1S P 1N"])
def test_1d_1m_1n_denies_three_card_support(auction):
    # [A612-614] the diamond-club table: 4 clubs 5 diamonds minimum "rebid 1N over 1H (2H with
    # 3 card H support)", likewise over 1S; the raise shows 3-card support [A298].
    three = "2.K32.AQ432.KJ43" if "1H" in auction else "K32.2.AQ432.KJ43"
    two = "32.K2.AQ432.KJ43" if "1H" in auction else "K2.32.AQ432.KJ43"
    assert refused_by_last_call(auction, three, "N")
    assert fits(auction, two, "N")
    assert "1N" not in bid(three, auction.rsplit(" ", 1)[0])["calls"]
    assert "1N" in bid(two, auction.rsplit(" ", 1)[0])["calls"]


def test_opener_3c_over_their_2d_is_natural():
    # [A851-852] 1H-1N-(2D)-3C "opener has shown extra playing strength"; a suit bid is 4+ [A9].
    assert refused_by_last_call("1H P 1N 2D 3C", "A32.AKJ432.K32.2", "N")
    assert fits("1H P 1N 2D 3C", "2.AKQ32.32.AK432", "N")


def test_with_real_support_and_a_second_suit_opener_jump_shifts():
    # [A649-651] 1H-2S-3C-3S-4S: "opener denies any real support for responder, else he would
    # call 4C at turn 2" (the jump shift into clubs: a fit and opener's long suit [A645]);
    # "minimal support (\Hx, xxx)" [A640].
    fit = "K32.AQ32.2.AQ432"
    assert refused_by_last_call("1H P 2S P 3C", fit, "N")
    assert fits("1H P 2S P 4C", fit, "N") and "4C" in bid(fit, "1H P 2S P")["calls"]
    assert fits("1H P 2S P 3C P 3S P 4S", "32.AQ32.2.AKQ432", "N")


def test_miles_3h_3s_after_stayman_deny_both_majors():
    # [A1790-1791] "3H/3S the bid major"; [A1798-1799] "3N both majors".
    assert bid("KQ32.AQ32.AK2.K2", "2N P 3C P", "--option", "miles")["calls"] == ["3N"]
    assert bid("KQ32.A32.AK2.KQ2", "2N P 3C P", "--option", "miles")["calls"] == ["3S"]


def test_crash_double_needs_16_hcp_or_playing_tricks():
    # [A1887-1888] "Wish to dispute ownership of the hand. 16+ or playing tricks."
    assert refused_by_last_call("1C X", "Q432.J32.Q32.K32", "E")       # a flat 6-count
    assert fits("1C X", "KQJ432.QJ432.2.2", "E")           # 9 HCP, four losers
    assert fits("1C X", "AQ32.KQ2.A32.K32", "E")           # 18 HCP


def test_crash_1n_is_not_a_strong_balanced_hand_and_higher_notrump_is_natural():
    # [A1895-1896] "1N Probably minors (not a strong balanced hand)"; [A1897-1898] "Higher bids natural".
    assert refused_by_last_call("1C 1N", "AQ32.KQ2.A32.K32", "E")
    assert fits("1C 1N", "2.32.AQ432.KJ432", "E")
    assert last_call("1C 2N")["defined"] and last_call("1C P 1D 2N")["defined"]


def test_a_one_suiter_after_the_forcing_1n_has_no_longer_clubs():
    # [A447-448] after 1S-1N: "2C/2D/2H normal Canapé", "2S minimum one suited hand"; a
    # descending canapé shows the longer suit second [A66].
    assert refused_by_last_call("1S P 1N P 2S", "AQJ32.2.2.AQ5432", "N")
    assert "2S" not in bid("AQJ32.2.2.AQ5432", "1S P 1N P")["calls"]
    assert fits("1S P 1N P 2S", "AQJ432.432.2.AQ2", "N")


def test_the_2h_rescue_after_1n_doubled_has_no_long_major():
    # [A1676-1677] "2H H + C (with a long major, responder is expected to have transferred at
    # his first turn)".
    auction = "1N P P X P P XX P 2C P 2H"
    assert refused_by_last_call(auction, "2.KJ432.32.Q5432", "S")
    assert fits(auction, "32.KJ43.32.Q5432", "S")


# ------------------------------------------------------------ the bidder settles what the notes settle
def test_1d_1h_with_four_clubs_five_diamonds_and_three_hearts_raises():
    # [A612] the diamond-club table, 4 clubs 5 diamonds minimum: "rebid 1N over 1H (2H with 3
    # card H support)"; canapé [A64-66]: the simple rebid 2D is a one-suiter.
    assert bid("2.K32.AQ432.KJ43", "1D P 1H P")["calls"] == ["2H"]
    assert refused_by_last_call("1D P 1H P 2D", "2.K32.AQ432.KJ43", "N")


def test_1d_1n_with_four_clubs_six_diamonds_maximum_jumps_in_clubs():
    # [A618] "4 6 max 1D jump shift into Cs next (only non-canapé rebid in system)"; [A434] 3C.
    assert bid("A2.2.AKJ432.KJ32", "1D P 1N P")["calls"] == ["3C"]


def test_2c_2n_the_secondary_diamonds_come_before_a_short_major():
    # [A947] "Opener shows a singleton if he has one ... If opener bids 3C, he is showing a
    # secondary D suit and reversing strength."  2C holds six clubs and at most three of each
    # major [A34]: every 2C pattern with four diamonds is short in a major (counted here), so
    # were the singleton shown first no hand could bid 3C; 3C comes first for its hands.
    patterns = [(s, h, 4, 6) for s in range(4) for h in range(4) if s + h == 3]
    assert patterns and all(min(s, h) <= 1 for s, h, _, _ in patterns)
    assert bid("4.K2.AQ74.KQJ984", "2C P 2N P")["calls"] == ["3C"]
    assert refused_by_last_call("2C P 2N P 3S", "4.K2.AQ74.KQJ984", "N")
    assert bid("4.K32.Q74.KQJ984", "2C P 2N P")["calls"] == ["3S"]  # no secondary diamonds: the singleton


def test_over_1n_doubled_the_redouble_is_one_suited():
    # [A1634-1638] "2C C + D ... Redouble force. Opener bids 2C. Responder passes or bids his suit."
    assert "XX" not in bid("2.32.Q5432.KJ432", "1N X")["calls"]
    assert refused_by_last_call("1N X XX", "2.32.Q5432.KJ432", "S")
    assert fits("1N X XX", "2.32.32.KJ876432", "S")


# ------------------------------------------------------------ the notes' example hands [A648-672]
@pytest.mark.parametrize("before,call,hand", [
    ("1S P 3C P", "4H", "Q432.AQJ32.32.A2"),     # [A656-657] SQxxx HAQJxx Dxx CAx
    ("1H P 2S P", "3S", "K2.A432.QJ5432.A"),     # [A659-660] SKx HAxxx DQJxxxx CA
    ("1H P 2S P", "3S", "K2.AQ432.QJ2.A32"),     # [A659-660] SKx HAQxxx DQJx CAxx
    ("1H P 3C P", "3H", "A32.KQ5432.K32.2"),     # [A662-663] SAxx HKQxxxx DKxx Cx
    ("1H P 3C P", "3D", "A2.K432.AQ432.32"),     # [A665-666] SAx HKxxx DAQxxx Cxx
    ("1H P 2S P", "2N", "32.AK432.KQ2.A32"),     # [A671-672] Sxx HAKxxx DKQx CAxx
    ("1H P 2S P", "2N", "32.AQ32.QJ432.K2"),     # [A671-672] Sxx HAQxx DQJxxx CKx
])
def test_the_notes_example_hands_after_a_jump_shift(before, call, hand):
    # The x's are written as spot cards; each hand holds 13 cards. The examples left out:
    # 1S-3C-4S SAQJxx Hxx DKxx CKxx [A654] (7.5 Roman losers: no 1st/2nd-chair opening
    # [A108-111]), 1H-2S-3S SKxx HAQxx DA CQxxxxx (14 cards), 1H-2S-4S SKxx HKQxxx DKx Cxx (12).
    assert cards(hand) == 13
    assert fits(f"{before} {call}", hand, "N")
    assert call in bid(hand, before)["calls"]
    # a hand without support (xx) never raises or jumps in responder's suit
    if call in ("2N", "3D"):
        y = "S" if "2S" in before else "C"
        assert not {f"3{y}", f"4{y}", f"5{y}"} & set(bid(hand, before)["calls"])


# ------------------------------------------------------------ meanings the notes give
def test_cue_bidding_begins_after_3c_3h_and_3s():
    # [A1623-1624] "3C - 3H or 3S: Cue bidding begins." (A684 lists them as relays, but no relay
    # answers are given: the specific development is followed.)
    assert bid("2.K3.KQJ52.AQJ95", "3C P 3S P")["calls"] == ["4C"]
    assert "cue bid" in last_call("3C P 3H P 3S")["meaning"]
    assert "RKCB" in last_call("3C P 3H P 3S P 4N")["meaning"]


def test_after_1x_2n_cue_bidding_continues():
    # [A549] "Later development is cue bidding except that a jump cue bid is a control asking bid".
    c = last_call("1H P 2N P 3H P 3S P 4C")
    assert c["defined"] and "control in clubs" in c["meaning"]
    assert "control-asking" in last_call("1H P 2N P 3H P 3S P 5C")["meaning"]


def test_over_their_1n_overcall_notrump_and_jump_shifts_have_their_meanings():
    # [A818-826] "The enemy overcalls the opening bid ... No Trump bids are natural and limit.
    # Jump shifts are preemptive."
    assert last_call("1S 1N 3H")["meaning"] == "preemptive jump shift"
    assert last_call("1S 1N 2N")["meaning"] == "natural, limit"


def test_1n_doubled_2c_then_2h_over_the_preference_is_clubs_and_hearts():
    # [A1634] "2C C + D (sometimes C + H -- take 2D preference out to 2H)".
    c = last_call("1N X 2C P 2D P 2H")
    assert c["defined"] and "clubs and hearts" in c["meaning"]
    assert refused_by_last_call("1N X 2C P 2D P 2H", "2.32.AQ432.KJ432", "S")


def test_the_simple_transfers_follow_both_strong_2n_auctions():
    # [A1749-1753] "In CANARY there are two strong 2N auctions: 1C - 1D - 2N and 2N. These are
    # sufficiently rare to use very simple transfers".
    assert last_call("1C P 1D P 2N P 3D")["meaning"] == last_call("2N P 3D")["meaning"] == "H transfer"
    assert last_call("1C P 1D P 2N P 3C")["meaning"] == "Stayman"


def test_crash_double_advancer_bids_his_shortest_suit_even_theirs():
    # [A1888] "Advancer bids his shortest suit (exclusion) or passes with long Cs"; [A1903] the
    # same over 1C-P-1D with long diamonds.
    assert last_call("1C P 1D X P 2D")["meaning"] == "his shortest suit (exclusion)"
    assert last_call("1C X P 2C")["meaning"] == "his shortest suit (exclusion)"
    assert fits("1C P 1D X P 2D", "5432.Q432.2.Q432", "E")


@pytest.mark.parametrize("two,three", [("2D", "3D"), ("2H", "3H")])
def test_interference_over_either_transfer_follows_one_rule(two, three):
    # [A1703-1722] "After 1N - P - transfer - overcall - P - P: Responder bids suit under true
    # suit to re-transfer ... 2N/3N natural, Double natural, 3S asks for stopper".
    assert last_call(f"1N P {two} 3C P P X")["meaning"] == "natural"
    assert last_call(f"1N P {two} 3C P P 3N")["meaning"] == "natural"
    assert last_call(f"1N P {two} 3C P P {three}")["meaning"].startswith("re-transfer")


# ------------------------------------------------------------ proofs read what inference reads
def test_verify_relays_resolves_maximum_and_minimum_as_inference_does():
    # 1D-1N: 2D 'minimum one suited hand' [A432], 2N 'shows extra values' [A433]: the halves of
    # the opening's range do not meet, so no hand fits both, in the proofs as in inference.
    out = subprocess.run([sys.executable, "-m", "canary_infer", "verify-relays", "1D P 1N", "--json"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    tree = json.loads(out.stdout)["trees"][0]
    assert ["2D", "2N"] not in [o["calls"] for o in tree["overlaps"]]
    # the proofs' old witness of that overlap: 14 HCP, not a minimum, so inference refuses its 2D
    assert refused_by_last_call("1D P 1N P 2D", "QJ.A8.AK874.8765", "N")
