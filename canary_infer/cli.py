"""The command line: ``canary-infer infer AUCTION`` and friends.

Run ``canary-infer --help`` or ``canary-infer infer --help``.
"""

from __future__ import annotations

import argparse
import json
import sys

from .auction import SEATS, Auction, AuctionError, split_calls
from .cards import CardError, Hand

EXAMPLE = "2S P 2N P 3C"

DESCRIPTION = """\
Exact inference for the Canary Club bridge system.  The system is read from plain-text
files (constraints/*.canary); every call in an auction adds its constraints to the hand
of the player who made it, and the engine works out exactly what each seat can hold:
its HCP range, the range of each suit's length and every suit pattern still possible."""

INFER_EPILOG = f"""\
examples:
  canary-infer infer "{EXAMPLE}"                 what opener shows after two relays
  canary-infer infer "P P 1S" --dealer E          East and South pass, West opens in third chair
  canary-infer infer "2H P 2S P 3D" --json        the JSON contract (see README)
  canary-infer infer "1S" --hand S:KQ2.A87.QJ54.962   your own hand: the others exclude its cards
  canary-infer infer '[Auction "E"] 1S Pass 2NT'   a PBN auction section: the tag names the dealer
  printf '1S\\n2S P 2N\\n' | canary-infer infer --json   batch: one JSON object per line

Calls: 1C..7N (1NT also), P or Pass, X or Dbl, XX or Rdbl, any case, separated by spaces,
commas or dashes; or a PBN [Auction "SEAT"] section (in batch input a line starting with
'[' opens a PBN game, which runs to the next empty line).  Patterns are written
spades-hearts-diamonds-clubs.  Exit status: 0, or 2 for an unreadable or illegal auction or
hand (in batch mode bad lines, including lines that are not UTF-8, get an error object and
the batch goes on)."""


def _error_json(kind: str, message: str, position=None, auction=None, dealer="N") -> dict:
    return {"auction": auction, "dealer": dealer, "calls": [], "hands": {},
            "error": {"kind": kind, "message": message, "position": position}}


def _is_pbn(text: str) -> bool:
    return text.lstrip().startswith(("[", "%"))  # a tag, or a PBN comment line before one


def read_auction(text: str, dealer: str | None) -> Auction:
    """An auction from the command line or a batch line: calls, or a PBN ``[Auction "SEAT"]``
    section (whose tag names the dealer; ``dealer``, if given, must agree)."""
    if not _is_pbn(text):
        return Auction.parse(text, dealer=dealer or "N")
    auction = Auction.from_pbn(text)
    if dealer is not None and dealer != auction.dealer:
        raise AuctionError(f"--dealer {dealer} disagrees with the PBN text's [Auction \"{auction.dealer}\"]",
                           "syntax")
    return auction


def _parse_known(text: str | None):
    if text is None:
        return None
    if not text.strip():
        raise CardError("--hand is empty: give SEAT:PBN, e.g. S:KQ2.A87.QJ54.962")
    if ":" not in text:
        raise CardError(f"--hand wants SEAT:PBN, e.g. S:KQ2.A87.QJ54.962, got '{text}'")
    seat, pbn = text.split(":", 1)
    seat = seat.strip().upper()
    if seat not in SEATS:
        raise CardError(f"unknown seat '{seat}' in --hand (use N, E, S or W)")
    return seat, Hand.from_pbn(pbn.strip())


def _fmt_range(r) -> str:
    if r is None:
        return "-"
    lo, hi = r
    return str(lo) if lo == hi else f"{lo}-{hi}"


