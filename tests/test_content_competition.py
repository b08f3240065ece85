"""Competitive auctions after our 1x and 1N, and our defence over theirs (inventory sections 16,
21, 23 and 24), checked against the notes' words.

Every expectation is computed here from the words (the HCP range a call states, the shapes of
our 1N, ...), never copied from the engine's output."""

import itertools
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from canary_infer.bridge.auction import Auction
from canary_infer.bridge.cards import Hand
from canary_infer.deal.infer import Inferencer
from canary_infer.language.expr import evaluate, parse

SUITS = "SHDC"


def infer(inferencer, auction, dealer="N"):
    return inferencer.infer(Auction.parse(auction, dealer=dealer))


def last(r):
    return r.calls[-1]


def one_nt_patterns():
    """The shapes of our 1N [A33, A42, A604] as S-H-D-C patterns, from the words."""
    out = set()
    for shape in ((4, 3, 3, 3), (4, 4, 3, 2), (5, 3, 3, 2), (4, 4, 4, 1)):
        out |= set(itertools.permutations(shape))
    out.add((2, 2, 4, 5))
    return out


def fmt(p):
    return "-".join(map(str, p))


# ------------------------------------------------------------------ section 16: over our 1x
def test_their_double_then_one_notrump_is_8_to_11_with_at_most_three_trumps(inferencer):
    r = infer(inferencer, "1H X 1N")  # [A861]
    assert last(r).defined and not last(r).forcing
    assert r.hands["S"].hcp == (8, 11)
    assert r.hands["S"].lengths["H"] == (0, 3)


def test_negative_free_bid_and_forcing_new_suits(inferencer):
    nfb = last(infer(inferencer, "1D 1S 2H"))  # [A834] non-forcing
    assert nfb.defined and not nfb.forcing
    force = last(infer(inferencer, "1D 1S 2C"))  # [A832-833] forcing
    assert force.defined and force.forcing
    # no negative double over a three-level overcall: new suits forcing [A836-837]
    assert last(infer(inferencer, "1D 3C 3H")).forcing
    # over a two-level overcall: below two of opener's suit forcing, above it not [A828-830]
    assert last(infer(inferencer, "1S 2C 2H")).forcing
    assert not last(infer(inferencer, "1H 2C 2S")).forcing
    assert not last(infer(inferencer, "1D 2C 2H")).forcing
    # natural: four or more cards [A9]
    assert infer(inferencer, "1D 1S 2H").hands["S"].lengths["H"][0] == 4


def test_informative_double_shows_one_of_two_hand_types(inferencer, system):
    node = system.root().children["1D"].children["(1S)"].children["X"]
    f = node.constraint({})
    # support for both unbid suits (hearts and clubs), 8-11 HCP [A821]
    assert evaluate(f, Hand.from_pbn("32.K432.Q32.K432"))
    # a singleton heart and 9 HCP: neither type
    assert not evaluate(f, Hand.from_pbn("432.2.KQ432.K432"))
    # clubs could be bid below 2D without the double (1D-(1S)-2C): a game force with clubs
    # needs a semi-solid suit [A822]; hearts (2H is a negative free bid) only five cards
    assert evaluate(f, Hand.from_pbn("32.AJ2.K32.AKJ32"))
    assert not evaluate(f, Hand.from_pbn("A2.AJ2.K32.QJ432"))
    assert evaluate(f, Hand.from_pbn("A2.QJ432.K32.AJ2"))
    # through 2S only [A820]: no meaning over a three-level overcall
    assert not last(infer(inferencer, "1D 3C X")).defined


def test_their_double_redouble_raises_and_new_suits(inferencer):
    assert last(infer(inferencer, "1S X XX")).defined  # penalty [A856]
    r = infer(inferencer, "1S X 2H")  # new suits forcing, including 1S-(X)-2H [A860]
    assert last(r).forcing and r.hands["S"].lengths["H"][0] == 4
    assert "limit raise" in last(infer(inferencer, "1H X 2N")).meaning  # [A857]
    assert "preemptive" in last(infer(inferencer, "1H X 3H")).meaning  # [A858]


