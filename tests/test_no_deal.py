"""When no deal fits (a seat's calls contradict each other, or my hand breaks my own calls), every
answer says so: no seat holds anything, no deal is counted or dealt, and the page shows why.

The hands come from the notes' own ranges: 1S is an opening of 11-16 HCP [A32] and 1S-2S a
limit raise read as at most 10 HCP (the file's marked interpretation of [A144, A290]); 1N is
14-16 [A34], so the other three seats hold at most 26 HCP, and a 35-count of South's leaves 5.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from canary_infer import Hand, Inferencer

ROOT = Path(__file__).resolve().parent.parent
TWELVE = "KQ2.A87.QJ54.962"  # 12 HCP: too many for South's 2S
BIG = "AKQJT.AKQ.AKQ.AK"  # 35 HCP: North has 5 left, no 1N


def _cli(*args):
    r = subprocess.run([sys.executable, "-m", "canary_infer", *args], capture_output=True, text=True, cwd=ROOT,
                       env={**os.environ, "CANARY_INFER_CACHE": "off"}, timeout=120)
    assert "Traceback" not in r.stderr
    return r


def test_the_hands_are_what_the_notes_rule_out():
    assert Hand.from_pbn(TWELVE).hcp == 12 and Hand.from_pbn(BIG).hcp == 35


def test_my_hand_that_breaks_my_call_leaves_no_deal_and_counts_none():
    r = _cli("infer", "1S P 2S", "--hand", f"S:{TWELVE}", "--prob", "--ask", "N: H >= 4", "--json")
    out = json.loads(r.stdout)
    assert out["deals"] == 0
    assert out["hands"]["S"]["known"] and out["hands"]["S"]["breaks"] == [2]
    for seat in "NEW":
        h = out["hands"][seat]
        assert h["consistent"] is False and h["no_deal_because"] == ["S"]
        assert h["hcp"] is None and h["patterns"] == [] and "probabilities" not in h
    assert out["asks"][0]["count"] == 0 and out["asks"][0]["of"] == 0


def test_a_seat_that_can_hold_nothing_leaves_every_other_seat_without_a_deal():
    inf = Inferencer().infer("1N P 2C", known=f"S:{BIG}", joint=True)
    assert not inf.hands["N"].consistent and inf.hands["N"].conflict == [0]
    assert inf.deals == 0
    for seat in "EW":
        assert not inf.hands[seat].consistent and inf.hands[seat].no_deal_because == ["N"]
    assert inf.hands["S"].known and inf.hands["S"].consistent  # my hand is still my hand


@pytest.mark.parametrize("auction, hand", [("1S P 2S", f"S:{TWELVE}"), ("1S", "N:2.5432.5432.5432"),
                                           ("2S P 2N P 3D", "N:KQ876.AK2.8.8765")])
def test_deal_draws_nothing_and_exits_1_when_my_hand_breaks_my_calls(auction, hand):
    r = _cli("deal", auction, "--hand", hand, "-n", "3")
    assert r.returncode == 1
    assert "no deal fits" in r.stderr
    assert "[Deal" not in r.stdout and r.stdout.count("\n") < 5


def test_the_page_says_which_call_my_hand_breaks_instead_of_failing():
    from canary_infer.ui.web import create_app

    client = create_app(deals=1).test_client()
    page = client.get(f"/?a=1S-P-2S&d=N&hand=S:{TWELVE}")
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert f"Your hand {TWELVE} does not fit your calls: it breaks 2S (call 3)" in text
    assert text.count("No deal: your hand cannot have made South") == 3
    assert client.get("/?a=1S&hand=N:2.5432.5432.5432").status_code == 200
    assert client.get("/api/position?a=1S&hand=N:2.5432.5432.5432").get_json()["deals"] == []
