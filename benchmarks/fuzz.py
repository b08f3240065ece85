"""A large fuzz run over the targets of ``tests/fuzz_targets.py``: inputs tried and failures found.

    python benchmarks/fuzz.py                    # about 30,000 inputs (10-20 minutes)
    python benchmarks/fuzz.py --scale 0.1        # a quick look
    python benchmarks/fuzz.py --scale 10 --json  # a long run, machine-readable
    python benchmarks/fuzz.py --fresh            # each command-line input answered as a single run would be

The tests run the same targets at a size CI affords; here every failure is caught and counted
instead of stopping the run (the first few failing inputs of each target are printed), so the
report says how many inputs each target tried and how many broke its property.  For the
command-line targets it also lists the slowest inputs (the disk cache is off), as a pointer for
the engine's speed work: it is not a pass/fail criterion.  By default one ``Inferencer`` answers
every input (as a batch does, sharing the tables of calls already seen); with ``--fresh``
each command-line input gets a new one (nothing from an earlier input: what a single
``canary-infer infer`` process does after its imports), timed in process time.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import traceback
from pathlib import Path

os.environ.setdefault("CANARY_INFER_CACHE", "off")  # fuzz the solver, not a disk cache
ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import fuzz_targets as fz  # noqa: E402
from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from canary_infer.deal.infer import Inferencer  # noqa: E402
from canary_infer.engine.tables import Available, solve  # noqa: E402
from canary_infer.language.expr import parse  # noqa: E402


class Target:
    def __init__(self, name: str, examples: int):
        self.name, self.examples = name, examples
        self.tried = self.failed = 0
        self.failures: list[str] = []
        self.slowest: list[tuple[float, str]] = []
        self.seconds = 0.0
        self.clock = time.perf_counter

    def check(self, label, fn, *args, timed: bool = False):
        self.tried += 1
        t = self.clock()
        try:
            fn(*args)
        except Exception as e:  # noqa: BLE001 - every failure is counted, the run goes on
            self.failed += 1
            if len(self.failures) < 5:
                self.failures.append(f"{label!r}: {type(e).__name__}: {e}\n"
                                     + "".join(traceback.format_exception(e)[-3:]))
        if timed:
            self.slowest.append((self.clock() - t, str(label)))
            self.slowest = sorted(self.slowest, reverse=True)[:5]

    def run(self, strategy, body):
        quiet = settings(max_examples=self.examples, deadline=None, database=None, phases=[Phase.generate],
                         suppress_health_check=list(HealthCheck))
        t = time.perf_counter()
        quiet(given(strategy)(body))()
        self.seconds = time.perf_counter() - t

    def as_json(self):
        return {"target": self.name, "tried": self.tried, "failed": self.failed, "seconds": round(self.seconds, 1),
                "failures": self.failures,
                "slowest": [{"seconds": round(s, 3), "input": x} for s, x in self.slowest]}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every target's number of inputs")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--fresh", action="store_true",
                    help="a new Inferencer for each command-line input, timed in process time")
    a = ap.parse_args()

    def n(k):
        return max(1, int(k * a.scale))

    shared = Inferencer()

    def inf_for():
        return Inferencer() if a.fresh else shared

    inf = shared
    work = Path(tempfile.mkdtemp(prefix="canary-fuzz-"))
    cache_dir = work / "cache"
    os.environ["CANARY_INFER_CACHE"] = str(cache_dir)
    import canary_infer.caches as cache

    cache.SLOW = 0.0  # keep every result, however fast the engine is
    f = parse("hcp in 11..16 and losers <= 7 and qt >= 2")
    truth = solve(f)
    k = cache.key(f, Available(), None)
    real = json.loads((cache_dir / f"{k}.json").read_text())
    os.environ["CANARY_INFER_CACHE"] = "off"

    targets = []

    def target(name, examples, strategy, body, fresh: bool = False):
        t = Target(name, examples)
        if fresh and a.fresh:
            t.clock = time.process_time
        t.run(strategy, lambda x: body(t, x))
        targets.append(t)
        if not a.json:
            print(f"{name:<26} {t.tried:>7} tried {t.failed:>4} failed  {t.seconds:7.1f} s", flush=True)

    target("auction text", n(8000), st.tuples(fz.auction_texts(), st.sampled_from("NESW")),
           lambda t, x: t.check(x, fz.check_auction_text, *x))
    target("infer (command line)", n(2000), st.one_of(fz.auction_texts(), fz.legal_auctions().map(str),
                                                      fz.pbn_texts()),
           lambda t, x: t.check(x, fz.check_cli_infer, x, inf_for(), timed=True), fresh=True)
    target("infer --hand", n(1000), st.tuples(fz.legal_auctions().map(str), fz.hand_texts()),
           lambda t, x: t.check(x, fz.check_cli_infer, x[0], inf_for(), "S:" + x[1], timed=True), fresh=True)
    target("infer batch (bytes)", n(1000), st.lists(st.one_of(fz.auction_texts(), fz.pbn_texts(),
                                                              st.binary(max_size=12).map(repr)), max_size=6),
           lambda t, x: t.check(x, fz.check_cli_batch,
                                b"\n".join(s.encode("utf-8", "surrogatepass") for s in x) + b"\xff\n", inf))
    target("hand text", n(6000), fz.hand_texts(), lambda t, x: t.check(x, fz.check_hand_text, x))
    target("deal text", n(3000), st.one_of(st.text(fz.HAND_CHARS, max_size=70), st.text(max_size=20)),
           lambda t, x: t.check(x, fz.check_deal_text, x))
    target("PBN auction", n(6000), fz.pbn_texts(), lambda t, x: t.check(x, fz.check_pbn_text, x))
    sysdir = work / "sys"
    sysdir.mkdir()
    outcomes = {"loaded": 0, "refused": 0}

    def system(t, text):
        def one(x):
            outcomes[fz.check_system_text(x, sysdir)] += 1
        t.check(text[:200], one, text)

    target("system file", n(2000), fz.system_texts(), system)

    def exploding(t, text):
        def one(x):
            outcomes[fz.check_exploding_system_text(x, sysdir)] += 1
        t.check(text[:200], one, text)

    target("system file, exploding", n(300), fz.exploding_system_texts(), exploding)
    kept_dir, files_dir = work / "kept", work / "files"
    files_dir.mkdir()
    (files_dir / "a.canary").write_text(fz.SMALL_SYSTEM, encoding="utf-8")
    files = sorted(files_dir.glob("*.canary"))
    from canary_infer.system import cache as syscache
    from canary_infer.system.model import load_system

    os.environ[syscache.ENV] = str(kept_dir)
    fresh = load_system(files)
    entry = next(kept_dir.glob("system-*.pickle"))
    good = entry.read_bytes()
    kinds = st.tuples(st.sampled_from(fz.ENTRY_KINDS), st.binary(max_size=64))
    target("system-cache entry (file types)", n(600), kinds,
           lambda t, x: t.check(x[0], fz.check_system_cache_entry, x[0], x[1], entry, good, files, fresh))
    del os.environ[syscache.ENV]
    target("numeric argument", n(1500), fz.numeric_arguments(),
           lambda t, x: t.check(" ".join(x)[:80], fz.check_numeric_argument, x, timed=True))
    target("cache entry", n(3000), fz.cache_entries(real), lambda t, x: t.check(x, fz.check_cache_text, x, k))

    def corrupted(t, text):
        def one(x):
            (cache_dir / f"{k}.json").write_text(x, encoding="utf-8", errors="surrogatepass")
            os.environ["CANARY_INFER_CACHE"] = str(cache_dir)
            try:
                assert solve(f) == truth
            finally:
                os.environ["CANARY_INFER_CACHE"] = "off"
        t.check(text, one, text)

    target("solve via corrupt cache", n(300), fz.cache_entries(real), corrupted)

    report = {"tried": sum(t.tried for t in targets), "failed": sum(t.failed for t in targets),
              "system_files": outcomes, "targets": [t.as_json() for t in targets]}
    if a.json:
        print(json.dumps(report, indent=2))
        return 1 if report["failed"] else 0
    print(f"\n{report['tried']:,} inputs tried, {report['failed']} failures "
          f"(system files: {outcomes['loaded']} loaded, {outcomes['refused']} refused with SystemFileError)")
    for t in targets:
        for fail in t.failures:
            print(f"\n[{t.name}] {fail}")
    for t in targets:
        if t.slowest:
            each = ", each fresh, process time" if t.clock is time.process_time else ""
            print(f"\nslowest {t.name} inputs (cache off{each}): "
                  + "; ".join(f"{s:.2f} s {x[:60]!r}" for s, x in t.slowest))
    return 1 if report["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
