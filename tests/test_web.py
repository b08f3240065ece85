"""The explorer's data and pages without a browser (Flask's test client)."""

import io
import json
from contextlib import redirect_stdout

import pytest

from canary_infer.ui.cli import main

flask = pytest.importorskip("flask")


@pytest.fixture(scope="module")
def client(system):
    from canary_infer.ui.web import create_app

    return create_app(system, deals=1).test_client()


def infer_json(*argv):
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert main(["infer", "--json", *argv]) == 0
    return json.loads(buf.getvalue())


def test_api_matches_inference(client, inferencer):
    from canary_infer.bridge.auction import Auction

    data = client.get("/api/position?a=2S-P-2N-P-3C&d=N&deals=0").get_json()
    inf = inferencer.infer(Auction.parse("2S P 2N P 3C"), joint=True)  # the page shows the deal's ranges
    cli = infer_json("2S P 2N P 3C", "--prob")  # ... and the deal's probabilities, exact here
    assert data["auction"] == ["2S", "P", "2N", "P", "3C"] and data["turn"] == "E" and data["errors"] == []
    for seat in "NESW":
        got, want = data["seats"][seat], inf.hands[seat]
        assert got["hcp"] == list(want.hcp) and sorted(p["pattern"] for p in got["patterns"]) == sorted(want.patterns)
        assert sum(p["p"] for p in got["patterns"]) == pytest.approx(1, abs=1e-12)
        assert got["scope"] == "exact" and got["deals"] == cli["deals"] == sum(p["count"] for p in got["patterns"])
        assert {p["pattern"]: p["p"] for p in got["patterns"]} == cli["hands"][seat]["probabilities"]["patterns"]
        assert {p["pattern"]: p["count"] for p in got["patterns"]} == cli["hands"][seat]["counts"]["patterns"]
        assert {int(k): v for k, v in cli["hands"][seat]["probabilities"]["hcp"].items()} == {
            int(k): v for k, v in got["hcp_dist"].items()}
    deals = cli["deals"]
    assert data["probabilities"] == f"exact: the share of each among all {deals:,} deals consistent with the auction"
    assert [c["defined"] for c in data["calls"]] == [True, False, True, False, True]
    assert data["next"]["side"] == "defence" and data["next"]["system"] == []
    legal = {c["call"] for row in data["next"]["box"] for c in row if c["legal"]}
    assert min(legal, key=lambda c: (int(c[0]), "CDHSN".index(c[1]))) == "3D"


def test_estimates_where_two_seats_are_constrained(client):
    """1H X P 1S: three unseen seats constrained: the shares of the 2,000 deals the page draws
    (the exact sampler, seeded), the same as infer --prob --samples 2000, each with its ±."""
    data = client.get("/api/position?a=1H-X-P-1S&deals=0").get_json()
    cli = infer_json("1H X P 1S", "--prob", "--samples", "2000")
    for seat in "NESW":
        got, want = data["seats"][seat], cli["hands"][seat]
        assert got["scope"] == "estimated" and got["samples"] == want["samples"] == 2000 and got["deals"] is None
        assert sum(p["count"] for p in got["patterns"]) == 2000
        assert {p["pattern"]: p["p"] for p in got["patterns"] if p["count"]} == want["probabilities"]["patterns"]
        assert {p["pattern"]: p["se"] for p in got["patterns"] if p["count"]} == pytest.approx(
            want["standard_errors"]["patterns"], rel=1e-12)
    assert "estimated from 2,000 deals drawn uniformly by the exact sampler" in data["probabilities"]
    page = client.get("/?a=1H-X-P-1S&full=1").get_data(as_text=True)
    assert "estimated from 2,000 deals drawn" in page and "% ±" in page and 'data-scope="estimated"' in page
    page = client.get("/?a=2S-P-2N-P-3C").get_data(as_text=True)
    assert "% ±" not in page and 'title="69,703,634,629,943,622,648,547,200 deals">7.0 × 10²⁵</span> deals' in page


