"""selfcheck at scale: deals a function of the seed alone, the same result on any number of
workers or on a Dask cluster, and the per-opening coverage report."""

import json
import random
from collections import Counter

import pytest

from canary_infer.bridge.auction import SEATS, Auction
from canary_infer.bridge.cards import Deal
from canary_infer.tools.bidding import Bidder
from canary_infer.tools.selfcheck import BLOCK, PASSED_OUT, _opening_and_depth, bid_out, block_rng, dealt, run
from canary_infer.ui.cli import main

N = BLOCK + 50  # two blocks: the smallest run that is split between workers


def test_negative_seeds_deal_other_deals():
    """random.Random(-1) is random.Random(1): the seed -1 used to deal the seed 1's deals."""
    first = [d for _, d in dealt(12, 1)]
    assert [d for _, d in dealt(12, -1)] != first
    assert [d for _, d in dealt(12, 1)] == first  # and a seed always deals the same


def test_the_deals_are_the_blocks_generators_deals():
    got = [d for _, d in dealt(N, 4)]
    rng0, rng1 = block_rng(4, 0), block_rng(4, 1)
    want = [Deal.random(rng0) for _ in range(BLOCK)] + [Deal.random(rng1) for _ in range(N - BLOCK)]
    assert got == want
    assert [d for _, d in dealt(10, 4)] == got[:10]  # deal i does not depend on how many are dealt


@pytest.fixture(scope="module")
def one_process(inferencer):
    return run(N, 9, inferencer).as_json()


def test_any_number_of_workers_gives_the_same_result(inferencer, one_process):
    assert one_process["deals"] == N and one_process["violations"] == 0
    assert run(N, 9, inferencer, workers=3).as_json() == one_process


def test_the_command_line_on_two_workers_agrees(inferencer, monkeypatch, capsys, one_process):
    monkeypatch.setattr("canary_infer.tools.selfcheck.Inferencer", lambda *a, **k: inferencer)
    assert main(["selfcheck", "--deals", str(N), "--seed", "9", "--workers", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == one_process


def test_the_coverage_counts_each_deal_under_its_opening(inferencer, one_process):
    """Recount from the auctions themselves, bid again deal by deal."""
    bidder = Bidder(inferencer.system)
    openings: Counter = Counter()
    depths: dict = {}
    for i, deal in dealt(N, 9):
        a = bid_out(deal, SEATS[i % 4], bidder).auction
        bids = [(a.seat_of(k), str(c)) for k, c in enumerate(a.calls) if str(c) != "P"]
        opening = bids[0][1] if bids else PASSED_OUT
        side = {bids[0][0], SEATS[(SEATS.index(bids[0][0]) + 2) % 4]} if bids else set()
        openings[opening] += 1
        depth = sum(1 for seat, _ in bids if seat in side)
        depths.setdefault(opening, Counter())[str(depth)] += 1
    cov = one_process["coverage"]
    assert {k: v["deals"] for k, v in cov.items()} == dict(openings)
    for opening, c in cov.items():
        assert c["depth"] == dict(depths[opening])
        assert c["completed"] + c["undefined_stops"] + c["none"] == c["deals"]
        assert c["max_depth"] == max(int(d) for d in c["depth"])
    assert sum(c["completed"] for c in cov.values()) == one_process["completed"]


@pytest.mark.parametrize("auction,dealer,want", [
    ("2S P 2N P 3C P 3D P 3H P P P", "N", ("2S", 5)),
    ("P P 1S P P P", "E", ("1S", 1)),
    ("P P P P", "N", (PASSED_OUT, 0)),
    ("1S X 2N P", "N", ("1S", 2)),  # the double is the other side's
])
def test_opening_and_depth(auction, dealer, want):
    assert _opening_and_depth(Auction.parse(auction, dealer=dealer)) == want


def test_the_text_report_shows_the_coverage(inferencer, monkeypatch, capsys):
    monkeypatch.setattr("canary_infer.tools.selfcheck.Inferencer", lambda *a, **k: inferencer)
    assert main(["selfcheck", "--deals", "40", "--seed", "2", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "coverage:" in out and "opening" in out
    r = run(40, 2, inferencer).as_json()
    for opening, c in r["coverage"].items():
        row = next(line for line in out.splitlines() if line.split()[:2] == [opening, str(c["deals"])]
                   or line.split()[:3] == opening.split() + [str(c["deals"])])
        assert row


def test_the_dask_engine_gives_the_same_result_on_a_local_cluster(inferencer, one_process):
    distributed = pytest.importorskip("distributed", reason="the optional extra 'dask' is not installed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        got = run(N, 9, inferencer, engine="dask", scheduler=cluster.scheduler_address)
    assert got.as_json() == one_process


def test_the_dask_engine_without_dask_says_how_to_get_it(monkeypatch, capsys, inferencer):
    import builtins

    real = builtins.__import__

    def no_dask(name, *a, **k):
        if name == "distributed" or name.startswith("distributed."):
            raise ImportError(name)
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_dask)
    monkeypatch.setattr("canary_infer.tools.selfcheck.Inferencer", lambda *a, **k: inferencer)
    assert main(["selfcheck", "--deals", "10", "--engine", "dask", "--json"]) == 2
    assert "canary-infer[dask]" in json.loads(capsys.readouterr().out)["error"]["message"]


def test_a_random_deal_is_uniform_enough():
    """The per-block generators deal every seat the same share of the aces (a loose check)."""
    aces = Counter()
    for _, deal in dealt(2000, 11):
        for s in SEATS:
            aces[s] += sum(1 for suit in "SHDC" if deal[s].has(suit, "A"))
    assert all(abs(n / 2000 - 1) < 0.1 for n in aces.values()), aces
    assert random.Random(1).random() != block_rng(1, 0).random()
