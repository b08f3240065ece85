"""The bidder (``canary-infer bid``) and the round trip (``canary-infer selfcheck``).

The bidder evaluates, exactly on a hand, the same constraints the inferencer solves over all
hands; the self-check bids random deals, infers from the auctions and checks that each hand
lies inside what was inferred for its seat.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from canary_infer.bridge.auction import Auction
from canary_infer.bridge.cards import RANKS, SUITS, Deal, Hand
from canary_infer.deal.infer import Inferencer
from canary_infer.language.expr import TRUE, evaluate, parse
from canary_infer.system.model import builtin_dir, load_system
from canary_infer.tools.bidding import Bidder, position
from canary_infer.tools.selfcheck import run as selfcheck
from canary_infer.ui.cli import main

ONE_NT = "KJ2.QJ3.KJ32.A32"  # 3-3-4-3, 14 HCP: 1N only
ONE_S_OR_2S = "AQJ83.2.K4.QT932"  # 5-1-2-5, 12 HCP: 1S and 2S both state it; the hand-type table gives it 2S [A54]
ONE_D_OR_2C = "43.2.KJ32.AQJ832"  # 2-1-4-6, 11 HCP, 6 losers: '6 4 min 1D or 2C' [A610]
LIGHT_MAJORS = "QJ432.QJ32.Q32.K"  # 5-4-3-1, 11 HCP, 7½ losers: no opening values; 1H in 3rd/4th chair
FIVE_FOUR_VOID = "KQ876.AK87..8765"  # 5-4-0-4, 12 HCP, 5 losers: 2S (and 2D)
FIVE_THREE_ONE_FOUR = "KQ876.AK8.8.8765"  # 5-3-1-4, 12 HCP, 5 losers: 2S
ONE_HEART = "K32.AQ876.2.KJ32"  # 3-5-1-4, 13 HCP, 6¼ losers: 1H only


@pytest.fixture(scope="module")
def bidder(system):
    return Bidder(system)


def bid(bidder, pbn, auction="", dealer="N"):
    return bidder.bid(Hand.from_pbn(pbn), Auction.parse(auction, dealer=dealer))


def inferred_formula(inferencer, auction: Auction, call: str):
    """The formula the inferencer gives a call made at this point of the auction."""
    reading = inferencer.read(auction.append(call))[-1]
    assert reading.call == call
    return reading.formula if reading.defined else None


# --------------------------------------------------------------------------- the bidder
def test_exactly_one_call_fits(bidder):
    r = bid(bidder, ONE_NT)
    assert (r.status, r.calls, r.seat) == ("ok", ["1N"], "N")
    assert [c.call for c in r.candidates if c.fits] == ["1N"]


def test_a_major_with_secondary_clubs_and_5_or_6_losers_is_2m_not_1m(bidder, system):
    """The hand-type table assigns it to 2H/2S [A54]: the priority line makes 1S deny 2S."""
    r = bid(bidder, ONE_S_OR_2S)
    assert (r.status, r.calls) == ("ok", ["2S"])
    hand = Hand.from_pbn(ONE_S_OR_2S)
    one_spade = system.root("opening").children["1S"]
    assert evaluate(one_spade.constraint({"chair": 1}, priorities=False), hand)  # 1S's own words fit
    assert not evaluate(one_spade.constraint({"chair": 1}), hand)


def test_several_calls_fit_and_each_says_why(bidder, system):
    r = bid(bidder, ONE_D_OR_2C)
    assert (r.status, r.calls) == ("several", ["1D", "2C"])
    why = r.as_json()["why"]
    assert [w["call"] for w in why] == ["1D", "2C"]
    hand = Hand.from_pbn(ONE_D_OR_2C)
    for w in why:
        assert w["fits"] is True and w["meaning"] and w["source"]
        assert evaluate(parse(w["constraint"], system.definitions), hand), w
    considered = {c["call"]: c for c in r.as_json()["considered"]}
    assert set(considered) == set(system.root("opening").children)
    for call, c in considered.items():
        assert c["fits"] == (call in ("1D", "2C"))
        if c["constraint"]:  # the text given is the constraint that decided
            assert evaluate(parse(c["constraint"], system.definitions), hand) == c["fits"], call


def test_no_call_fits_where_the_notes_assign_none(bidder):
    """2S-2N-(3D): the notes' example gives 5-4-0-4 no call [A1587-1600]."""
    r = bid(bidder, FIVE_FOUR_VOID, "2S P 2N 3D")
    assert (r.status, r.calls, r.seat) == ("none", [], "N")
    assert r.candidates and not any(c.fits for c in r.candidates)
    assert r.as_json()["why"] == []


