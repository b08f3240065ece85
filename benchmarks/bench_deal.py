"""Exact dealing against Debian's ``dealer``, side by side, on the same constraints.

    python benchmarks/bench_deal.py              # both cases, 20,000 deals each
    python benchmarks/bench_deal.py --deals 5000 # quicker

Each case is written twice, in dealer's language and in the constraint language (dealer has
no Roman losers, so the constraints are the ones both can say):

* "2S+": North opens 2S (11-16 HCP, 5-6 spades, 4-5 clubs), South has 11+ HCP and 3+ spades;
  the issue's target: at least 10 times dealer's deals per CPU-second;
* "2H-3H": 2H P 2N P 3H as far as both can say it: North 11-16 HCP, exactly six hearts and
  4-5 clubs; South 6+ spades; target: at least 100 times dealer.

For each case: deals per CPU-second for both (dealer as a child process, its CPU time from
the kernel; ours in this process, table building included), the ratio, a chi-square test of
North's and South's pattern and HCP distributions, ours against dealer's (a p-value far
below 0.001 would mean the two samplers disagree), and every one of our hands checked
against its seat's constraint by the exact evaluator.  Then the real auctions through the
system (Roman losers included), every hand checked against its seat's calls.

dealer is installed with apt-get if it is missing (root, or sudo without a password).
The machine is shared and noisy: read the ratios, not the absolute numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("CANARY_INFER_CACHE", "off")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from canary_infer.bridge.auction import SEATS, Auction  # noqa: E402
from canary_infer.bridge.cards import Hand  # noqa: E402
from canary_infer.deal.infer import Inferencer  # noqa: E402
from canary_infer.deal.joint import Joint, deal_of  # noqa: E402
from canary_infer.language.expr import conj, evaluate, parse  # noqa: E402

CASES = {
    "2S+": {
        "dealer": "hcp(north) >= 11 && hcp(north) <= 16 && spades(north) >= 5 && spades(north) <= 6"
                  " && clubs(north) >= 4 && clubs(north) <= 5 && hcp(south) >= 11 && spades(south) >= 3",
        "ours": {"N": "hcp in 11..16 and S in 5..6 and C in 4..5", "S": "hcp >= 11 and S >= 3"},
        "target": 10, "auction": "2S",
    },
    "2H-3H": {
        "dealer": "hcp(north) >= 11 && hcp(north) <= 16 && hearts(north) == 6"
                  " && clubs(north) >= 4 && clubs(north) <= 5 && spades(south) >= 6",
        "ours": {"N": "hcp in 11..16 and H == 6 and C in 4..5", "S": "S >= 6"},
        "target": 100, "auction": "2H P 2N P 3H",
    },
}


def find_dealer() -> str | None:
    exe = shutil.which("dealer") or ("/usr/games/dealer" if Path("/usr/games/dealer").exists() else None)
    if exe:
        return exe
    print("dealer is missing: installing it with apt-get", file=sys.stderr)
    sudo = [] if os.geteuid() == 0 else ["sudo", "-n"]
    for cmd in (sudo + ["apt-get", "update", "-qq"], sudo + ["apt-get", "install", "-y", "-qq", "dealer"]):
        if subprocess.run(cmd, capture_output=True).returncode != 0:
            print(f"could not run {' '.join(cmd)}", file=sys.stderr)
            return None
    return shutil.which("dealer") or ("/usr/games/dealer" if Path("/usr/games/dealer").exists() else None)


def run_dealer(exe: str, condition: str, n: int, seed: int = 1):
    """n deals from dealer; -> (hands per deal as {seat: Hand}, CPU seconds of the child)."""
    script = f"generate 100000000\nproduce {n}\ncondition {condition}\naction printoneline\n"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([exe, "-s", str(seed)], input=script, capture_output=True, text=True, check=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    deals = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 8 and parts[0] == "n":
            deals.append({s.upper(): Hand.from_pbn(h) for s, h in zip(parts[0::2], parts[1::2], strict=True)})
    return deals, cpu


def ours(formulas: dict, n: int, seed: int = 1):
    """n deals from the exact sampler; -> (deals, CPU seconds including the tables)."""
    t = time.process_time()
    j = Joint({s: parse(f) for s, f in formulas.items()})
    owner = j.sample(n, np.random.default_rng(seed))
    cpu = time.process_time() - t
    return [deal_of(row) for row in owner], cpu


def chi_square(a: list, b: list, min_expected: float = 5.0) -> dict:
    """Two-sample chi-square test of the categories in a and b (rare categories pooled)."""
    from collections import Counter

    from scipy.stats import chi2_contingency

    ca, cb = Counter(a), Counter(b)
    cats = sorted(set(ca) | set(cb), key=lambda k: -(ca[k] + cb[k]))
    rows, other = [], [0, 0]
    for k in cats:
        if (ca[k] + cb[k]) * min(len(a), len(b)) / (len(a) + len(b)) >= min_expected:
            rows.append([ca[k], cb[k]])
        else:
            other[0] += ca[k]
            other[1] += cb[k]
    if sum(other):
        rows.append(other)
    stat, p, dof, _ = chi2_contingency(np.array(rows).T)
    return {"chi2": round(float(stat), 1), "dof": int(dof), "p": round(float(p), 4)}


def check_constraints(deals, formulas: dict) -> int:
    parsed = {s: parse(f) for s, f in formulas.items()}
    return sum(1 for d in deals for s, f in parsed.items() if not evaluate(f, d[s]))


def real_auction(auction: str, n: int, seed: int = 1) -> dict:
    """The system's own constraints (losers included) through the deal command's path."""
    from canary_infer.deal.dealing import deal

    inf = Inferencer()
    a = Auction.parse(auction)
    t = time.process_time()
    ds = deal(a, n, seed=seed, inferencer=inf)
    cpu = time.process_time() - t
    calls = inf.read(a)
    bad = 0
    for d in ds.deals:
        for s in SEATS:
            f = conj(inf.seat_formulas(calls, s))
            if not evaluate(f, d[s]):
                bad += 1
    return {"auction": auction, "deals": len(ds.deals), "cpu_s": round(cpu, 3),
            "deals_per_cpu_s": round(len(ds.deals) / cpu), "hands_not_fitting_their_calls": bad}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--deals", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    exe = find_dealer()
    out = {}
    for name, case in CASES.items():
        print(f"{name} ...", file=sys.stderr, flush=True)
        mine, cpu_ours = ours(case["ours"], a.deals, a.seed)
        row = {"deals": len(mine), "ours_cpu_s": round(cpu_ours, 3),
               "ours_deals_per_cpu_s": round(len(mine) / cpu_ours),
               "our_hands_not_fitting": check_constraints(mine, case["ours"])}
        if exe:
            n_dealer = min(a.deals, 2000) if name == "2H-3H" else a.deals
            theirs, cpu_d = run_dealer(exe, case["dealer"], n_dealer, a.seed)
            row.update({"dealer_deals": len(theirs), "dealer_cpu_s": round(cpu_d, 3),
                        "dealer_deals_per_cpu_s": round(len(theirs) / max(cpu_d, 1e-9))})
            row["ratio_ours_over_dealer"] = round(row["ours_deals_per_cpu_s"] / row["dealer_deals_per_cpu_s"], 1)
            row["target_ratio"] = case["target"]
            row["target_met"] = row["ratio_ours_over_dealer"] >= case["target"]
            row["dealer_hands_not_fitting"] = check_constraints(theirs, case["ours"])
            for seat in "NS":
                row[f"chi2_pattern_{seat}"] = chi_square([d[seat].pattern for d in mine],
                                                         [d[seat].pattern for d in theirs])
                row[f"chi2_hcp_{seat}"] = chi_square([d[seat].hcp for d in mine], [d[seat].hcp for d in theirs])
        row["system_auction"] = real_auction(case["auction"], a.deals, a.seed)
        out[name] = row
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