def test_pages_for_odd_positions(client):
    assert client.get("/").status_code == 200
    page = client.get("/?a=2S-P-2N-P-3C-P-P-P").get_data(as_text=True)
    assert "The auction is over" in page
    page = client.get("/?a=1S-1S&d=Q").get_data(as_text=True)
    assert "insufficient" in page and 'id="seat-N"' in page
    page = client.get("/?a=2S-P-2N-P-3C&hand=S:AKQ.AKJT4.K.AKT7").get_data(as_text=True)
    assert "No hand fits these calls. Contradicting: 2S (call 1), 3C (call 5)" in page


def test_serve_refuses_a_bad_system_folder(tmp_path, capsys):
    assert main(["serve", "--system", str(tmp_path / "nowhere")]) == 2
    assert "no such folder" in capsys.readouterr().err


def test_the_page_teaches(client):
    """Your hand as cards and what the system bids with it; slam facts as infer prints them; a
    call's meaning short with the rest behind "more"; the notes' \\H an honour; deal counts
    readable with the exact number beside; no mark on opponents' passes nobody reads."""
    page = client.get("/?a=&hand=N:KJ2.QJ3.KJ32.A32").get_data(as_text=True)
    assert 'id="own-cards"' in page and '<span class="card black">K</span>' in page
    assert 'data-status="ok" data-calls="1N"' in page and "The system bids <b>1NT</b> with your hand" in page
    page = client.get("/?a=1S-P-2N-P&hand=N:AKJ6.6.Q43.AQ643").get_data(as_text=True)
    assert 'data-status="several"' in page and "the choice is judgement" in page
    page = client.get("/?a=1S-P-2N-P-4N-P-5D-P-5H-P-6C-P").get_data(as_text=True)
    slam = infer_text("1S P 2N P 4N P 5D P 5H P 6C P")
    shown = [line.split(": ", 1)[1] for line in slam.splitlines() if line.strip().startswith("slam ")]
    assert shown and all(f'data-slam="{s}"' in page for s in shown)
    # uncontested: the defenders' passes carry no "?" (they are still undefined in the data)
    data = client.get("/api/position?a=2S-P-2N-P-3C&deals=0").get_json()
    assert [c["mark"] for c in data["calls"]] == [False] * 5 and [c["defined"] for c in data["calls"]][1] is False
    page = client.get("/?a=2S-P-2N-P-3C").get_data(as_text=True)
    auction = page[page.index('id="auction"'):page.index('id="bidding-box"')]
    assert '<span class="mark">?' not in auction and 'data-marked="no"' in auction
    # the 1H opening's long meaning: its first sentence, the rest behind "more"
    data = client.get("/api/position?a=1H&deals=0").get_json()
    c = data["calls"][0]
    assert len(c["short"]) <= 112 and c["meaning"].startswith(c["short"].rstrip(" …"))
    page = client.get("/?a=1S-P-2S-P").get_data(as_text=True)
    assert '<details class="more"><summary>more</summary>' in page
    assert '<abbr class="honour" title="an honour: A, K or Q">H</abbr>' in page and "\\H" not in page
    data = client.get("/api/position?a=2S-P-2N-P-3C&deals=0").get_json()
    assert data["seats"]["N"]["deals_text"] == "7.0 × 10²⁵" and "7.0 × 10²⁵" in data["probabilities_short"]


def test_vulnerability_travels_in_the_address(client):
    from canary_infer.ui.web import create_app

    data = client.get("/api/position?a=1S&v=NS&deals=0").get_json()
    assert data["vul"] == "NS" and "v=NS" in data["url"]
    page = client.get("/?a=1S&v=NS").get_data(as_text=True)
    assert "(vulnerable: NS)" in page and 'name="v" value="NS"' in page and "&amp;v=NS" in page
    data = client.get("/api/position?a=1S&v=sideways&deals=0").get_json()
    assert data["vul"] is None and "vulnerability 'sideways'" in data["errors"][0]
    explorer = create_app(deals=0).config["explorer"]
    assert explorer.inferencer_for("EW").vul == "EW" and explorer.inferencer_for(None).vul is None


