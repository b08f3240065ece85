"""Proofs about the system: ``verify-relays`` (relay trees: leaves, shares, gaps, overlaps with
witness hands) and ``check-system`` (gaps and overlaps at every point), through the API and
the command line.

``check-system`` on the full system takes tens of seconds: it runs once, in a module fixture,
and several tests read its one answer; targeted tests use ``Verifier.check_point``.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import math
import random
from collections import Counter
from functools import cache

import pytest

from canary_infer.bridge.auction import Auction
from canary_infer.bridge.cards import RANKS, SUITS, Hand
from canary_infer.deal.infer import Inferencer
from canary_infer.engine.tables import solve
from canary_infer.language.expr import TRUE, conj, evaluate, parse
from canary_infer.language.features import BIT, FEATURES
from canary_infer.system.model import load_system
from canary_infer.tools.bidding import Bidder, position
from canary_infer.tools.verify import Verifier
from canary_infer.ui.cli import main

PATTERN_KEYS = {"auction", "patterns", "resolved", "share"}
FINDING_KEYS = {"auction", "calls", "hand"}


def pats(*texts) -> set[tuple[int, ...]]:
    return {tuple(int(x) for x in t.split("-")) for t in texts}


def as_pats(strings) -> set[tuple[int, ...]]:
    return {tuple(int(x) for x in s.split("-")) for s in strings}


# --------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def verifier(inferencer):
    return Verifier(inferencer)


@pytest.fixture(scope="module")
def trees(verifier):
    return {t.start: t for t in verifier.relay_trees()}


@pytest.fixture
def run(inferencer, monkeypatch, capsys):
    """``canary-infer ARGS`` in-process (on the built-in system, with the session's inferencer);
    -> (status, stdout, stderr)."""

    def _run(*argv):
        if "--system" not in argv:  # the built-in system: reuse the session's inferencer and its cache
            monkeypatch.setattr("canary_infer.deal.infer.Inferencer", lambda *a, **k: inferencer)
        status = main(list(argv))
        out, err = capsys.readouterr()
        return status, out, err
    return _run


@pytest.fixture(scope="module")
def checked(small_system_dir):
    """``canary-infer check-system --json`` on the openings and the 2H/2S relays (the whole
    system's 17,000 calls take far longer than a test may): run once for the module."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(["check-system", "--json", "--every-witness", "--system", str(small_system_dir)])
    assert status == 0
    text = out.getvalue()
    assert text.count("\n") == 1
    return json.loads(text)


def opener_total(inferencer, start: str) -> float:
    """The number of hands with which the describer reaches the start of a relay tree, counted
    from the constraints the inferencer reads (not the verifier's own reach)."""
    a = Auction.parse(start + " P")
    calls = inferencer.read(a)
    return solve(conj(inferencer.seat_formulas(calls, a.turn))).hands


def reached_at(system, auction: str) -> Auction:
    """The auction at which the player who chooses among a finding's calls is to call (the
    verifier leaves out the opponents' pass after our last call)."""
    a = Auction.parse(auction)
    return a.append("P") if position(system, a).side == "defence" else a


def assert_reaches(bidder: Bidder, hand: Hand, a: Auction) -> None:
    """The hand really makes every earlier call of its seat in the auction (by the bidder)."""
    seat = a.turn
    for i, call in enumerate(a.calls):
        if a.seat_of(i) == seat:
            r = bidder.bid(hand, Auction(a.calls[:i], a.dealer))
            assert str(call) in r.calls, (hand.pbn(), str(a), i, r.status, r.calls)


# --------------------------------------------------------------------------- the 2S and 2H trees
SECOND_RELAY = {  # the notes' schedule after a 5431-type answer [A1170-1216, A1238-1278]
    "3C P 3D P 3H": "5-3-1-4", "3C P 3D P 3S": "6-3-0-4", "3C P 3D P 3N": "5-3-0-5", "3C P 3D P 4C": "5-4-0-4",
    "3D P 3H P 3S": "5-1-3-4", "3D P 3H P 3N": "6-0-3-4", "3D P 3H P 4C": "5-0-3-5", "3D P 3H P 4D": "5-0-4-4",
}
FIRST_ANSWERS = {  # 2S-2N: 3H 6S4C 2-1, 3S 5S4C22, 3N 5S5C 2-1, 4C 6S5C [A1155-1168]
    "3H": {"6-2-1-4", "6-1-2-4"}, "3S": {"5-2-2-4"}, "3N": {"5-2-1-5", "5-1-2-5"},
    "4C": {"6-2-0-5", "6-1-1-5", "6-0-2-5"},
}


def expected_2s_leaves() -> dict[str, set[str]]:
    out = {f"2S P 2N P {k}": {v} for k, v in SECOND_RELAY.items()}
    out.update({f"2S P 2N P {k}": v for k, v in FIRST_ANSWERS.items()})
    return out


def expected_2h_leaves() -> dict[str, set[str]]:
    """2H-2S [A1327-1460]: 2N short spades with 3+ diamonds, 3C short diamonds with 3+ spades (each
    followed by the second relay), 3D 6H4C 2-1, 3H 5H4C22, 3N 5H5C 2-1, 4C 6H5C."""
    return {
        "2H P 2S P 2N P 3C P 3D": {"1-5-3-4"}, "2H P 2S P 2N P 3C P 3H": {"0-6-3-4"},
        "2H P 2S P 2N P 3C P 3S": {"0-5-3-5"}, "2H P 2S P 2N P 3C P 3N": {"0-5-4-4"},
        "2H P 2S P 3C P 3D P 3H": {"3-5-1-4"}, "2H P 2S P 3C P 3D P 3S": {"3-6-0-4"},
        "2H P 2S P 3C P 3D P 3N": {"3-5-0-5"}, "2H P 2S P 3C P 3D P 4C": {"4-5-0-4"},
        "2H P 2S P 3D": {"1-6-2-4", "2-6-1-4"}, "2H P 2S P 3H": {"2-5-2-4"},
        "2H P 2S P 3N": {"1-5-2-5", "2-5-1-5"}, "2H P 2S P 4C": {"1-6-1-5", "0-6-2-5", "2-6-0-5"},
    }


def test_the_2s_tree_resolves_the_5431_types_and_leaves_6_2_1_4_against_6_1_2_4(trees):
    t = trees["2S P 2N"]
    leaves = {x.auction: x for x in t.leaves}
    three_h = leaves["2S P 2N P 3H"]
    assert set(three_h.patterns) == {"6-2-1-4", "6-1-2-4"} and three_h.resolved is False
    second = leaves["2S P 2N P 3C P 3D P 3H"]
    assert second.patterns == ["5-3-1-4"] and second.resolved is True
    assert t.gaps == [] and t.overlaps == []


@pytest.mark.parametrize("start,expected", [("2S P 2N", expected_2s_leaves), ("2H P 2S", expected_2h_leaves),
                                            ("2S X 2N", expected_2s_leaves)])
def test_every_leaf_of_the_two_major_trees_is_what_the_notes_say(trees, start, expected):
    want = expected()
    if start == "2S X 2N":  # the relay over a double is answered as without it [A1575]
        want = {k.replace("2S P 2N", "2S X 2N", 1): v for k, v in want.items()}
    t = trees[start]
    got = {x.auction: set(x.patterns) for x in t.leaves}
    assert got == want
    for x in t.leaves:
        assert x.resolved == (len(x.patterns) == 1)
        assert len(set(x.patterns)) == len(x.patterns)
    assert t.nodes == 3  # the first relay and the two second relays
    assert t.gaps == [] and t.overlaps == []


def test_every_tree_is_found_and_none_has_gaps_or_overlaps(trees, system):
    # every relay of the files that is not itself inside a relay tree starts one
    two_major = {"2S P 2N", "2S X 2N", "2H P 2S", "2H X 2S", "2H 2S 2N"}
    assert two_major <= set(trees)
    assert all(t.split()[0] in ("1D", "1H", "1S", "1C", "1N", "2C", "2D", "2N", "3C") for t in set(trees) - two_major)
    for t in trees.values():
        if t.start not in two_major:
            continue  # the other openings' relay trees are checked with their sections
        if t.start == "2H 2S 2N":
            continue  # the asking 2N over their 2S leaves hands without a call [A1564]: see below
        assert t.leaves and t.gaps == [] and t.overlaps == [], t.start


def test_the_asking_2n_over_their_2s_leaves_the_5440_and_6_5_hands_without_a_call(trees):
    t = trees["2H 2S 2N"]
    gap, = t.gaps
    assert set(gap.patterns) == {"0-5-4-4", "4-5-0-4", "1-6-1-5", "0-6-2-5", "2-6-0-5"}
    assert t.overlaps == []


def test_leaf_shares_add_up_and_are_hand_counts_over_the_hands_reaching_the_start(trees, inferencer):
    for t in trees.values():
        if t.gaps or t.overlaps:
            continue  # shares add up only where the answers partition the hands (2C's relays overlap [A921-947])
        total = opener_total(inferencer, t.start)
        assert total > 0
        assert sum(x.hands for x in t.leaves) == total, t.start  # no gap, no overlap: a partition
        assert math.isclose(sum(x.share for x in t.leaves), 1.0, rel_tol=1e-12), t.start
        for x in t.leaves:
            assert x.hands > 0
            assert math.isclose(x.share, x.hands / total, rel_tol=1e-12), x.auction
        # the leaves' patterns partition the describer's patterns
        every = [p for x in t.leaves for p in x.patterns]
        if t.start.split()[0] in ("2H", "2S"):  # 2D's size and strength steps split a pattern by HCP
            assert len(every) == len(set(every))
        a = Auction.parse(t.start + " P")
        whole = solve(conj(inferencer.seat_formulas(inferencer.read(a), a.turn)))
        assert as_pats(every) == set(whole.patterns)


# ---- an independent count of the 2S openings: holdings enumerated suit by suit
@cache
def suit_table(n: int) -> Counter:
    """(hcp, Roman losers in quarters) -> number of n-card holdings of one suit."""
    out: Counter = Counter()
    weights = {"A": 4, "K": 3, "Q": 2, "J": 1}
    for cards in itertools.combinations(RANKS, n):
        mask = 0
        for r in cards:
            mask |= BIT.get(r, 0)
        out[sum(weights.get(r, 0) for r in cards), FEATURES["losers"].per_suit(n, mask)] += 1
    return out


def count_two_spades(pattern) -> int:
    """Hands of a pattern with 11-16 HCP and 5-6 Roman losers (20-24 quarters)."""
    acc = Counter({(0, 0): 1})
    for n in pattern:
        nxt: Counter = Counter()
        for (h, q), k in acc.items():
            for (h2, q2), k2 in suit_table(n).items():
                if h + h2 <= 16 and q + q2 <= 24:
                    nxt[h + h2, q + q2] += k * k2
        acc = nxt
    return sum(k for (h, q), k in acc.items() if h >= 11 and q >= 20)


def two_spade_patterns():
    return [(s, h, 13 - s - h - c, c) for s in (5, 6) for c in (4, 5) for h in range(14 - s - c)]


def test_a_leaf_share_agrees_with_an_independent_count(trees):
    t = trees["2S P 2N"]
    total = sum(count_two_spades(p) for p in two_spade_patterns())
    assert total == sum(x.hands for x in t.leaves)
    three_h = next(x for x in t.leaves if x.auction == "2S P 2N P 3H")
    at_leaf = count_two_spades((6, 2, 1, 4)) + count_two_spades((6, 1, 2, 4))
    assert three_h.hands == at_leaf
    assert math.isclose(three_h.share, at_leaf / total, rel_tol=1e-12)
    for x in t.leaves:
        assert x.hands == sum(count_two_spades(p) for p in as_pats(x.patterns)), x.auction


def test_shares_agree_with_the_bidder_on_random_two_spade_openers(trees, system):
    """Monte-Carlo: random hands with 5-6 spades and 4-5 clubs (uniform over those hands), kept
    when the bidder may open 2S; the bidder's answer to the relay, tallied, against the shares."""
    rng = random.Random(20240607)
    patterns = two_spade_patterns()
    weights = [math.prod(math.comb(13, n) for n in p) for p in patterns]
    bidder = Bidder(system)
    relay = Auction.parse("2S P 2N P")
    tally: Counter = Counter()
    kept = 0
    while kept < 1000:
        p = rng.choices(patterns, weights)[0]
        hand = Hand.from_cards([(s, r) for s, n in zip(SUITS, p, strict=True) for r in rng.sample(RANKS, n)])
        if "2S" not in bidder.bid(hand, Auction.parse("")).calls:
            continue
        kept += 1
        r = bidder.bid(hand, relay)
        assert r.status == "ok", (hand.pbn(), r.status, r.calls)
        tally[r.calls[0]] += 1
    share: Counter = Counter()
    for x in trees["2S P 2N"].leaves:
        share[x.auction.split()[4]] += x.share
    assert set(tally) <= set(share)
    for call, s in share.items():
        est = tally[call] / kept
        assert abs(est - s) <= 4 * math.sqrt(s * (1 - s) / kept) + 0.01, (call, est, s)


# --------------------------------------------------------------------------- verify-relays on the command line
def test_cli_verify_relays_json_for_one_tree(run):
    status, out, err = run("verify-relays", "2S P 2N", "--json")
    assert status == 0, err
    obj = json.loads(out)
    assert [t["start"] for t in obj["trees"]] == ["2S P 2N"]
    t = obj["trees"][0]
    assert {"start", "leaves", "gaps", "overlaps"} <= set(t)
    assert t["gaps"] == [] and t["overlaps"] == []
    for leaf in t["leaves"]:
        assert PATTERN_KEYS <= set(leaf)
        assert isinstance(leaf["resolved"], bool) and 0 < leaf["share"] < 1
    leaves = {x["auction"]: x for x in t["leaves"]}
    assert set(leaves["2S P 2N P 3H"]["patterns"]) == {"6-2-1-4", "6-1-2-4"}
    assert leaves["2S P 2N P 3H"]["resolved"] is False
    assert leaves["2S P 2N P 3C P 3D P 3H"]["patterns"] == ["5-3-1-4"]
    assert leaves["2S P 2N P 3C P 3D P 3H"]["resolved"] is True
    assert math.isclose(sum(x["share"] for x in t["leaves"]), 1.0, abs_tol=1e-5)


def test_cli_verify_relays_reads_the_start_like_an_auction(run):
    a = json.loads(run("verify-relays", "2s-p-2nt", "--json")[1])
    b = json.loads(run("verify-relays", "2S P 2N", "--json")[1])
    assert a == b
    both = json.loads(run("verify-relays", "2S P 2N", "2H P 2S", "--json")[1])
    assert sorted(t["start"] for t in both["trees"]) == ["2H P 2S", "2S P 2N"]
    every = json.loads(run("verify-relays", "--json")[1])
    starts = sorted(t["start"] for t in every["trees"])
    assert {"2H 2S 2N", "2H P 2S", "2H X 2S", "2S P 2N", "2S X 2N", "2C P 2S", "2C P 2N", "2D P 2H", "2D P 2N",
            "1D P 1N", "1H P 1N", "1S P 1N"} <= set(starts)
    assert not {"3C P 3H", "3C P 3S"} & set(starts)  # 'Cue bidding begins' [A1623-1624]: not relays (issue 34)


@pytest.mark.parametrize("start", ["1S P 2N", "2S 3H"])
def test_cli_verify_relays_rejects_a_start_with_no_tree(run, start):
    status, out, err = run("verify-relays", start)
    assert status == 2 and out == ""
    assert "no relay tree starts at" in err
    status, out, err = run("verify-relays", start, "--json")  # with --json: an error object
    obj = json.loads(out)
    assert status == 2 and obj["trees"] == [] and "no relay tree starts at" in obj["error"]["message"]


def test_cli_verify_relays_rejects_an_illegal_start(run):
    status, out, err = run("verify-relays", "2S 1S")
    assert status == 2 and out == "" and err.startswith("error")


def test_cli_verify_relays_text(run):
    status, out, err = run("verify-relays", "2S P 2N")
    assert status == 0, err
    assert "2S P 2N" in out and "12 leaves" in out and "0 gaps" in out and "0 overlaps" in out
    line = next(x for x in out.splitlines() if "2S P 2N P 3H " in x)
    assert "UNRESOLVED" in line and "6-2-1-4" in line and "6-1-2-4" in line and "17.48%" in line
    line = next(x for x in out.splitlines() if "2S P 2N P 3C P 3D P 3H " in x)
    assert "resolved" in line and "UNRESOLVED" not in line and "5-3-1-4" in line


# --------------------------------------------------------------------------- a system with a gap and overlaps
SYNTHETIC = """\
define balanced = shape 4333 | 4432 | 5332

tree opening
  covers hcp >= 11
  P   "no opening"  [A1]
      = denies siblings
  1S  "11-16, five or more spades"  [A2]
      = hcp in 11..16 and S >= 5
    2N  "relay"  [A3]
      3C  "short clubs"  [A4]
          = C <= 1
        3D  "relay"  [A5]
          3H  "five spades, three or more hearts"  [A6]
              = S == 5 and H >= 3
          3S  "six or more spades"  [A7]
              = S >= 6
      3D  "four or more hearts"  [A8]
          = H >= 4
      3H  "six or more spades"  [A9]
          = S >= 6
  1N  "13-16 balanced"  [A10]
      = hcp in 13..16 and balanced
"""
OPENING = "hcp in 11..16 and S >= 5"
ANSWERS = {"3C": "C <= 1", "3D": "H >= 4", "3H": "S >= 6"}
SECOND = {"3H": "S == 5 and H >= 3", "3S": "S >= 6"}
BALANCED_PATTERNS = {"-".join(map(str, p)) for p in itertools.product(range(6), repeat=4)
                     if sum(p) == 13 and tuple(sorted(p, reverse=True)) in ((4, 3, 3, 3), (4, 4, 3, 2), (5, 3, 3, 2))}


@pytest.fixture(scope="module")
def synthetic_dir(tmp_path_factory):
    """A system folder holding the synthetic system (for ``--system``)."""
    d = tmp_path_factory.mktemp("synthetic")
    (d / "sys.canary").write_text(SYNTHETIC, encoding="utf-8")
    return d


@pytest.fixture(scope="module")
def synthetic(synthetic_dir):
    return load_system([synthetic_dir / "sys.canary"])


@pytest.fixture(scope="module")
def synthetic_tree(synthetic):
    reports = Verifier(Inferencer(synthetic)).relay_trees()
    assert [r.start for r in reports] == ["1S P 2N"]
    return reports[0]


def test_synthetic_gaps_come_with_hands_that_reach_the_relay_and_fit_no_answer(synthetic, synthetic_tree):
    bidder = Bidder(synthetic)
    gaps = {g.auction: g for g in synthetic_tree.gaps}
    assert set(gaps) == {"1S P 2N", "1S P 2N P 3C P 3D"}
    first, second = gaps["1S P 2N"], gaps["1S P 2N P 3C P 3D"]
    assert first.calls == ["3C", "3D", "3H"] and second.calls == ["3H", "3S"]
    for g, reach, answers in ((first, OPENING, ANSWERS),
                              (second, f"{OPENING} and C <= 1", SECOND)):
        hand = Hand.from_pbn(g.hand)
        assert evaluate(parse(reach), hand), g.hand
        assert not any(evaluate(parse(a), hand) for a in answers.values()), g.hand
        a = reached_at(synthetic, g.auction)
        assert_reaches(bidder, hand, a)
        r = bidder.bid(hand, a)
        assert r.status == "none" and r.calls == []
        # the exact number of such hands, and their patterns
        exact = solve(parse(reach + " and not (" + " or ".join(f"({x})" for x in answers.values()) + ")"))
        assert g.hands == exact.hands > 0
        assert as_pats(g.patterns) <= set(exact.patterns) and hand.pattern in g.patterns
    assert all(p[0] == 5 and p[1] <= 2 and p[3] <= 1 for p in as_pats(second.patterns)), second.patterns


def test_synthetic_overlaps_come_with_hands_that_fit_both_calls(synthetic, synthetic_tree):
    bidder = Bidder(synthetic)
    found = {frozenset(o.calls): o for o in synthetic_tree.overlaps}
    assert set(found) == {frozenset(x) for x in (("3C", "3D"), ("3C", "3H"), ("3D", "3H"))}
    for pair, o in found.items():
        assert o.auction == "1S P 2N"
        hand = Hand.from_pbn(o.hand)
        assert evaluate(parse(OPENING), hand)
        assert all(evaluate(parse(ANSWERS[c]), hand) for c in pair), (pair, o.hand)
        r = bidder.bid(hand, Auction.parse("1S P 2N P"))
        assert r.status == "several" and pair <= set(r.calls)
        exact = solve(parse(f"{OPENING} and " + " and ".join(ANSWERS[c] for c in sorted(pair))))
        assert o.hands == exact.hands > 0
        assert o.unconstrained is False


def test_synthetic_leaves_and_shares(synthetic_tree):
    leaves = {x.auction: x for x in synthetic_tree.leaves}
    assert set(leaves) == {"1S P 2N P 3C P 3D P 3H", "1S P 2N P 3C P 3D P 3S", "1S P 2N P 3D", "1S P 2N P 3H"}
    total = solve(parse(OPENING)).hands
    for auction, f in (("1S P 2N P 3D", ANSWERS["3D"]), ("1S P 2N P 3C P 3D P 3S", "C <= 1 and S >= 6")):
        n = solve(parse(f"{OPENING} and {f}")).hands
        assert leaves[auction].hands == n
        assert math.isclose(leaves[auction].share, n / total, rel_tol=1e-12)
    # with gaps and overlaps the shares no longer add up to 1
    assert not math.isclose(sum(x.share for x in synthetic_tree.leaves), 1.0, abs_tol=1e-3)


def test_cli_verify_relays_reports_the_synthetic_gap_and_overlaps(run, synthetic_dir):
    status, out, err = run("verify-relays", "--json", "--system", str(synthetic_dir))
    assert status == 0, err
    t, = json.loads(out)["trees"]
    assert t["start"] == "1S P 2N"
    assert len(t["gaps"]) == 2 and len(t["overlaps"]) == 3
    for f in t["gaps"] + t["overlaps"]:
        assert FINDING_KEYS <= set(f)
        Hand.from_pbn(f["hand"])
    status, out, err = run("verify-relays", "--system", str(synthetic_dir))
    assert status == 0 and "2 gaps, 3 overlaps" in out
    assert out.count("gap: ") == 2 and out.count("overlap: ") == 3


def test_cli_check_system_on_the_synthetic_system(run, synthetic_dir):
    status, out, err = run("check-system", "--json", "--every-witness", "--system", str(synthetic_dir))
    assert status == 0, err
    obj = json.loads(out)
    assert {"nodes", "gaps", "overlaps"} <= set(obj)
    # the openings in chairs 1 and 3, the relay, 1S (responder), 3C (responder), the second relay
    assert obj["nodes"] == 6
    opening_gaps = [g for g in obj["gaps"] if g["auction"] in ("", "P P")]
    assert {g["auction"] for g in opening_gaps} == {"", "P P"}
    for g in opening_gaps:  # 11+ HCP: neither 1S nor 1N, and not more than 16 either way
        hand = Hand.from_pbn(g["hand"])
        assert hand.hcp >= 11
        assert not evaluate(parse(OPENING), hand)
        assert not (13 <= hand.hcp <= 16 and hand.pattern in BALANCED_PATTERNS)
    overlap_pairs = {(o["auction"], frozenset(o["calls"])) for o in obj["overlaps"]}
    assert ("", frozenset({"1S", "1N"})) in overlap_pairs  # 5-3-3-2 with five spades
    assert {("1S P 2N", frozenset(x)) for x in (("3C", "3D"), ("3C", "3H"), ("3D", "3H"))} <= overlap_pairs
    assert {g["auction"] for g in obj["gaps"]} == {"", "P P", "1S P 2N", "1S P 2N P 3C P 3D"}
    status, out, err = run("check-system", "--system", str(synthetic_dir))
    assert status == 0 and "6 points checked: 4 gaps" in out


# --------------------------------------------------------------------------- targeted points of the full system
def node_at(system, *calls):
    n = system.root("opening")
    for c in calls:
        n = n.children[c]
    return n


def test_the_relay_after_2s_has_no_gap_and_no_overlap(verifier, system):
    gaps, overlaps, base, opts = verifier.check_point(node_at(system, "2S", "2N"), cover=TRUE)
    assert gaps == [] and overlaps == []
    assert [c.call for c, _ in opts] == ["3C", "3D", "3H", "3S", "3N", "4C"]
    assert base.hands == sum(count_two_spades(p) for p in two_spade_patterns())


def test_after_2s_2n_and_their_3d_the_notes_leave_hands_without_a_call_and_one_with_two(verifier, system):
    """[A1587-1600]: X 5-1-3-4, 3S 6-x-x-4, P 5-2-2-4 or 5-3-1-4, 3N 5-x-x-5, 3H 5-3-1-4; nothing
    for 5-4-0-4, 5-0-4-4 or the 6S5C hands, and 5-3-1-4 has two calls."""
    bidder = Bidder(system)
    gaps, overlaps, _, _ = verifier.check_point(node_at(system, "2S", "2N", "(3D)"), cover=TRUE)
    gap, = gaps
    assert gap.auction == "2S P 2N 3D"
    assert as_pats(gap.patterns) == pats("5-4-0-4", "5-0-4-4", "6-2-0-5", "6-1-1-5", "6-0-2-5")
    hand = Hand.from_pbn(gap.hand)
    assert evaluate(node_at(system, "2S").constraint({"chair": 1}), hand)
    assert bidder.bid(hand, Auction.parse("2S P 2N 3D")).status == "none"
    overlap, = overlaps
    assert set(overlap.calls) == {"P", "3H"} and overlap.patterns == ["5-3-1-4"]
    hand = Hand.from_pbn(overlap.hand)
    assert hand.pattern == "5-3-1-4"
    r = bidder.bid(hand, Auction.parse("2S P 2N 3D"))
    assert r.status == "several" and r.calls == ["P", "3H"]
    assert overlap.hands == count_two_spades((5, 3, 1, 4))


def test_after_2h_and_their_2s_the_asking_bid_leaves_the_5440_and_6_5_hands_without_a_call(verifier, system):
    """[A1563-1564]: 3C 5422, 3D/3S the fragment with 5431, 3H 64xx, 3N 55xx; nothing for 5440 or 6H5C."""
    gaps, overlaps, _, _ = verifier.check_point(node_at(system, "2H", "(2S)", "2N"), cover=TRUE)
    gap, = gaps
    assert gap.auction == "2H 2S 2N" and overlaps == []
    assert as_pats(gap.patterns) == pats("4-5-0-4", "0-5-4-4", "1-6-1-5", "0-6-2-5", "2-6-0-5")
    hand = Hand.from_pbn(gap.hand)
    assert evaluate(node_at(system, "2H").constraint({"chair": 1}), hand)
    assert Bidder(system).bid(hand, reached_at(system, gap.auction)).status == "none"


def test_after_2h_2n_the_two_spade_raises_overlap(verifier, system):
    """2H-2N (6+ spades): 3S and 4S both show '2 or 3 Ss' [A1503, A1509]."""
    _, overlaps, _, _ = verifier.check_point(node_at(system, "2H", "2N"))
    found = {frozenset(o.calls): o for o in overlaps}
    o = found[frozenset({"3S", "4S"})]
    assert o.auction == "2H P 2N" and o.unconstrained is False
    assert all(p[0] in (2, 3) for p in as_pats(o.patterns))
    hand = Hand.from_pbn(o.hand)
    assert hand.length("S") in (2, 3)
    assert {"3S", "4S"} <= set(Bidder(system).bid(hand, Auction.parse("2H P 2N P")).calls)


# ------------------------------------------------------------------- check-system on the openings and 2H/2S (one run)
def test_check_system_json_contract(checked, small_system):
    system = small_system
    assert {"nodes", "gaps", "overlaps"} <= set(checked)
    # the openings in chairs 1 and 3, and every point of the tree where the side that opened
    # has a defined call to choose
    points = 2
    todo = [c for c in system.root("opening").children.values() if c.call != "P"]
    while todo:
        n = todo.pop()
        todo.extend(n.children.values())
        points += any(c.defined and not c.is_opponents for c in n.children.values())
    assert checked["nodes"] == points
    for f in checked["gaps"] + checked["overlaps"]:
        assert FINDING_KEYS <= set(f)
        assert isinstance(f["calls"], list) and f["hand"] is not None
        assert f["hands"] > 0 and f["patterns"]
    for o in checked["overlaps"]:
        assert len(o["calls"]) == 2 and o["calls"][0] != o["calls"][1]


def _overlap(checked, auction, a, b):
    hits = [o for o in checked["overlaps"] if o["auction"] == auction and set(o["calls"]) == {a, b}]
    assert len(hits) == 1, (auction, a, b)
    return hits[0]


@pytest.mark.parametrize("auction", ["", "P P"])
def test_check_system_finds_the_notes_contradictions_between_2d_and_the_major_two_suiters(checked, small_system,
                                                                                          auction):
    """5440 with a minor void is a 2D opening [A35, A987] and also a 2S or 2H opening [A36]."""
    system = small_system
    bidder = Bidder(system)
    for major, pattern in (("2S", "5-4-0-4"), ("2H", "4-5-0-4")):
        o = _overlap(checked, auction, "2D", major)
        assert o["patterns"] == [pattern]
        hand = Hand.from_pbn(o["hand"])
        assert hand.pattern == pattern
        assert {"2D", major} <= set(bidder.bid(hand, Auction.parse(auction)).calls)
        assert o["unconstrained"] is False


@pytest.mark.parametrize("auction,chair,values", [("", 1, "opening_values or hcp >= 17"), ("P P", 3, "hcp >= 11")])
def test_check_system_finds_the_opening_gap(checked, small_system, auction, chair, values):
    system = small_system
    gap, = [g for g in checked["gaps"] if g["auction"] == auction]
    hand = Hand.from_pbn(gap["hand"])
    assert evaluate(parse(values, system.definitions), hand)
    root = system.root("opening")
    fits = [c for c, n in root.children.items() if c != "P" and evaluate(n.constraint({"chair": chair}), hand)]
    assert fits == []
    assert Bidder(system).bid(hand, Auction.parse(auction)).calls == ["P"]
    assert set(gap["calls"]) == set(root.children) - {"P"}  # Pass denies the others: not a call it is checked for


def test_check_system_witnesses_really_reach_their_point_and_fit(checked, small_system):
    system = small_system
    bidder = Bidder(system)
    for kind in ("gaps", "overlaps"):
        for f in checked[kind]:
            hand = Hand.from_pbn(f["hand"])
            a = reached_at(system, f["auction"])
            assert_reaches(bidder, hand, a)
            r = bidder.bid(hand, a)
            if kind == "overlaps" and f["settled_by"]:  # the files' priority line decides for the bidder
                assert r.calls == [f["settled_by"].split(" over ")[0]], (f["auction"], f["calls"], r.calls)
            elif kind == "overlaps":
                assert set(f["calls"]) <= set(r.calls), (f["auction"], f["calls"], f["hand"], r.calls)
                loose = any(c.constraint == "" for c in r.candidates if c.call in f["calls"])
                assert f["unconstrained"] == loose, (f["auction"], f["calls"])
            elif f["auction"] in ("", "P P"):
                assert r.calls == ["P"]
            else:
                assert r.status == "none", (f["auction"], f["hand"], r.status, r.calls)
            assert hand.pattern in f["patterns"]


def test_check_system_agrees_with_verify_relays_at_the_relays(checked, trees):
    relay_points = set()
    for t in trees.values():
        relay_points.add(t.start)
        for x in t.leaves:
            calls = x.auction.split()
            if len(calls) > len(t.start.split()) + 2:
                relay_points.add(" ".join(calls[:-2]))
    assert "2S P 2N P 3C P 3D" in relay_points
    for f in checked["gaps"] + checked["overlaps"]:
        if f["auction"] in relay_points:  # then verify-relays found the same
            t = trees[f["auction"]] if f["auction"] in trees else None
            assert t is not None and any(set(g.calls) == set(f["calls"]) for g in t.gaps + t.overlaps), f


def test_check_system_finds_the_two_calls_for_5_3_1_4_over_their_3d(checked):
    o = _overlap(checked, "2S P 2N 3D", "P", "3H")
    assert o["patterns"] == ["5-3-1-4"]


def test_a_gaps_calls_are_calls_the_witness_does_not_fit(checked, small_system):
    system = small_system
    bidder = Bidder(system)
    for g in checked["gaps"]:
        fits = bidder.bid(Hand.from_pbn(g["hand"]), reached_at(system, g["auction"])).calls
        assert not set(fits) & set(g["calls"]), (g["auction"], fits, g["calls"])


def test_check_system_reports_the_gaps_the_notes_leave_after_interference(checked):
    assert {"2S P 2N 3D", "2H 2S 2N"} <= {g["auction"] for g in checked["gaps"]}


def test_an_overlap_settled_by_a_priority_is_still_reported_and_marked(tmp_path):
    from canary_infer.deal.infer import Inferencer
    from canary_infer.system.model import load_system
    from canary_infer.tools.verify import Verifier

    path = tmp_path / "prio.canary"
    path.write_text('tree opening\n'
                    '  priority 1S > 1H "the higher suit first with 5-5" [A9]\n'
                    '  1H  "hearts"  [A1]\n      = H >= 5\n'
                    '  1S  "spades"  [A2]\n      = S >= 5\n'
                    '  1C  "clubs"  [A3]\n      = C >= 5\n')
    v = Verifier(Inferencer(load_system([path])))
    _, overlaps, _, _ = v.check_point(v.system.root(), overlaps=True)
    marks = {tuple(sorted(o.calls)): o.settled_by for o in overlaps}
    assert marks[("1H", "1S")] == "1S over 1H: the higher suit first with 5-5 [A9]"
    assert marks[("1C", "1H")] is None and marks[("1C", "1S")] is None