def test_several_calls_fit_where_the_notes_give_two(bidder):
    r = bid(bidder, FIVE_THREE_ONE_FOUR, "2S P 2N 3D")
    assert (r.status, r.calls) == ("several", ["P", "3H"])


@pytest.mark.parametrize("auction,reason", [
    ("2S", "defenders"),  # East over our 2S: the notes' defence covers their 1-level openings only
    ("2C P 2N P 3D P", "no call"),  # responder after opener shows his diamond shortness [A947]: nothing follows
    ("1S P P P", "over"),
])
def test_undefined_where_the_notes_define_no_call(bidder, auction, reason):
    r = bid(bidder, ONE_NT, auction)
    assert r.status == "undefined" and r.calls == [] and r.candidates == []
    assert reason in r.reason


WEAK = "K4.85.J65432.853"  # 4 HCP: fits no response to 1H (the notes give none to a hand too weak for the relay)


def test_a_convention_attached_everywhere_is_never_the_bidders_choice(bidder):
    """The grand slam force is attached wherever a suit was bid [B68]; it says nothing of the hand,
    so a weak hand after 1H is not 'bid 5N': the notes define no call for it, and 5N is shown open."""
    r = bid(bidder, WEAK, "1H P")
    assert (r.status, r.calls) == ("undefined", [])
    judged = [c for c in r.candidates if c.judgement]
    assert [c.call for c in judged] == ["5N"] and judged[0].formula == TRUE
    assert "they give only 1S, 1N" in r.reason and "5N" in r.reason
    assert not any(c.fits for c in r.candidates if not c.judgement)
    # a hand that fits a response bids it, whatever the conventions would also allow
    r = bid(bidder, "K4.852.J6543.AK3", "1H P")  # 11 HCP, three hearts
    assert "5N" not in r.calls and "1N" in r.calls


def test_a_gap_is_none_only_where_the_notes_mean_to_cover_the_hand(bidder):
    """A relay's answers must cover every hand: 1S-1N-2N-3C asks for a singleton and the notes give
    no answer without one [A814], a gap.  After 1N the notes give only the transfers (the responses
    are missing from them): a hand that fits neither is undefined there, not a gap."""
    r = bid(bidder, "AQT873.J2.A2.A76", "1S P 1N P 2N P 3C P")
    assert (r.status, r.calls) == ("none", [])
    r = bid(bidder, "8642.J73.952.T84", "1N P")
    assert (r.status, r.calls) == ("undefined", []) and "2D, 2H" in r.reason


def test_partner_passes_a_call_that_is_to_play(bidder, inferencer):
    """'3N to play' [A1180] ends the auction for the pair: opener's pass after it is defined, says
    nothing of his hand, and the inference reads it as a call of the system."""
    auction = "2S P 2N P 3C P 3D P 3H P 3N P"
    r = bid(bidder, ONE_NT, auction)
    assert (r.status, r.calls) == ("ok", ["P"])
    assert r.candidates[0].formula == TRUE and "to play" in r.candidates[0].meaning
    got = inferencer.infer(Auction.parse(auction + " P"))
    assert all(c.defined for c in got.calls if c.seat in "NS")
    assert got.calls[-1].meaning == "pass: partner's call is to play"
    before = inferencer.infer(Auction.parse(auction))
    assert got.hands["N"].patterns == before.hands["N"].patterns


