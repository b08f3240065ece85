"""Slam conventions [B1-70]: the calls the blocks attach, and the key cards, trump queen and
controls the inference reports.  Expectations come from counting honours directly: every
formula here looks only at HCP and honour cards, so the 65 536 sets of the 16 honours (the
other 36 cards are spot cards, always enough to fill 13) decide them exactly."""

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from canary_infer.bridge.auction import Auction
from canary_infer.bridge.cards import Hand
from canary_infer.engine.slam import slam_facts
from canary_infer.engine.tables import Available
from canary_infer.language.expr import evaluate, parse
from canary_infer.ui.cli import main

HONOURS = [(s, r) for s in "SHDC" for r in "AKQJ"]
POINTS = {"A": 4, "K": 3, "Q": 2, "J": 1}


def honour_sets(excluded=frozenset()):
    """Every set of honours a 13-card hand can hold from the unseen ones (spot cards fill the rest)."""
    cards = [c for c in HONOURS if c not in excluded]
    for mask in range(1 << len(cards)):
        held = [c for i, c in enumerate(cards) if mask >> i & 1]
        if len(held) <= 13:
            yield held


def brute(hcp_lo, hcp_hi, trump, excluded=frozenset()):
    """(key-card values, queen values, (min, max) controls) over the honour sets in an HCP range."""
    kcs, queens, ctrls = set(), set(), set()
    for held in honour_sets(excluded):
        hcp = sum(POINTS[r] for _, r in held)
        if not hcp_lo <= hcp <= hcp_hi:
            continue
        aces = sum(r == "A" for _, r in held)
        kings = sum(r == "K" for _, r in held)
        kcs.add(aces + ((trump, "K") in held))
        queens.add((trump, "Q") in held)
        ctrls.add(2 * aces + kings)
    return tuple(sorted(kcs)), queens, (min(ctrls), max(ctrls))


@pytest.mark.parametrize("lo,hi,trump", [(0, 3, "S"), (11, 16, "H"), (28, 37, "D"), (20, 22, "C"), (0, 37, "S")])
def test_key_cards_queen_and_controls_are_exact(lo, hi, trump):
    kcs, queens, ctrls = brute(lo, hi, trump)
    f = slam_facts((parse(f"hcp in {lo}..{hi}"),), trump)
    assert f.keycard_values == kcs
    assert f.keycards == (kcs[0], kcs[-1])
    assert f.controls == ctrls
    assert f.trump_queen == (None if len(queens) == 2 else queens.pop())


def test_without_an_agreed_suit_only_controls_are_given():
    f = slam_facts((parse("hcp <= 3"),), None)
    assert f.as_json() == {"keycards": None, "trump_queen": None, "controls": [0, 1]}  # a king at most


def test_the_cards_you_hold_are_excluded():
    mine = Hand.from_pbn("AQ2.A32.A32.A432")  # four aces and the spade queen
    gone = frozenset(mine.cards)
    kcs, queens, ctrls = brute(0, 37, "S", gone)
    f = slam_facts((), "S", Available.excluding(mine))
    assert kcs == (0, 1) and queens == {False}  # only the spade king is left of the key cards
    assert f.keycard_values == kcs and f.trump_queen is False and f.controls == ctrls == (0, 4)


@pytest.mark.parametrize("mine,trump", [("KQJ2.Q32.K32.J43", "S"), ("2.AKQJ3.AK32.432", "H"),
                                        ("T9876.5432.32.32", "D"), ("A.K.Q.JT98765432", None)])
def test_a_seat_whose_calls_say_nothing_holds_any_unseen_honours(mine, trump):
    # read off the unseen cards, not built as a table: the honour sets a 13-card hand can take
    # from what I do not hold say the same
    gone = frozenset(Hand.from_pbn(mine).cards)
    kcs, queens, ctrls = brute(0, 37, trump or "S", gone)
    f = slam_facts((), trump, Available.excluding(Hand.from_pbn(mine)))
    assert f.controls == ctrls
    if trump is None:
        assert f.keycard_values is None and f.trump_queen is None
    else:
        assert f.keycard_values == kcs
        assert f.trump_queen == (None if len(queens) == 2 else queens.pop())


def test_a_known_hand_is_counted_directly():
    f = slam_facts((), "H", hand=Hand.from_pbn("AK2.KQ2.A432.432"))
    assert f.keycard_values == (3,) and f.trump_queen is True and f.controls == (6, 6)  # SA DA, SK HK


