"""The command line: ``canary-infer infer AUCTION`` and friends.

Run ``canary-infer --help`` or ``canary-infer infer --help``.
"""

from __future__ import annotations

import argparse
import json
import sys

from .auction import SEATS, Auction, AuctionError
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
  printf '1S\\n2S P 2N\\n' | canary-infer infer --json   batch: one JSON object per line

Calls: 1C..7N (1NT also), P or Pass, X or Dbl, XX or Rdbl, any case, separated by spaces,
commas or dashes.  Patterns are written spades-hearts-diamonds-clubs.  Exit status: 0, or 2
for an unreadable or illegal auction or hand (in batch mode bad lines get an error object
and the batch goes on)."""


def _error_json(kind: str, message: str, position=None, auction=None, dealer="N") -> dict:
    return {"auction": auction, "dealer": dealer, "calls": [], "hands": {},
            "error": {"kind": kind, "message": message, "position": position}}


SYSTEM_HELP = ("the folder of .canary files to read (default: $CANARY_SYSTEM, else the built-in system; "
               "'builtin' names the built-in one)")


def _add_system_option(p) -> None:
    p.add_argument("--system", metavar="DIR", default=None, help=SYSTEM_HELP)


def _load_system(args, empty: dict | None = None):
    """The system the command reads (``--system``, ``$CANARY_SYSTEM`` or the built-in files), or
    None after reporting why it cannot be read: on stderr, or as a JSON error object with
    ``--json`` (``empty`` gives the command's other keys)."""
    from .system import SystemFileError
    from .systemdir import SystemDirError, choose, error_json, load

    try:
        return load(choose(getattr(args, "system", None)))
    except (SystemDirError, SystemFileError) as e:
        if getattr(args, "json", False):
            print(json.dumps({**(empty or {}), "error": error_json(e)}))
        else:
            print(f"error: cannot read the system: {e}", file=sys.stderr)
        return None


def _parse_known(text: str | None):
    if not text:
        return None
    if ":" not in text:
        raise CardError(f"--hand wants SEAT:PBN, e.g. S:KQ2.A87.QJ54.962, got '{text}'")
    seat, pbn = text.split(":", 1)
    seat = seat.strip().upper()
    if seat not in SEATS:
        raise CardError(f"unknown seat '{seat}' in --hand (use N, E, S or W)")
    return seat, Hand.from_pbn(pbn.strip())


def add_play_options(p: argparse.ArgumentParser) -> None:
    """Who plays the system, vulnerability, the files' options and extensions."""
    p.add_argument("--we", choices=["NS", "EW"], type=str.upper,
                   help="only this pair plays the system (default: both); the other pair's calls add nothing")
    p.add_argument("--vul", choices=["none", "NS", "EW", "both"], type=lambda v: v if v in ("none", "both")
                   else v.upper(), help="vulnerability (default unknown: rules that depend on it add nothing)")
    p.add_argument("--option", action="append", default=[], metavar="NAME",
                   help="turn on an option the system files declare (repeatable)")
    p.add_argument("--extensions", action="store_true",
                   help="also use calls marked 'extension' (meanings the notes do not give)")


def configured(system, args):
    """The system with the options and extensions the command line asks for."""
    system.configure(extensions=bool(getattr(args, "extensions", False)), options=set(getattr(args, "option", [])))
    return system


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
    if getattr(inf, "trump", None):
        lines += ["", f" Agreed trumps: {inf.trump}"]
    lines += ["", " seat  HCP     S     H     D     C    patterns (most frequent first)"]
    for seat in SEATS:
        h = inf.hands[seat]
        if not h.consistent:
            why = ""
            if h.conflict:
                why = ": " + " and ".join(f"{inf.calls[i].call} (call {i + 1})" for i in h.conflict) + " contradict"
            lines.append(f" {seat}     no hand fits these calls{why}")
            continue
        lens = "".join(f"{_fmt_range(h.lengths[s]):<6}" for s in "SHDC")
        pats = " ".join(h.patterns[:8]) + (f" … ({len(h.patterns)} patterns)" if len(h.patterns) > 8 else "")
        tag = " (your hand)" if h.known else ""
        lines.append(f" {seat}     {_fmt_range(h.hcp):<7} {lens} {pats}{tag}")
    if any(not c.defined for c in inf.calls):
        lines += ["", " ? = the system notes give this call no meaning here: it adds no constraint."]
    return "\n".join(lines)


def _infer_one(inferencer, text: str, dealer: str, known, as_json: bool):
    """Returns (output text, ok)."""
    try:
        auction = Auction.parse(text, dealer=dealer)
    except AuctionError as e:
        if as_json:
            return json.dumps(_error_json(e.kind, str(e), e.position, text.split(), dealer)), False
        return f"error ({e.kind}): {e}", False
    inf = inferencer.infer(auction, known)
    if as_json:
        return json.dumps(inf.as_json()), True
    return render_text(inf), True


def cmd_infer(args) -> int:
    from .infer import Inferencer

    try:
        known = _parse_known(args.hand)
    except CardError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    dealer = args.dealer.upper()
    system = _load_system(args, {"auction": " ".join(args.auction).split() if args.auction else None,
                                 "dealer": dealer, "calls": [], "hands": {}})
    if system is None:
        return 2
    try:
        inferencer = Inferencer(configured(system, args), we=args.we, vul=args.vul)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.auction is None:
        # batch mode: one auction per line in, one JSON object (or report) per line out
        for line in sys.stdin:
            text = line.strip()
            out, _ = _infer_one(inferencer, text, dealer, known, as_json=args.json or True)
            print(out if args.json else out, flush=True)
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
    system = _load_system(args, {"status": "error", "calls": []})
    if system is None:
        return 2
    try:
        system = configured(system, args)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    r = Bidder(system, we=args.we).bid(hand, auction)
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
    from .infer import Inferencer
    from .verify import Verifier

    system = _load_system(args, {"trees": []})
    if system is None:
        return 2
    prog = Progress(args.progress)
    v = Verifier(Inferencer(system), progress=prog.say)
    try:
        starts = [" ".join(Auction.parse(s).calls and [str(c) for c in Auction.parse(s).calls]) for s in args.start]
    except AuctionError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    trees = v.relay_trees(starts or None)
    prog.done()
    if args.start and not trees:
        print(f"error: no relay tree starts at {', '.join(args.start)}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"trees": [t.as_json() for t in trees]}))
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
        calls = (" / ".join(f.calls) if kind == "overlap" else "taken by " + " ".join(f.calls)
                 if kind == "settled gap" else "none of " + " ".join(f.calls))
        out.append(f"  {kind} at {where}: {calls}{extra}\n      e.g. {f.hand}; patterns {' '.join(f.patterns[:6])}"
                   f"{' ...' if len(f.patterns) > 6 else ''}; {f.hands:,} hands {f.note}")
    return out


def cmd_check_system(args) -> int:
    from .infer import Inferencer
    from .verify import Verifier

    system = _load_system(args, {"nodes": 0, "gaps": [], "overlaps": []})
    if system is None:
        return 2
    prog = Progress(args.progress)
    v = Verifier(Inferencer(system), progress=prog.say)
    r = v.check_system()
    prog.done()
    if args.json:
        print(json.dumps({"nodes": r["nodes"], "gaps": [g.as_json() for g in r["gaps"]],
                          "overlaps": [o.as_json() for o in r["overlaps"]],
                          "settled": [g.as_json() for g in r.get("settled", [])]}))
        return 0
    real = [o for o in r["overlaps"] if not o.unconstrained]
    loose = [o for o in r["overlaps"] if o.unconstrained]
    print(f"{r['nodes']} points checked: {len(r['gaps'])} gaps, {len(real)} overlaps between calls that both "
          f"state something, {len(loose)} more with a call that states nothing about the hand")
    print("\n".join(_finding_lines("gap", r["gaps"])))
    print("\n".join(_finding_lines("overlap", real)))
    if r.get("settled"):
        print(f"{len(r['settled'])} gaps of the notes' words that the files settle with an 'unless' clause:")
        print("\n".join(_finding_lines("settled gap", r["settled"])))
    if loose and args.all:
        print("\n".join(_finding_lines("overlap", loose)))
    elif loose:
        print(f"  ({len(loose)} overlaps with unconstrained calls not listed: --all lists them)")
    return 0


def cmd_selfcheck(args) -> int:
    from .infer import Inferencer
    from .selfcheck import run

    system = _load_system(args, {"deals": 0})
    if system is None:
        return 2
    prog = Progress(args.progress)
    r = run(args.deals, args.seed, inferencer=Inferencer(system), progress=prog.step)
    if args.json:
        print(json.dumps(r.as_json()))
    else:
        print(f"{r.deals} deals (seed {args.seed}): {r.violations} violations, {r.completed} auctions completed, "
              f"{r.undefined_stops} stopped where the notes define no call, {r.none} hands fitting no call, "
              f"{r.several} hands fitting several")
        for e in r.examples:
            print(f"  {e['kind']}: dealer {e['dealer']} '{e['auction']}' {e['seat']} {e['hand']}"
                  + (f" {e.get('calls') or e.get('problems')}" if e.get("calls") or e.get("problems") else ""))
    return 1 if r.violations else 0


DIFF_DESCRIPTION = """\
Compare two system folders call by call: the calls added or removed, and for every call
whose constraint changed, in each chair where it did, what changed for the hands that make
it at that point (its constraint and the caller's earlier calls, as 'infer' reads them):
the HCP and suit-length ranges before and after, the patterns gained and lost, the exact
number of hands gained and lost, and a typical hand of each.  A constraint written
differently that the same hands satisfy is reported as rewritten, a change of words only
as reworded.  Exit status as diff: 0 if every call is made with the same hands, 1 if not,
2 on an error."""


def cmd_diff_system(args) -> int:
    from .diffsys import diff_systems, render_text
    from .system import SystemFileError
    from .systemdir import SystemDirError, SystemSource, choose, error_json, load

    def fail(message: str, e: Exception | None = None) -> int:
        if args.json:
            err = error_json(e) if e is not None else {"kind": "usage", "message": message, "path": None, "line": None}
            print(json.dumps({"error": err}))
        else:
            print(f"error: {message}", file=sys.stderr)
        return 2

    if len(args.folders) > 2:
        return fail("diff-system takes two system folders, OLD and NEW (or one, NEW, against the system in use)")
    if len(args.folders) == 2 and args.system is not None:
        return fail("give OLD and NEW, or --system OLD and NEW, not both")
    if len(args.folders) == 2:
        sources = [choose(f, environ={}, origin="argument") for f in args.folders]
    else:
        sources = [choose(args.system), choose(args.folders[0], environ={}, origin="argument")]
    systems = []
    for src in sources:
        try:
            systems.append(load(src) if src.directory is not None else load(SystemSource(None)))
        except (SystemDirError, SystemFileError) as e:
            return fail(f"cannot read the system: {e}", e)
    prog = Progress(args.progress)
    d = diff_systems(systems[0], systems[1], sources[0].describe(), sources[1].describe(), progress=prog.say,
                     example_seconds=args.seconds)
    prog.done()
    print(json.dumps(d.as_json()) if args.json else render_text(d))
    return 0 if d.same else 1


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="canary-infer", description=DESCRIPTION,
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=f'Start with:  canary-infer infer "{EXAMPLE}"')
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    pi = sub.add_parser("infer", help="what each player can hold after an auction",
                        description="What each player can hold after an auction, exactly.",
                        epilog=INFER_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    pi.add_argument("auction", nargs="*", default=None,
                    help="the calls, e.g. \"2S P 2N P 3C\"; omit to read auctions from standard input")
    pi.add_argument("--dealer", default="N", choices=list("NESWnesw"), help="who made the first call (default N)")
    pi.add_argument("--hand", metavar="SEAT:PBN", help="your own hand, e.g. S:KQ2.A87.QJ54.962 (S.H.D.C)")
    pi.add_argument("--json", action="store_true", help="machine-readable output (see the README's contract)")
    add_play_options(pi)
    _add_system_option(pi)
    pi.set_defaults(func=cmd_infer)

    pb = sub.add_parser("bid", help="the call the system makes with a hand",
                        description="The call the system makes with this hand at this point: ok (one call fits), "
                                    "several (all that fit, with why), none, or undefined.",
                        epilog='examples:\n  canary-infer bid KJ2.QJ3.KJ32.A32\n'
                               '  canary-infer bid AQJ83.2.K4.QT932 --auction "P P"\n'
                               '  canary-infer bid KQ876.AK.8.8765 --auction "2S P 2N P" --json',
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    pb.add_argument("hand", help="13 cards in PBN order S.H.D.C, e.g. AKQ83.J2.K4.QT92")
    pb.add_argument("--auction", default="", help="the calls so far (default: none; the hand is the dealer's)")
    pb.add_argument("--dealer", default="N", choices=list("NESWnesw"))
    pb.add_argument("--json", action="store_true")
    add_play_options(pb)
    _add_system_option(pb)
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
    _add_system_option(pv)
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
    _add_system_option(pc)
    pc.set_defaults(func=cmd_check_system)

    ps = sub.add_parser("selfcheck", help="bid random deals, infer, and check every hand lies inside",
                        description="Deal random deals, let the bidder bid all four hands until the auction ends "
                                    "or reaches a point the notes leave undefined, infer from the auction, and "
                                    "check that every actual hand lies inside what was inferred for its seat. "
                                    "Exit status 1 if any hand does not.",
                        epilog="example:\n  canary-infer selfcheck --deals 10000 --seed 1",
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    ps.add_argument("--deals", type=int, default=1000)
    ps.add_argument("--seed", type=int, default=1)
    ps.add_argument("--json", action="store_true")
    ps.add_argument("--progress", action="store_true", default=None)
    _add_system_option(ps)
    ps.set_defaults(func=cmd_selfcheck)

    pd = sub.add_parser("diff-system", help="what changed between two versions of the system files",
                        usage="canary-infer diff-system [-h] [--json] [--seconds S] [--progress] [--system DIR] "
                              "[OLD] NEW",
                        description=DIFF_DESCRIPTION,
                        epilog="examples:\n  cp -r \"$(python -c 'import canary_infer.systemdir as s; "
                               "print(s.builtin_folder())')\" mine\n"
                               "  canary-infer diff-system builtin mine       what my edits change\n"
                               "  canary-infer diff-system mine               the same, against $CANARY_SYSTEM "
                               "or the built-in system\n"
                               "  canary-infer diff-system old new --json",
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    pd.add_argument("folders", nargs="+", metavar="[OLD] NEW",
                    help="the two system folders ('builtin' names the built-in system); with only NEW, OLD is "
                         "the system in use (--system, else $CANARY_SYSTEM, else the built-in one)")
    pd.add_argument("--json", action="store_true", help="machine-readable output (stable keys, see the README)")
    pd.add_argument("--seconds", type=float, default=5.0, metavar="S",
                    help="time limit for finding each example hand (default 5)")
    pd.add_argument("--progress", action="store_true", default=None, help="show progress even when not a terminal")
    _add_system_option(pd)
    pd.set_defaults(func=cmd_diff_system)
    return p


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    if args.command == "infer" and not args.auction:
        args.auction = None
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
