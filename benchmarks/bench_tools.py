"""Costs of the system-designer tools of the second edition, with peers run in the same script.

    python benchmarks/bench_tools.py

* check-system's typical witnesses, against a peer: the first hand CP-SAT finds for the same
  regions with the same most frequent pattern (the witness check-system gave before); the time
  ratio, and the HCP counts of both sets of witnesses (median, maximum, share with 25+ HCP);
* diff-system of the built-in system against a copy with ``opening_values`` widened
  (14 -> 13 HCP with 1.5 quick tricks), against a peer: inferring, in both versions, every
  auction the diff reports on (what a designer would otherwise run by hand, with no counts of
  the hands gained and lost);
* peak memory of this process.
The machine is noisy: read the ratios, not the absolute numbers.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import tempfile
import time
from pathlib import Path

os.environ.setdefault("CANARY_INFER_CACHE", "off")  # measure the solver, not the disk cache

from canary_infer.bridge.auction import Auction  # noqa: E402
from canary_infer.bridge.cards import Hand  # noqa: E402
from canary_infer.deal.infer import Inferencer  # noqa: E402
from canary_infer.engine.cpsat import HandModel  # noqa: E402
from canary_infer.engine.witness import most_frequent_pattern, typical_hand  # noqa: E402
from canary_infer.system.model import builtin_dir  # noqa: E402
from canary_infer.tools.diff import diff_systems  # noqa: E402
from canary_infer.tools.loader import load  # noqa: E402
from canary_infer.tools.verify import Verifier  # noqa: E402


class Recording(Verifier):
    """check-system, keeping every region a witness was asked for."""

    regions: list

    def witness(self, formula, result):
        self.regions.append((formula, result))
        return None


def hcp_stats(hands: list[Hand]) -> dict:
    h = [x.hcp for x in hands]
    return {"median": statistics.median(h), "max": max(h), "share_25_plus": round(sum(x >= 25 for x in h) / len(h), 3)}


def witnesses(system) -> dict:
    v = Recording(Inferencer(system))
    v.regions = []
    v.check_system()
    t = time.perf_counter()
    typical = [typical_hand(f, r, time_limit=10) for f, r in v.regions]
    t_typical = time.perf_counter() - t
    t = time.perf_counter()
    first = []
    for f, r in v.regions:
        m = HandModel()
        first.append(m.example([m.add(f)], pattern=most_frequent_pattern(r), time_limit=10))
    t_first = time.perf_counter() - t
    return {"regions": len(v.regions), "typical_s": round(t_typical, 2), "peer_first_hand_s": round(t_first, 2),
            "ratio_typical_over_first_hand": round(t_typical / t_first, 2),
            "typical_hcp": hcp_stats([h for h in typical if h]), "first_hand_hcp": hcp_stats([h for h in first if h])}


def diff(system) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        old, new = Path(tmp, "old"), Path(tmp, "new")
        old.mkdir()
        new.mkdir()
        edited = 0
        for f in builtin_dir().iterdir():
            if f.name.endswith(".canary"):
                text = f.read_text(encoding="utf-8")
                (old / f.name).write_text(text, encoding="utf-8")
                edited += text.count("hcp >= 14 and qt >= 1.5")
                (new / f.name).write_text(text.replace("hcp >= 14 and qt >= 1.5", "hcp >= 13 and qt >= 1.5"),
                                          encoding="utf-8")
        assert edited == 1, "the benchmark's edit no longer applies to the built-in files"
        a, b = load(old), load(new)
        t = time.perf_counter()
        d = diff_systems(a, b)
        t_diff = time.perf_counter() - t
        auctions = {x.auction for c in d.changes for x in c.differences}
        t = time.perf_counter()
        for s in (a, b):
            inf = Inferencer(s)
            for text in auctions:
                inf.infer(Auction.parse(text))
        t_peer = time.perf_counter() - t
    return {"counts": d.counts(), "auctions": len(auctions), "diff_s": round(t_diff, 2),
            "peer_infer_both_s": round(t_peer, 2), "ratio_diff_over_infer_both": round(t_diff / t_peer, 2)}


def main():
    system = load(None)
    out = {"check_system_witnesses": witnesses(system), "diff_system": diff(system),
           "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