def test_no_hand_no_facts():
    f = slam_facts((parse("hcp >= 38"),), "S")
    assert f.as_json() == {"keycards": None, "trump_queen": None, "controls": None}


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from("SHDC"))
def test_a_hand_that_fits_lies_inside_the_facts(seed, trump):
    f_text = f"aces + hasK({trump}) == 2 and not hasQ({trump}) or hcp >= 15 and len({trump}) >= 5"
    formula = parse(f_text)
    facts = slam_facts((formula,), trump)
    rng = random.Random(seed)
    for _ in range(200):
        hand = Hand.random(rng)
        if not evaluate(formula, hand):
            continue
        kc = sum(hand.has(s, "A") for s in "SHDC") + hand.has(trump, "K")
        ctrl = sum(2 * hand.has(s, "A") + hand.has(s, "K") for s in "SHDC")
        assert kc in facts.keycard_values
        assert facts.controls[0] <= ctrl <= facts.controls[1]
        if facts.trump_queen is not None:
            assert hand.has(trump, "Q") == facts.trump_queen


# --------------------------------------------------------------------------- the calls [B]
def last(inferencer, auction):
    r = inferencer.infer(Auction.parse(auction))
    return r, r.calls[-1]


def test_rkcb_five_hearts_is_two_key_cards_without_the_queen(inferencer):
    # [B5] 5H = 2 or 5 key cards without the trump queen; opener has at most 16 HCP [A32] and five
    # key cards are 19 HCP (four aces and the king), so opener holds exactly two.
    r, c = last(inferencer, "1H P 1S P 3S P 4N P 5H")
    assert r.trump == "S" and c.defined
    n = r.hands["N"]
    assert n.slam.keycards == (2, 2) and n.slam.trump_queen is False
    js = r.as_json()["hands"]["N"]
    assert js["keycards"] == [2, 2] and js["trump_queen"] is False
    kcs, _, _ = brute(11, 16, "S")
    assert set(kcs) >= {2}


def test_rkcb_answers_say_what_0314_says(inferencer, system):
    base = "1H P 1S P 3S P 4N P"
    for call, ok in [("5C", {0, 3}), ("5D", {1, 4}), ("5H", {2, 5}), ("5S", {2, 5})]:
        f = last(inferencer, f"{base} {call}")[1].formula
        for held in ([], ["SA"], ["SA", "HA"], ["SA", "HA", "DA"], ["SA", "HA", "DA", "CA"],
                     ["SA", "HA", "DA", "CA", "SK"]):
            for queen in (False, True):
                cards = held + (["SQ"] if queen else [])
                hand = _hand(cards)
                want = len(held) in ok and (call not in ("5H", "5S") or queen == (call == "5S"))
                assert evaluate(f, hand) == want, (call, cards)


def _hand(honours):
    """A 13-card hand with these honours (suit letter + rank) and spot cards: 5+ spades, 4 hearts."""
    cards = [(c[0], c[1]) for c in honours]
    spots = {"S": "5432", "H": "5432", "D": "5432", "C": "5432"}
    for s in "SHDCS":
        for r in spots[s]:
            if len(cards) < 13 and (s, r) not in cards:
                cards.append((s, r))
    return Hand.from_cards(cards)


def test_void_answers(inferencer):
    f = last(inferencer, "1H P 1S P 3S P 4N P 5N")[1].formula
    # SA, HA, SK = 3 key cards: odd, so 5N (even) must not hold
    assert not evaluate(f, Hand.from_pbn("AK65432.A432.32."))  # SA HA SK: three
    assert evaluate(f, Hand.from_pbn("A765432.A432.32."))  # SA HA: two, club void
    six_d = last(inferencer, "1H P 1S P 3S P 4N P 6D")[1].formula
    assert evaluate(six_d, Hand.from_pbn("A765432.K432..32"))  # one key card, diamond void
    assert not evaluate(six_d, Hand.from_pbn("A765432.K432.32."))  # the void is in clubs


