"""The deal command and infer --prob / --ask: consistency of every dealt deal, formats, JSON."""

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from canary_infer.bridge.auction import Auction
from canary_infer.bridge.cards import SEATS, Deal, Hand
from canary_infer.deal.dealing import deal, format_lin, format_pbn
from canary_infer.language.expr import conj, evaluate

AUCTIONS = ["", "1S", "2S P 2N P 3C", "2H P 2N P 3H", "1S P 2S", "P", "P P 1S", "2S P 2N P 3D P 3H",
            "1N P 2C", "P 1S", "2H P 2S P 3D", "P P P 1D", "2D"]
HANDS = [None, ("S", "K32.A87.J854.962"), ("E", "AJ5.KT9.873.QJ52"), ("W", "T98.Q65.AK2.8743")]




@settings(max_examples=25, deadline=None)
@given(st.sampled_from(AUCTIONS), st.sampled_from(HANDS), st.integers(0, 10_000))
def test_every_dealt_deal_fits_its_auction(inferencer, text, known, seed):
    auction = Auction.parse(text)
    kh = (known[0], Hand.from_pbn(known[1])) if known else None
    ds = deal(auction, 6, seed=seed, known=kh, inferencer=inferencer, time_limit=20)
    calls = inferencer.read(auction)
    formulas = {s: conj(inferencer.seat_formulas(calls, s)) for s in SEATS}
    if kh is not None and not evaluate(formulas[kh[0]], kh[1]):
        formulas[kh[0]] = None  # my own hand is given, whatever my calls say
    for d in ds.deals:
        assert isinstance(d, Deal) and all(d[s] is not None for s in SEATS)
        if kh:
            assert d[kh[0]] == kh[1]
        for s in SEATS:
            if formulas[s] is not None:
                assert evaluate(formulas[s], d[s]), (text, s, d)


def test_the_same_seed_gives_the_same_deals(inferencer):
    a = deal(Auction.parse("2S P 2N P 3C"), 5, seed=11, inferencer=inferencer)
    b = deal(Auction.parse("2S P 2N P 3C"), 5, seed=11, inferencer=inferencer)
    c = deal(Auction.parse("2S P 2N P 3C"), 5, seed=12, inferencer=inferencer)
    assert a.deals == b.deals and a.deals != c.deals


def test_pbn_carries_the_deal_and_the_auction_with_notes(inferencer):
    ds = deal(Auction.parse("2S P 2N P 3C"), 2, seed=1, inferencer=inferencer)
    text = format_pbn(ds)
    boards = [b for b in text.split("\n\n") if "[Board" in b]
    assert len(boards) == 2
    for board, d in zip(boards, ds.deals, strict=True):
        tag = next(line for line in board.splitlines() if line.startswith("[Deal "))
        assert Deal.from_pbn(tag.split('"')[1]) == d
        lines = board.splitlines()
        start = lines.index('[Auction "N"]')
        calls = " ".join(lines[start + 1:start + 3])
        assert calls.split() == ["2S", "=1=", "Pass", "2NT", "=2=", "Pass", "3C", "=3=", "*"]  # not ended: "*"
        notes = [x for x in lines if x.startswith("[Note ")]
        assert len(notes) == 3 and "spades" in notes[0] and "relay" in notes[1]


def test_lin_has_the_hands_and_the_alerted_calls(inferencer):
    ds = deal(Auction.parse("1S P 2S"), 1, seed=1, inferencer=inferencer)
    line = format_lin(ds)
    assert line.startswith("pn|") and line.endswith("pg||")
    md = line.split("md|")[1].split("|")[0]
    assert md[0] == "3"  # North deals: LIN numbers the seats from South
    south, west, north, east = md[1:].split(",")
    d = ds.deals[0]
    for text, seat in ((south, "S"), (west, "W"), (north, "N"), (east, "E")):
        s, rest = text[1:].split("H")
        h, rest = rest.split("D")
        dd, c = rest.split("C")
        assert Hand.from_pbn(f"{s}.{h}.{dd}.{c}") == d[seat]
    assert "mb|1S!|an|" in line and "mb|p|" in line and "mb|2S!|an|" in line  # East's pass means nothing here


