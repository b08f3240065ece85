"""check-system's report and its typical witness hands: the region's most frequent pattern and
its median HCP count, each checked against an independent count (holdings of a suit by
combinatorics, suits convolved)."""

from __future__ import annotations

import math
import re
from collections import Counter
from functools import cache
from itertools import combinations

import pytest

from canary_infer.bridge.cards import Hand
from canary_infer.engine import witness
from canary_infer.engine.tables import solve
from canary_infer.engine.witness import median_hcp, most_frequent_pattern, typical_hand
from canary_infer.language.expr import evaluate, parse
from canary_infer.system.model import load_system
from canary_infer.tools.verify import Verifier

HONOURS = {"A": 4, "K": 3, "Q": 2, "J": 1}
SPOTS = 9  # T..2


@cache
def suit_hcp(n: int) -> Counter:
    """HCP -> number of n-card holdings of one suit: a set of honours, the rest spot cards."""
    out: Counter = Counter()
    for k in range(0, min(4, n) + 1):
        for hs in combinations(HONOURS, k):
            out[sum(HONOURS[h] for h in hs)] += math.comb(SPOTS, n - k)
    return out


def pattern_hcp(pattern) -> Counter:
    """HCP -> number of hands of a pattern (the four suits convolved)."""
    acc: Counter = Counter({0: 1})
    for n in pattern:
        nxt: Counter = Counter()
        for h, k in acc.items():
            for h2, k2 in suit_hcp(n).items():
                nxt[h + h2] += k * k2
        acc = nxt
    return acc


def all_patterns():
    return [(s, h, d, 13 - s - h - d) for s in range(14) for h in range(14 - s) for d in range(14 - s - h)]


def independent(lengths_ok, hcp_ok):
    """The most frequent pattern of a region (ties: longest spades first, as the witness breaks
    them) and the median HCP of its hands of that pattern."""
    counts = {}
    for p in all_patterns():
        if lengths_ok(p):
            c = sum(k for h, k in pattern_hcp(p).items() if hcp_ok(h))
            if c:
                counts[p] = c
    best = min(counts, key=lambda p: (-counts[p], tuple(-x for x in p)))
    dist = {h: k for h, k in pattern_hcp(best).items() if hcp_ok(h)}
    total, run = sum(dist.values()), 0
    for h in sorted(dist):
        run += dist[h]
        if run >= total / 2:
            return best, h
    raise AssertionError


REGIONS = [  # formula, lengths, hcp
    ("S >= 5", lambda p: p[0] >= 5, lambda h: True),
    ("hcp in 11..16 and S >= 5", lambda p: p[0] >= 5, lambda h: 11 <= h <= 16),
    ("hcp >= 6 and H >= 4 and C <= 1", lambda p: p[1] >= 4 and p[3] <= 1, lambda h: h >= 6),
    ("hcp in 11..16 and S >= 5 and C <= 1 and H >= 4", lambda p: p[0] >= 5 and p[3] <= 1 and p[1] >= 4,
     lambda h: 11 <= h <= 16),
    ("hcp >= 17", lambda p: True, lambda h: h >= 17),
    ("D >= 6 and hcp <= 9", lambda p: p[2] >= 6, lambda h: h <= 9),
]


@pytest.mark.parametrize("text,lengths_ok,hcp_ok", REGIONS, ids=[r[0] for r in REGIONS])
def test_the_pattern_and_median_are_those_of_an_independent_count(text, lengths_ok, hcp_ok):
    f = parse(text)
    res = solve(f)
    want_pattern, want_hcp = independent(lengths_ok, hcp_ok)
    assert most_frequent_pattern(res) == want_pattern
    assert median_hcp(f, want_pattern) == want_hcp
    hand = typical_hand(f, res, time_limit=20)
    assert evaluate(f, hand)
    assert tuple(hand.length(s) for s in "SHDC") == want_pattern
    assert hand.hcp == want_hcp