def test_queen_ask_and_answers(inferencer):
    # spades agreed, 5C (0/3): 5D is the queen ask, 5H the king ask [B12-14]
    r, c = last(inferencer, "1H P 1S P 3S P 4N P 5C P 5D")
    assert "queen ask" in c.meaning
    assert "king ask" in last(inferencer, "1H P 1S P 3S P 4N P 5C P 5H")[1].meaning
    r, c = last(inferencer, "1H P 1S P 3S P 4N P 5C P 5D P 5S")  # the cheapest spade bid: no queen
    assert r.hands["N"].slam.trump_queen is False
    r, c = last(inferencer, "1H P 1S P 3S P 4N P 5C P 5D P 5N")  # the queen, no king outside spades
    assert r.hands["N"].slam.trump_queen is True
    assert evaluate(c.formula, Hand.from_pbn("Q5432.A5432.32.2"))
    assert not evaluate(c.formula, Hand.from_pbn("Q5432.K5432.32.2"))
    r, c = last(inferencer, "1H P 1S P 3S P 4N P 5C P 5D P 6C")  # the queen and the club king or the other two
    assert evaluate(c.formula, Hand.from_pbn("Q5432.5432.32.K2"))
    assert evaluate(c.formula, Hand.from_pbn("Q5432.K432.K2.32"))
    assert not evaluate(c.formula, Hand.from_pbn("Q5432.K432.32.32"))


QUEEN_ASK = "1S P 2S P 4N P 5C P 5D P"  # spades agreed [A32, A298]; 5C 0/3 [B3]; 5D the queen ask [B12-13]


def test_after_the_queen_ask_the_specific_answer_comes_first_and_the_bidder_gives_one_call(inferencer):
    """'Lowest trump bid: no Q; any other: have the Q. If possible we try to show the lowest
    specific K (below 6 trumps) as well' [B19]; with spades trumps after 5D: 5H, 6C, 6D the queen
    and that king or the two other kings, 5N the queen and no outside king [B24-27].  The
    responder's hand (13 cards: 4 spades with the queen, the heart king, 5 HCP) fits the 2S raise
    (3+ spades, at most 10 HCP) and 5C (no key card); of the answers only 5H describes it, and
    the catch-all no longer competes with it."""
    from canary_infer.tools.bidding import Bidder

    hand = "Q432.K32.5432.32"
    assert sum(len(x) for x in hand.split(".")) == 13
    got = Bidder(inferencer.system).bid(hand, QUEEN_ASK)
    assert (got.status, got.calls) == ("ok", ["5H"])
    # every hand with the queen has a specific answer (the kings outside spades held in each of the
    # eight ways, counted here), so the notes leave no hand to another call: it adds nothing
    kings = ["HK", "DK", "CK"]
    formulas = {c: last(inferencer, f"{QUEEN_ASK} {c}")[1].formula for c in ("5H", "5N", "6C", "6D")}
    for mask in range(8):
        held = ["SQ"] + [k for i, k in enumerate(kings) if mask >> i & 1]
        spots = [f"{s}{r}" for s in "SHDC" for r in "2345"][: 13 - len(held)]
        h = Hand.from_pbn(".".join("".join(c[1] for c in held + spots if c[0] == s) for s in "SHDC"))
        assert any(evaluate(f, h) for f in formulas.values()), held
    for other in ("6H", "6S", "6N", "7S"):
        c = last(inferencer, f"{QUEEN_ASK} {other}")[1]
        assert not c.defined and "[B19]" in c.meaning


def test_king_ask_answers(inferencer):
    base = "1H P 1S P 3S P 4N P 5C P 5H P"  # the specific-king ask with spades agreed
    no_king = last(inferencer, f"{base} 5S")[1].formula
    assert evaluate(no_king, Hand.from_pbn("KQ432.A432.32.32"))  # the trump king is no outside king
    assert not evaluate(no_king, Hand.from_pbn("Q5432.AK32.32.32"))
    seven = last(inferencer, f"{base} 7S")[1].formula
    assert evaluate(seven, Hand.from_pbn("5432.K432.K32.K2"))
    assert not evaluate(seven, Hand.from_pbn("5432.K432.K32.32"))


def test_dopi_over_interference(inferencer):
    r, c = last(inferencer, "1H P 1S P 3S P 4N 5C X")
    assert c.defined and r.hands["N"].slam.keycard_values == (0, 3)  # [B51]; 3 aces fit 11-16 HCP
    r, c = last(inferencer, "1H P 1S P 3S P 4N 5C P")
    assert r.hands["N"].slam.keycard_values == (1, 4)  # [B52]: four aces are 16 HCP