def test_what_do_you_bid(client, system):
    from canary_infer.bridge.auction import Auction
    from canary_infer.bridge.cards import Hand
    from canary_infer.tools.bidding import Bidder

    r = client.get("/bid?a=2S-P-2N-P")
    assert r.status_code == 302 and "seed=" in r.headers["Location"]  # a new exercise gets its address
    r = client.get("/bid")
    assert r.status_code == 302 and "/bid?a=" in r.headers["Location"]
    page = client.get("/bid?a=2S-P-2N-P&d=N&seed=5").get_data(as_text=True)
    assert page == client.get("/bid?a=2S-P-2N-P&d=N&seed=5").get_data(as_text=True)  # the same hand again
    assert 'id="bid-hand"' in page and 'id="verdict"' not in page and 'id="next-calls"' not in page
    hand = Hand.from_pbn("KJ9864..J75.AKT5")  # what seed 5 deals North (the exact sampler)
    want = Bidder(system).bid(hand, Auction.parse("2S P 2N P"))
    assert want.status == "ok" and want.calls == ["3D"]
    page = client.get("/bid?a=2S-P-2N-P&d=N&seed=5&pick=3D").get_data(as_text=True)
    assert 'data-agree="yes"' in page and "Yes: the system bids 3♦" in page and 'id="next-calls"' in page
    page = client.get("/bid?a=2S-P-2N-P&d=N&seed=5&pick=3C").get_data(as_text=True)
    assert 'data-agree="no"' in page and "not 3♣" in page and "Your 3" in page and "short Ds with 3+ Hs" in page
    page = client.get("/bid?a=1S-P-2N-P&d=N&seed=1&pick=3S").get_data(as_text=True)
    assert "several calls fit this hand" in page
    page = client.get("/bid?a=2S-P-2N-P-3C-P-P-P&seed=1").get_data(as_text=True)
    assert "the auction is over" in page


def test_what_does_partner_hold(client):
    from canary_infer.ui.web import create_app, score_partner

    assert client.get("/partner").status_code == 302
    page = client.get("/partner?a=2S-P-2N-P-3C-P").get_data(as_text=True)
    assert "You are South: what does partner (North) hold?" in page and 'id="result"' not in page
    page = client.get("/partner?a=2S-P-2N-P-3C-P&lo=11&hi=16&suit=S").get_data(as_text=True)
    assert 'id="result" data-score="100"' in page and "100% of partner" in page
    ex = create_app(deals=0).config["explorer"].partner_exercise("2S-P-2N-P-3C-P", "N")
    assert ex["partner"] == "N" and ex["longest"]["S"] == pytest.approx(1) and ex["longest"]["H"] == 0
    wide = score_partner(ex, 0, 37, "C")
    assert wide["inside"] == pytest.approx(1) and wide["hcp_points"] < 50 and wide["suit_points"] < 50
    page = client.get("/partner?a=2S-P-2N-P-3C-P&lo=20&hi=22&suit=H").get_data(as_text=True)
    assert 'data-score="0"' in page


def test_a_position_is_computed_once_however_many_ask(system):
    """Eight threads ask for the same new position at once: one computes it, the others wait
    for it and take it; a position computed is served again without the lock."""
    import threading

    from canary_infer.ui.web import create_app

    app = create_app(system, deals=0)
    explorer = app.config["explorer"]
    pages, barrier = [], threading.Barrier(8)

    def ask():
        c = app.test_client()
        barrier.wait()
        pages.append(c.get("/?a=1H-X-P-1S").get_data(as_text=True))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert len(pages) == 8 and len(set(pages)) == 1 and explorer.computed == 1
    with explorer.lock:  # a cached position does not wait for a computation under way
        assert app.test_client().get("/?a=1H-X-P-1S").status_code == 200
    assert explorer.computed == 1


