"""How long joint answers take, auction by auction, with the disk cache off.

    python benchmarks/joint_timing.py                       # the benchmark list, plus P P P P
    python benchmarks/joint_timing.py CASES.json [MORE...]  # and the auctions of case files
    python benchmarks/joint_timing.py --json
    python benchmarks/joint_timing.py --fresh CASES.json    # each auction as a single run has it

Each auction is answered by one ``Inferencer`` (as ``canary-infer infer`` answers a batch),
with every seat's answer joint (the whole deal), and then again with each seat answered from
its own calls alone (the cheaper, sound answer a round trip uses): the ratio of the two is
what the deal-level work costs, measured in the same run on the same machine.  Reported: the
total, the auctions over one second, the slowest, and how many items are left not proven.

With ``--fresh`` each auction is answered by a new ``Inferencer`` instead (nothing built
for an earlier auction: what one ``canary-infer infer AUCTION`` process does after its
imports), in process time, with the work the deal-level search counted against its budget
(the seats' tables included) beside it.

A case file is a JSON list of objects with an ``auction`` (and optionally a ``dealer``), as
the conformance checker's cases are; it is read only from the path given.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ["CANARY_INFER_CACHE"] = "off"  # time the solver, not the disk cache
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_infer import AUCTIONS  # noqa: E402

from canary_infer.auction import Auction, AuctionError  # noqa: E402
from canary_infer.infer import Inferencer  # noqa: E402


def auctions(paths: list[str]) -> list[tuple[str, str]]:
    out = [(a, "N") for a in AUCTIONS + ["P P P P"]]
    for p in paths:
        for case in json.loads(Path(p).read_text(encoding="utf-8")):
            out.append((case["auction"], case.get("dealer", "N")))
    seen, unique = set(), []
    for a in out:
        if a not in seen:
            seen.add(a)
            unique.append(a)
    return unique


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cases", nargs="*", help="JSON case files whose auctions are added")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--fresh", action="store_true",
                    help="a new Inferencer for each auction, timed in process time, with the work counted")
    a = ap.parse_args()
    joint, alone = Inferencer(), Inferencer()
    joint.infer(Auction.parse("1S"), joint=True)  # imports and the system, outside the timing
    joint.infer(Auction.parse("1S X 2S"), joint=True)  # and the deal-level search's (CP-SAT's when used)
    counted = {}
    if a.fresh:
        from canary_infer import bounds

        views = bounds.joint_views

        def spy(j):
            out = views(j)
            counted["work"] = j.work
            return out

        bounds.joint_views = spy
    clock = time.process_time if a.fresh else time.perf_counter
    rows = []
    for text, dealer in auctions(a.cases):
        try:
            auction = Auction.parse(text, dealer=dealer)
        except AuctionError:
            continue
        counted.clear()
        if a.fresh:
            joint, alone = Inferencer(), Inferencer()
        t = clock()
        r = joint.infer(auction, joint=True)
        tj = clock() - t
        t = clock()
        alone.infer(auction, joint=False)
        ta = clock() - t
        unproven = sum(len(h.as_json().get("unproven") or []) for h in r.hands.values())
        rows.append({"auction": text, "dealer": dealer, "joint_s": round(tj, 3), "alone_s": round(ta, 3),
                     "unproven": unproven, "work": round(counted["work"], 3) if "work" in counted else None})
    total_j = sum(r["joint_s"] for r in rows)
    total_a = sum(r["alone_s"] for r in rows)
    report = {"auctions": len(rows), "joint_total_s": round(total_j, 1), "alone_total_s": round(total_a, 1),
              "ratio_joint_over_alone": round(total_j / max(total_a, 1e-9), 1),
              "over_1s": [r["auction"] for r in rows if r["joint_s"] > 1.0],
              "unproven_items": sum(r["unproven"] for r in rows),
              "slowest": sorted(rows, key=lambda r: -r["joint_s"])[:10]}
    if a.json:
        print(json.dumps(report, indent=1))
        return 0
    print(f"{report['auctions']} auctions: joint {report['joint_total_s']} s, each seat alone "
          f"{report['alone_total_s']} s (ratio {report['ratio_joint_over_alone']}); "
          f"{len(report['over_1s'])} over 1 s; {report['unproven_items']} items not proven")
    for r in report["slowest"]:
        work = f", {r['work']:.2f} counted" if r["work"] is not None else ""
        print(f"  {r['joint_s']:6.2f} s  (alone {r['alone_s']:.2f} s, {r['unproven']} not proven{work})  "
              f"{r['dealer']}: {r['auction']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