def test_undefined_calls_in_competition_are_reported(inferencer):
    # the notes do not say what responder's raise over a one-level overcall means
    assert not last(infer(inferencer, "1H 1S 2H")).defined
    assert not last(infer(inferencer, "1D 2C 3N 4C X")).defined


def test_forcing_1n_hand_after_rhos_bid_over_openers_rebid(inferencer):
    # 1S-1N-2C-(2H) [A880-885]: double penalty, raises competitive, new suit game force, cue bid
    x = last(infer(inferencer, "1S P 1N P 2C 2H X"))
    assert x.defined and "penalty" in x.meaning
    r = infer(inferencer, "1S P 1N P 2C 2H 3C")  # a raise of opener's clubs: three or more
    assert "competitive" in last(r).meaning and r.hands["S"].lengths["C"][0] == 3
    r = infer(inferencer, "1S P 1N P 2C 2H 3D")  # the unbid suit: natural, game force
    assert last(r).forcing and r.hands["S"].lengths["D"][0] == 4
    assert "cue bid" in last(infer(inferencer, "1S P 1N P 2C 2H 3H")).meaning
    # no relays [A885]: the cheapest call is not the second relay
    assert not last(infer(inferencer, "1S P 1N P 2C 2H 2S")).meaning.startswith("the second relay")
    # RHO doubles opener's rebid [A887-890]: redouble penalty, other calls keep their meaning
    assert "penalty" in last(infer(inferencer, "1S P 1N P 2C X XX")).meaning
    assert last(infer(inferencer, "1S P 1N P 2C X 2D")).meaning == last(infer(inferencer, "1S P 1N P 2C P 2D")).meaning
    # the same after every rebid, e.g. opener's 2N and his 3-level jump
    assert "penalty" in last(infer(inferencer, "1H P 1N P 2N 3C X")).meaning
    assert "penalty" in last(infer(inferencer, "1D P 1N P 3D 3H X")).meaning


def test_relays_over_the_overcalled_forcing_1n(system):
    """[A843-852]: relays go on where opener makes his normal rebid, are off after a rebid that
    replaces one the overcall took away, and off once the overcaller's partner bids again."""
    def node(*calls):
        n = system.root()
        for c in calls:
            n = n.children[c]
        return n
    normal = node("1H", "1N", "(2C)", "2D")  # [A848-849]: a normal auction
    assert normal.relays_on
    assert node("1H", "1N", "(2C)", "2D", "2H").relay  # 2H is the relay [A849]
    assert not node("1H", "1N", "(2D)", "3C").relays_on  # [A851-852]
    again = node("1H", "1N", "(2C)", "2D", "(2H)")  # the overcaller's partner bids again [A845]
    assert not again.relays_on
    assert "2S" not in again.children or not again.children["2S"].relay
    assert "penalty" in again.children["X"].meaning
    # without the overcall the same auction keeps its relays
    assert node("1H", "1N", "2D").relays_on and node("1H", "1N", "2D", "2H").relay


# ------------------------------------------------------------------ section 21: over our 1N
def test_one_notrump_redoubled_in_the_pass_out_seat_is_15_16(inferencer):
    r = infer(inferencer, "1N P P X XX")  # [A1657]
    assert r.hands["N"].hcp == (15, 16)


def test_escapes_after_a_penalty_double(inferencer):
    r = infer(inferencer, "1N X 2D")  # D + H [A1635]
    assert r.hands["S"].lengths["D"][0] == 4 and r.hands["S"].lengths["H"][0] == 4
    r = infer(inferencer, "1N X P P XX P 2H")  # H + S [A1647-1648]
    assert r.hands["S"].lengths["H"][0] == 4 and r.hands["S"].lengths["S"][0] == 4
    assert last(infer(inferencer, "1N X P")).forcing  # [A1639]
    assert last(infer(inferencer, "1N X XX")).forcing  # [A1638]
    r = infer(inferencer, "1N P P X P P 2S")  # S + C [A1667-1668]
    assert r.hands["S"].lengths["S"][0] == 4 and r.hands["S"].lengths["C"][0] == 4


