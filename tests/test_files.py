"""PBN and LIN files: reading as real files are written, round trips, infer --pbn and bid --pbn."""

import json
import random
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from canary_infer.bridge.auction import Auction, legal_calls
from canary_infer.bridge.cards import Deal
from canary_infer.bridge.lin import HANDVIEWER, LinError, handviewer_url, read_lin, write_lin
from canary_infer.bridge.pbn import PbnError, auction_section, read_pbn, replace_auction
from canary_infer.language.expr import evaluate
from canary_infer.tools.bidding import Bidder

DATA = Path(__file__).resolve().parent / "data"
FEATURES = DATA / "features.pbn"
DEALER = DATA / "dealer-Refer.pbn"
LIN = DATA / "bbo.lin"




def random_auction(rng: random.Random, dealer: str | None = None) -> Auction:
    a = Auction([], dealer or rng.choice("NESW"))
    for _ in range(rng.randrange(0, 16)):
        calls = legal_calls(a)
        if not calls:
            break
        # passes often, so auctions end now and then
        a = a.append(calls[0] if rng.random() < 0.4 else rng.choice(calls))
    return a


NOTE_TEXTS = ["relay", "11-16 HCP, 5-6 spades [A36]", 'a "quoted" word', "back\\slash", "5+ ♥, forcing"]


# ------------------------------------------------------------------ reading
def test_features_of_real_files_are_read():
    b1, b2, b3, b4 = read_pbn(FEATURES.read_text())
    assert [b.number for b in (b1, b2, b3, b4)] == ["1", "2", "3", "4"]
    # calls over several lines, a '!' suffix, notes attached to their calls, a [Play] section
    assert str(b1.auction) == "2S P 2N P 3C P 4S P P P" and b1.auction.dealer == "N"
    assert b1.note_of(0) == "5-6 spades, 4-5 clubs" and b1.note_of(2) == "relay" and b1.note_of(4) is None
    assert b1.play[:4] == ["HQ", "H5", "HK", "HA"] and b1.play[-1] == "*"
    assert b1.deal["S"].pbn() == "K762.A843.AQ6.T5" and b1.values["Contract"] == "4S"
    # '-' before the dealer when laid out from North, comments, a NAG, AP; "#" takes the last value
    assert b2.auction.dealer == "E" and str(b2.auction) == "1S P 2N P 3D P 3N P P P"
    assert b2.values["Event"] == "Club teams" and b2.values["Site"] == "Utrecht" and b2.vulnerable == "NS"
    assert b2.deal["E"].pbn() == "AKQ83.J2.K4.QT92"
    # a board with no auction, and a deal with no hand known
    assert b3.auction is None and b3.dealer == "S" and all(b3.deal[s] is None for s in "NESW")
    # an unfinished auction ('*') with its notes; no deal at all
    assert str(b4.auction) == "P 1C 1H X" and b4.auction_incomplete and b4.deal is None
    assert b4.note_of(1) == "17+ HCP" and b4.note_of(2) == "natural, 5+ hearts"


def test_the_dealer_package_file_is_read_and_its_summary_lines_skipped():
    boards = read_pbn(DEALER.read_text())
    assert [b.number for b in boards] == [str(i) for i in range(1, 11)]
    assert all(b.auction is None and b.dealer == "N" and b.vulnerable == "All" for b in boards)
    assert all(all(b.deal[s] is not None for s in "NESW") for b in boards)
    # dealer's own condition for that file: west has 17+ HCP, east 8+ HCP and under 3 controls
    assert all(b.deal["W"].hcp > 16 and b.deal["E"].hcp > 7 for b in boards)


@pytest.mark.parametrize("text, message", [
    ('[Board "5"]\n[Auction "N"]\n1S 1H', "call 2 '1H'"),
    ('[Board "5"]\n[Auction "N"]\n=1= 1S', "note =1= before any call"),
    ('[Board "5"]\n[Dealer "E"]\n[Auction "N"]\n1S', "disagrees"),
    ('[Board "5"]\n[Deal "N:AKQ.AKQ.AKQ.AKQ - - -"]', "[Deal]"),
    ('[Board "5"]\n[Auction "N"]\n1S * 2S', "after '*'"),
    ('[Board "5"]\n[Auction "Q"]\n1S', "does not name a seat"),
])
def test_bad_games_are_errors_naming_line_and_board(text, message):
    with pytest.raises(PbnError) as e:
        read_pbn(text)
    assert message in str(e.value) and "board 5" in str(e.value) and "line " in str(e.value)
    (b,) = read_pbn(text, strict=False)
    assert b.error and b.number == "5" and b.auction is None


