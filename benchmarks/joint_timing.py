"""How long joint answers take, auction by auction, with the disk cache off.

    python benchmarks/joint_timing.py                       # the benchmark list, plus P P P P
    python benchmarks/joint_timing.py CASES.json [MORE...]  # and the auctions of case files
    python benchmarks/joint_timing.py --json
    python benchmarks/joint_timing.py --fresh CASES.json    # each auction as a single run has it
    python benchmarks/joint_timing.py --process CASES.json  # each auction its own canary-infer process
    python benchmarks/joint_timing.py --process --auction "P 2S 3H 3N 4C"   # and more auctions

Each auction is answered by one ``Inferencer`` (as ``canary-infer infer`` answers a batch),
with every seat's answer joint (the whole deal), and then again with each seat answered from
its own calls alone (the cheaper, sound answer a round trip uses): the ratio of the two is
what the deal-level work costs, measured in the same run on the same machine.  Reported: the
total, the auctions over one second, the slowest, and how many items are left not proven.

With ``--fresh`` each auction is answered by a new ``Inferencer`` instead (nothing built
for an earlier auction: what one ``canary-infer infer AUCTION`` process does after its
imports), in process time, with the work the deal-level search counted against its budget
(the seats' tables included) beside it.

With ``--process`` each auction is its own ``python -m canary_infer infer AUCTION --json``
process, timed on the wall clock from start to exit (imports, the system's load, CP-SAT's
import where it is used, the answer and its output): what a user waits for.  The processes
read their bytecode from a temporary cache that one warm-up process fills first (as
``pip install`` byte-compiles a package), so that a checkout run with
``PYTHONDONTWRITEBYTECODE`` set is not timed compiling its sources each time.  Beside them, a
bare ``python -c "import numpy"`` in the same run, as the floor.

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

from canary_infer.bridge.auction import Auction, AuctionError  # noqa: E402
from canary_infer.deal.infer import Inferencer  # noqa: E402


def auctions(paths: list[str], more: list[str] = ()) -> list[tuple[str, str]]:
    out = [(a, "N") for a in AUCTIONS + ["P P P P"] + list(more)]
    for p in paths:
        for case in json.loads(Path(p).read_text(encoding="utf-8")):
            out.append((case["auction"], case.get("dealer", "N")))
    seen, unique = set(), []
    for a in out:
        if a not in seen:
            seen.add(a)
            unique.append(a)
    return unique


def by_process(items: list[tuple[str, str]], repeat: int, as_json: bool) -> int:
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as cache:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update(CANARY_INFER_CACHE="off", PYTHONPYCACHEPREFIX=cache,
                   PYTHONPATH=os.pathsep.join([str(Path(__file__).resolve().parent.parent)]
                                              + [p for p in [os.environ.get("PYTHONPATH")] if p]))
        warm = ("import importlib, pkgutil, canary_infer\n"
                "for m in pkgutil.iter_modules(canary_infer.__path__):\n"
                "    try: importlib.import_module('canary_infer.' + m.name)\n"
                "    except Exception: pass\n")
        subprocess.run([sys.executable, "-c", warm], env=env, check=True, capture_output=True)

        def run(argv: list[str], times: int = repeat) -> float | None:
            """The least wall time of the runs; None for an auction the parser refuses (exit 2)."""
            best = None
            for _ in range(times):
                t = time.perf_counter()
                p = subprocess.run(argv, env=env, capture_output=True, text=True)
                w = time.perf_counter() - t
                if p.returncode == 2 and argv[1:3] == ["-m", "canary_infer"]:
                    return None
                if p.returncode != 0:
                    raise SystemExit(f"{argv}: exit {p.returncode}\n{p.stderr[-2000:]}")
                best = w if best is None else min(best, w)
            return best

        floor = run([sys.executable, "-c", "import numpy"], max(3, repeat))
        rows = []
        for k, (text, dealer) in enumerate(items):
            w = run([sys.executable, "-m", "canary_infer", "infer", text, "--dealer", dealer, "--json"])
            if w is None:  # not a legal auction (the in-process timings skip it too)
                continue
            rows.append({"auction": text, "dealer": dealer, "process_s": round(w, 3)})
            if not as_json:
                print(f"\r{k + 1}/{len(items)} processes ", end="", file=sys.stderr, flush=True)
    if not as_json:
        print(file=sys.stderr)
    report = {"auctions": len(rows), "numpy_import_s": round(floor, 3),
              "total_s": round(sum(r["process_s"] for r in rows), 1),
              "over_1s": [r["auction"] for r in rows if r["process_s"] > 1.0],
              "slowest": sorted(rows, key=lambda r: -r["process_s"])[:10]}
    if as_json:
        print(json.dumps(report, indent=1))
        return 0
    print(f"{report['auctions']} auctions, one process each: {report['total_s']} s in all, "
          f"{len(report['over_1s'])} over 1 s; a bare `python -c 'import numpy'` {floor:.3f} s")
    for r in report["slowest"]:
        print(f"  {r['process_s']:6.2f} s  ({r['process_s'] / floor:4.1f} x numpy's import)  "
              f"{r['dealer']}: {r['auction']}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cases", nargs="*", help="JSON case files whose auctions are added")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--fresh", action="store_true",
                    help="a new Inferencer for each auction, timed in process time, with the work counted")
    ap.add_argument("--auction", action="append", default=[], metavar="TEXT",
                    help="an auction to add (dealer North), repeatable: the slowest inputs of a fuzz run, say")
    ap.add_argument("--process", action="store_true",
                    help="each auction its own command-line process, timed on the wall clock")
    ap.add_argument("--repeat", type=int, default=1, help="with --process: runs per auction, the least kept")
    a = ap.parse_args()
    if a.process:
        return by_process(auctions(a.cases, a.auction), a.repeat, a.json)
    joint, alone = Inferencer(), Inferencer()
    joint.infer(Auction.parse("1S"), joint=True)  # imports and the system, outside the timing
    joint.infer(Auction.parse("1S X 2S"), joint=True)  # and the deal-level search's (CP-SAT's when used)
    counted = {}
    if a.fresh:
        from canary_infer.deal import bounds

        views = bounds.joint_views

        def spy(j):
            out = views(j)
            counted["work"] = out.work
            return out

        bounds.joint_views = spy
    clock = time.process_time if a.fresh else time.perf_counter
    rows = []
    for text, dealer in auctions(a.cases, a.auction):
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