def test_a_first_visit_draws_few_deals_and_the_page_asks_for_the_rest(system):
    """An estimated position's first visit draws FIRST_SAMPLES deals, says so, and names the
    address that draws them all (data-later); the whole page from there has SAMPLES, as the
    API does, and every visit after it too.  An exact position draws nothing: one computation,
    no later address."""
    import re

    from canary_infer.ui.web import FIRST_SAMPLES, SAMPLES, create_app

    app = create_app(system, deals=0)
    explorer, c = app.config["explorer"], app.test_client()
    first = c.get("/?a=1H-X-P-1S").get_data(as_text=True)
    assert FIRST_SAMPLES < SAMPLES and explorer.computed == 1
    assert f"estimated from {FIRST_SAMPLES:,} deals drawn" in first and f"{SAMPLES:,} deals" not in first
    assert f'data-samples="{FIRST_SAMPLES}"' in first and "% ±" in first
    (later,) = re.findall(r'data-later="([^"]+)"', first)
    assert later.replace("&amp;", "&") == "/?a=1H-X-P-1S&full=1" and "<script>" in first
    full = c.get(later.replace("&amp;", "&")).get_data(as_text=True)
    assert explorer.computed == 2 and f"estimated from {SAMPLES:,} deals drawn" in full
    assert f'data-samples="{SAMPLES}"' in full and "data-later" not in full and "<script>" not in full
    api = c.get("/api/position?a=1H-X-P-1S").get_json()  # the same position: not computed again
    assert explorer.computed == 2 and [p["samples"] for p in api["seats"].values()] == [SAMPLES] * 4
    assert c.get("/?a=1H-X-P-1S").get_data(as_text=True) == full and explorer.computed == 2
    exact = c.get("/?a=2S-P-2N-P-3C").get_data(as_text=True)
    assert explorer.computed == 3 and "data-later" not in exact and 'data-scope="exact"' in exact
    assert c.get("/?a=2S-P-2N-P-3C&full=1").get_data(as_text=True) == exact and explorer.computed == 3


def infer_text(auction):
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert main(["infer", auction]) == 0
    return buf.getvalue()


def test_serve_runs_under_waitress_and_answers(tmp_path):
    """`serve --port 0` listens on a free port of 127.0.0.1 through waitress, says which, and
    answers a page; stopped by its process id."""
    import os
    import re
    import subprocess
    import sys
    import time
    import urllib.request
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ, PYTHONPATH=str(root) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "canary_infer", "serve", "--port", "0", "--no-warm", "--deals", "0"],
                            cwd=root, env=env, stderr=subprocess.PIPE, text=True)
    try:
        said = []
        for _ in range(50):  # the line naming the port (after any warning)
            said.append(proc.stderr.readline())
            m = re.search(r"http://127\.0\.0\.1:(\d+)/", said[-1])
            if m or not said[-1]:
                break
        assert m and m.group(1) != "0", said
        url = f"http://127.0.0.1:{m.group(1)}/?a=2S-P-2N-P-3C"
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(url, timeout=60) as r:
                    assert r.status == 200 and r.headers["Server"] == "waitress"
                    assert 'id="seat-N"' in r.read().decode()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
    finally:
        proc.terminate()
        proc.wait(20)


def test_the_next_calls_read_the_serious_3n_where_inference_does(client):
    """The serious 3NT is 'after an at least 8 card major fit is guaranteed by the bidding' [B64]:
    1D-1H-2H guarantees 5+3 hearts [A294, A298] and lists it; 1S-(X)-2N, a raise on three cards
    opposite a possible four-card 1S [A32, A857-858], does not."""
    def three_nt(a):
        data = client.get(f"/api/position?a={a}&deals=0").get_json()
        return next((c for c in data["next"]["system"] if c["call"] == "3N"), None)

    assert three_nt("1D-P-1H-P-2H-P")["meaning"].startswith("serious slam try")
    off = three_nt("1S-X-2N-P")
    assert off is None or "serious" not in off["meaning"]