def test_the_chair_decides_light_openings(bidder):
    assert bid(bidder, LIGHT_MAJORS).calls == ["P"]
    assert bid(bidder, LIGHT_MAJORS, "P").calls == ["P"]
    # 5 spades and 4 hearts: hearts first, the shorter suit (canapé [A64-66])
    assert bid(bidder, LIGHT_MAJORS, "P P").calls == ["1H"]
    assert bid(bidder, LIGHT_MAJORS, "P P P").calls == ["1H"]
    r = bid(bidder, LIGHT_MAJORS, "P P", dealer="E")
    assert (r.seat, r.calls) == ("W", ["1H"])


def test_responder_to_the_relay_answers_by_the_shape(bidder, inferencer):
    """A 5-3-1-4 2S opener: 3C (short diamonds, 3+ hearts), then 3H (5-3-1-4) [A1157, A1175]."""
    assert "2S" in bid(bidder, FIVE_THREE_ONE_FOUR).calls
    assert bid(bidder, FIVE_THREE_ONE_FOUR, "2S P 2N P").calls == ["3C"]
    assert bid(bidder, FIVE_THREE_ONE_FOUR, "2S P 2N P 3C P 3D P").calls == ["3H"]
    got = inferencer.infer(Auction.parse("2S P 2N P 3C P 3D P 3H"))
    assert got.hands["N"].patterns == ["5-3-1-4"]


def two_spade_hand(rng: random.Random) -> Hand:
    """A random hand with 5-6 spades and 4-5 clubs (not necessarily a 2S opening)."""
    s, c = rng.choice((5, 6)), rng.choice((4, 5))
    h = rng.randrange(14 - s - c)
    p = (s, h, 13 - s - h - c, c)
    return Hand.from_cards([(suit, r) for suit, n in zip(SUITS, p, strict=True) for r in rng.sample(RANKS, n)])


def _random_opener_hands(seed: int, n: int):
    rng = random.Random(seed)
    return [Hand.random(rng) for _ in range(n)]


@pytest.mark.parametrize("prefix", ["", "P", "P P", "P P P"])
def test_the_bidder_evaluates_the_inferencers_constraints(bidder, inferencer, prefix):
    """At the opening, in every chair: a call fits exactly when the formula the inferencer gives
    it holds on the hand, and every fitting call's inference contains the hand."""
    auction = Auction.parse(prefix)
    for i, hand in enumerate(_random_opener_hands(len(prefix), 150)):
        r = bidder.bid(hand, auction)
        assert r.status in ("ok", "several"), (hand.pbn(), r.status)  # Pass denies the others
        for c in r.candidates:
            f = inferred_formula(inferencer, auction, c.call)
            assert c.fits == evaluate(f if f is not None else TRUE, hand), (hand.pbn(), c.call)
        if i % 10 == 0:  # inference of the whole auction, on some hands (the engine is slower)
            for call in r.calls:
                got = inferencer.infer(auction.append(call)).hands[auction.turn]
                assert hand.pattern in got.patterns and got.hcp[0] <= hand.hcp <= got.hcp[1], (hand.pbn(), call)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 2**32 - 1))
def test_a_two_spade_opener_relayed_to_the_end_is_found_where_the_verifier_says(bidder, inferencer, seed):
    """Bid a random 2S opener through the relays (responder always relays): every answer is the
    only call that fits, and the final inference holds the hand; resolved leaves pin its pattern."""
    rng = random.Random(seed)
    hand = two_spade_hand(rng)
    if "2S" not in bidder.bid(hand, Auction.parse("")).calls:
        return
    auction = Auction.parse("2S P")
    while True:
        pos = position(bidder.system, auction)
        relays = [c for c in bidder.options(pos) if c.is_relay]
        if not relays:
            break
        auction = auction.append(relays[0].call).append("P")
        r = bidder.bid(hand, auction)
        assert r.status == "ok", (hand.pbn(), str(auction), r.status, r.calls)
        auction = auction.append(r.calls[0]).append("P")
    got = inferencer.infer(auction).hands["N"]
    assert hand.pattern in got.patterns and got.hcp[0] <= hand.hcp <= got.hcp[1]
    assert len(got.patterns) <= 3
    # the 5431, 5440, 6430, 5530 types (second relay) and 5-2-2-4 are resolved [A1155-1278]
    if sorted(hand.lengths, reverse=True) in ([5, 4, 3, 1], [5, 4, 4, 0], [6, 4, 3, 0], [5, 5, 3, 0], [5, 4, 2, 2]):
        assert got.patterns == [hand.pattern], (hand.pbn(), str(auction))