def test_deal_command(run):
    status, out, err = run("deal", "2S P 2N P 3C", "-n", "3", "--seed", "4")
    assert status == 0, err
    assert out.count("Deal ") == 3
    status, out, _ = run("deal", "1S P 2S", "-n", "2", "--hand", "S:K32.A87.J854.962", "--format", "pbn")
    assert status == 0 and out.count("[Deal ") == 2 and "S:K32.A87.J854.962" not in out.split("[Deal ")[0]
    assert all("K32.A87.J854.962" in seg for seg in out.split("[Deal ")[1:])
    status, _, err = run("deal", "1S 1D", "-n", "2")
    assert status == 2 and "illegal" in err


def test_deal_says_at_once_when_no_deal_fits(run):
    # 1D shows 11+ HCP, East's 1N overcall 17-20, South holds 17: 45 points, so no deal fits;
    # the answer comes from the proof, not after the drawing's two minutes run out
    import time

    t = time.perf_counter()
    status, out, err = run("deal", "1D 1N 3S 6C 6S 7D X P", "-n", "2", "--hand", "S:AQJ54.T95.AK9.K7")
    assert status == 1 and not out.strip() and "no deal fits" in err
    assert time.perf_counter() - t < 30


def test_infer_prob_json_shape(run):
    status, out, err = run("infer", "--json", "--prob", "1S P 2S", "--hand", "S:K32.A87.J854.962")
    assert status == 0, err
    obj = json.loads(out)
    deals = obj["deals"]
    assert isinstance(deals, int) and deals % math.comb(26, 13) == 0
    for seat in "NEW":
        h = obj["hands"][seat]
        p, c = h["probabilities"], h["counts"]
        assert set(p) == {"lengths", "hcp", "patterns"} == set(c)
        assert set(p["lengths"]) == set("SHDC")
        assert all(isinstance(k, str) for k in p["hcp"]) and all(isinstance(v, float) for v in p["hcp"].values())
        assert sum(p["hcp"].values()) == pytest.approx(1.0)
        assert sum(c["hcp"].values()) == deals and sum(c["patterns"].values()) == deals
        for s in "SHDC":
            assert sum(c["lengths"][s].values()) == deals
        assert all(c["hcp"][k] / deals == pytest.approx(v) for k, v in p["hcp"].items())
        assert h["exact"] is True
    # East holds what North's 11+ HCP and 4+ spades (1S, [A32]) leave of the cards South does not hold
    south = Hand.from_pbn("K32.A87.J854.962")
    east = obj["hands"]["E"]["probabilities"]
    assert max(int(k) for k in east["hcp"]) == 40 - south.hcp - 11
    assert max(int(k) for k in east["lengths"]["S"]) == 13 - south.length("S") - 4


def test_infer_prob_on_an_empty_auction(run):
    status, out, _ = run("infer", "--json", "--prob", "")
    assert status == 0
    obj = json.loads(out)
    assert obj["deals"] == math.factorial(52) // math.factorial(13) ** 4
    p = obj["hands"]["N"]["probabilities"]["patterns"]
    want = math.comb(13, 4) ** 2 * math.comb(13, 3) * math.comb(13, 2) / math.comb(52, 13)
    assert p["4-4-3-2"] == pytest.approx(want)


def test_ask(run):
    status, out, err = run("infer", "--json", "1S", "--ask", "N: H >= 4", "--ask", "E: S >= 5")
    assert status == 0, err
    asks = json.loads(out)["asks"]
    assert [a["question"] for a in asks] == ["N: H >= 4", "E: S >= 5"]
    for a in asks:
        assert 0 <= a["probability"] <= 1 and a["count"] <= a["of"]
        assert a["probability"] == pytest.approx(a["count"] / a["of"])
        assert a["exact"] is True
    status, out, err = run("infer", "1S", "--ask", "N H >= 4")
    assert status == 2 and "SEAT: CONSTRAINT" in err
    status, out, err = run("infer", "1S", "--ask", "N: H >=")
    assert status == 2 and "--ask" in err


def test_text_view_draws_bars(run):
    status, out, _ = run("infer", "1S P 2S", "--hand", "S:K32.A87.J854.962", "--prob", "--ask", "N: S >= 5")
    assert status == 0
    assert "HCP" in out and "█" in out and "mean" in out and "N: S >= 5" in out and "deals fit" in out


def test_estimates_show_their_standard_error(run):
    status, out, _ = run("infer", "--json", "--prob", "--samples", "2000", "P P")
    obj = json.loads(out)
    n = obj["hands"]["N"]
    assert n["exact"] is False and n["samples"] == 2000
    assert set(n["standard_errors"]) == {"lengths", "hcp", "patterns"}
    assert obj["deals"] is None
