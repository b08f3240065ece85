"""The round trip: bid random deals with the system, infer from the auctions, and check that
every actual hand lies inside what was inferred for its seat.

The bidder and the inferencer read the same call tree and the same constraints, one
evaluating them on a concrete hand, the other solving them over all hands; a hand outside
its inferred ranges is a *violation* (a bug in one of them).  ``none`` counts hands that fit
no call the notes define at a point where they define some (gaps in the notes or the
encoding), ``several`` hands that fit more than one (overlaps); ``undefined_stops`` auctions
that reached a point where the notes define no call for the opening side.  Both sides bid
with the system (the defenders with the defence tree, the opening side over their
interference); a defender passes where the notes define no call for him, or where his hand
fits none of them and the notes give his pass no meaning (it then says nothing).
``defenders="pass"`` makes the defenders pass throughout.  ``competitive`` counts the
auctions in which a defender made a call other than pass.

The deals are cut into blocks of :data:`BLOCK`; block ``b`` is dealt from its own generator,
seeded with the seed and ``b``.  The deals are therefore a function of the seed alone (``-1``
and ``1`` differ), and blocks can be checked anywhere in any order: by worker processes
(``workers``) or on a Dask cluster (``engine="dask"``), the result is the same.

    >>> r = run(8, seed=3)
    >>> r.deals, r.violations, r.completed + r.undefined_stops + r.none
    (8, 0, 8)
    >>> sum(c["deals"] for c in r.coverage.values())
    8
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from canary_infer.bridge.auction import SEATS, Auction, next_seat
from canary_infer.bridge.cards import Deal
from canary_infer.deal.infer import Inferencer
from canary_infer.tools.bidding import Bidder

BLOCK = 250  # deals per block: the unit of work handed to a worker
EXAMPLES = {"violation": 50}  # examples kept per kind (others: SelfCheck.per_kind_examples)
TOP_POINTS = 50  # the several-call points listed, most hands first
PASSED_OUT = "(passed out)"


@dataclass
class SelfCheck:
    deals: int = 0
    violations: int = 0
    undefined_stops: int = 0
    none: int = 0
    several: int = 0
    completed: int = 0
    competitive: int = 0  # auctions in which a defender made a call other than pass
    examples: list[dict] = field(default_factory=list)
    per_kind_examples: int = 5
    _kept: dict[str, int] = field(default_factory=dict)
    # per opening call ("1S", ..., "(passed out)"): deals that reached it, how they ended, and
    # how deep they went (calls made by the opening side, its passes not counted)
    coverage: dict[str, dict] = field(default_factory=dict)
    # per point (the auction before the call, its leading passes dropped: every chair's together):
    # hands that called there, and of them those that fit several calls, by the calls they fit
    reached: dict[str, int] = field(default_factory=dict)
    several_at: dict[str, dict[str, int]] = field(default_factory=dict)
    several_example: dict[str, tuple[str, str]] = field(default_factory=dict)  # point -> (auction, hand)

    def wants(self, kind: str) -> bool:
        return self._kept.get(kind, 0) < EXAMPLES.get(kind, self.per_kind_examples)

    def keep(self, kind: str, **detail) -> None:
        if self.wants(kind):
            self._kept[kind] = self._kept.get(kind, 0) + 1
            self.examples.append({"kind": kind, **detail})

    def merge(self, other: SelfCheck) -> None:
        """Add a later block's counts (examples keep their deal order)."""
        for name in ("deals", "violations", "undefined_stops", "none", "several", "completed", "competitive"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for e in other.examples:
            self.keep(**e)
        for opening, c in other.coverage.items():
            mine = self.coverage.setdefault(opening, _new_coverage())
            for k in ("deals", "completed", "undefined", "none"):
                mine[k] += c[k]
            for d, n in c["depth"].items():
                mine["depth"][d] = mine["depth"].get(d, 0) + n
        for point, n in other.reached.items():
            self.reached[point] = self.reached.get(point, 0) + n
        for point, by in other.several_at.items():
            mine = self.several_at.setdefault(point, {})
            for calls, n in by.items():
                mine[calls] = mine.get(calls, 0) + n
            self.several_example.setdefault(point, other.several_example[point])

    def several_points(self, top: int = TOP_POINTS) -> list[dict]:
        """The points where hands most often fit several calls, most hands first: the point (the
        auction before the call, leading passes dropped), how many hands fit several calls there,
        how many called there at all, the share, the sets of calls they fit, and one such hand."""
        out = []
        for point, by in self.several_at.items():
            n = sum(by.values())
            auction, hand = self.several_example[point]
            out.append({"point": point, "several": n, "reached": self.reached.get(point, n),
                        "share": round(n / self.reached.get(point, n), 4),
                        "calls": dict(sorted(by.items(), key=lambda kv: (-kv[1], kv[0]))),
                        "example": {"auction": auction, "hand": hand}})
        out.sort(key=lambda x: (-x["several"], x["point"]))
        return out[:top]

    def coverage_json(self) -> dict:
        out = {}
        for opening in sorted(self.coverage, key=_opening_order):
            c = self.coverage[opening]
            depth = {int(d): n for d, n in c["depth"].items()}
            total = sum(depth.values())
            out[opening] = {"deals": c["deals"], "completed": c["completed"], "undefined_stops": c["undefined"],
                            "none": c["none"], "max_depth": max(depth, default=0),
                            "mean_depth": round(sum(d * n for d, n in depth.items()) / total, 3) if total else 0.0,
                            "depth": {str(d): depth[d] for d in sorted(depth)}}
        return out

    def as_json(self) -> dict:
        return {"deals": self.deals, "violations": self.violations, "undefined_stops": self.undefined_stops,
                "none": self.none, "several": self.several, "completed": self.completed,
                "competitive": self.competitive, "examples": self.examples, "coverage": self.coverage_json(),
                "several_points": self.several_points()}


def point_of(auction: Auction | str) -> str:
    """A point of the several-call list: the auction before the call, its leading passes dropped.

    >>> point_of("P P 1D P 1H P"), point_of("P P"), point_of("P 1S")
    ('1D P 1H P', '', '1S')
    """
    calls = str(auction).split()
    while calls and calls[0] == "P":
        calls.pop(0)
    return " ".join(calls)


def _new_coverage() -> dict:
    return {"deals": 0, "completed": 0, "undefined": 0, "none": 0, "depth": {}}


def _opening_order(call: str):
    if call == PASSED_OUT:
        return (2, 0)
    from canary_infer.bridge.auction import Call

    c = Call.parse(call)
    return (0, c.rank) if c.rank is not None else (1, call)


@dataclass
class DealCheck:
    """One deal bid and inferred: the auction, why it stopped, and every seat that fell outside."""

    auction: Auction
    stop: str | None  # None (the auction ended), "undefined", "none" or (bid_out's several="stop") "several"
    none_at: tuple[str, str] | None = None  # (seat, hand) that fit no call
    several: list[tuple[str, str, list[str], str]] = field(default_factory=list)  # seat, hand, calls, auction
    points: list[str] = field(default_factory=list)  # the auction before each call the bidder was asked for
    violations: list[tuple[str, str, list[str]]] = field(default_factory=list)  # seat, hand, problems


def _defender_passes(r, defenders: str) -> bool:
    """A defender passes when told to, where the notes define no call for him, or where his hand
    fits none of the calls they define and his pass is not one of them (so it says nothing)."""
    if r.side != "defence":
        return False
    return (defenders == "pass" or r.status == "undefined"
            or r.status == "none" and all(c.call != "P" for c in r.candidates))


def competitive(auction: Auction) -> bool:
    """Whether the side that did not open made a call other than pass.

    >>> competitive(Auction.parse("1S 2C P P P")), competitive(Auction.parse("P 1S P 2H P P P"))
    (True, False)
    """
    calls = [str(c) for c in auction.calls]
    first = next((i for i, c in enumerate(calls) if c != "P"), None)
    return first is not None and any(c != "P" for c in calls[first + 1::2])


def bid_out(deal: Deal, dealer: str, bidder: Bidder, defenders: str = "system",
            several: str = "first") -> DealCheck:
    """Bid a deal with the system until the auction ends or the notes stop defining calls;
    ``defenders`` is "system" (they bid with the system too) or "pass".  Where a hand fits
    several calls, ``several`` says what happens: "first" (the first of them is made, and the
    hand is listed in ``several``) or "stop" (the auction stops there, ``stop`` "several": a
    file must not present a call the system does not choose as its call)."""
    auction = Auction([], dealer=dealer)
    out = DealCheck(auction, None)
    while not auction.is_complete:
        seat = auction.turn
        r = bidder.bid(deal[seat], auction)
        out.points.append(str(auction))
        if _defender_passes(r, defenders):
            auction = auction.append("P")
            continue
        if r.status == "undefined":
            out.stop = "undefined"
            break
        if r.status == "none":
            out.stop, out.none_at = "none", (seat, deal[seat].pbn())
            break
        if r.status == "several":
            out.several.append((seat, deal[seat].pbn(), r.calls, str(auction)))
            if several == "stop":
                out.stop = "several"
                break
        auction = auction.append(r.calls[0])
    out.auction = auction
    return out


def _problems(hand, got) -> list[str]:
    problems = []
    if not got.consistent:
        problems.append("inferred no hand at all")
    else:
        if hand.pattern not in got.patterns:
            problems.append(f"pattern {hand.pattern} not among {len(got.patterns)} inferred")
        if not got.hcp[0] <= hand.hcp <= got.hcp[1]:
            problems.append(f"{hand.hcp} HCP outside {got.hcp[0]}-{got.hcp[1]}")
    return problems


def check_deal(deal: Deal, dealer: str, bidder: Bidder, inf: Inferencer, memo: dict | None = None,
               defenders: str = "system") -> DealCheck:
    """Bid a deal, infer from its auction, and list every hand outside what was inferred.

    ``memo`` (auction -> what was inferred, as pattern sets and HCP ranges) saves inferring the
    same auction twice."""
    out = bid_out(deal, dealer, bidder, defenders)
    inferred = memo.get(out.auction) if memo is not None else None
    if inferred is None:
        result = inf.infer(out.auction, slam=False)  # the check is of lengths and HCP
        inferred = {s: _Inferred(result.hands[s]) for s in SEATS}
        if memo is not None:
            memo[out.auction] = inferred
    for seat in SEATS:
        h, got = deal[seat], inferred[seat]
        if got.consistent and h.pattern in got.pattern_set and got.hcp[0] <= h.hcp <= got.hcp[1]:
            continue
        problems = _problems(h, got)
        if problems:
            out.violations.append((seat, h.pbn(), problems))
    return out


class _Inferred:
    """What was inferred for one seat, shaped for the check."""

    __slots__ = ("consistent", "hcp", "patterns", "pattern_set")

    def __init__(self, seat_inference):
        self.consistent = seat_inference.consistent
        self.hcp = seat_inference.hcp
        self.patterns = list(seat_inference.patterns)
        self.pattern_set = frozenset(self.patterns)  # as text: parsing thousands of patterns back cost a quarter


def _opening_and_depth(auction: Auction) -> tuple[str, int]:
    """The auction's opening call and how many calls the opening side made (passes not counted)."""
    opener = None
    depth = 0
    for i, call in enumerate(auction.calls):
        if call.kind == "pass":
            continue
        seat = auction.seat_of(i)
        if opener is None:
            opener, opening = seat, str(call)
        if seat in (opener, next_seat(opener, 2)):
            depth += 1
    return (opening, depth) if opener is not None else (PASSED_OUT, 0)


# --------------------------------------------------------------------------- blocks
def block_rng(seed: int, block: int) -> random.Random:
    """The generator of one block's deals: a function of the seed and the block only."""
    return random.Random(f"canary-infer selfcheck {seed} {block}")


def dealt(n: int, seed: int) -> Iterable[tuple[int, Deal]]:
    """The deals a self-check of ``n`` deals with this seed checks, with their numbers."""
    for b in range((n + BLOCK - 1) // BLOCK):
        rng = block_rng(seed, b)
        for i in range(b * BLOCK, min(n, (b + 1) * BLOCK)):
            yield i, Deal.random(rng)


def check_block(block: int, n: int, seed: int, bidder: Bidder, inf: Inferencer, memo: dict | None = None,
                per_kind_examples: int = 5, defenders: str = "system") -> SelfCheck:
    """Check the deals of one block (of a run of ``n`` deals)."""
    out = SelfCheck(per_kind_examples=per_kind_examples)
    rng = block_rng(seed, block)
    memo = {} if memo is None else memo
    for i in range(block * BLOCK, min(n, (block + 1) * BLOCK)):
        deal = Deal.random(rng)
        c = check_deal(deal, SEATS[i % 4], bidder, inf, memo, defenders)
        out.competitive += competitive(c.auction)
        opening, depth = _opening_and_depth(c.auction)
        cov = out.coverage.setdefault(opening, _new_coverage())
        cov["deals"] += 1
        cov["depth"][depth] = cov["depth"].get(depth, 0) + 1
        base = None
        if c.stop == "undefined":
            out.undefined_stops += 1
            cov["undefined"] += 1
        elif c.stop == "none":
            out.none += 1
            cov["none"] += 1
            if out.wants("none"):
                base = base or {"deal_number": i, "deal": deal.pbn(), "dealer": c.auction.dealer}
                out.keep("none", auction=str(c.auction), seat=c.none_at[0], hand=c.none_at[1], **base)
        else:
            out.completed += 1
            cov["completed"] += 1
        for at in c.points:
            point = point_of(at)
            out.reached[point] = out.reached.get(point, 0) + 1
        for seat, hand, calls, at in c.several:
            out.several += 1
            point = point_of(at)
            by = out.several_at.setdefault(point, {})
            by[" ".join(calls)] = by.get(" ".join(calls), 0) + 1
            out.several_example.setdefault(point, (at, hand))
            if out.wants("several"):
                base = base or {"deal_number": i, "deal": deal.pbn(), "dealer": c.auction.dealer}
                out.keep("several", auction=at, seat=seat, hand=hand, calls=calls, **base)
        for seat, hand, problems in c.violations:
            out.violations += 1
            if out.wants("violation"):
                base = base or {"deal_number": i, "deal": deal.pbn(), "dealer": c.auction.dealer}
                out.keep("violation", auction=str(c.auction), seat=seat, hand=hand, problems=problems, **base)
        out.deals += 1
    return out


# the state of a worker process: its own inferencer and bidder, kept across blocks
_WORKER: dict = {}


def _worker_init(infer_system, bid_system) -> None:
    inf = Inferencer(infer_system)
    _WORKER["inf"] = inf
    _WORKER["bidder"] = Bidder(bid_system) if bid_system is not infer_system else Bidder(inf.system)
    _WORKER["memo"] = {}


def _worker_block(args) -> SelfCheck:
    block, n, seed, defenders = args
    return check_block(block, n, seed, _WORKER["bidder"], _WORKER["inf"], _WORKER["memo"], defenders=defenders)


_DASK_WORKER: dict = {}


def _dask_block(block: int, n: int, seed: int, systems, token: str, defenders: str = "system") -> SelfCheck:
    """One block on a Dask worker; the worker keeps its inferencer across the run's blocks."""
    state = _DASK_WORKER.get(token)
    if state is None:
        _DASK_WORKER.clear()  # an earlier run's inferencer is not needed any more
        infer_system, bid_system = systems
        inf = Inferencer(infer_system)
        state = _DASK_WORKER[token] = (inf, Bidder(bid_system if bid_system is not infer_system else inf.system),
                                       {})
    inf, bidder, memo = state
    return check_block(block, n, seed, bidder, inf, memo, defenders=defenders)


def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def run(deals: int, seed: int, inferencer: Inferencer | None = None,
        progress: Callable[[int, int], None] | None = None, workers: int = 1, engine: str = "local",
        scheduler: str | None = None, defenders: str = "system") -> SelfCheck:
    """Check ``deals`` random deals.  The result depends on ``deals`` and ``seed`` only.

    ``workers`` > 1 checks blocks in that many processes; ``engine="dask"`` sends them to a
    Dask cluster (``scheduler`` is its address; without one a local cluster of ``workers``
    processes is started and stopped).  Dask is an optional extra (``pip install
    'canary-infer[dask]'``).  ``defenders="pass"`` makes the defenders pass throughout."""
    if deals < 0:
        raise ValueError(f"cannot check {deals} deals")
    inf = inferencer or Inferencer()
    bidder = Bidder(inf.system)
    nblocks = (deals + BLOCK - 1) // BLOCK
    out = SelfCheck()
    done = 0

    def add(part: SelfCheck) -> None:
        nonlocal done
        out.merge(part)
        done += part.deals
        if progress:
            progress(done, deals)

    if engine == "dask":
        for part in _run_dask(nblocks, deals, seed, inf, bidder, workers, scheduler, defenders):
            add(part)
    elif engine != "local":
        raise ValueError(f"unknown engine {engine!r} (local or dask)")
    elif workers <= 1 or nblocks <= 1:
        memo: dict = {}
        for b in range(nblocks):
            add(check_block(b, deals, seed, bidder, inf, memo, defenders=defenders))
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        ctx = multiprocessing.get_context("spawn")  # no state shared by accident; the same on every platform
        pool = ProcessPoolExecutor(max_workers=min(workers, nblocks), mp_context=ctx, initializer=_worker_init,
                                   initargs=(inf.system, bidder.system))
        try:
            # in order, so that examples keep the order of the deals
            for part in _in_order(pool, _worker_block, ((b, deals, seed, defenders) for b in range(nblocks)),
                                  ahead=4 * workers):
                add(part)
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)  # an interrupt does not wait for the queued blocks
            raise
        pool.shutdown()
    if progress and deals == 0:
        progress(0, 0)
    return out


def _in_order(pool, fn, args, ahead: int):
    """``pool.map(fn, args)`` with at most ``ahead`` blocks submitted and not yet taken: a run of
    10^7 deals holds a few blocks in memory at a time, not every block's arguments and result."""
    from collections import deque

    waiting: deque = deque()
    for a in args:
        waiting.append(pool.submit(fn, a))
        if len(waiting) >= ahead:
            yield waiting.popleft().result()
    while waiting:
        yield waiting.popleft().result()


def _run_dask(nblocks: int, n: int, seed: int, inf: Inferencer, bidder: Bidder, workers: int,
              scheduler: str | None, defenders: str = "system"):
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise RuntimeError("--engine dask needs Dask's distributed scheduler: pip install 'canary-infer[dask]'") \
            from None
    import uuid

    cluster = None
    if scheduler is None:
        cluster = LocalCluster(n_workers=max(1, workers), threads_per_worker=1, processes=True,
                               dashboard_address=None)
        scheduler = cluster.scheduler_address
    try:
        try:
            client = Client(scheduler, timeout=10)
        except (OSError, TimeoutError, ValueError) as e:
            raise RuntimeError(f"no Dask scheduler answers at {scheduler!r}: {e}") from None
        with client:
            systems = client.scatter([(inf.system, bidder.system)], broadcast=True)[0]
            token = uuid.uuid4().hex

            class _Submit:  # the Client as _in_order's pool: one block a task
                @staticmethod
                def submit(fn, b):
                    return client.submit(fn, b, n=n, seed=seed, systems=systems, token=token, defenders=defenders,
                                         pure=False)

            # in order: examples keep the order of the deals
            yield from _in_order(_Submit, _dask_block, range(nblocks), ahead=4 * max(1, workers))
    finally:
        if cluster is not None:
            cluster.close()