def render_text(inf) -> str:
    calls = " ".join(str(c) for c in inf.auction.calls) or "(no calls)"
    lines = [f"Auction: {calls}   dealer {inf.auction.dealer}", ""]
    for c in inf.calls:
        mark = " " if c.defined else "?"
        src = f"  [{c.source}]" if c.source and c.defined else ""
        lines.append(f" {mark} {c.seat}  {c.call:<3} {c.meaning}{src}")
    lines += ["", " seat  HCP     S     H     D     C    patterns (most frequent first)"]

    def named(positions) -> str:
        return " and ".join(f"{inf.calls[i].call} (call {i + 1})" for i in positions)

    for seat in SEATS:
        h = inf.hands[seat]
        if h.known and not h.consistent:
            lines.append(f" {seat}     your hand {h.hand} cannot have made these calls: it breaks "
                         f"{named(h.breaks)} (your hand)")
            continue
        if not h.consistent:
            why = ""
            if h.conflict and len(h.conflict) == 1 and h.conflict_minimal:
                why = f": {named(h.conflict)} cannot be held with the cards left"
            elif h.conflict and h.conflict_minimal:
                why = f": {named(h.conflict)} contradict"
            elif h.conflict:
                why = (f": the contradiction lies among {named(h.conflict)} (not narrowed down to the "
                       "fewest calls: the search stopped at its time limit)")
            lines.append(f" {seat}     no hand fits these calls{why}")
            continue
        lens = "".join(f"{_fmt_range(h.lengths[s]):<6}" for s in "SHDC")
        pats = " ".join(h.patterns[:8]) + (f" … ({len(h.patterns)} patterns)" if len(h.patterns) > 8 else "")
        tag = " (your hand)" if h.known else ""
        lines.append(f" {seat}     {_fmt_range(h.hcp):<7} {lens} {pats}{tag}")
    if any(not c.defined for c in inf.calls):
        lines += ["", " ? = the system notes give this call no meaning here: it adds no constraint."]
    return "\n".join(lines)


def _infer_one(inferencer, text: str, dealer: str | None, known, as_json: bool):
    """Returns (output text, ok)."""
    try:
        auction = read_auction(text, dealer)
    except AuctionError as e:
        if as_json:
            calls = getattr(e, "calls", None) if _is_pbn(text) else split_calls(text)
            return json.dumps(_error_json(e.kind, str(e), e.position, calls, dealer or "N")), False
        return f"error ({e.kind}): {e}", False
    inf = inferencer.infer(auction, known)
    if as_json:
        return json.dumps(inf.as_json()), True
    return render_text(inf), True


def batch_records(stream):
    """The auctions of batch input: ``(line number, text, error)`` for each.

    One auction per line; a line starting with ``[`` opens a PBN game, which runs to the next
    empty line.  Empty lines and ``%`` comment lines between auctions are skipped.  The input
    is read as bytes and decoded line by line, so a line that is not UTF-8 gives an error
    (``text`` None) and the lines after it are still read."""
    buffer = getattr(stream, "buffer", None)
    lines = iter(buffer) if buffer is not None else (line.encode("utf-8", "surrogateescape") for line in stream)
    block: list[str] = []
    start = bad = None
    for no, raw in enumerate(lines, 1):
        try:
            text, err = raw.decode("utf-8"), None
            if no == 1 and text.startswith("\ufeff"):
                text = text[1:]  # a byte-order mark
        except UnicodeDecodeError as e:
            text, err = "", (f"line {no} is not UTF-8 text: byte 0x{raw[e.start]:02x} at column {e.start + 1} "
                             "cannot be read (save the input as UTF-8)")
        text = text.rstrip("\r\n")
        if start is not None:  # inside a PBN game
            if err is None and not text.strip():
                yield start, "\n".join(block), bad
                block, start, bad = [], None, None
            else:
                block.append(text)
                bad = bad or err
        elif err is not None:
            yield no, None, err
        elif text.lstrip().startswith("["):
            block, start = [text], no
        elif text.strip() and not text.lstrip().startswith("%"):
            yield no, text.strip(), None
    if start is not None:
        yield start, "\n".join(block), bad