def test_doubled_transfer_pass_denies_four_diamonds_and_three_hearts(inferencer):
    r = infer(inferencer, "1N P 2D X P")  # [A1700]
    want = {fmt(p) for p in one_nt_patterns() if p[1] <= 2 and p[2] <= 3}
    assert set(r.hands["N"].patterns) == want
    r = infer(inferencer, "1N P 2D X 2H")  # 3-card support [A1701]
    assert r.hands["N"].lengths["H"][0] == 3
    r = infer(inferencer, "1N P 2H X XX")  # four hearts to an honour, fewer than 3 spades [A1699]
    assert r.hands["N"].lengths["S"][1] == 2 and r.hands["N"].lengths["H"][0] == 4


def test_lebensohl_and_the_informatory_double(inferencer):
    r = infer(inferencer, "1N 2H X")  # 9-12 [A1685]
    assert r.hands["S"].hcp == (9, 12)
    assert last(infer(inferencer, "1N 2H 2N")).forcing  # forces 3C [A1690]
    assert last(infer(inferencer, "1N 2H 2N P 3C")).defined
    assert last(infer(inferencer, "1N 2D 3D")).forcing  # cue bid asks for a major [A1688]


def test_overcalled_transfer(inferencer):
    assert "re-transfer" in last(infer(inferencer, "1N P 2D 2S P P 3D")).meaning  # [A1714]
    assert "invitational" in last(infer(inferencer, "1N P 2D 2S P P 3H")).meaning  # [A1716]
    r = infer(inferencer, "1N P 2D 2S P P 3C")  # natural game force [A1710]
    assert last(r).forcing and r.hands["S"].lengths["C"][0] == 4


# ------------------------------------------------------------------ section 23: our defence
def test_one_notrump_overcall_is_17_20_balanced(inferencer):
    r = infer(inferencer, "1H 1N")  # [A1836]
    assert r.hands["E"].hcp == (17, 20)
    balanced = set()
    for shape in ((4, 3, 3, 3), (4, 4, 3, 2), (5, 3, 3, 2)):
        balanced |= {fmt(p) for p in itertools.permutations(shape)}
    assert set(r.hands["E"].patterns) <= balanced
    r = infer(inferencer, "1H P P 1N")  # pass-out seat: the same [A1881]
    assert r.hands["W"].hcp == (17, 20)
    r = infer(inferencer, "P P P 1H 1N")  # a passed hand: a minimum balanced hand [A1850]
    assert "minimum" in last(r).meaning and r.hands["N"].hcp[1] < 17


def fits(inferencer, auction, seat, hand):
    """The hand (13 cards) fits every call its seat made in the auction."""
    assert sum(len(x) for x in hand.split(".")) == 13, hand
    return infer_known(inferencer, auction, seat, hand).hands[seat].consistent


def infer_known(inferencer, auction, seat, hand):
    return inferencer.infer(Auction.parse(auction, dealer="N"), known=(seat, hand))


def said(c):
    return (c.defined, c.meaning, c.source, c.interpretation, str(c.formula))


@pytest.mark.parametrize("opening,overcall", [
    ("1N P 2D", "1D 1N P 2D"), ("1N P 2H", "1H 1N P 2H"), ("1N P 2D", "1S 1N P 2D"),
    ("1N P 2D", "1D P P 1N P 2D"),  # the pass-out seat's 1N is the same 17-20 [A1881]
    ("1N X XX", "1D 1N X XX"), ("1N X 2C", "1S 1N X 2C"), ("1N X P P XX P 2H", "1H 1N X P P XX P 2H"),
    ("1N 2H 2N P 3C P 3N", "1D 1N 2H 2N P 3C P 3N"), ("1N 2D 3D", "1S 1N 2D 3D"),
    ("1N P 2D 2S P P 3D", "1D 1N P 2D 2S P P 3D"), ("1N P 2H X XX", "1D 1N P 2H X XX"),
])
def test_responses_to_our_1n_overcall_are_those_over_the_1n_opening(inferencer, opening, overcall):
    # [A1838] "The 1N overcall shows 17-20 HCP. The responses are the same as those over a 1N
    # opening bid."
    a, b = last(infer(inferencer, opening)), last(infer(inferencer, overcall))
    assert a.defined and said(a) == said(b)


