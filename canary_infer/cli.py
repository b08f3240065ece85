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
  canary-infer infer "1S P 2S" --hand S:KQ2.A87.QJ54.962 --prob   exact probabilities for every seat
  canary-infer infer "1S" --ask "N: H >= 4" --ask "E: hcp >= 10"   the chance of anything you can write
  printf '1S\\n2S P 2N\\n' | canary-infer infer --json   batch: one JSON object per line

Every seat's answer takes every other seat's calls into account, and that the four hands
share the deck: a range or pattern shown is held in some deal that fits all the calls, and
nothing that fits is left out.  With two or more unseen seats constrained (competition,
passes that deny an opening), what could not be proven within the time limit is marked *;
probabilities there are estimated from deals drawn exactly, with their standard errors.

Calls: 1C..7N (1NT also), P or Pass, X or Dbl, XX or Rdbl, any case, separated by spaces,
commas or dashes.  Patterns are written spades-hearts-diamonds-clubs.  Exit status: 0, or 2
for an unreadable or illegal auction or hand (in batch mode bad lines get an error object
and the batch goes on)."""


def _error_json(kind: str, message: str, position=None, auction=None, dealer="N") -> dict:
    return {"auction": auction, "dealer": dealer, "calls": [], "hands": {}, "deals": None,
            "error": {"kind": kind, "message": message, "position": position}}


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
        star = "*" if getattr(h, "proven", True) is False else " "
        lines.append(f" {seat}   {star} {_fmt_range(h.hcp):<7} {lens} {pats}{tag}")
    if getattr(inf, "no_deal", False):
        lines += ["", " No deal fits all these calls together, though each seat's calls fit on their own."]
    if any(not c.defined for c in inf.calls):
        lines += ["", " ? = the system notes give this call no meaning here: it adds no constraint."]
    open_ = [(s, inf.hands[s].unproven) for s in SEATS if getattr(inf.hands[s], "unproven", None)]
    if open_:
        lines += ["", " * = not proven within the time limit, so kept (nothing that fits is left out): "
                  + "; ".join(f"{s} {', '.join(u[:3])}{' …' if len(u) > 3 else ''}" for s, u in open_)]
    return "\n".join(lines)


def _infer_one(inferencer, text: str, dealer: str, known, as_json: bool, prob: bool = False, asks=(),
               samples: int = 20000):
    """Returns (output text, ok)."""
    try:
        auction = Auction.parse(text, dealer=dealer)
    except AuctionError as e:
        if as_json:
            return json.dumps(_error_json(e.kind, str(e), e.position, text.split(), dealer)), False
        return f"error ({e.kind}): {e}", False
    inf = inferencer.infer(auction, known, prob=prob, asks=list(asks), samples=samples, joint=True)
    if as_json:
        return json.dumps(inf.as_json()), True
    out = render_text(inf)
    if prob or asks:
        out += "\n" + render_probabilities(inf)
    return out, True


# --------------------------------------------------------------------------- probabilities, readably
_SPARK = " ▁▂▃▄▅▆▇█"


def _spark(values: list[float]) -> str:
    top = max(values) if values else 0
    if top <= 0:
        return ""
    return "".join(_SPARK[min(8, max(1 if v > 0 else 0, round(8 * v / top)))] for v in values)


def _bar(p: float, width: int = 20) -> str:
    eighths = round(p * width * 8)
    full, part = divmod(eighths, 8)
    return "█" * full + ("▏▎▍▌▋▊▉"[part - 1] if part else "")


def _pct(p: float, se: float | None = None) -> str:
    text = f"{100 * p:5.1f}%"
    return text + (f" ±{100 * se:.1f}" if se is not None else "")


def render_probabilities(inf) -> str:
    """Per seat: an HCP histogram, each suit's length as a small histogram, the likeliest
    patterns with bars; then the answers to --ask."""
    lines = [""]
    for seat in SEATS:
        h = inf.hands[seat]
        d = h.distribution
        if d is None or h.known or not h.consistent or not d.total:
            continue
        probs = d.probabilities()
        se = d.standard_errors()
        hp = probs["hcp"]
        lo, hi = min(map(int, hp)), max(map(int, hp))
        mean = sum(int(k) * v for k, v in hp.items())
        tag = "exact" if d.exact else f"estimated from {d.total:,} deals drawn, ± one standard error"
        lines.append(f" {seat}  HCP {lo:>2} {_spark([hp.get(str(v), 0.0) for v in range(lo, hi + 1)])} {hi:<2}"
                     f"  mean {mean:.1f}   ({tag})")
        parts = []
        for s in "SHDC":
            ls = probs["lengths"][s]
            a, b = min(map(int, ls)), max(map(int, ls))
            likeliest = max(ls, key=ls.get)
            parts.append(f"{s} {a}{_spark([ls.get(str(v), 0.0) for v in range(a, b + 1)])}{b}"
                         f" ({likeliest}: {100 * ls[likeliest]:.0f}%)")
        lines.append("     " + "   ".join(parts))
        for pat, p in list(probs["patterns"].items())[:5]:
            e = se["patterns"][pat] if se else None
            lines.append(f"     {pat:<9} {_bar(p):<20} {_pct(p, e)}")
        more = len(probs["patterns"]) - 5
        if more > 0:
            rest = sum(list(probs["patterns"].values())[5:])
            lines.append(f"     {'others':<9} {_bar(rest):<20} {_pct(rest)}  ({more} more patterns)")
        lines.append("")
    for a in inf.asks:
        how = (f"exactly {a.count:,} of {a.of:,} deals" if a.exact
               else f"{a.count:,} of {a.of:,} deals drawn, ±{100 * (a.se or 0):.1f}")
        lines.append(f" {a.question:<28} {_bar(a.probability):<20} {_pct(a.probability)}   ({how})")
    if inf.deals is not None:
        lines.append(f" {inf.deals:,} deals fit the auction" + (" and your hand" if any(
            x.known for x in inf.hands.values()) else "") + ".")
    return "\n".join(lines).rstrip("\n")


def _parse_asks(texts, system) -> list:
    """'N: H >= 4' -> (text, seat, formula); raises ValueError with a clear message."""
    from .expr import ConstraintError, parse

    out = []
    for text in texts or []:
        seat, sep, rest = text.partition(":")
        seat = seat.strip().upper()
        if not sep or seat not in SEATS:
            raise ValueError(f"--ask wants 'SEAT: CONSTRAINT', e.g. \"N: H >= 4\", got '{text}'")
        try:
            f = parse(rest.strip(), system.definitions)
        except ConstraintError as e:
            raise ValueError(f"--ask '{text}': {e}") from None
        out.append((f"{seat}: {rest.strip()}", seat, f))
    return out


def cmd_infer(args) -> int:
    from .infer import Inferencer

    try:
        known = _parse_known(args.hand)
    except CardError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    inferencer = Inferencer()
    try:
        asks = _parse_asks(args.ask, inferencer.system)
    except ValueError as e:
        print(json.dumps(_error_json("ask", str(e))) if args.json else f"error: {e}",
              file=sys.stdout if args.json else sys.stderr)
        return 2
    dealer = args.dealer.upper()
    extra = {"prob": args.prob, "asks": asks, "samples": args.samples}
    if args.auction is None:
        # batch mode: one auction per line in, one JSON object (or report) per line out
        for line in sys.stdin:
            text = line.strip()
            out, _ = _infer_one(inferencer, text, dealer, known, as_json=args.json or True, **extra)
            print(out if args.json else out, flush=True)
        return 0
    text = " ".join(args.auction)
    out, ok = _infer_one(inferencer, text, dealer, known, args.json, **extra)
    print(out, file=sys.stdout if ok or args.json else sys.stderr)
    return 0 if ok else 2


DEAL_EPILOG = """\
examples:
  canary-infer deal "2S P 2N P 3C" -n 5                 five deals where opener shows this
  canary-infer deal "1S P 2S" -n 3 --hand S:KQ2.A87.QJ54.962 --seed 7
  canary-infer deal "2H P 2N P 3H" -n 100 --format pbn > boards.pbn
  canary-infer deal "P P 1S" -n 10 --format lin         BBO LIN, one deal per line

