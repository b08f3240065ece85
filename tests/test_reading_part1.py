"""Reading of a random sample of the inventory (issue 34, seed 20261207, part 1): defects
found, each test's expectation taken from the notes' words.  [A123] is line 123 of
canary-club-system.txt.  See docs/reading-60-part1.md.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(*args: str) -> dict:
    env = dict(os.environ)
    env.pop("CANARY_SYSTEM", None)
    out = subprocess.run([sys.executable, "-m", "canary_infer", *args, "--json"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode in (0, 1), out.stderr
    return json.loads(out.stdout)


def cards(pbn: str) -> int:
    return sum(len(s) for s in pbn.split("."))


def infer(auction: str, hand: str | None = None, seat: str = "N") -> dict:
    assert hand is None or cards(hand) == 13, hand
    return _run("infer", auction, *(["--hand", f"{seat}:{hand}"] if hand else []))


def fits(auction: str, hand: str, seat: str) -> bool:
    h = infer(auction, hand, seat)["hands"][seat]
    return h["consistent"] and not h["breaks"]


def last_call(auction: str) -> dict:
    return infer(auction)["calls"][-1]


def test_1d_1n_2s_2n_3d_is_five_plus_in_both_suits():
    # [A729] 1D-1N-2S-2N-3D "shows 5+S & 5+D": six-six and seven-five hands are in.
    assert fits("1D P 1N P 2S P 2N P 3D", "AKJ432..KQ5432.2", "N")
    assert fits("1D P 1N P 2S P 2N P 3D", "AKJ8432..KQ543.2", "N")
    assert fits("1D P 1N P 2S P 2N P 3D", "AKJ43.2.KQ543.32", "N")