@pytest.mark.parametrize("text", [r[0] for r in REGIONS] + ["S >= 5", "hcp in 11..16 and (S >= 5 or H >= 5)"])
def test_the_median_from_a_tables_counts_is_that_of_the_binary_search(text, monkeypatch):
    f = parse(text)
    pattern = most_frequent_pattern(solve(f))
    from_table = median_hcp(f, pattern)
    none = median_hcp(parse("S >= 5"), (0, 4, 4, 5))  # a pattern with no hand of the formula
    monkeypatch.setattr(witness, "build_seat", lambda *a, **k: None)  # as for a formula no table holds
    assert (median_hcp(f, pattern), median_hcp(parse("S >= 5"), (0, 4, 4, 5))) == (from_table, none)
    assert none is None


def test_a_region_with_no_hcp_limit_gets_a_middle_hand():
    f = parse("S >= 5")
    hand = typical_hand(f)
    assert 8 <= hand.hcp <= 14 and hand.length("S") >= 5


def test_no_hand_no_witness():
    assert typical_hand(parse("S >= 7 and H >= 7")) is None


@pytest.fixture(scope="module")
def system():
    return load_system()


def test_every_opening_gets_a_typical_hand_that_satisfies_it(system):
    root = system.root("opening")
    for chair in (1, 3):
        for call, node in root.children.items():
            f = node.constraint({"chair": chair})
            hand = typical_hand(f, time_limit=20)
            assert hand is not None and evaluate(f, hand), (call, chair, hand)
            lo, hi = solve(f).hcp
            assert lo <= hand.hcp <= hi


SYNTHETIC = """\
tree opening
  1S  "11-16, five or more spades"  [A2]
      = hcp in 11..16 and S >= 5
    2N  "relay"  [A3]
      3C  "short clubs"  [A4]
          = C <= 1
      3D  "four or more hearts"  [A8]
          = H >= 4
  2S  "weak"  [A5]
      = S >= 6
    2N  "strong ask"  [A6]
      3C  "any"  [A7]
      3D  "a minimum"  [A9]
          = hcp <= 9
"""


def test_the_verifier_witnesses_are_typical(tmp_path):
    p = tmp_path / "s.canary"
    p.write_text(SYNTHETIC, encoding="utf-8")
    from canary_infer.deal.infer import Inferencer

    v = Verifier(Inferencer(load_system([p])))
    root = v.system.root("opening")
    _, overlaps, _, _ = v.check_point(root.children["1S"].children["2N"])
    o, = overlaps
    assert set(o.calls) == {"3C", "3D"}
    want_pattern, want_hcp = independent(lambda p: p[0] >= 5 and p[3] <= 1 and p[1] >= 4,
                                         lambda h: 11 <= h <= 16)
    hand = Hand.from_pbn(o.hand)
    assert hand.pattern == "-".join(map(str, want_pattern)) and hand.hcp == want_hcp
    # a call that states nothing about the hand: the overlap's region is every 2S opener with a
    # minimum; its witness is no longer the first hand a solver meets but a middle one
    _, overlaps, _, _ = v.check_point(root.children["2S"].children["2N"])
    o, = overlaps
    want_pattern, want_hcp = independent(lambda p: p[0] >= 6, lambda h: h <= 9)
    hand = Hand.from_pbn(o.hand)
    assert hand.pattern == "-".join(map(str, want_pattern)) and hand.hcp == want_hcp
    assert evaluate(parse("S >= 6 and hcp <= 9"), hand)