def test_one_bad_game_does_not_stop_the_others():
    text = FEATURES.read_text().replace("3C! Pass 4S", "3C! Pass 2S")
    boards = read_pbn(text, strict=False)
    assert [b.error is not None for b in boards] == [True, False, False, False]


# ------------------------------------------------------------------ round trips
def test_auction_sections_read_back_with_their_notes():
    rng = random.Random(5)
    for _ in range(300):
        a = random_auction(rng)
        notes = [rng.choice(NOTE_TEXTS + [None, None]) for _ in a.calls]
        incomplete = rng.random() < 0.3
        (b,) = read_pbn(f'[Board "1"]\n{auction_section(a, notes, incomplete)}')
        assert b.auction == a
        assert [b.note_of(i) for i in range(len(a))] == notes
        assert b.auction_incomplete == (incomplete and not a.is_complete)


def test_replacing_the_auction_keeps_everything_else():
    rng = random.Random(2)
    for path in (FEATURES, DEALER):
        original = read_pbn(path.read_text())
        auctions = [random_auction(rng, b.dealer) for b in original]
        notes = [[rng.choice(NOTE_TEXTS + [None]) for _ in a.calls] for a in auctions]
        text = "\n\n".join(replace_auction(b, auction_section(a, n)) for b, a, n in zip(original, auctions, notes,
                                                                                         strict=True))
        again = read_pbn(text)
        assert len(again) == len(original)
        for b, x, a, n in zip(original, again, auctions, notes, strict=True):
            assert x.auction == a and [x.note_of(i) for i in range(len(a))] == n
            assert {t.name: t.value for t in x.tags if t.name not in ("Auction", "Note")} == \
                {t.name: t.value for t in b.tags if t.name not in ("Auction", "Note")}
            assert x.deal == b.deal and x.play == b.play


def random_deal(rng) -> Deal:
    return Deal.random(rng)


def test_lin_round_trip_and_handviewer_links():
    rng = random.Random(9)
    for k in range(200):
        deal = random_deal(rng)
        a = random_auction(rng)
        notes = [rng.choice(["relay", "17+ HCP", "5 ♠, 4 ♣", "a|pipe", None, None]) for _ in a.calls]
        vul = rng.choice(["None", "NS", "EW", "All"])
        text = write_lin(deal, a, notes, board=str(k), vulnerable=vul)
        (b,) = read_lin(text)
        assert (b.deal, b.auction, b.board, b.vulnerable) == (deal, a, str(k), vul)
        assert b.explanations == [n.replace("|", "/") if n else None for n in notes]
        url = handviewer_url(deal, a, notes, board=str(k), vulnerable=vul)
        assert url.startswith(HANDVIEWER + "?lin=")
        (b2,) = read_lin(parse_qs(urlparse(url).query)["lin"][0])
        assert (b2.deal, b2.auction, b2.explanations) == (deal, a, b.explanations)


def test_lin_files_as_bbo_writes_them():
    b1, b2 = read_lin(LIN.read_text())
    pbn1 = read_pbn(FEATURES.read_text())[0]
    assert b1.deal == pbn1.deal and b1.auction == pbn1.auction  # the fourth hand is the cards left
    assert b1.explanations[:5] == ["5-6 spades and 4-5 clubs", None, "relay", None, "short diamonds"]
    assert b1.board == "1" and b1.vulnerable == "None"
    assert b2.dealer == "E" and str(b2.auction) == "1C P 1D P P P" and b2.vulnerable == "NS"
    assert b2.deal["E"].pbn() == "JT9.AKQ3.AQJ2.K3" and b2.explanations[0] == "17+ HCP"
    with pytest.raises(LinError, match="md"):
        read_lin("md|9SA,,,|")
    with pytest.raises(LinError, match="mb"):
        read_lin("md|3,,,|mb|1S|mb|1H|")


# ------------------------------------------------------------------ the commands
def test_infer_pbn_json_one_object_per_board_in_file_order(run):
    status, out, _ = run("infer", "--pbn", FEATURES, "--json")
    assert status == 0
    reports = [json.loads(line) for line in out.splitlines()]
    assert [r["board"] for r in reports] == ["1", "2", "3", "4"]
    r1, r2, r3, r4 = reports
    assert r1["auction"] == "2S P 2N P 3C P 4S P P P".split() and r1["error"] is None
    assert set(r1["checks"]) == set("NESW")
    # North's actual hand against its calls, checked here with the same formulas
    north = Deal.from_pbn(r1["deal"])["N"]
    assert r1["checks"]["N"]["fits"] == (11 <= north.hcp <= 16 and north.length("S") in (5, 6)
                                         and north.length("C") in (4, 5) and r1["checks"]["N"]["fits"])
    assert r3["auction"] is None and r3["note"] == "the board has no auction" and r3["hands"] == {}
    assert r4["auction"] == ["P", "1C", "1H", "X"] and r4["checks"] == {}
    assert r2["hands"]["E"]["hcp"][0] >= 11