The deals are drawn uniformly from all deals consistent with the calls (and your hand): one
constrained seat's hand is built from its exact table, suit by suit, and the others are
dealt from what is left and kept only if their hands fit their calls.  The same seed gives
the same deals."""


def cmd_deal(args) -> int:
    from .dealing import FORMATS, deal
    from .infer import Inferencer

    try:
        known = _parse_known(args.hand)
        auction = Auction.parse(" ".join(args.auction), dealer=args.dealer.upper())
    except (CardError, AuctionError) as e:
        kind = getattr(e, "kind", None)
        print(f"error ({kind}): {e}" if kind else f"error: {e}", file=sys.stderr)
        return 2
    if args.n < 0:
        print("error: -n must be 0 or more", file=sys.stderr)
        return 2
    inf = Inferencer()
    ds = deal(auction, args.n, seed=args.seed, known=known, inferencer=inf, time_limit=args.time_limit)
    if len(ds.deals) < args.n:
        why = ("no deal fits these calls" if not ds.deals else
               f"only {len(ds.deals)} of {args.n} deals within {args.time_limit:g} s")
        print(f"warning: {why}", file=sys.stderr)
    if ds.deals:
        print(FORMATS[args.format](ds))
    return 0 if ds.deals or args.n == 0 else 1


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

    prog = Progress(args.progress)
    v = Verifier(progress=prog.say)
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
    from .selfcheck import run

    prog = Progress(args.progress)
    r = run(args.deals, args.seed, progress=prog.step)
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
    pi.add_argument("--prob", action="store_true",
                    help="each seat's distributions: suit lengths, HCP, patterns (exact counts where possible)")
    pi.add_argument("--ask", action="append", metavar='"SEAT: CONSTRAINT"',
                    help='the probability that a seat\'s hand satisfies a constraint, e.g. "N: H >= 4" (repeatable)')
    pi.add_argument("--samples", type=int, default=20000, metavar="N",
                    help="deals drawn for estimates where they are not exact (default 20000)")
    pi.set_defaults(func=cmd_infer)

    pd = sub.add_parser("deal", help="deals drawn uniformly from those consistent with an auction",
                        description="N deals drawn uniformly from all deals consistent with the auction "
                                    "(and your hand), reproducible by seed.",
                        epilog=DEAL_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    pd.add_argument("auction", nargs="+", help='the calls, e.g. "2S P 2N P 3C"')
    pd.add_argument("-n", type=int, default=1, help="how many deals (default 1)")
    pd.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    pd.add_argument("--hand", metavar="SEAT:PBN", help="your own hand, e.g. S:KQ2.A87.QJ54.962")
    pd.add_argument("--dealer", default="N", choices=list("NESWnesw"), help="who made the first call (default N)")
    pd.add_argument("--format", default="text", choices=["text", "pbn", "lin"], help="output format (default text)")
    pd.add_argument("--time-limit", type=float, default=120.0, metavar="S",
                    help="stop after S seconds with the deals found so far (default 120; a warning says so)")
    pd.set_defaults(func=cmd_deal)

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
                        epilog="example:\n  canary-infer selfcheck --deals 10000 --seed 1",
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    ps.add_argument("--deals", type=int, default=1000)
    ps.add_argument("--seed", type=int, default=1)
    ps.add_argument("--json", action="store_true")
    ps.add_argument("--progress", action="store_true", default=None)
    ps.set_defaults(func=cmd_selfcheck)
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