def test_a_transfer_into_their_major_asks_for_a_stopper(inferencer):
    # [A1838] "a 'transfer' into opener's bid major is asking for a stopper there"
    for auction in ("1H 1N P 2D", "1S 1N P 2H", "1S P P 1N P 2H"):
        assert "stopper" in last(infer(inferencer, auction)).meaning, auction
    # not a transfer: a hand without their major may ask; over 1D the same 2H shows spades
    short_spades = "32.KJ432.A32.432"
    assert fits(inferencer, "1S 1N P 2H", "W", short_spades)
    assert not fits(inferencer, "1D 1N P 2H", "W", short_spades)
    assert fits(inferencer, "1D 1N P 2H", "W", "KJ432.32.432.432")
    # the notes give the answers to the ask no meaning, and the transfer's continuations do not
    # follow it [A1699-1722]
    assert not last(infer(inferencer, "1H 1N P 2D P 2H")).defined
    assert not last(infer(inferencer, "1H 1N P 2D X XX")).defined


def test_the_informatory_double_over_our_1n_overcall_is_rescaled(inferencer):
    # [A1685] "informatory 9+ - 12- HCP" opposite the 13-16 1N opening [A33]; opposite the 17-20
    # overcall [A1838] responder needs as much less as the 1N bidder holds more (a marked
    # interpretation in 65-defence).
    lo, hi = 9 - (17 - 13), 12 - (20 - 16)
    assert infer(inferencer, "1D 1N 2C X").hands["W"].hcp == (lo, hi)
    assert infer(inferencer, "1N 2C X").hands["S"].hcp == (9, 12)  # the opening's own, unchanged
    ten, six = "K32.Q432.K32.Q32", "K32.Q432.J32.432"
    assert fits(inferencer, "1N 2C X", "S", ten) and not fits(inferencer, "1D 1N 2C X", "W", ten)
    assert fits(inferencer, "1D 1N 2C X", "W", six)


def test_escapes_over_a_double_of_our_1n_overcall(inferencer):
    # [A1635] "2D D + H", as over the 1N opening
    assert fits(inferencer, "1D 1N X 2D", "W", "32.Q432.KJ32.432")
    assert not fits(inferencer, "1D 1N X 2D", "W", "Q432.32.KJ32.432")
    assert last(infer(inferencer, "1D 1N X XX")).forcing  # [A1638]


def test_the_1n_overcaller_is_17_20_balanced_with_hands(inferencer):
    # [A1838] 17-20 HCP; "balanced" as the file reads it: 4333, 4432, 5332
    assert fits(inferencer, "1H 1N P 2D", "E", "AQ2.K32.KJ32.AQ2")  # 19, 3-3-4-3
    assert not fits(inferencer, "1H 1N P 2D", "E", "AQ2.A32.KQ32.AQ2")  # 21
    assert not fits(inferencer, "1H 1N P 2D", "E", "KQ2.Q32.QJ32.AQ2")  # 16
    assert not fits(inferencer, "1H 1N P 2D", "E", "AKQ2.K2.KJ432.A2")  # 20, 4-2-5-2


def test_two_suited_overcalls(inferencer):
    cases = {"1S 3D": ("D", "H"), "1H 3D": ("D", "S"), "1H 2H": ("C", "S"), "1D 2D": ("S", "H"),
             "1D 2N": ("H", "C"), "1S 2N": ("D", "C"), "1D 3C": ("S", "C")}
    for auction, suits in cases.items():
        r = infer(inferencer, auction)
        for s in suits:
            assert r.hands["E"].lengths[s][0] == 5, (auction, s)


