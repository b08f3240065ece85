"""The designer's loop at the size of the built-in system (issue 35): copy, check, diff, export.

    python benchmarks/bench_designer.py [--json] [--skip check-system,...]

Each step runs as the command a designer types, in a process of its own (``python -m
canary_infer ...``), on fresh copies of ``constraints/`` in a temporary folder, with the
loaded-system cache in a folder of this run (so the first load of a copy is measured as on a
fresh clone) and the results cache off:

* ``load``: ``infer --system COPY 2N`` on an unchanged copy (its first run parses the copy and
  checks every line of it; the issue: refused after about a minute);
* ``check-system``: the whole system (the issue: 290 s, 66,539 lines; target: under a minute);
* ``diff-system``: two full copies, one call edited (target: under 30 s);
* ``export-system``: BML, BSS and BBOalert of the whole system (the issue: 17 minutes and 190 MB
  for BML; target: under 30 s and a few MB), with the size of each file.

It prints the wall time of each (and the size of what it wrote) and the machine's load average
before and after: on a shared 2-core machine the times move by a third from one hour to the
next, so compare runs made together.  ``--against REV`` does that: the same steps on the same
copies with an earlier commit's code (unpacked with ``git archive``, its kernels built), the two
sides in turn for ``--rounds`` rounds (each side with a fresh loaded-system cache each round),
and prints each step's median time on each side and their ratio.

    python benchmarks/bench_designer.py --skip diff-system,export-bml,export-bss,export-bboalert \
        --against ee73226 --rounds 2

Measured (issue 35, branch checkspeed against ee73226, 2 cores shared with other jobs):

* ``--against ee73226 --rounds 2`` at load 1.2-2.9: load 14.0 / 13.7 s, check-system 76.3 / 74.7 s
  (ratio 0.98); at load 6-7: check-system 161.6 / 170.0 s.  The other jobs held a core or more,
  and the check's two workers then share what is left.
* ``CANARY_INFER_CACHE=off python -m canary_infer check-system --json``, the two checkouts in
  turn (old, new, new, old) at load 1.5-3: old 81.8 s (with a parse) and 66.7 s, 59 s user CPU;
  new 55.4 and 72.0 s, 66 s user CPU (the workers answer some questions twice).  The report is
  byte-identical.  On a quiet machine (load 0.9-1.3), new then old: new 30.3 s (54 s user CPU),
  old 63.8 s (63 s), ratio 0.48, both reports byte-identical.  By phase, one process (CPU s,
  load 3-4): parse 5.5, the loader's check 6.6, the points 47, witnesses 16 (12 with the
  median from one table), patterns 2.9 (0.3), JSON 1.9; the points in two workers: 49-54 s
  of CPU over 55-57 s of wall at load 2.4-2.9.
* A copy of the built-in files loaded when the built-in system is kept: 0.6 s (was a parse:
  44 s at load 8.5).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGETS = {"load": None, "check-system": 60.0, "diff-system": 30.0, "export-bml": 30.0, "export-bss": 30.0,
           "export-bboalert": 30.0}


def _run(argv: list[str], env: dict, out: Path | None = None, root: Path = ROOT) -> tuple[float, int, str]:
    t = time.monotonic()
    with open(out, "w") if out else open(os.devnull, "w") as f:
        r = subprocess.run([sys.executable, "-m", "canary_infer", *argv], cwd=root,
                           env={**env, "PYTHONPATH": str(root)}, stdout=f, stderr=subprocess.PIPE, text=True)
    return time.monotonic() - t, r.returncode, r.stderr[-400:]


def _unpack(rev: str, into: Path) -> Path:
    """The repository at ``rev`` in a folder of its own, its compiled kernels built."""
    tar = subprocess.run(["git", "-C", str(ROOT), "archive", rev], check=True, capture_output=True).stdout
    into.mkdir()
    subprocess.run(["tar", "x", "-C", str(into)], input=tar, check=True)
    subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"], cwd=into, check=True,
                   capture_output=True)
    return into


def _steps(work: Path, skip: set) -> list:
    old, new = work / "mine", work / "edited"
    steps = [("load", ["infer", "--system", str(old), "2N"], None),
             ("load-again", ["infer", "--system", str(old), "2N"], None),
             ("check-system", ["check-system", "--json"], work / "check.json"),
             ("diff-system", ["diff-system", str(old), str(new)], work / "diff.txt"),
             ("export-bml", ["export-system", "--format", "bml"], work / "canary.bml"),
             ("export-bss", ["export-system", "--format", "bss"], work / "canary.bss"),
             ("export-bboalert", ["export-system", "--format", "bboalert"], work / "canary.bboalert")]
    return [s for s in steps if s[0] not in skip]


def _against(args, skip: set, work: Path, env: dict) -> int:
    """Both sides' steps in turn, round after round: each step's median on each side, and the ratio."""
    sides = {"then": _unpack(args.against, work / "then"), "now": ROOT}
    times: dict = {(side, name): [] for side in sides for name, _, _ in _steps(work, skip)}
    for r in range(args.rounds):
        for side in (("then", "now") if r % 2 == 0 else ("now", "then")):
            cache = work / f"systems-{side}-{r}"
            for name, argv, out in _steps(work, skip):
                seconds, status, err = _run(argv, {**env, "CANARY_INFER_SYSTEM_CACHE": str(cache)}, out, sides[side])
                times[side, name].append(seconds)
                print(f"round {r + 1} {side:4s} {name:16s} {seconds:7.1f} s  exit {status}  load "
                      f"{os.getloadavg()[0]:.1f}" + (f"  {err}" if status not in (0, 1) else ""), flush=True)
    for name, _, _ in _steps(work, skip):
        a, b = statistics.median(times["then", name]), statistics.median(times["now", name])
        print(f"{name:16s} {args.against}: {a:7.1f} s  this checkout: {b:7.1f} s  ratio {b / a:.2f}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--skip", default="", help="steps to leave out, comma-separated")
    ap.add_argument("--against", metavar="REV", help="an earlier commit to run the same steps with, in turn")
    ap.add_argument("--rounds", type=int, default=2, help="rounds of --against (default 2)")
    args = ap.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    work = Path(tempfile.mkdtemp(prefix="bench-designer-"))
    env = {**os.environ, "CANARY_INFER_CACHE": "off", "CANARY_INFER_SYSTEM_CACHE": str(work / "systems")}
    env.pop("CANARY_SYSTEM", None)
    env.pop("CANARY_SYSTEM_CHECK", None)
    old, new = work / "mine", work / "edited"
    for d in (old, new):
        shutil.copytree(ROOT / "constraints", d, ignore=shutil.ignore_patterns("__pycache__", "*.py", "*.md"))
    f = new / "40-one-level.canary"
    f.write_text(f.read_text(encoding="utf-8").replace("= S == 6 and H == 3\n", "= S >= 6 and H == 3\n"),
                 encoding="utf-8")
    if args.against:
        try:
            return _against(args, skip, work, env)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    rows = {"load_before": os.getloadavg()[0]}
    steps = _steps(work, set())
    for name, argv, out in steps:
        if name in skip:
            continue
        seconds, status, err = _run(argv, env, out)
        row = {"seconds": round(seconds, 1), "status": status, "target": TARGETS.get(name)}
        if out is not None and out.exists():
            row["bytes"] = out.stat().st_size
        if status not in (0, 1):  # diff-system exits 1 when the systems differ
            row["error"] = err
        rows[name] = row
        if not args.json:
            size = f", {row['bytes'] / 1e6:.1f} MB" if "bytes" in row else ""
            target = f" (target {row['target']:.0f} s)" if row["target"] else ""
            print(f"{name:16s} {row['seconds']:7.1f} s{size}{target}  exit {status}", flush=True)
    rows["load_after"] = os.getloadavg()[0]
    if args.json:
        print(json.dumps(rows))
    else:
        print(f"load average {rows['load_before']:.1f} before, {rows['load_after']:.1f} after")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