def test_grand_slam_force(inferencer):
    r, c = last(inferencer, "1H P 1S P 3S P 5N P 7S")
    assert c.defined
    assert evaluate(c.formula, Hand.from_pbn("AK432.A432.32.32"))
    assert not evaluate(c.formula, Hand.from_pbn("A5432.A432.32.32"))
    r, c = last(inferencer, "1H P 1S P 3S P 5N P 6S")
    assert evaluate(c.formula, Hand.from_pbn("A5432.A432.32.32"))
    assert not evaluate(c.formula, Hand.from_pbn("AK432.A432.32.32"))


def test_attached_only_where_a_suit_is_agreed_and_the_point_keeps_its_own_meaning(system):
    def at(*calls):
        n = system.root()
        for c in calls:
            n = n.children[c]
        return n
    assert at("2S", "4S", "4N").meaning.startswith("RKCB")
    assert "4N" not in at("1H", "1S").children or not at("1H", "1S", "4N").meaning.startswith("RKCB")
    assert not at("2S", "4C", "4N").defined  # 'neither partner can call blackwood' [A1540]
    assert not at("2S", "3N", "4N").defined
    assert "control" in at("2S", "4C", "4D").meaning  # cue bidding follows [A1538-1540]
    # after an RKCB answer 5N is no grand slam force [B68]
    assert not at("2S", "4S", "4N", "5C", "5N").defined


def test_cue_bid_shows_a_control(inferencer):
    c = last(inferencer, "2S P 4C P 4D")[1]
    assert evaluate(c.formula, Hand.from_pbn("AQ432.32.2.KQ432"))  # a singleton is a control
    assert not evaluate(c.formula, Hand.from_pbn("AQ432.3.32.KQ432"))


# hearts agreed with eight guaranteed: opener's 1H shows 4+ hearts (canapé) and 2D, 'a new suit is
# normal Canapé' [A302], 5+ diamonds; responder's 3H is 'invitational (4+ card support)' [A367]:
# 4 + 4 = 8, so opener's 3N is the serious 3NT [B64], and opener has shown 5+ diamonds
SERIOUS = "1H P 1S P 2D P 3H P 3N P"


def test_the_serious_3n_is_answered_by_cue_bids_and_partner_s_long_suit_takes_a_high_card(inferencer):
    """After the serious 3N partner starts cue bidding [B64].  In the 3N bidder's known 5+ card
    suit (diamonds: 1H then 2D, canapé) a cue bid shows the A or K, not shortness [A74, B62];
    elsewhere (clubs) a singleton is a control [B59]."""
    reading = inferencer.read(Auction.parse(SERIOUS))
    n_lengths = inferencer.infer(Auction.parse(SERIOUS)).hands["N"].lengths
    assert reading[-2].meaning.startswith("serious slam try") and n_lengths["D"][0] >= 5
    assert n_lengths["C"][0] < 5
    four_d = last(inferencer, SERIOUS + " 4D")[1]
    four_c = last(inferencer, SERIOUS + " 4C")[1]
    assert "cue bid" in four_d.meaning and "cue bid" in four_c.meaning
    club_singleton = Hand.from_pbn("AQ432.KQ43.543.2")
    diamond_singleton = Hand.from_pbn("AQ432.KQ43.2.543")
    diamond_king = Hand.from_pbn("AQ432.KQ43.K2.43")
    assert evaluate(four_c.formula, club_singleton)  # a singleton in a suit partner has not shown long
    assert not evaluate(four_d.formula, diamond_singleton)  # no shortness cue in partner's long suit
    assert evaluate(four_d.formula, diamond_king) and not evaluate(four_d.formula, Hand.from_pbn("AQ432.KQ43.Q2.K3"))
    # the bidder reads partner's long suit the same way
    from canary_infer.tools.bidding import Bidder

    fits = {c.call: c.fits for c in Bidder(inferencer.system).bid(diamond_singleton, Auction.parse(SERIOUS)).candidates}
    assert fits["4D"] is False