@pytest.mark.parametrize("prefix", ["2S P 2N P", "2S P 2N 3D", "2S X", "2S P 2N P 3D P 3H P", "2H 2S 2N P",
                                    "2H X 2S P"])
def test_the_bidder_and_the_inferencer_agree_after_the_opening(bidder, inferencer, prefix):
    """Relay answers, answers over interference, responder after a double: same test."""
    auction = Auction.parse(prefix)
    rng = random.Random(prefix)
    seat = auction.turn
    for _ in range(100):
        hand = two_spade_hand(rng) if seat == "N" else Hand.random(rng)
        if prefix.startswith("2H") and seat == "N":
            # a 2H-type hand: swap the majors
            hand = Hand.from_cards([({"S": "H", "H": "S"}.get(x, x), r) for x, r in hand.cards])
        r = bidder.bid(hand, auction)
        assert r.status in ("ok", "several", "none") and r.candidates, (prefix, r.status)
        for c in r.candidates:
            f = inferred_formula(inferencer, auction, c.call)
            assert f is not None, (prefix, c.call)
            assert c.fits == evaluate(f, hand), (prefix, hand.pbn(), c.call)


# --------------------------------------------------------------------------- canary-infer bid
@pytest.fixture
def cli(system, monkeypatch, capsys):
    """``canary-infer ARGS`` in-process, reusing the session system; -> (status, stdout, stderr)."""
    monkeypatch.setattr("canary_infer.system.model.load_system", lambda *a, **k: system)

    def _run(*argv):
        status = main(list(argv))
        out, err = capsys.readouterr()
        return status, out, err
    return _run


def bid_json(cli, *argv):
    status, out, err = cli("bid", *argv, "--json")
    assert out.count("\n") == 1
    return status, json.loads(out)


def test_cli_bid_ok(cli):
    status, obj = bid_json(cli, ONE_NT)
    assert status == 0
    assert obj["status"] == "ok" and obj["calls"] == ["1N"]
    assert [w["call"] for w in obj["why"]] == ["1N"]
    assert obj["seat"] == "N" and obj["hand"] == Hand.from_pbn(ONE_NT).pbn() and obj["dealer"] == "N"


def test_cli_bid_one_heart(cli):
    """3-5-1-4, 13 HCP, 6¼ losers: 1H, not 2H (5 or 6 losers [A36, A1122])."""
    status, obj = bid_json(cli, ONE_HEART)
    assert status == 0 and (obj["status"], obj["calls"]) == ("ok", ["1H"])
    status, obj = bid_json(cli, ONE_HEART, "--auction", "P", "--dealer", "W")  # second chair: the same
    assert (obj["status"], obj["calls"], obj["seat"]) == ("ok", ["1H"], "N")


def test_cli_bid_several_lists_every_call_with_why(cli, system):
    status, obj = bid_json(cli, ONE_D_OR_2C)
    assert status == 0 and obj["status"] == "several" and obj["calls"] == ["1D", "2C"]
    assert [w["call"] for w in obj["why"]] == obj["calls"]
    for w in obj["why"]:
        assert w["constraint"] and evaluate(parse(w["constraint"], system.definitions), Hand.from_pbn(ONE_D_OR_2C))


def test_cli_bid_none(cli):
    status, obj = bid_json(cli, FIVE_FOUR_VOID, "--auction", "2S P 2N 3D")
    assert status == 0 and obj["status"] == "none" and obj["calls"] == [] and obj["why"] == []
    assert obj["auction"] == "2S P 2N 3D"


