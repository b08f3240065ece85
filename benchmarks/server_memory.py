"""The explorer's memory over many different positions: does it stay flat?

    python benchmarks/server_memory.py                  # 10,000 positions (about an hour on 2 cores)
    python benchmarks/server_memory.py -n 1000 --json   # a quick look

One ``Explorer`` (what ``canary-infer serve`` keeps for its whole life) is asked for ``n``
different positions: random legal auctions of up to 8 calls from random openings, a third of
them with a random hand of one seat, each page computed as the server computes it (example
deals included).  Every ``--every`` positions it prints the process's resident memory (RSS,
from /proc) and the size of each of the Inferencer's bounded caches; the verdict compares the
RSS of the last quarter of the run with that of the second quarter (after the caches have
filled): flat means it grew by less than 10%.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

os.environ.setdefault("CANARY_INFER_CACHE", "off")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from canary_infer.bridge.auction import Auction, legal_calls  # noqa: E402
from canary_infer.bridge.cards import Deal  # noqa: E402
from canary_infer.ui.web import Explorer  # noqa: E402


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def positions(n: int, seed: int):
    """n different (auction text, dealer, hand text) positions."""
    rng = random.Random(seed)
    seen = set()
    while len(seen) < n:
        dealer = rng.choice("NESW")
        a = Auction([], dealer=dealer)
        for _ in range(rng.randint(1, 8)):
            calls = [str(c) for c in legal_calls(a)]
            if not calls:
                break
            # mostly passes and bids, as real auctions are; a few doubles
            a = Auction(list(a.calls) + [rng.choice(calls)], dealer=dealer)
            if a.is_complete:
                break
        hand = None
        if rng.random() < 1 / 3:
            deal = Deal.random(rng)
            seat = rng.choice("NESW")
            hand = f"{seat}:{deal[seat].pbn()}"
        key = (" ".join(map(str, a.calls)), dealer, hand)
        if key not in seen:
            seen.add(key)
            yield key


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=10_000, help="different positions asked for")
    ap.add_argument("--every", type=int, default=500, help="report every so many positions")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    ex = Explorer()
    rows = []
    t0 = time.perf_counter()
    for i, (text, dealer, hand) in enumerate(positions(a.n, a.seed), 1):
        ex.position(text, dealer, hand)
        if i % a.every == 0 or i == a.n:
            inf = ex.inferencer
            sizes = {k: len(getattr(inf, k)) for k in ("_results", "_tables", "_slam_facts", "_joints", "_readings")}
            rows.append({"positions": i, "rss_mb": round(rss_mb(), 1), "seconds": round(time.perf_counter() - t0, 1),
                         "caches": sizes})
            if not a.json:
                print(f"{i:6d} positions  RSS {rows[-1]['rss_mb']:7.1f} MB  {rows[-1]['seconds']:7.1f} s  {sizes}",
                      flush=True)
    q = max(1, len(rows) // 4)
    second, last = rows[q:2 * q] or rows[:1], rows[-q:]
    mid, end = max(r["rss_mb"] for r in second), max(r["rss_mb"] for r in last)
    verdict = {"rss_second_quarter_mb": mid, "rss_last_quarter_mb": end, "growth": round(end / mid - 1, 3),
               "flat": end < 1.1 * mid}
    print(json.dumps({"rows": rows, **verdict}) if a.json else f"verdict: {verdict}")


if __name__ == "__main__":
    main()
