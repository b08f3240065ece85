"""This checkout against an earlier commit, in one process: the same answers, and how long each
auction of ``bench_infer``'s list takes in each, rounds alternating (on a busy machine only a
comparison made side by side means anything).

    python benchmarks/against_commit.py 046f60f               # the batch, 6 rounds
    python benchmarks/against_commit.py HEAD~3 --rounds 10 "P P" "P 1S"

The earlier commit's package is unpacked (``git archive``) into a temporary folder under another
name, its system files with it (and its compiled kernels built there, if it has them: Cython
is then needed), and each Inferencer reads its own commit's files.  Each round
makes a fresh Inferencer per side and runs the auctions in the list's order (so tables built
by one auction serve the next, as in ``bench_infer``'s batch).  The answers compared are each
auction's ``as_json()`` from a fresh Inferencer, disk cache off.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ["CANARY_INFER_CACHE"] = "off"
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_infer import AUCTIONS  # noqa: E402

SLOW = ["P 1C 1H P", "1H P 1S P 3S P 5N P 7S", "P P 1S X XX 1N"]  # inputs that work the search hardest


def unpack(rev: str, into: Path) -> str:
    """The package at ``rev`` as an importable package named ``canary_then``; returns the name."""
    tar = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "canary_infer", "constraints"],
                         check=True, capture_output=True).stdout
    subprocess.run(["tar", "x", "-C", str(into)], input=tar, check=True)
    (into / "canary_infer").rename(into / "canary_then")
    for f in (into / "canary_then").rglob("*.py"):  # the flat layout of old and the layers of now
        text = f.read_text()
        text = re.sub(r"^(\s*)from canary_infer([. ])", r"\1from canary_then\2", text, flags=re.M)
        f.write_text(re.sub(r"^(\s*)import canary_infer\.", r"\1import canary_then.", text, flags=re.M))
    pyx = next((into / "canary_then").rglob("_kernels.pyx"), None)
    if pyx is not None:  # its compiled kernels, as an install builds them
        rel = pyx.relative_to(into).with_suffix("")
        code = ("from setuptools import Extension, setup; from Cython.Build import cythonize; "
                f"setup(ext_modules=cythonize([Extension('{'.'.join(rel.parts)}', ['{rel}.pyx'], "
                "extra_compile_args=['-O3'])], language_level=3, quiet=True), "
                "script_args=['-q', 'build_ext', '--inplace'])")
        subprocess.run([sys.executable, "-c", code], cwd=into, check=True, capture_output=True)
    sys.path.insert(0, str(into))
    return "canary_then"


def _module(pkg: str, *names: str):
    """The first of the modules ``names`` the package has (its layout changed over time)."""
    for name in names:
        try:
            return importlib.import_module(f"{pkg}.{name}")
        except ModuleNotFoundError:
            continue
    raise ModuleNotFoundError(f"{pkg} has none of {names}")


def side(pkg: str, constraints: Path):
    system = _module(pkg, "system.model", "system")
    return (_module(pkg, "deal.infer", "infer").Inferencer, _module(pkg, "bridge.auction", "auction").Auction,
            system.load_system(sorted(constraints.glob("*.canary"))))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rev", help="the earlier commit (anything git rev-parse takes)")
    ap.add_argument("auctions", nargs="*", help="auctions to time (default: bench_infer's list)")
    ap.add_argument("--rounds", type=int, default=6)
    a = ap.parse_intermixed_args()
    auctions = a.auctions or AUCTIONS
    with tempfile.TemporaryDirectory() as tmp:
        sides = {"then": side(unpack(a.rev, Path(tmp)), Path(tmp) / "constraints"),
                 "now": side("canary_infer", ROOT / "constraints")}
        differ = []
        for x in dict.fromkeys(auctions + (AUCTIONS + SLOW if not a.auctions else [])):
            out = {k: json.dumps(inf(system).infer(auction.parse(x), joint=True).as_json(), sort_keys=True)
                   for k, (inf, auction, system) in sides.items()}
            if out["then"] != out["now"]:
                differ.append(x)
        times: dict[str, dict[str, list[float]]] = {k: {x: [] for x in auctions} for k in sides}
        for r in range(a.rounds):
            for k in (("then", "now") if r % 2 == 0 else ("now", "then")):
                inf, auction, system = sides[k]
                i = inf(system)
                for x in auctions:
                    t = time.perf_counter()
                    i.infer(auction.parse(x), joint=True)
                    times[k][x].append(time.perf_counter() - t)
            print(f"round {r + 1} of {a.rounds}", file=sys.stderr, flush=True)
    print(f"{'then ms':>9} {'now ms':>9} {'ratio':>6}  auction (medians of {a.rounds} rounds)")
    for x in auctions:
        t, n = (statistics.median(times[k][x]) * 1000 for k in ("then", "now"))
        print(f"{t:9.2f} {n:9.2f} {n / t:6.2f}  {x}")
    for k in ("then", "now"):
        pooled = sorted(v for x in auctions for v in times[k][x])
        print(f"{k}: batch median {statistics.median(pooled) * 1000:.2f} ms, "
              f"p95 {pooled[min(len(pooled) - 1, int(0.95 * len(pooled)))] * 1000:.1f} ms")
    print("answers: the same" if not differ else f"answers differ on {len(differ)}: {differ}")


if __name__ == "__main__":
    main()