def test_cli_bid_undefined_and_the_dealer(cli):
    status, obj = bid_json(cli, ONE_NT, "--auction", "2C P 2N P 3D P")
    assert status == 0 and obj["status"] == "undefined" and obj["calls"] == [] and obj["reason"]
    status, obj = bid_json(cli, LIGHT_MAJORS, "--auction", "P P", "--dealer", "e")
    assert obj["status"] == "ok" and obj["calls"] == ["1H"] and obj["seat"] == "W" and obj["dealer"] == "E"
    status, obj = bid_json(cli, LIGHT_MAJORS, "--auction", "P P", "--dealer", "S")
    assert obj["seat"] == "N" and obj["calls"] == ["1H"]


@pytest.mark.parametrize("argv,kind", [
    (["AKQ.AKQ.AKQ.AKQ"], None),  # twelve cards
    (["AKQ83.J2.K4.QT92", "--auction", "1S 1H"], "illegal"),
    (["AKQ83.J2.K4.QT92", "--auction", "1S 8Z"], "syntax"),
])
def test_cli_bid_errors(cli, argv, kind):
    status, obj = bid_json(cli, *argv)
    assert status == 2 and obj["status"] == "error" and obj["calls"] == []
    if kind:
        assert obj["error"]["kind"] == kind
    status, out, err = cli("bid", *argv)
    assert status == 2 and out == "" and err.startswith("error")


def test_cli_bid_text(cli):
    status, out, _ = cli("bid", ONE_D_OR_2C)
    assert status == 0
    assert "could bid any of: 1D 2C" in out
    assert sum(line.lstrip().startswith("fits") for line in out.splitlines()) == 2
    status, out, _ = cli("bid", ONE_NT)
    assert "bids: 1N" in out
    status, out, _ = cli("bid", ONE_NT, "--auction", "2C P 2N P 3D P")
    assert "has no call defined" in out


# --------------------------------------------------------------------------- selfcheck
@pytest.fixture(scope="module")
def round_trip(inferencer):
    return selfcheck(300, 5, inferencer)


def test_selfcheck_finds_no_violation_and_the_counts_add_up(round_trip):
    r = round_trip.as_json()
    assert r["deals"] == 300
    assert r["violations"] == 0, [e for e in r["examples"] if e["kind"] == "violation"]
    assert r["completed"] + r["undefined_stops"] + r["none"] == r["deals"]
    assert r["undefined_stops"] > 0 and r["several"] > 0  # the notes continue only after 2H/2S
    kinds = [e["kind"] for e in r["examples"]]
    assert set(kinds) <= {"none", "several", "violation"}
    assert kinds.count("several") == min(5, r["several"]) and kinds.count("none") == min(5, r["none"])


def test_selfcheck_several_examples_really_fit_all_their_calls(round_trip, bidder, inferencer):
    examples = [e for e in round_trip.examples if e["kind"] == "several"]
    assert examples
    for e in examples:
        deal = Deal.from_pbn(e["deal"])
        hand = Hand.from_pbn(e["hand"])
        assert deal[e["seat"]] == hand
        auction = Auction.parse(e["auction"], dealer=e["dealer"])
        assert auction.turn == e["seat"]
        assert len(e["calls"]) >= 2
        r = bidder.bid(hand, auction)
        assert (r.status, r.calls) == ("several", e["calls"])
        for call in e["calls"]:  # by the inferencer's reading of the call, too
            f = inferred_formula(inferencer, auction, call)
            assert f is not None and evaluate(f, hand), (e, call)


def test_selfcheck_with_a_gap_and_overlaps_reports_none_and_several(tmp_path):
    p = tmp_path / "sys.canary"
    p.write_text(SYNTHETIC, encoding="utf-8")
    synthetic = load_system([p])
    r = selfcheck(200, 3, Inferencer(synthetic))
    assert r.violations == 0
    assert r.completed + r.undefined_stops + r.none == r.deals == 200
    assert r.none > 0 and r.several > 0
    b = Bidder(synthetic)
    for e in r.examples:
        hand = Hand.from_pbn(e["hand"])
        auction = Auction.parse(e["auction"], dealer=e["dealer"])
        assert Deal.from_pbn(e["deal"])[e["seat"]] == hand and auction.turn == e["seat"]
        got = b.bid(hand, auction)
        if e["kind"] == "none":  # a 1S opener with five spades, 2+ clubs and 3- hearts: no answer
            assert got.status == "none" and str(auction).endswith("2N P")
            assert hand.length("S") == 5 and hand.length("C") >= 2 and hand.length("H") <= 3
        else:
            assert got.status == "several" and got.calls == e["calls"]