def test_continuing_after_a_bypass_shows_the_bypassed_suit_too(inferencer):
    """'If we bypassed a suit, and partner continues cuebidding, it shows that partner has a
    control both in the suit that was bypassed and in the suit he showed control in' [B61].
    After 2S-3N (spades agreed) opener's 4D bypasses clubs; responder's 4H then shows both."""
    four_h = last(inferencer, "2S P 3N P 4D P 4H")[1]
    assert "continues cue bidding" in four_h.meaning
    assert evaluate(four_h.formula, Hand.from_pbn("32.A32.5432.K432"))  # hearts and clubs
    assert evaluate(four_h.formula, Hand.from_pbn("32.2.6543.A65432"))  # a heart singleton is a control
    assert not evaluate(four_h.formula, Hand.from_pbn("32.A32.K432.5432"))  # no club control
    # with clubs agreed (2S-4C) opener's 4H bypasses diamonds; responder's 4S is in opener's
    # long suit, so it shows the A or K there [A74], and the diamond control
    four_s = last(inferencer, "2S P 4C P 4H P 4S")[1]
    assert evaluate(four_s.formula, Hand.from_pbn("K2.32.A432.Q5432"))
    assert not evaluate(four_s.formula, Hand.from_pbn("2.432.A432.Q5432"))  # a spade singleton is no cue here
    assert not evaluate(four_s.formula, Hand.from_pbn("K2.32.5432.AQ432"))  # no diamond control