def cmd_infer(args) -> int:
    from .infer import Inferencer

    dealer = args.dealer.upper() if args.dealer else None
    try:
        known = _parse_known(args.hand)
    except CardError as e:
        if args.json:
            print(json.dumps(_error_json("hand", str(e), dealer=dealer or "N")))
        else:
            print(f"error: {e}", file=sys.stderr)
        return 2
    inferencer = Inferencer()
    if args.auction is None:
        # batch mode: one auction per line in, one JSON object per line out (always JSON)
        for no, text, err in batch_records(sys.stdin):
            if err is not None:
                obj = _error_json("syntax", err, None, None, dealer or "N")
            else:
                out, ok = _infer_one(inferencer, text, dealer, known, as_json=True)
                obj = None if ok else json.loads(out)
            if obj is not None:
                obj["error"]["line"] = no  # where the bad auction starts in the input
                out = json.dumps(obj)
            print(out, flush=True)
        return 0
    text = " ".join(args.auction)
    out, ok = _infer_one(inferencer, text, dealer, known, args.json)
    print(out, file=sys.stdout if ok or args.json else sys.stderr)
    return 0 if ok else 2


class Progress:
    """A progress line on standard error when it is a terminal (or when asked for)."""

    def __init__(self, enabled: bool | None = None):
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.last = 0.0

    def step(self, done: int, total: int) -> None:
        import time

        now = time.monotonic()
        if not self.enabled or (now - self.last < 0.2 and done < total):
            return
        self.last = now
        width = 30
        filled = int(width * done / max(total, 1))
        print(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total}", end="", file=sys.stderr, flush=True)
        if done >= total:
            print(file=sys.stderr)

    def say(self, msg: str) -> None:
        if self.enabled:
            print(f"\r{msg[:78]:<78}", end="", file=sys.stderr, flush=True)

    def done(self) -> None:
        if self.enabled:
            print(file=sys.stderr)


def cmd_bid(args) -> int:
    from .bidding import Bidder
    from .system import load_system

    try:
        hand = Hand.from_pbn(args.hand)
        auction = Auction.parse(args.auction or "", dealer=args.dealer.upper())
    except (CardError, AuctionError) as e:
        if args.json:
            kind = getattr(e, "kind", "syntax")
            print(json.dumps({"status": "error", "calls": [], "error": {"kind": kind, "message": str(e),
                                                                          "position": getattr(e, "position", None)}}))
        else:
            print(f"error: {e}", file=sys.stderr)
        return 2
    r = Bidder(load_system()).bid(hand, auction)
    if args.json:
        print(json.dumps({**r.as_json(), "hand": hand.pbn(), "auction": str(auction), "dealer": auction.dealer}))
        return 0
    head = {"ok": "bids", "several": "could bid any of", "none": "fits no call the notes define here",
            "undefined": "has no call defined by the notes here"}[r.status]
    print(f"{r.seat} ({hand.pbn()}, {hand.hcp} HCP) after '{auction or '(start)'}' {head}"
          + (f": {' '.join(r.calls)}" if r.calls else ""))
    if r.reason:
        print(f"  {r.reason}")
    for c in r.candidates:
        mark = "fits" if c.fits else "no  "
        print(f"  {mark} {c.call:<3} {c.meaning}" + (f"  [{c.source}]" if c.source else ""))
        if c.fits and c.constraint:
            print(f"         because {c.constraint}")
    return 0