def test_exclusion_advances_after_the_take_out_double(inferencer):
    r = infer(inferencer, "1H X P 1S")  # 0-10, at most 3 spades [A1868]
    assert r.hands["W"].hcp == (0, 10) and r.hands["W"].lengths["S"] == (0, 3)
    r = infer(inferencer, "1S X P 2D")  # two level: about 7-10, at most 2
    assert r.hands["W"].lengths["D"] == (0, 2)
    r = infer(inferencer, "1H X P 2S")  # jump shift: game force, 11+, 5+ [A1872]
    assert r.hands["W"].hcp[0] == 11 and r.hands["W"].lengths["S"][0] == 5
    r = infer(inferencer, "1H X P 2N")
    assert r.hands["W"].hcp[0] == 11 and last(r).forcing


def test_passed_doubler_gets_no_exclusion_responses(inferencer):
    # N and E pass, S passes, W opens 1H, N (a passed hand) doubles [A1866]
    r = infer(inferencer, "P P P 1H X P 1S")
    assert not last(r).defined
    assert r.hands["S"].lengths["S"][1] > 3


def test_later_doubles(inferencer):
    assert "responsive" in last(infer(inferencer, "1H X 2H X")).meaning  # [A1879]
    r = infer(inferencer, "1D X 1H X")  # exclusion of the new suit [A1876]
    assert r.hands["W"].lengths["H"][1] <= 3
    assert "penalty" in last(infer(inferencer, "1D P P X 1H X")).meaning  # [A1877-1878]


def test_pass_out_seat_cue_bids_as_in_the_direct_seat(inferencer):
    # "suit bids and cue bids are the same as in the direct seat" [A1881]
    for auction, a, b in (("1H P P 3H", "D", "S"), ("1S P P 3S", "D", "H"), ("1D P P 3D", "S", "C")):
        r = infer(inferencer, auction)  # the big two-suiters [A1844, A1851]
        assert last(r).defined and "big hand" in last(r).meaning
        assert r.hands["W"].lengths[a][0] == 5 and r.hands["W"].lengths[b][0] == 5
    r = infer(inferencer, "1D P P 3C")  # spades and clubs, 5 or 6 losers [A1850]
    assert r.hands["W"].lengths["S"][0] == 5 and r.hands["W"].lengths["C"][0] == 5


# ------------------------------------------------------------------ section 24: CRASH
def test_crash_over_the_strong_club(inferencer):
    r = infer(inferencer, "1C 1D")  # COlor: reds or blacks [A1889]
    for p in r.hands["E"].patterns:
        s, h, d, c = map(int, p.split("-"))
        assert (h >= 4 and d >= 4) or (s >= 4 and c >= 4), p
    r = infer(inferencer, "1C X P 1S")  # advancer's shortest suit [A1888]
    for p in r.hands["W"].patterns:
        lengths = list(map(int, p.split("-")))
        assert lengths[0] == min(lengths), p
    r = infer(inferencer, "1C P 1D 1N")  # SHape over 1C-P-1D [A1908]
    for p in r.hands["W"].patterns:
        s, h, d, c = map(int, p.split("-"))
        assert (s >= 4 and d >= 4) or (h >= 4 and c >= 4), p
    assert "long diamonds" in last(infer(inferencer, "1C P 1D X P P")).meaning  # [A1903]


