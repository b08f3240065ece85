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
    page = client.get("/?a=1H-X-P-1S").get_data(as_text=True)
    assert "estimated from 2,000 deals drawn" in page and "% ±" in page and 'data-scope="estimated"' in page
    page = client.get("/?a=2S-P-2N-P-3C").get_data(as_text=True)
    assert "% ±" not in page and "exact, over 69,703,634,629,943,622,648,547,200 deals" in page


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