def cmd_verify_relays(args) -> int:
    from .verify import Verifier

    def fail(kind: str, message: str, position=None) -> int:
        if args.json:
            print(json.dumps({"trees": [], "error": {"kind": kind, "message": message, "position": position}}))
        else:
            print(f"error: {message}", file=sys.stderr)
        return 2

    try:
        starts = [str(Auction.parse(s)) for s in args.start]
    except AuctionError as e:
        return fail(e.kind, str(e), e.position)
    prog = Progress(args.progress)
    v = Verifier(progress=prog.say)
    trees = v.relay_trees(starts or None)
    prog.done()
    if args.start and not trees:
        return fail("usage", f"no relay tree starts at {', '.join(args.start)}")
    if args.json:
        print(json.dumps({"trees": [t.as_json() for t in trees], "error": None}))
        return 0
    for t in trees:
        print(f"Relays from {t.start}: {t.nodes} relay points, {len(t.leaves)} leaves, "
              f"{len(t.gaps)} gaps, {len(t.overlaps)} overlaps")
        for leaf in t.leaves:
            tag = "resolved  " if leaf.resolved else "UNRESOLVED"
            print(f"  {tag} {leaf.auction:<32} {leaf.share:7.2%}  {' '.join(leaf.patterns)}")
        for f in t.gaps + t.overlaps:
            kind = "gap" if f in t.gaps else "overlap"
            print(f"  {kind}: {f.auction}: {' / '.join(f.calls) or '(no calls)'}  e.g. {f.hand} {f.note}")
        print()
    return 0


def _finding_lines(kind: str, items) -> list[str]:
    out = []
    for f in items:
        extra = f" (settled by {f.settled_by})" if getattr(f, "settled_by", None) else ""
        where = f.auction or "(opening)"
        calls = " / ".join(f.calls) if kind == "overlap" else "none of " + " ".join(f.calls)
        out.append(f"  {kind} at {where}: {calls}{extra}\n      e.g. {f.hand}; patterns {' '.join(f.patterns[:6])}"
                   f"{' ...' if len(f.patterns) > 6 else ''}; {f.hands:,} hands {f.note}")
    return out


def cmd_check_system(args) -> int:
    from .verify import Verifier

    prog = Progress(args.progress)
    v = Verifier(progress=prog.say)
    r = v.check_system()
    prog.done()
    if args.json:
        print(json.dumps({"nodes": r["nodes"], "gaps": [g.as_json() for g in r["gaps"]],
                          "overlaps": [o.as_json() for o in r["overlaps"]]}))
        return 0
    real = [o for o in r["overlaps"] if not o.unconstrained]
    loose = [o for o in r["overlaps"] if o.unconstrained]
    print(f"{r['nodes']} points checked: {len(r['gaps'])} gaps, {len(real)} overlaps between calls that both "
          f"state something, {len(loose)} more with a call that states nothing about the hand")
    print("\n".join(_finding_lines("gap", r["gaps"])))
    print("\n".join(_finding_lines("overlap", real)))
    if loose and args.all:
        print("\n".join(_finding_lines("overlap", loose)))
    elif loose:
        print(f"  ({len(loose)} overlaps with unconstrained calls not listed: --all lists them)")
    return 0


def cmd_selfcheck(args) -> int:
    import time

    from .selfcheck import default_workers, run

    workers = args.workers or default_workers()
    prog = Progress(args.progress)
    t = time.monotonic()
    try:
        r = run(args.deals, args.seed, progress=prog.step, workers=workers, engine=args.engine,
                scheduler=args.scheduler)
    except RuntimeError as e:  # the optional engine is not installed
        if args.json:
            print(json.dumps({"error": {"kind": "usage", "message": str(e), "position": None}}))
        else:
            print(f"error: {e}", file=sys.stderr)
        return 2
    seconds = time.monotonic() - t
    if args.json:
        print(json.dumps(r.as_json()))
    else:
        print(f"{r.deals} deals (seed {args.seed}): {r.violations} violations, {r.completed} auctions completed, "
              f"{r.undefined_stops} stopped where the notes define no call, {r.none} hands fitting no call, "
              f"{r.several} hands fitting several  [{seconds:.1f} s, {workers} worker(s), {args.engine}]")
        for e in r.examples:
            print(f"  {e['kind']}: dealer {e['dealer']} '{e['auction']}' {e['seat']} {e['hand']}"
                  + (f" {e.get('calls') or e.get('problems')}" if e.get("calls") or e.get("problems") else ""))
        print(_coverage_text(r.coverage_json(), r.deals))
    return 1 if r.violations else 0