def test_crash_overcaller_corrects_to_the_cheaper_of_his_two_suits(inferencer):
    """[A1915]: over the contract advancer names at his first turn, overcaller passes if it is
    one of his two suits, otherwise bids the cheaper of them; the cheaper is worked out here
    from the order of the bids."""
    pairs = {"1D": ("DH", "SC"), "1H": ("SH", "DC"), "1S": ("SD", "HC")}  # [A1889-1894]
    strains = "CDHS"
    for crash, two in pairs.items():
        for level, named in itertools.product((2, 3, 4), "CDHS"):
            auction = f"1C {crash} P {level}{named} P"
            for mine in two:
                if named in mine:
                    expected = "P"
                else:
                    bids = [(level if strains.index(s) > strains.index(named) else level + 1, strains.index(s), s)
                            for s in mine]
                    lv, _, s = min(bids)
                    expected = f"{lv}{s}"
                r = infer(inferencer, f"{auction} {expected}")
                assert last(r).defined, (auction, expected)
                for p in r.hands["E"].patterns:
                    lengths = dict(zip(SUITS, map(int, p.split("-")), strict=True))
                    assert all(lengths[s] >= 4 for s in mine), (auction, expected, p)
                if expected != "P":  # the dearer of his two suits is no correction
                    other = next(s for s in mine if s != expected[1])
                    lv = level if strains.index(other) > strains.index(named) else level + 1
                    assert not last(infer(inferencer, f"{auction} {lv}{other}")).defined, (auction, other)
    # a hand with four cards in advancer's suit outside its pair still corrects [A1915]
    hand = Hand.from_pbn("K432.AQ32.KJ32.2")  # reds, and four spades
    r = inferencer.infer(Auction.parse("1C 1D P 3S P 4D", dealer="N"), known=("E", hand))
    assert r.hands["E"].consistent


def test_only_one_pair_plays_the_system_with_we(system):
    mine = Inferencer(system, we="NS")
    r = mine.infer(Auction.parse("1H X P 1S", dealer="N"))  # EW's calls add nothing
    assert r.hands["W"].hcp == (0, 37) and r.hands["N"].hcp == (11, 16)
    theirs = Inferencer(system, we="EW")
    r = theirs.infer(Auction.parse("1H X P 1S", dealer="N"))  # our defence still means what it says
    assert r.hands["W"].hcp == (0, 10) and r.hands["N"].hcp == (0, 37)


# ------------------------------------------------------------------ hands built from the words
def _hand(seed, ok):
    rng = random.Random(seed)
    for _ in range(20000):
        h = Hand.random(rng)
        if ok(h):
            return h
    return None


CASES = [
    # (auction, seat, the words made a test on the hand)
    ("1H X 1N", "S", lambda h: 8 <= h.hcp <= 11 and h.length("H") <= 3),
    ("1H X P 1S", "W", lambda h: h.hcp <= 10 and h.length("S") <= 3),
    ("1S X P 2D", "W", lambda h: 7 <= h.hcp <= 10 and h.length("D") <= 2),
    ("1H X P 2S", "W", lambda h: h.hcp >= 11 and h.length("S") >= 5),
    ("1N P P X XX", "N", lambda h: 15 <= h.hcp <= 16 and sorted(h.lengths) in ([3, 3, 3, 4], [2, 3, 4, 4])),
    ("1N 2H X", "S", lambda h: 9 <= h.hcp <= 12),
    ("1D 1S X", "S", lambda h: 8 <= h.hcp <= 11 and h.length("H") >= 3 and h.length("C") >= 3),
    ("1S 3D", "E", lambda h: h.length("D") >= 5 and h.length("H") >= 5),
    ("1C X P 1S", "W", lambda h: h.length("S") == min(h.lengths)),
]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(CASES), st.integers(0, 10**6))
def test_a_hand_built_from_the_words_is_never_excluded(inferencer, case, seed):
    auction, seat, ok = case
    hand = _hand(seed, ok)
    if hand is None:
        return
    if auction == "1S 3D" and not evaluate(parse("losers in 5..6"), hand):  # 5 or 6 losers [A1840]
        return
    r = inferencer.infer(Auction.parse(auction, dealer="N"), known=(seat, hand))
    assert r.hands[seat].consistent, (auction, hand.pbn())


# ------------------------------------------------------------------ the round trip with both sides bidding
def test_selfcheck_bids_the_defenders_with_the_system(inferencer):
    from canary_infer.tools.selfcheck import competitive, run

    both = run(12, 5, inferencer)
    assert both.violations == 0
    assert both.competitive > 0  # over a 1-level opening most hands have a call in the defence tree
    quiet = run(12, 5, inferencer, defenders="pass")
    assert quiet.violations == 0 and quiet.competitive == 0
    assert competitive(Auction.parse("1H X P 1S P P P")) and not competitive(Auction.parse("1H P 1N P 2C P P P"))
