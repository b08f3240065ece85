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
            lines.append(f" {seat}     no hand fits these calls")
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
    inferencer = Inferencer()
    dealer = args.dealer.upper()
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
    pi.set_defaults(func=cmd_infer)
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