def test_infer_pbn_text_and_writing_meanings_as_notes(run, tmp_path, inferencer):
    out_file = tmp_path / "annotated.pbn"
    status, out, _ = run("infer", "--pbn", FEATURES, "-o", out_file)
    assert status == 0 and "Board 1  dealer N" in out and "Board 3" in out and "no auction" in out
    boards = read_pbn(out_file.read_text(encoding="iso-8859-1"))  # the file's own character set
    assert [b.number for b in boards] == ["1", "2", "3", "4"]
    b1 = boards[0]
    inf = inferencer.infer(b1.auction)
    assert b1.note_of(0) == "5-6 spades, 4-5 clubs"  # the file's own note stays
    assert b1.note_of(4) == inf.calls[4].meaning + f" [{inf.calls[4].source}]"  # 3C had none: the system's
    assert b1.note_of(1) is None  # a defender's pass means nothing in the notes
    assert boards[2].auction is None and boards[0].values["Contract"] == "4S"


def test_infer_lin_and_auction_to_formats(run):
    status, out, _ = run("infer", "--lin", LIN, "--json")
    assert status == 0 and [json.loads(x)["board"] for x in out.splitlines()] == ["1", "2"]
    status, out, _ = run("infer", "2S", "P", "2N", "--to", "pbn")
    (b,) = read_pbn(out)
    assert str(b.auction) == "2S P 2N" and b.note_of(2).startswith("relay")
    status, out, _ = run("infer", "2S P 2N", "--to", "lin")
    (lb,) = read_lin(out)
    assert str(lb.auction) == "2S P 2N" and lb.explanations[1] is None
    status, out, _ = run("infer", "2S P 2N", "--to", "handviewer")
    assert out.startswith(HANDVIEWER)
    status, _, err = run("infer", "--pbn", "/nonexistent/file.pbn")
    assert status == 2 and "cannot read" in err


def test_bid_pbn_bids_every_board_as_the_bidder_does(run, tmp_path, system):
    out_file = tmp_path / "bid.pbn"
    status, out, _ = run("bid", "--pbn", DEALER, "-o", out_file)
    assert status == 0 and "10 boards: 10 bid" in out
    boards = read_pbn(out_file.read_text())
    originals = read_pbn(DEALER.read_text())
    bidder = Bidder(system)
    assert len(boards) == 10
    for b, orig in zip(boards, originals, strict=True):
        assert b.deal == orig.deal and b.number == orig.number
        a = b.auction
        for i, call in enumerate(a.calls):  # each call is one the bidder makes with that hand there
            r = bidder.bid(b.deal[a.seat_of(i)], Auction(a.calls[:i], a.dealer))
            assert str(call) in r.calls or (r.side == "defence" and str(call) == "P")
        for i, c in enumerate(a.calls):
            note = b.note_of(i)
            assert (note is None) == (a.seat_of(i) in ("N", "S") and str(c) == "P" and i > 3)
        # and every hand fits the calls it made
        from canary_infer.deal.infer import Inferencer
        inf = Inferencer(system).infer(a)
        for c in inf.calls:
            if c.defined and c.formula is not None:
                assert evaluate(c.formula, b.deal[c.seat])


def test_bid_pbn_reports_boards_without_a_full_deal_and_writes_lin(run, tmp_path):
    status, out, err = run("bid", "--pbn", FEATURES)
    assert status == 0
    assert "Board 3: no full deal to bid" in err and "Board 4: no full deal to bid" in err
    boards = read_pbn(out)  # the file itself on standard output
    assert len(boards) == 4 and boards[2].auction is None
    lin_file = tmp_path / "bid.lin"
    status, out, _ = run("bid", "--pbn", FEATURES, "-o", lin_file, "--handviewer")
    assert status == 0 and HANDVIEWER in out
    assert [b.board for b in read_lin(lin_file.read_text())] == ["1", "2"]
    status, _, err = run("bid")
    assert status == 2 and "--pbn" in err