def test_json_and_text_show_the_facts(capsys):
    assert main(["infer", "1H P 1S P 3S P 4N P 5H", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["trump"] == "S"
    assert out["hands"]["N"]["keycards"] == [2, 2] and out["hands"]["N"]["trump_queen"] is False
    assert all(set(h) >= {"keycards", "trump_queen", "controls"} for h in out["hands"].values())
    assert main(["infer", "1H P 1S P 3S P 4N P 5H"]) == 0
    assert "two key cards for spades, no trump queen" in capsys.readouterr().out


def test_with_your_hand_partner_s_key_cards_are_the_ones_you_lack(capsys):
    # S holds two aces and the spade king; N's two key cards are then the other two aces, and
    # N has no spade queen (5H) [B5].
    assert main(["infer", "1H P 1S P 3S P 4N P 5H", "--json", "--hand", "S:KJ432.A32.A32.32"]) == 0
    out = json.loads(capsys.readouterr().out)
    n = out["hands"]["N"]
    assert n["keycards"] == [2, 2] and n["trump_queen"] is False
    assert n["controls"][0] >= 4  # the two other aces


def test_brute_force_helper_is_itself_right():
    # 0-3 HCP: no ace (4), at most one king; a queen possible
    assert brute(0, 3, "S") == ((0, 1), {False, True}, (0, 1))
    assert sum(1 for _ in honour_sets(frozenset(HONOURS[2:]))) == 4  # two honours left: four sets


@pytest.mark.parametrize("auction", ["1S", "P", "2S P 2N P 3C P 3D P 3H P 4C", "1H X P 1S"])
def test_the_one_run_facts_are_the_facts_asked_one_by_one(inferencer, monkeypatch, auction):
    """slam_facts reads every fact off one table counted by aces, kings and the trump king and
    queen; asking the engine each question separately (its fallback) gives the same facts."""
    from canary_infer.engine import slam

    calls = inferencer.read(Auction.parse(auction))
    mine = Hand.from_pbn("KQ2.A87.QJ54.962")
    for seat in "NESW":
        formulas = inferencer.seat_formulas(calls, seat)
        for avail in (Available(), Available.excluding(mine)):
            for trump in (None, "S", "D"):
                fast = slam_facts(formulas, trump, avail)
                with monkeypatch.context() as m:
                    m.setattr(slam, "_counted", lambda *a: None)
                    slow = slam_facts(formulas, trump, avail)
                assert fast == slow, (auction, seat, trump)


# --------------------------------------------------------------------------- Italian cue bids [B57-64]
def test_a_bypassed_suit_denies_a_control(inferencer):
    # 2S-3N: spades agreed, cue bidding follows [A1131, A1538-1540]. "We always bid the cheapest
    # suit we have control in, a bypassed suit denies first or second round controls" [B60]:
    # 4D bypasses 4C, so it shows a diamond control and denies a club control.
    four_d = last(inferencer, "2S P 3N P 4D")[1]
    assert "control" in four_d.meaning
    assert evaluate(four_d.formula, Hand.from_pbn("AQ432.32.K2.Q432"))  # the diamond king, no club control
    assert evaluate(four_d.formula, Hand.from_pbn("AQ432.32.2.QJ432"))  # a singleton diamond
    assert not evaluate(four_d.formula, Hand.from_pbn("AQ432.32.K2.K432"))  # the club king: 4C was cheaper
    assert not evaluate(four_d.formula, Hand.from_pbn("AQ432.Q32.Q2.Q43"))  # no diamond control
    # with spades agreed 4H is still below game: a heart control, none in either minor
    four_h = last(inferencer, "2S P 3N P 4H")[1]
    assert four_h.defined
    assert evaluate(four_h.formula, Hand.from_pbn("AQ432.A3.Q32.Q43"))
    assert not evaluate(four_h.formula, Hand.from_pbn("AQ432.A3.Q32.A43"))
    assert not evaluate(four_h.formula, Hand.from_pbn("AQ432.A3.2.Q5432"))  # a singleton diamond bypassed


def test_cue_bids_up_the_line_leave_no_hand_with_a_side_control_out(system):
    # the cheapest-first rule makes the first cue bids a partition of the hands with a side control:
    # for every set of side suits held with a control, exactly one of 4C/4D/4H fits (the cheapest)
    at = system.root().children["2S"].children["3N"].children
    calls = [at[c].constraint({"chair": 1}) for c in ("4C", "4D", "4H")]
    ctrl = {"C": "KQ32", "D": "A32", "H": "2"}
    none = {"C": "QJ32", "D": "Q32", "H": "QJ"}
    for mask in range(8):
        held = [s for i, s in enumerate("CDH") if mask >> i & 1]
        suits = {s: ctrl[s] if s in held else none[s] for s in "CDH"}
        spades = "AJ98765432"[:13 - sum(len(v) for v in suits.values())]
        hand = Hand.from_pbn(f"{spades}.{suits['H']}.{suits['D']}.{suits['C']}")
        fits = [c for c, f in zip(("4C", "4D", "4H"), calls, strict=True) if evaluate(f, hand)]
        assert fits == ([f"4{held[0]}"] if held else []), held


def test_the_five_level_cue_bid_shows_the_ace(inferencer):
    # "At the five level, cue bids will show Aces (in new suits)" [A74]
    c = last(inferencer, "2S P 3N P 5D")[1]
    assert evaluate(c.formula, Hand.from_pbn("AQ432.32.A2.Q432"))
    assert not evaluate(c.formula, Hand.from_pbn("AQ432.32.K2.Q432"))  # a king is no ace
    assert not evaluate(c.formula, Hand.from_pbn("AQ432.A32..Q5432"))  # nor a void


def test_the_serious_3n_after_a_major_fit(inferencer, system):
    # [B64]: once a major fit is guaranteed 3NT is no offer to play but a serious slam try,
    # forcing; slam interest is judgement, so it says nothing of the hand.  1D-1H: 'responder has
    # shown 8+ HCP with a 5+ card suit' [A294]; 'a raise of responder's long suit to the 2 level
    # shows 3 card support' [A298]: 5 + 3 = 8
    r, c = last(inferencer, "1D P 1H P 2H P 3N")
    assert r.trump == "H" and c.defined and "serious slam try" in c.meaning
    n = system.root().children["1D"].children["1H"].children["2H"].children["3N"]
    assert n.constraint({"chair": 1}) == parse("true") and "forcing" in n.flags
    assert "3N" not in system.root().children["2D"].children  # no suit agreed: not attached
    # the tree (check-system, export: no inference at hand) keeps the call and says when it applies
    after_1h_2h = system.root().children["1H"].children["2H"].children["3N"]
    assert [str(t) for t in after_1h_2h.conditions] == ["fit H"]
    assert "only where the calls before it guarantee an 8+ card fit in hearts" in after_1h_2h.meaning


def least_length(formulas, suit):
    """A seat's least length in a suit over the hands its calls allow, by the card-level CP-SAT model
    (not the inference's tables, which 'fit T' reads)."""
    from canary_infer.engine.cpsat import HandModel
    from canary_infer.language.expr import conj

    m = HandModel()
    return m.extreme([m.add(conj(list(formulas)))], m.length[suit], "min", time_limit=60)


def guaranteed(inferencer, auction, suit):
    """The cards in ``suit`` that the calls of the player to call next and his partner guarantee."""
    a = Auction.parse(auction)
    calls = inferencer.read(a, tree=True)
    seats = (a.turn, "NESW"["NESW".index(a.turn) - 2])
    return [least_length(inferencer.seat_formulas(calls, s), suit) for s in seats]


NO_FIT = [
    # canapé: 'suit of at least 4 cards' [A32]; a raise 'shows 3 card support' [A298]
    ("1S X 2N P", "S", (4, 3)),   # 2N over the double: 'limit raise' [A857]
    ("1H X 2H P", "H", (4, 3)),   # 'raises = preemptive' [A858]
    ("1H P 2H P", "H", (4, 3)),   # 'H raises limit' [A144]
]
FIT = [
    ("1D P 1H P 2H P", "H", (5, 3)),   # 5+ [A294], 'shows 3 card support' [A298]
    ("1D P 1H P 3H P", "H", (5, 5)),   # 'a jump raise (to the 3 - level) shows 5+ card support' [A299]
    ("1H P 1S P 2D P 3H P", "H", (4, 4)),  # 4+ [A32], canapé 2D [A302]; 3H '4+ card support' [A367]
    ("1S P 2H P 3H P", "H", (5, 3)),   # 1S-2H '5 card suit' [A151]; the raise, 3 cards [A298]
]


@pytest.mark.parametrize("before,suit,least", NO_FIT + FIT)
def test_the_serious_3n_needs_an_eight_card_fit_the_bidding_guarantees(inferencer, before, suit, least):
    """'After an at least 8 card major card fit is guaranteed by the bidding ... we use the 3NT
    bid ... to indicate serious slam interest' [B64].  The least lengths come from the notes'
    words (in the lists above), checked on the files by the card-level model; 3N is the serious
    try exactly where they add to 8."""
    seat, partner = guaranteed(inferencer, before, suit)
    assert seat + partner == sum(least) and {seat, partner} == set(least)
    r, c = last(inferencer, before + " 3N")
    if sum(least) >= 8:
        assert c.defined and c.meaning.startswith("serious slam try") and r.trump == suit
    else:
        assert not c.defined and "serious" not in (c.meaning or "").split("it would be")[0]
        assert "8+ card fit" in c.meaning  # says why the tree's serious 3N is not this call
        # nor does anything follow it as cue bidding
        assert not last(inferencer, before + " 3N P 4C")[1].defined


def test_the_serious_3n_after_miles_2n_3d_3h_is_not_guaranteed_a_fit():
    """Miles: 2N-3D is a heart transfer (5+ hearts, 'with a long major, responder is expected to
    have transferred' [A1677]); opener's 3H is 'a neutral bid' [A1810], a balanced 2N with two
    hearts among them: 5 + 2 = 7, no fit guaranteed, so 3N is no serious slam try."""
    from canary_infer.deal.infer import Inferencer
    from canary_infer.system.model import load_system

    miles = Inferencer(load_system().configure(options={"miles"}))
    assert guaranteed(miles, "2N P 3D P 3H P", "H") == [5, 2]
    c = last(miles, "2N P 3D P 3H P 3N")[1]
    assert not c.defined and c.meaning.startswith("the notes give this call no meaning")


def test_the_bidder_offers_the_serious_3n_only_with_the_fit():
    from canary_infer.tools.bidding import Bidder

    b = Bidder()
    hand = "AK32.AQ2.KQ32.A2"  # 13 cards; any hand: the serious 3N is judgement, not the hand
    considered = {c.call: c for c in b.bid(hand, "1S X 2N P").candidates}
    assert "3N" not in considered or "serious" not in considered["3N"].meaning
    considered = {c.call: c for c in b.bid("A2.AKJ32.KQ2.A32", "1D P 1H P 2H P").candidates}
    assert considered["3N"].meaning.startswith("serious slam try") and considered["3N"].judgement


# --------------------------------------------------------------------------- 5NT accepts the last bid suit [B68]
def test_five_notrump_where_no_suit_is_agreed_accepts_the_last_bid_suit(inferencer):
    # "The convention applies after either a trump suit is established, or the bidding of 5NT
    # implicitly accepts the last bid suit" [B68]; the answers are those of [B70]
    r, c = last(inferencer, "1S P 5N P 7S")
    assert c.defined and r.trump == "S"
    assert evaluate(c.formula, Hand.from_pbn("AQ432.A432.32.32"))
    assert not evaluate(c.formula, Hand.from_pbn("A5432.AK32.32.32"))
    r, c = last(inferencer, "1S P 5N P 6S")
    assert evaluate(c.formula, Hand.from_pbn("K5432.A432.32.32"))  # one of A, K, Q of spades
    assert not evaluate(c.formula, Hand.from_pbn("KQ432.A432.32.32"))  # two: the grand
    assert not evaluate(c.formula, Hand.from_pbn("J5432.AK32.A2.32"))  # none: no answer is given
