"""The explorer's data and pages without a browser (Flask's test client)."""

import pytest

from canary_infer.cli import main

flask = pytest.importorskip("flask")


@pytest.fixture(scope="module")
def client(system):
    from canary_infer.web import create_app

    return create_app(system, deals=1).test_client()


def test_api_matches_inference(client, inferencer):
    from canary_infer.auction import Auction

    data = client.get("/api/position?a=2S-P-2N-P-3C&d=N&deals=0").get_json()
    inf = inferencer.infer(Auction.parse("2S P 2N P 3C"), joint=True)  # the page shows the deal's ranges
    assert data["auction"] == ["2S", "P", "2N", "P", "3C"] and data["turn"] == "E" and data["errors"] == []
    for seat in "NESW":
        got, want = data["seats"][seat], inf.hands[seat]
        assert got["hcp"] == list(want.hcp) and sorted(p["pattern"] for p in got["patterns"]) == sorted(want.patterns)
        assert sum(p["p"] for p in got["patterns"]) == pytest.approx(1)
    assert [c["defined"] for c in data["calls"]] == [True, False, True, False, True]
    assert data["next"]["side"] == "defence" and data["next"]["system"] == []
    legal = {c["call"] for row in data["next"]["box"] for c in row if c["legal"]}
    assert min(legal, key=lambda c: (int(c[0]), "CDHSN".index(c[1]))) == "3D"


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
