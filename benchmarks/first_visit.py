"""First visits to the explorer page: each position in a fresh ``canary-infer serve`` process.

    python benchmarks/first_visit.py                         # this tree, 3 rounds
    python benchmarks/first_visit.py --against ../old-tree   # and another tree, alternately

For each round and each position, a new ``python -m canary_infer serve --no-warm --port 0``
is started in the tree (so nothing is warmed, and no earlier request has computed anything),
waited for until it listens, and then asked for the page once: the time is that request's,
to the whole response, and beside it the CPU time the server spent meanwhile (less
sensitive to other work on the machine; it counts all the server's threads).  If the page
asks for more once it is shown (its ``data-later`` address, the estimates from all the
deals), that request is timed too, as "later".  With ``--after-other`` the server first
answers one unrelated position (``/?a=1C``), so that what any first request pays once
(imports, caches) is left out.  Trees alternate within a
round, so that both meet the same load; the load average is printed with each round.

Measured on 2 cores shared with other work (load average 6-9 during the run, so the wall
times are about three times the CPU times; 5 rounds, medians, the very first request of each
server; before: commit ee73226, 2,000 deals drawn on the first visit; after: 500 on the
first visit, 2,000 when the page asks):

====================================  ===================  ===================  ===========
position                              before: wall (CPU)   after: wall (CPU)    after: later
====================================  ===================  ===================  ===========
1S P 2N P 4N P 5D P 5H P 6C P         3.75 s (0.96 s)      0.95 s (0.29 s)      3.5 s
P 1H X XX P                           3.22 s (0.51 s)      1.33 s (0.28 s)      0.67 s
P P P P                               3.21 s (0.47 s)      1.39 s (0.28 s)      0.45 s
====================================  ===================  ===================  ===========
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlencode

POSITIONS = ("1S-P-2N-P-4N-P-5D-P-5H-P-6C-P", "P-P-P-P", "P-1H-X-XX-P")
HERE = Path(__file__).resolve().parent.parent


def fetch(url: str) -> tuple[float, str]:
    t = time.perf_counter()
    with urllib.request.urlopen(url, timeout=120) as r:
        body = r.read().decode("utf-8")
    return time.perf_counter() - t, body


def cpu_s(pid: int) -> float:
    """The CPU time a process has used so far (user and system, from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def visit(tree: Path, auction: str, after_other: bool) -> dict:
    """One fresh server in ``tree``, one first visit of ``auction``."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    proc = subprocess.Popen([sys.executable, "-m", "canary_infer", "serve", "--no-warm", "--port", "0"],
                            cwd=tree, env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:
        said = []
        for _ in range(50):  # the line naming the port (after any warning)
            said.append(proc.stderr.readline())
            m = re.search(r"http://[\d.]+:\d+", said[-1])
            if m or not said[-1]:
                break
        if not m:
            raise RuntimeError(f"the server did not start: {''.join(said)}")
        base = m.group(0)
        if after_other:
            fetch(base + "/?a=1C")
        cpu = cpu_s(proc.pid)
        first, body = fetch(base + "/?" + urlencode({"a": auction}))
        out = {"first_s": first, "first_cpu_s": cpu_s(proc.pid) - cpu, "later_s": None}
        later = re.search(r'data-later="([^"]+)"', body)
        if later:
            out["later_s"], _ = fetch(base + later.group(1).replace("&amp;", "&"))
        return out
    finally:
        proc.terminate()
        proc.wait(10)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--against", type=Path, help="another tree of this project, measured alternately")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--after-other", action="store_true", help="one unrelated request first")
    ap.add_argument("positions", nargs="*", default=list(POSITIONS))
    a = ap.parse_args()
    trees = [("this", HERE)] + ([("against", a.against.resolve())] if a.against else [])
    times: dict = {}
    for r in range(a.rounds):
        print(f"round {r + 1}, load average {os.getloadavg()[0]:.2f}", file=sys.stderr)
        for pos in a.positions:
            for name, tree in trees if r % 2 == 0 else trees[::-1]:
                got = visit(tree, pos, a.after_other)
                times.setdefault((name, pos), []).append(got)
                later = f", later {got['later_s']:.3f} s" if got["later_s"] is not None else ""
                print(f"  {name:<8} {pos:<32} first {got['first_s']:.3f} s (CPU {got['first_cpu_s']:.2f} s)"
                      f"{later}", file=sys.stderr)
    print("median of the rounds:")
    for (name, pos), xs in sorted(times.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        first = statistics.median(x["first_s"] for x in xs)
        cpu = statistics.median(x["first_cpu_s"] for x in xs)
        laters = [x["later_s"] for x in xs if x["later_s"] is not None]
        later = f"  later {statistics.median(laters):.3f} s" if laters else ""
        print(f"  {name:<8} {pos:<32} first {first:.3f} s (max {max(x['first_s'] for x in xs):.3f}, "
              f"CPU {cpu:.2f} s){later}")


if __name__ == "__main__":
    main()