# --------------------------------------------------------------------------- check-system's report
def test_the_default_report_lists_only_overlaps_where_both_calls_state_something(tmp_path, capsys):
    import json

    from canary_infer.ui.cli import main

    (tmp_path / "s.canary").write_text(SYNTHETIC, encoding="utf-8")
    assert main(["check-system", "--system", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    head = text.splitlines()[0]
    assert "3 overlaps between calls that both state something, 1 more with a call that states nothing" in head
    # one line per family (the same two lines of the files): 1S / 2S in both chairs is one family of 2
    listed = [line.split("  [")[0].strip() for line in text.splitlines() if re.match(r"\s+F\d+ ", line)]
    assert sorted(listed) == sorted(["F1 2 x overlap 1S / 2S", "F2 gap none of 3C 3D", "F3 overlap 3C / 3D"])
    assert text.index("an encoding defect:") < text.index("Encoding defects")  # the summary first
    assert "e.g. at 1S P 2N: " in text and "--all lists them" in text
    assert main(["check-system", "--all", "--system", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    assert "e.g. at 2S P 2N: " in text
    assert main(["check-system", "--json", "--system", str(tmp_path)]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert list(obj)[:2] == ["summary", "families"] and obj["summary"]["an_encoding_defect"]["families"] == 4
    marks = {(o["auction"], tuple(o["calls"])): o["unconstrained"] for o in obj["overlaps"]}
    assert marks == {("", ("1S", "2S")): False, ("P P", ("1S", "2S")): False, ("1S P 2N", ("3C", "3D")): False,
                     ("2S P 2N", ("3C", "3D")): True}
    assert {o["family"] for o in obj["overlaps"][:2]} == {"F1"}
    fams = {f["id"]: f for f in obj["families"]}
    assert fams["F1"]["count"] == 2 and fams["F1"]["rule"].endswith(":2 / " + str(tmp_path / "s.canary") + ":9")
    for f in obj["families"]:  # every witness really fits both calls (and what was bid before)
        if f["kind"] != "overlap" or f["witness"]["hand"] is None:
            continue
        hand = Hand.from_pbn(f["witness"]["hand"])
        assert hand.length("S") >= 5


def _report(system, workers: int) -> str:
    import json

    from canary_infer.deal.infer import Inferencer

    v = Verifier(Inferencer(system))
    r = v.check_system(workers=workers)
    v.fill_patterns(r["gaps"] + r["overlaps"] + r["settled"])
    return json.dumps({"families": [f.as_json() for f in r["families"]], "nodes": r["nodes"],
                       **{k: [x.as_json() for x in r[k]] for k in ("gaps", "overlaps", "settled")}})


def test_points_and_witnesses_shared_among_processes_give_the_same_report(small_system_dir, monkeypatch):
    from canary_infer.tools import verify

    files = sorted(small_system_dir.glob("*.canary"))
    alone = _report(load_system(files), workers=1)
    runs = []
    real = verify._forked
    monkeypatch.setattr(verify, "_forked", lambda *a, **k: runs.append(a[1].__name__) or real(*a, **k))
    monkeypatch.setattr(verify, "PARALLEL_POINTS", 10)  # the small system: in processes all the same
    monkeypatch.setattr(verify, "PARALLEL_WITNESSES", 2)
    shared = _report(load_system(files), workers=2)
    assert runs == ["_check_run", "_witness_of"]
    assert shared == alone and '"hand": "' in alone


def test_the_defence_tree_is_checked_too(tmp_path):
    """Our calls over their openings are points of the system like any other: an overlap there
    (two calls both fitting five hearts) is reported, with the auction that reaches it."""
    from canary_infer.deal.infer import Inferencer

    p = tmp_path / "a.canary"
    p.write_text('tree opening\n  1C  "strong"  [A1]\n      = hcp >= 16\n'
                 'tree defence\n  (1D)  "they open 1D"  [A2]\n'
                 '    1H  "hearts"  [A3]\n        = H >= 4\n'
                 '    2H  "long hearts"  [A4]\n        = H >= 5\n')
    r = Verifier(Inferencer(load_system([p]))).check_system(workers=1)
    assert [(f.auction, sorted(f.calls)) for f in r["overlaps"]] == [("1D", ["1H", "2H"])]