def test_same_seed_same_result_and_the_cli_agrees(inferencer, monkeypatch, capsys):
    monkeypatch.setattr("canary_infer.deal.infer.Inferencer", lambda *a, **k: inferencer)
    assert main(["selfcheck", "--deals", "60", "--seed", "5", "--json"]) == 0
    out, _ = capsys.readouterr()
    first = json.loads(out)
    assert {"deals", "violations", "undefined_stops", "none", "several", "examples"} <= set(first)
    assert first == selfcheck(60, 5, inferencer).as_json()
    assert first != selfcheck(60, 6, inferencer).as_json()
    assert main(["selfcheck", "--deals", "60", "--seed", "5"]) == 0
    out, _ = capsys.readouterr()
    assert out.startswith(f"60 deals (seed 5): 0 violations, {first['completed']} auctions completed")


# ---- a broken inferencer: the check must be able to fail
@pytest.fixture(scope="module")
def strict_inferencer(tmp_path_factory):
    """The built-in system, but the inference side reads 1N as 15-16 HCP (the bidder: 13-16)."""
    d = tmp_path_factory.mktemp("strict")
    changed = 0
    for f in builtin_dir().iterdir():
        if f.name.endswith(".canary"):
            text = f.read_text(encoding="utf-8")
            changed += text.count("= hcp in 13..16 and nt_shape")
            (d / f.name).write_text(text.replace("= hcp in 13..16 and nt_shape", "= hcp in 15..16 and nt_shape"),
                                    encoding="utf-8")
    assert changed == 1
    return Inferencer(load_system(sorted(d.iterdir())))


def test_a_stricter_inference_than_bidding_gives_violations(strict_inferencer, system, monkeypatch):
    monkeypatch.setattr("canary_infer.tools.selfcheck.Bidder", lambda _system: Bidder(system))
    r = selfcheck(150, 5, strict_inferencer)
    assert r.violations > 0
    bad = [e for e in r.examples if e["kind"] == "violation"]
    assert len(bad) == min(r.violations, 50)
    for e in bad:
        hand = Hand.from_pbn(e["hand"])
        assert Deal.from_pbn(e["deal"])[e["seat"]] == hand
        assert hand.hcp in (13, 14) and any("outside 15-16" in p for p in e["problems"]), e
        a = Auction.parse(e["auction"], dealer=e["dealer"])
        assert a.is_complete or a.calls
        assert "1N" in [str(c) for i, c in enumerate(a.calls) if a.seat_of(i) == e["seat"]]


def test_the_cli_exits_1_on_violations(strict_inferencer, system, monkeypatch, capsys):
    monkeypatch.setattr("canary_infer.deal.infer.Inferencer", lambda *a, **k: strict_inferencer)
    monkeypatch.setattr("canary_infer.tools.selfcheck.Bidder", lambda _system: Bidder(system))
    assert main(["selfcheck", "--deals", "150", "--seed", "5", "--json"]) == 1
    obj = json.loads(capsys.readouterr()[0])
    assert obj["violations"] > 0 and obj["deals"] == 150


SYNTHETIC = """\
define balanced = shape 4333 | 4432 | 5332

tree opening
  P   "no opening"  [A1]
      = denies siblings
  1S  "11-16, five or more spades"  [A2]
      = hcp in 11..16 and S >= 5
    2N  "relay"  [A3]
      3C  "short clubs"  [A4]
          = C <= 1
      3D  "four or more hearts"  [A5]
          = H >= 4
      3H  "six or more spades"  [A6]
          = S >= 6
  1N  "13-16 balanced"  [A7]
      = hcp in 13..16 and balanced
"""
