"""How long the system-designer tools take, with peers run in the same script.

    python benchmarks/bench_verify.py                  # verify-relays, check-system, selfcheck 10000
    python benchmarks/bench_verify.py --deals 2000     # a shorter selfcheck
    python benchmarks/bench_verify.py --deals 100000 --workers 2 --only-selfcheck   # issue 12's figure

* verify-relays over the whole system, against a peer: the same leaf pattern sets computed
  by the card-level CP-SAT model alone (one feasibility solve per candidate pattern);
* check-system over the whole system;
* selfcheck --deals N, against a peer: dealing the same N deals and evaluating the bidder
  only (no inference), which is the floor any round trip pays; and selfcheck on --workers
  processes, against the same in one (the results must be equal);
* peak memory of this process.
The machine is noisy: read the ratios, not the absolute numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time

os.environ.setdefault("CANARY_INFER_CACHE", "off")  # measure the solver, not the disk cache

from canary_infer.bridge.auction import SEATS, Auction  # noqa: E402
from canary_infer.deal.infer import Inferencer  # noqa: E402
from canary_infer.engine.cpsat import HandModel  # noqa: E402
from canary_infer.language.expr import conj  # noqa: E402
from canary_infer.tools.bidding import Bidder  # noqa: E402
from canary_infer.tools.selfcheck import dealt, run  # noqa: E402
from canary_infer.tools.verify import Verifier  # noqa: E402


def cpsat_leaves(v: Verifier, trees) -> tuple[float, int]:
    """Recompute every leaf's pattern set with CP-SAT alone (per-pattern feasibility)."""
    t = time.perf_counter()
    checked = 0
    nodes = {tuple(n.auction()): n for n in v.system.nodes()}
    for tree in trees:
        for leaf in tree.leaves:
            calls = [c for c in Auction.parse(leaf.auction).calls]
            ours = [str(c) for c in calls if str(c) != "P"]
            node = nodes.get(tuple(ours))
            if node is None:
                continue
            reach, ctx, _ = v.reach(node.lineage()[-2])
            f = conj([reach, node.constraint(ctx)])
            m = HandModel()
            lit = m.add(f)
            for p in [tuple(map(int, x.split("-"))) for x in leaf.patterns]:
                assert m.feasible([lit], pattern=p)
                checked += 1
    return time.perf_counter() - t, checked


def bidder_only(deals: int, seed: int) -> float:
    t = time.perf_counter()
    bidder = Bidder(Inferencer().system)
    for i, deal in dealt(deals, seed):  # the deals selfcheck checks
        a = Auction([], dealer=SEATS[i % 4])
        while not a.is_complete:
            r = bidder.bid(deal[a.turn], a)
            if r.status in ("none", "undefined") and r.side != "defence":
                break
            a = a.append(r.calls[0] if r.calls else "P")
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--deals", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--only-selfcheck", action="store_true", help="skip verify-relays and check-system")
    a = ap.parse_args()
    out = {}
    if not a.only_selfcheck:
        relays_and_system(out)
    t = time.perf_counter()
    sc = run(a.deals, a.seed)
    out["selfcheck_s"] = round(time.perf_counter() - t, 2)
    out["selfcheck"] = {k: v for k, v in sc.as_json().items() if k not in ("examples", "coverage")}
    t = time.perf_counter()
    par = run(a.deals, a.seed, workers=a.workers)
    out[f"selfcheck_{a.workers}_workers_s"] = round(time.perf_counter() - t, 2)
    out["same_result_on_workers"] = par.as_json() == sc.as_json()
    out["ratio_one_over_workers"] = round(out["selfcheck_s"] / out[f"selfcheck_{a.workers}_workers_s"], 2)
    out["peer_bidder_only_s"] = round(bidder_only(a.deals, a.seed), 2)
    out["ratio_selfcheck_over_bidder_only"] = round(out["selfcheck_s"] / out["peer_bidder_only_s"], 2)
    out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    out["load_average"] = os.getloadavg()
    print(json.dumps(out, indent=2))


def relays_and_system(out: dict) -> None:
    v = Verifier()
    t = time.perf_counter()
    trees = v.relay_trees()
    out["verify_relays_s"] = round(time.perf_counter() - t, 2)
    out["relay_leaves"] = sum(len(x.leaves) for x in trees)
    t_cp, n = cpsat_leaves(Verifier(), trees)
    out["peer_cpsat_leaf_patterns_s"] = round(t_cp, 2)
    out["peer_cpsat_patterns_checked"] = n
    t = time.perf_counter()
    r = Verifier().check_system()
    out["check_system_s"] = round(time.perf_counter() - t, 2)
    out["check_system_nodes"] = r["nodes"]


if __name__ == "__main__":
    main()
