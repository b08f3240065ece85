"""The explorer page under load: latency of 8 concurrent clients, and memory over many positions.

    python benchmarks/load_page.py                        # 8 clients, 60 s, then 1,000 new positions
    python benchmarks/load_page.py --seconds 20 --memory 300 --json

Loopback only, bounded in count and time.  The server is the one ``canary-infer serve`` runs
(:func:`canary_infer.ui.web.create_app` under waitress, 8 threads), started in this process
on a free port of 127.0.0.1 and stopped at the end; nothing is warmed unless ``--warm``.

1. Latency: ``--clients`` threads ask for pages for ``--seconds`` seconds (at most
   ``--requests`` requests in all), each picking at random from :data:`POSITIONS` (the
   slowest first visits known included) or, with probability ``--fresh``, a position never
   asked before (the random positions of ``benchmarks/server_memory.py``, a third with a
   hand), which has to be computed while the others wait.  Reported: p50, p95 and max of
   the page times, over all requests and per position (its first visit apart), and the
   server's resident memory (RSS).
2. Memory: ``--memory`` different positions asked one after another (each computed and
   then kept in, or dropped from, the bounded caches), RSS every ``--every``, stopped early
   after ``--memory-seconds``; flat means the last quarter's RSS within 10% of the second
   quarter's.

Measured on 2 cores shared with other work (7 December 2026, commit 98a6f04):

* 8 clients over :data:`POSITIONS`, nothing warmed: 20,007 requests in 35.5 s, no error,
  p50 0.012 s, p95 0.023 s, max 2.1 s (the first visit of 1S P 2N P 4N P 5D P 5H P 6C P);
* the same with 10% never-seen positions: 8,900 requests in 60 s (864 fresh), p50 0.011 s,
  p95 0.38 s, max 2.0 s; the fresh ones p50 0.38 s, p95 0.72 s;
* 10,000 different positions (before the two malloc arenas): RSS 910 MB in the second
  quarter, 1,143 MB in the last (+26%: not flat); the bare Explorer of server_memory.py
  grows alike (358 -> 554 MB from 1,000 to 3,000 positions), its Inferencer's caches still
  filling (results 1,472 of 8,192 and readings 9,252 of 100,000 at 3,000).  With two
  arenas, 3,000 positions: 662 MB instead of 842 MB.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import sys
import threading
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlencode

os.environ.setdefault("CANARY_INFER_CACHE", "off")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from server_memory import positions, rss_mb  # noqa: E402

# (path, query): the slowest first visits of issue 36, everyday positions, the exercises
POSITIONS = [
    ("/", {"a": "1S-P-2N-P-4N-P-5D-P-5H-P-6C-P"}),
    ("/", {"a": "P-P-P-P"}),
    ("/", {"a": "P-1H-X-XX-P"}),
    ("/", {"a": "1H-X-P-1S"}),
    ("/", {"a": "2S-P-2N-P-3C"}),
    ("/", {"a": ""}),
    ("/", {"a": "1S-P-2S", "hand": "S:KQ2.A87.QJ54.962"}),
    ("/", {"a": "1N-P", "v": "NS"}),
    ("/bid", {"a": "2S-P-2N-P", "d": "N", "seed": "5", "pick": "3D"}),
    ("/partner", {"a": "2S-P-2N-P-3C-P", "lo": "11", "hi": "16", "suit": "S"}),
]


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def get(base: str, path: str, query: dict) -> tuple[int, float]:
    t = time.perf_counter()
    with urllib.request.urlopen(f"{base}{path}?{urlencode(query)}", timeout=120) as r:
        r.read()
        status = r.status
    return status, time.perf_counter() - t


class Server:
    """The page under waitress on a free port of 127.0.0.1, in a thread of this process."""

    def __init__(self, app, threads: int = 8):
        from waitress import create_server

        self.server = create_server(app, host="127.0.0.1", port=0, threads=threads)
        self.url = f"http://127.0.0.1:{self.server.effective_port}"
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        # waitress has no clean stop from another thread (closing its sockets under its select
        # loop raises there): stop its workers; the loop's thread is a daemon and ends with us
        self.server.task_dispatcher.shutdown(timeout=5)


def latency(base: str, clients: int, seconds: float, requests: int, fresh: float, seed: int) -> dict:
    new = positions(10**6, seed)  # a generator of positions never asked before
    new_lock = threading.Lock()
    times: list[tuple[str, float, bool]] = []  # (position, seconds, first visit)
    seen: set[str] = set()
    lock = threading.Lock()
    errors: list[str] = []
    stop = time.monotonic() + seconds

    def client(k: int):
        rng = random.Random(seed * 100 + k)
        while time.monotonic() < stop:
            with lock:
                if len(times) + len(errors) >= requests:
                    return
            if rng.random() < fresh:
                with new_lock:
                    text, dealer, hand = next(new)
                path, query, name = "/", {"a": text.replace(" ", "-"), "d": dealer}, "fresh"
                if hand:
                    query["hand"] = hand
            else:
                path, query = rng.choice(POSITIONS)
                name = path + "?" + urlencode(query)
            try:
                status, dt = get(base, path, query)
            except Exception as e:  # noqa: BLE001  (a failed request is a result to report)
                errors.append(f"{name}: {e}")
                continue
            with lock:
                first = name not in seen or name == "fresh"
                seen.add(name)
                times.append((name, dt, first))
                if status != 200:
                    errors.append(f"{name}: HTTP {status}")

    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join(seconds + 300)
    wall = time.perf_counter() - t0
    all_t = [dt for _, dt, _ in times]
    repeat = [dt for n, dt, first in times if not first]
    by = {}
    for name in sorted({n for n, _, _ in times}):
        xs = [dt for n, dt, first in times if n == name and (not first or name == "fresh")]
        firsts = [dt for n, dt, first in times if n == name and first and name != "fresh"]
        by[name] = {"n": len(xs) + len(firsts), "first_s": round(firsts[0], 3) if firsts else None,
                    "p50_s": round(pct(xs, .5), 3) if xs else None, "p95_s": round(pct(xs, .95), 3) if xs else None,
                    "max_s": round(max(xs), 3) if xs else None}
    return {"clients": clients, "seconds": round(wall, 1), "requests": len(times), "errors": errors[:10],
            "n_errors": len(errors), "per_second": round(len(times) / wall, 1),
            "p50_s": round(pct(all_t, .5), 3), "p95_s": round(pct(all_t, .95), 3), "max_s": round(max(all_t), 3),
            "repeat_p95_s": round(pct(repeat, .95), 3) if repeat else None,
            "fresh": sum(1 for n, _, _ in times if n == "fresh"), "rss_mb": round(rss_mb(), 1), "positions": by}


def memory(base: str, n: int, every: int, seconds: float, seed: int) -> dict:
    rows = []
    t0 = time.perf_counter()
    times = []
    for i, (text, dealer, hand) in enumerate(positions(n, seed + 7), 1):
        query = {"a": text.replace(" ", "-"), "d": dealer}
        if hand:
            query["hand"] = hand
        _, dt = get(base, "/", query)
        times.append(dt)
        late = time.perf_counter() - t0 > seconds
        if i % every == 0 or i == n or late:
            rows.append({"positions": i, "rss_mb": round(rss_mb(), 1), "seconds": round(time.perf_counter() - t0, 1),
                         "p50_s": round(pct(times, .5), 3), "p95_s": round(pct(times, .95), 3)})
            print(f"  {i:6d} positions  RSS {rows[-1]['rss_mb']:7.1f} MB  {rows[-1]['seconds']:7.1f} s  "
                  f"p50 {rows[-1]['p50_s']:.3f} s  p95 {rows[-1]['p95_s']:.3f} s", file=sys.stderr, flush=True)
        if late:
            break
    q = max(1, len(rows) // 4)
    second, last = rows[q:2 * q] or rows[:1], rows[-q:]
    mid, end = max(r["rss_mb"] for r in second), max(r["rss_mb"] for r in last)
    return {"rows": rows, "rss_second_quarter_mb": mid, "rss_last_quarter_mb": end,
            "growth": round(end / mid - 1, 3), "flat": end < 1.1 * mid}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=60, help="length of the latency run (default 60)")
    ap.add_argument("--requests", type=int, default=20_000, help="at most this many requests in the latency run")
    ap.add_argument("--fresh", type=float, default=0.0,
                    help="share of requests for a position never asked before (default 0)")
    ap.add_argument("--memory", type=int, default=1000, help="different positions of the memory run (0: none)")
    ap.add_argument("--every", type=int, default=100)
    ap.add_argument("--memory-seconds", type=float, default=1800, help="stop the memory run after this long")
    ap.add_argument("--warm", action="store_true", help="warm the server as serve does (the slow first visits)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    if not (1 <= a.clients <= 64 and 0 < a.seconds <= 3600 and 0 <= a.memory <= 20_000):
        ap.error("1-64 clients, at most an hour, at most 20,000 positions")
    from canary_infer.ui.web import WARM, create_app, fewer_malloc_arenas

    fewer_malloc_arenas()  # as serve does
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)  # "Task queue depth is 1": expected here
    out = {}
    rss0 = rss_mb()
    with Server(create_app(warm=WARM if a.warm else ())) as srv:
        print(f"server on {srv.url} (RSS {rss0:.0f} MB)", file=sys.stderr)
        out["latency"] = lat = latency(srv.url, a.clients, a.seconds, a.requests, a.fresh, a.seed)
        print(f"latency: {lat['requests']} requests by {lat['clients']} clients in {lat['seconds']} s "
              f"({lat['per_second']}/s, {lat['fresh']} fresh, {lat['n_errors']} errors): p50 {lat['p50_s']} s, "
              f"p95 {lat['p95_s']} s, max {lat['max_s']} s; repeat visits p95 {lat['repeat_p95_s']} s; "
              f"RSS {lat['rss_mb']} MB", file=sys.stderr)
        for name, r in lat["positions"].items():
            print(f"  {name[:70]:<70} n={r['n']:<5} first {r['first_s']} s  p50 {r['p50_s']} s  p95 {r['p95_s']} s  "
                  f"max {r['max_s']} s", file=sys.stderr)
        if a.memory:
            print(f"memory: {a.memory} different positions", file=sys.stderr)
            out["memory"] = mem = memory(srv.url, a.memory, a.every, a.memory_seconds, a.seed)
            print(f"memory verdict: RSS {mem['rss_second_quarter_mb']} -> {mem['rss_last_quarter_mb']} MB "
                  f"(growth {mem['growth']:+.1%}, flat: {mem['flat']})", file=sys.stderr)
    if a.json:
        print(json.dumps(out))


if __name__ == "__main__":
    main()