def _coverage_text(coverage: dict, deals: int) -> str:
    """The per-opening coverage table of a self-check."""
    lines = ["", "coverage: how many deals reached each opening, how they ended and how deep the opening side bid",
             f"  {'opening':<13} {'deals':>7} {'share':>7} {'completed':>10} {'undefined':>10} {'none':>6} "
             f"{'mean':>5} {'max':>4}  depth: deals"]
    for opening, c in coverage.items():
        depth = " ".join(f"{d}:{n}" for d, n in c["depth"].items())
        lines.append(f"  {opening:<13} {c['deals']:>7} {c['deals'] / max(deals, 1):>7.1%} {c['completed']:>10} "
                     f"{c['undefined_stops']:>10} {c['none']:>6} {c['mean_depth']:>5.2f} {c['max_depth']:>4}  {depth}")
    return "\n".join(lines)


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error on a command line with ``--json`` is a JSON object on stdout."""

    json_errors = False

    def error(self, message):
        if _Parser.json_errors:
            command = self.prog.split()[-1] if " " in self.prog else None
            obj = {"error": {"kind": "usage", "message": f"{self.prog}: {message}", "position": None}}
            if command == "infer":
                obj = _error_json("usage", obj["error"]["message"])
            print(json.dumps(obj))
            sys.exit(2)
        super().error(message)


def _count(text: str) -> int:
    """A whole number, at least 1 (of deals, of workers)."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"{n}: give at least 1")
    return n


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="canary-infer", description=DESCRIPTION,
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=f'Start with:  canary-infer infer "{EXAMPLE}"')
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    pi = sub.add_parser("infer", help="what each player can hold after an auction",
                        description="What each player can hold after an auction, exactly.",
                        epilog=INFER_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    pi.add_argument("auction", nargs="*", default=None,
                    help="the calls, e.g. \"2S P 2N P 3C\"; omit to read auctions from standard input")
    pi.add_argument("--dealer", default=None, choices=list("NESWnesw"),
                    help="who made the first call (default N; a PBN auction's tag names it)")
    pi.add_argument("--hand", metavar="SEAT:PBN", help="your own hand, e.g. S:KQ2.A87.QJ54.962 (S.H.D.C)")
    pi.add_argument("--json", action="store_true", help="machine-readable output (see the README's contract)")
    pi.set_defaults(func=cmd_infer)

    pb = sub.add_parser("bid", help="the call the system makes with a hand",
                        description="The call the system makes with this hand at this point: ok (one call fits), "
                                    "several (all that fit, with why), none, or undefined.",
                        epilog='examples:\n  canary-infer bid KJ2.QJ3.KJ32.A32\n'
                               '  canary-infer bid AQJ83.2.K4.QT932 --auction "P P"\n'
                               '  canary-infer bid KQ876.AK2.8.8765 --auction "2S P 2N P" --json',
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    pb.add_argument("hand", help="13 cards in PBN order S.H.D.C, e.g. AKQ83.J2.K4.QT92")
    pb.add_argument("--auction", default="", help="the calls so far (default: none; the hand is the dealer's)")
    pb.add_argument("--dealer", default="N", choices=list("NESWnesw"))
    pb.add_argument("--json", action="store_true")
    pb.set_defaults(func=cmd_bid)

    pv = sub.add_parser("verify-relays", help="prove every relay tree: coverage, overlaps, resolved patterns",
                        description="Walk every relay tree in the system files. At each relay, prove that the "
                                    "answers cover every hand that reaches it (a gap comes with a hand that fits "
                                    "none) and that no hand fits two (an overlap comes with such a hand); at each "
                                    "leaf give the exact patterns left, whether the shape is resolved and the "
                                    "exact share of the tree's hands that end there.",
                        epilog='examples:\n  canary-infer verify-relays\n  canary-infer verify-relays "2S P 2N" --json',
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    pv.add_argument("start", nargs="*", help='where a tree starts, e.g. "2S P 2N" (default: every tree)')
    pv.add_argument("--json", action="store_true")
    pv.add_argument("--progress", action="store_true", default=None, help="show progress even when not a terminal")
    pv.set_defaults(func=cmd_verify_relays)

    pc = sub.add_parser("check-system", help="gaps and overlaps at every point of the system",
                        description="Check every point of the call tree: no hand may fit two calls (overlaps), "
                                    "and where the calls are meant to cover all hands (relay and schedule answers, "
                                    "points marked 'covers' such as the openings) every hand must fit one (gaps). "
                                    "Each finding comes with a witness hand.",
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    pc.add_argument("--json", action="store_true")
    pc.add_argument("--all", action="store_true", help="also list overlaps with calls that state nothing")
    pc.add_argument("--progress", action="store_true", default=None)
    pc.set_defaults(func=cmd_check_system)

    ps = sub.add_parser("selfcheck", help="bid random deals, infer, and check every hand lies inside",
                        description="Deal random deals, let the bidder bid all four hands until the auction ends "
                                    "or reaches a point the notes leave undefined, infer from the auction, and "
                                    "check that every actual hand lies inside what was inferred for its seat. "
                                    "Exit status 1 if any hand does not.",
                        epilog="The deals are a function of --seed only (any whole number; -1 and 1 differ): the "
                               "result is the same whatever --workers or --engine.\n\n"
                               "examples:\n  canary-infer selfcheck --deals 10000 --seed 1\n"
                               "  canary-infer selfcheck --deals 100000 --workers 2 --progress\n"
                               "  canary-infer selfcheck --deals 1000000 --engine dask --scheduler tcp://10.0.0.5:8786"
                               "   (pip install 'canary-infer[dask]')",
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    ps.add_argument("--deals", type=_count, default=1000, help="how many deals (default 1000)")
    ps.add_argument("--seed", type=int, default=1, help="the random seed (default 1)")
    ps.add_argument("--workers", type=_count, default=None,
                    help="processes to check deals in (default: the machine's cores)")
    ps.add_argument("--engine", choices=["local", "dask"], default="local",
                    help="local processes (default), or a Dask cluster (the optional extra 'dask'); "
                         "Ray is not supported")
    ps.add_argument("--scheduler", metavar="ADDRESS", default=None,
                    help="with --engine dask: the scheduler's address (default: start a local cluster "
                         "of --workers processes)")
    ps.add_argument("--json", action="store_true")
    ps.add_argument("--progress", action="store_true", default=None)
    ps.set_defaults(func=cmd_selfcheck)
    return p


def main(argv=None) -> int:
    """The command line; ends quietly (no traceback) on a closed pipe or an interrupt."""
    try:
        return _main(argv)
    except BrokenPipeError:
        # the reader went away (`| head`): stop writing, and keep Python from complaining at exit
        try:
            import os

            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass
        return 141  # as a program stopped by SIGPIPE
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


def _main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    _Parser.json_errors = "--json" in argv
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    if args.command == "infer" and not args.auction:
        args.auction = None
    problem = _environment_problem()
    if problem is not None:
        if getattr(args, "json", False):
            obj = {"error": {"kind": "usage", "message": problem, "position": None}}
            print(json.dumps(_error_json("usage", problem) if args.command == "infer" else obj))
        else:
            print(f"error: {problem}", file=sys.stderr)
        return 2
    return args.func(args)


def _environment_problem() -> str | None:
    """A setting in the environment that cannot be followed (checked before any work starts)."""
    from .cache import CacheConfigError, folder

    try:
        folder()
    except CacheConfigError as e:
        return str(e)
    return None


if __name__ == "__main__":
    sys.exit(main())
