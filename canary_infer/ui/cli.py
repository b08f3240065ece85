"""The command line: ``canary-infer infer AUCTION`` and friends.

Run ``canary-infer --help`` or ``canary-infer infer --help``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from canary_infer.bridge.auction import SEATS, Auction, AuctionError, split_calls
from canary_infer.bridge.cards import CardError, Hand
from canary_infer.deal import DEFAULT_BUDGET

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
  canary-infer infer "1S P 2S" --hand S:K32.A87.J854.962 --prob   exact probabilities for every seat
  canary-infer infer "1S" --ask "N: H >= 4" --ask "E: hcp >= 10"   the chance of anything you can write
  printf '1S\\n2S P 2N\\n' | canary-infer infer --json   batch: one JSON object per line

files and formats (see the README):
  --pbn boards.pbn [--json] [-o annotated.pbn]   every board of a PBN file, each actual hand checked;
                                                 -o writes it back with each call's meaning as a note
  --lin boards.lin                               the same for BBO's LIN files
  "2S P 2N" --to pbn|lin|handviewer              the auction with its meanings, or a BBO handviewer link

Every seat's answer takes every other seat's calls into account, and that the four hands
share the deck: a range or pattern shown is held in some deal that fits all the calls, and
nothing that fits is left out.  With two or more unseen seats constrained (competition,
passes that deny an opening), what could not be proven within the time limit is marked *;
probabilities there are estimated from deals drawn exactly, with their standard errors.

Calls: 1C..7N (1NT also), P or Pass, X or Dbl, XX or Rdbl, any case, separated by spaces,
commas or dashes; or a PBN [Auction "SEAT"] section (in batch input a line starting with
'[' opens a PBN game, which runs to the next empty line).  Patterns are written
spades-hearts-diamonds-clubs.  Exit status: 0, or 2 for an unreadable or illegal auction or
hand (in batch mode bad lines, including lines that are not UTF-8, get an error object and
the batch goes on)."""


def _error_json(kind: str, message: str, position=None, auction=None, dealer="N") -> dict:
    return {"auction": auction, "dealer": dealer, "calls": [], "hands": {}, "trump": None, "deals": None,
            "error": {"kind": kind, "message": message, "position": position}}


SYSTEM_HELP = ("the folder of .canary files to read (default: $CANARY_SYSTEM, else the built-in system; "
               "'builtin' names the built-in one)")


def _add_system_option(p) -> None:
    p.add_argument("--system", metavar="DIR", default=None, help=SYSTEM_HELP)


def _load_system(args, empty: dict | None = None):
    """The system the command reads (``--system``, ``$CANARY_SYSTEM`` or the built-in files), or
    None after reporting why it cannot be read: on stderr, or as a JSON error object with
    ``--json`` (``empty`` gives the command's other keys)."""
    from canary_infer.system.folders import SystemDirError, choose, error_json
    from canary_infer.system.model import SystemFileError
    from canary_infer.tools.loader import load

    try:
        system = load(choose(getattr(args, "system", None)))
        if _PROCESS["own"]:
            # a process of its own: the system's ~40,000 objects live as long as it does, so
            # the collector need not walk them again (each of its collections did, ~1 ms)
            import gc

            gc.freeze()
        return system
    except (SystemDirError, SystemFileError) as e:
        if getattr(args, "json", False):
            print(json.dumps({**(empty or {}), "error": error_json(e)}))
        else:
            print(f"error: cannot read the system: {e}", file=sys.stderr)
        return None


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

    def named(positions) -> str:
        return " and ".join(f"{inf.calls[i].call} (call {i + 1})" for i in positions)

    for seat in SEATS:
        h = inf.hands[seat]
        if h.known and not h.consistent:
            lines.append(f" {seat}     your hand {h.hand} cannot have made these calls: it breaks "
                         f"{named(h.breaks)} (your hand)")
            continue
        if h.no_deal_because:
            lines.append(f" {seat}     no deal: {_no_deal_words(inf, h.no_deal_because)}")
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
        star = "*" if getattr(h, "proven", True) is False else " "
        lines.append(f" {seat}   {star} {_fmt_range(h.hcp):<7} {lens} {pats}{tag}")
    if getattr(inf, "no_deal", False):
        lines += ["", " No deal fits all these calls together, though each seat's calls fit on their own."]
    lines += _slam_lines(inf)
    if any(not c.defined for c in inf.calls):
        lines += ["", " ? = the system notes give this call no meaning here: it adds no constraint."]
    open_ = [(s, inf.hands[s].unproven) for s in SEATS if getattr(inf.hands[s], "unproven", None)]
    if open_:
        lines += ["", " * = not proven within the time limit, so kept (nothing that fits is left out): "
                  + "; ".join(f"{s} {', '.join(u[:3])}{' …' if len(u) > 3 else ''}" for s, u in open_)]
    return "\n".join(lines)


def _no_deal_words(inf, seats: list[str]) -> str:
    """Why no deal fits, for the seats that hold nothing because of others."""
    mine = [s for s in seats if inf.hands[s].known]
    theirs = [s for s in seats if not inf.hands[s].known]
    parts = [f"your hand cannot have made {s}'s calls" for s in mine]
    parts += [f"no hand of {s} fits {s}'s calls" for s in theirs]
    return "; ".join(parts)


def _slam_lines(inf) -> list[str]:
    """Key cards, trump queen and controls of the seats whose calls (or hand) narrow them."""
    out = []
    if not inf.trump:
        return []
    for seat in SEATS:
        h = inf.hands[seat]
        f = getattr(h, "slam", None)
        if f is None or not h.consistent:
            continue
        wide = f.controls == (0, 12) and f.trump_queen is None and f.keycards in (None, (0, 5))
        if h.known or not wide:
            out.append(f"   slam {seat}: {f.describe()}")
    return (["", f" Slam ({'trumps ' + inf.trump if inf.trump else 'no suit agreed'}): key cards are the four aces "
             "and the trump king; controls count A=2, K=1"] + out) if out else []


def _infer_one(inferencer, text: str, dealer: str | None, known, as_json: bool, prob: bool = False, asks=(),
               samples: int = 20000):
    """Returns (output text, ok)."""
    try:
        auction = read_auction(text, dealer)
    except AuctionError as e:
        if as_json:
            calls = getattr(e, "calls", None) if _is_pbn(text) else split_calls(text)
            return json.dumps(_error_json(e.kind, str(e), e.position, calls, dealer or "N")), False
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
    from canary_infer.language.expr import ConstraintError, parse

    out = []
    for text in texts or []:
        seat, sep, rest = text.partition(":")
        seat = seat.strip().upper()
        shown = text if len(text) <= 60 else text[:57] + "..."
        if not sep or seat not in SEATS:
            raise ValueError(f"--ask wants 'SEAT: CONSTRAINT', e.g. \"N: H >= 4\", got '{shown}'")
        try:
            f = parse(rest.strip(), system.definitions)
        except ConstraintError as e:
            raise ValueError(f"--ask '{shown}': {e}") from None
        out.append((f"{seat}: {rest.strip()}", seat, f))
    return out


def _split_lines(chunks):
    """Lines of bytes ended by LF, CR LF or a lone CR (old Mac files), from chunks ended by LF."""
    for chunk in chunks:
        body = chunk[:-1] if chunk.endswith(b"\n") else chunk
        body = body[:-1] if body.endswith(b"\r") else body
        yield from body.split(b"\r")


def batch_records(stream):
    """The auctions of batch input: ``(line number, text, error)`` for each.

    One auction per line; a line starting with ``[`` opens a PBN game, which runs to the next
    empty line.  Empty lines and ``%`` comment lines between auctions are skipped.  The input
    is read as bytes and decoded line by line, so a line that is not UTF-8 gives an error
    (``text`` None) and the lines after it are still read."""
    buffer = getattr(stream, "buffer", None)
    lines = _split_lines(iter(buffer) if buffer is not None
                         else (line.encode("utf-8", "surrogateescape") for line in stream))
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
    from canary_infer.deal.infer import Inferencer

    if args.pbn or args.lin:
        if args.auction is not None or (args.pbn and args.lin):
            return _fail("give an AUCTION, --pbn FILE or --lin FILE: one of them")
        return cmd_infer_file(args)
    if args.output:
        return _fail("-o writes the boards of --pbn FILE or --lin FILE")
    if args.to and args.auction is None:
        print("error: --to writes the AUCTION given on the command line", file=sys.stderr)
        return 2
    if args.to:
        return cmd_infer_to(args)
    dealer = args.dealer.upper() if args.dealer else None
    try:
        known = _parse_known(args.hand)
    except CardError as e:
        if args.json:
            print(json.dumps(_error_json("hand", str(e), dealer=dealer or "N")))
        else:
            print(f"error: {e}", file=sys.stderr)
        return 2
    system = _load_system(args, {"auction": " ".join(args.auction).split() if args.auction else None,
                                 "dealer": dealer or "N", "calls": [], "hands": {}})
    if system is None:
        return 2
    try:
        inferencer = Inferencer(configured(system, args), we=args.we, vul=args.vul, budget=args.budget)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    try:
        asks = _parse_asks(args.ask, inferencer.system)
    except ValueError as e:
        print(json.dumps(_error_json("ask", str(e))) if args.json else f"error: {e}",
              file=sys.stdout if args.json else sys.stderr)
        return 2
    extra = {"prob": args.prob, "asks": asks, "samples": args.samples}
    if args.auction is None:
        # batch mode: one auction per line in, one JSON object per line out (always JSON)
        for no, text, err in batch_records(sys.stdin):
            if err is not None:
                obj = _error_json("syntax", err, None, None, dealer or "N")
            else:
                out, ok = _infer_one(inferencer, text, dealer, known, as_json=True, **extra)
                obj = None if ok else json.loads(out)
            if obj is not None:
                obj["error"]["line"] = no  # where the bad auction starts in the input
                out = json.dumps(obj)
            print(out, flush=True)
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
    from canary_infer.deal.dealing import FORMATS, deal
    from canary_infer.deal.infer import Inferencer

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
    system = _load_system(args)
    if system is None:
        return 2
    inf = Inferencer(system)
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


class _FileProblem(Exception):
    """A file given on the command line that cannot be read (reported, exit status 2)."""


MAX_FILE_BYTES = 64 * 2**20  # a PBN or LIN file larger than this is refused (a device such as /dev/zero has no end)


class _FileIn:
    """A PBN or LIN file as read: its text and how to write it back, the boards as the reader
    gave them (``raw``) and as the tools take them (``boards``)."""

    def __init__(self, path: str, fmt: str, text: str, enc, raw: list, boards: list):
        self.path, self.fmt, self.text, self.enc, self.raw, self.boards = path, fmt, text, enc, raw, boards


def _read_boards(args) -> _FileIn:
    """The boards of --pbn FILE or --lin FILE (with a per-board error for a game that cannot be
    read).  A file that cannot be read, is not text this tool reads (UTF-16) or holds no
    boards at all (a LIN file read as PBN, ...) is a :class:`_FileProblem`."""
    from canary_infer.bridge.lin import read_lin
    from canary_infer.bridge.pbn import read_pbn
    from canary_infer.bridge.textfile import EncodingProblem, decode
    from canary_infer.tools.boards import from_lin, from_pbn

    path = args.pbn or args.lin
    fmt = "pbn" if args.pbn else "lin"
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        raise _FileProblem(f"cannot read {path}: {e.strerror}") from None
    if len(data) > MAX_FILE_BYTES:
        raise _FileProblem(f"cannot read {path}: larger than {MAX_FILE_BYTES // 2**20} MB")
    try:
        text, enc = decode(data)
    except EncodingProblem as e:
        raise _FileProblem(f"cannot read {path}: {e}") from None
    if fmt == "pbn":
        raw = read_pbn(text, strict=False)
        boards = [from_pbn(b) for b in raw]
    else:
        raw = read_lin(text, strict=False)
        boards = [from_lin(b) for b in raw]
    if not boards:
        other = "a LIN file?" if fmt == "pbn" and "|" in text else "a PBN file?" if fmt == "lin" and "[" in text else ""
        raise _FileProblem(f"{path}: no boards found as {fmt.upper()}" + (f" ({other})" if other else ""))
    return _FileIn(path, fmt, text, enc, raw, boards)


def _fail(message: str, kind: str = "usage") -> int:
    if _Parser.json_errors:  # the command line has --json: the error is a JSON object too
        print(json.dumps({"error": {"kind": kind, "message": message, "position": None}}))
        return 2
    print(f"error: {message}", file=sys.stderr)
    return 2


def _check_output(args) -> str | None:
    """Whether -o OUT can be written, checked before any work (an error message, or None)."""
    from canary_infer.ui.output import OutputError, check_writable

    if not getattr(args, "output", None):
        return None
    try:
        check_writable(args.output)
    except OutputError as e:
        return str(e)
    return None


class Change:
    """What the tool does to one board: ``annotate`` (a note for each call that has none:
    ``notes``) or ``replace`` (the board's auction becomes ``auction`` with ``notes``, and
    ``comment`` says why it stops short)."""

    def __init__(self, kind: str, notes, auction=None, comment: str | None = None):
        self.kind, self.notes, self.auction, self.comment = kind, list(notes), auction, comment


def _output_bytes(src: _FileIn, changes: list, fmt: str) -> bytes:
    """The file to write: in the input's format, the input with the changes made in place
    (byte for byte the input where nothing changes, in its character set); in the other
    format, the boards written afresh (UTF-8).

    :raises _FileProblem: when what would be written does not read back as meant (nothing is
        then written)."""
    from canary_infer.bridge import lin, pbn
    from canary_infer.bridge.textfile import encode

    if fmt == src.fmt == "pbn":
        games = {}
        for i, (b, c) in enumerate(zip(src.raw, changes, strict=True)):
            if c is None or b.error:
                continue
            games[i] = (pbn.annotate_auction(b, c.notes) if c.kind == "annotate" else
                        pbn.replace_auction(b, pbn.auction_section(c.auction, c.notes, comment=c.comment)))
        text = pbn.splice(src.text, src.raw, games)
        _verify(src, changes, pbn.read_pbn(text, strict=False))
        return encode(text, src.enc)
    if fmt == src.fmt == "lin":
        edits = []
        for b, c in zip(src.raw, changes, strict=True):
            if c is None or b.error:
                continue
            edits += (lin.explain(b, c.notes) if c.kind == "annotate" else
                      lin.replace_calls(b, c.auction, c.notes, c.comment))
        text = lin.apply_edits(src.text, edits)
        _verify(src, changes, lin.read_lin(text, strict=False))
        return encode(text, src.enc)
    out = []
    for b, c in zip(src.boards, changes, strict=True):
        if b.error:
            continue
        auction, notes, comment = b.auction, b.notes, None
        if c is not None and c.kind == "replace":
            auction, notes, comment = c.auction, c.notes, c.comment
        elif c is not None:
            notes = [old or (c.notes[i] if i < len(c.notes) else None) for i, old in enumerate(b.notes)]
        if fmt == "lin":  # a LIN board is its deal (md|): one with no hand known is left out
            if auction is not None and b.deal is not None and any(b.deal[s] is not None for s in SEATS):
                players = [b.players.get(s, n) for s, n in zip("SWNE", ("South", "West", "North", "East"), strict=True)]
                out.append(lin.write_lin(b.deal, auction, notes, b.number, b.vulnerable, players, comment) + "\n")
            continue
        tags = [("Board", b.number)] if b.number else []
        tags += [("Dealer", auction.dealer if auction is not None else b.dealer), ("Vulnerable", b.vulnerable)]
        tags += [(name, b.players[seat]) for name, seat in (("West", "W"), ("North", "N"), ("East", "E"),
                                                           ("South", "S")) if seat in b.players]
        if b.deal is not None:
            tags.append(("Deal", b.deal.pbn()))
        out.append(pbn.game(tags, auction, notes, comment))
    return (pbn.write_pbn(out) if fmt == "pbn" else "".join(out)).encode("utf-8")


def _verify(src: _FileIn, changes: list, again: list) -> None:
    """What is written reads back: the same boards, each changed one without error and with the
    auction meant."""
    if len(again) != len(src.raw):
        raise _FileProblem(f"internal error: the output would hold {len(again)} boards, not {len(src.raw)}; "
                           "nothing written")
    for old, new, c in zip(src.raw, again, changes, strict=True):
        if c is None or old.error:
            continue
        want = c.auction if c.kind == "replace" else old.auction
        if new.error or new.auction != want:
            number = old.number if src.fmt == "pbn" else old.board
            raise _FileProblem(f"internal error: board {number or '?'} would not read back as meant "
                               f"({new.error or 'another auction'}); nothing written")


def _write_output(path: str, data: bytes) -> int | None:
    """Write the output (after all the work): an exit status on failure, else None."""
    from canary_infer.ui.output import OutputError, write_atomic

    try:
        write_atomic(path, data)
    except OutputError as e:
        return _fail(str(e))
    return None


def _board_text(report: dict, render) -> str:
    head = f"Board {report['board'] or '?'}  dealer {report['dealer']}  vulnerable {report['vulnerable']}"
    if report["error"]:
        return f"{head}\n  cannot read this board: {report['error']['message']}"
    if report["auction"] is None:
        return f"{head}\n  no auction" + (f"; deal {report['deal']}" if report["deal"] else "")
    lines = [head, render]
    for seat, c in report["checks"].items():
        if c["fits"]:
            lines.append(f"  {seat} {c['hand']} ({c['hcp']} HCP, {c['pattern']}) fits its calls")
        else:
            lines.append(f"  {seat} {c['hand']} ({c['hcp']} HCP, {c['pattern']}) does NOT fit:")
            lines += [f"      call {f['index'] + 1} {f['call']}: {f['words'] or f['meaning']}" for f in c["fails"]]
    return "\n".join(lines)


def _output_format(args, src: _FileIn) -> str:
    """The format -o writes: its extension's (.pbn, .lin), else the input's."""
    out = (args.output or "").lower()
    return "lin" if out.endswith(".lin") else "pbn" if out.endswith(".pbn") else src.fmt


def _start_file_command(args):
    """-o checked and the file read, before any work: (the file, None) or (None, exit status)."""
    # a file's bytes its character set cannot read are kept as they are (to write them back);
    # shown in a report, they are escaped rather than stopping it
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError, OSError):
            pass
    problem = _check_output(args)
    if problem is not None:
        return None, _fail(problem, "output")
    try:
        return _read_boards(args), None
    except _FileProblem as e:
        return None, _fail(str(e), "file")


def cmd_infer_file(args) -> int:
    """infer --pbn FILE / --lin FILE: every board's inference, each actual hand checked against it;
    with -o, the file written back with each call's meaning as a note (nothing else changed)."""
    from canary_infer.deal.infer import Inferencer
    from canary_infer.tools.boards import call_notes, infer_board

    src, status = _start_file_command(args)
    if src is None:
        return status
    system = _load_system(args)
    if system is None:
        return 2
    inferencer = Inferencer(system)
    changes = []
    for b in src.boards:
        report = infer_board(inferencer, b)
        if args.json:
            print(json.dumps(report), flush=True)
        else:
            text = render_text(inferencer.infer(b.auction)) if b.auction is not None and not b.error else ""
            print(_board_text(report, text) + "\n", flush=True)
        readable = b.auction is not None and not b.error
        changes.append(Change("annotate", call_notes(inferencer.infer(b.auction))) if readable else None)
    if args.output:
        try:
            data = _output_bytes(src, changes, _output_format(args, src))
        except _FileProblem as e:
            return _fail(str(e), "file")
        return _write_output(args.output, data) or 0
    return 0


def cmd_infer_to(args) -> int:
    """infer AUCTION --to pbn|lin|handviewer: the auction with each call's meaning."""
    from canary_infer.bridge.lin import handviewer_url, write_lin
    from canary_infer.bridge.pbn import game, write_pbn
    from canary_infer.deal.infer import Inferencer
    from canary_infer.tools.boards import call_notes

    try:
        auction = Auction.parse(" ".join(args.auction), dealer=(args.dealer or "N").upper())
    except AuctionError as e:
        return _fail(f"({e.kind}) {e}")
    system = _load_system(args)
    if system is None:
        return 2
    notes = call_notes(Inferencer(system).infer(auction))
    if args.to == "pbn":
        print(write_pbn([game([("Dealer", auction.dealer)], auction, notes)]).rstrip("\n"))
    elif args.to == "lin":
        print(write_lin(None, auction, notes))
    else:
        print(handviewer_url(None, auction, notes))
    return 0


def cmd_bid_file(args) -> int:
    """bid --pbn FILE [-o OUT]: bid every board with the system and write the auctions back
    (an auction stops, with a comment saying why, where a hand fits several calls or none)."""
    from canary_infer.bridge.lin import handviewer_url
    from canary_infer.deal.infer import Inferencer
    from canary_infer.tools.bidding import Bidder
    from canary_infer.tools.boards import bid_board

    src, status = _start_file_command(args)
    if src is None:
        return status
    boards = src.boards
    system = _load_system(args)
    if system is None:
        return 2
    inferencer = Inferencer(system)
    bidder = Bidder(inferencer.system)
    results, changes = [], []
    prog = Progress(getattr(args, "progress", None))
    for k, b in enumerate(boards):
        r = bid_board(inferencer, bidder, b) if not b.error else None
        results.append(r)
        changes.append(Change("replace", r.notes, r.auction, r.why_stopped())
                       if r is not None and r.auction is not None else None)
        prog.step(k + 1, len(boards))
    report = sys.stderr if args.output in (None, "-") and not args.json else sys.stdout
    counts = {"bid": 0, "none": 0, "several": 0, "undefined": 0, "unread": 0}
    for b, r in zip(boards, results, strict=True):
        name = f"Board {b.number or '?'}"
        if r is None:
            counts["unread"] += 1
            line = f"{name}: cannot read: {b.error}"
        elif r.stop == "no deal":
            counts["unread"] += 1
            line = f"{name}: no full deal to bid"
        else:
            counts["bid"] += 1
            auction = str(r.auction) or "(no call)"
            line = f"{name} (dealer {b.dealer}): {auction}"
            if r.stop == "undefined":
                counts["undefined"] += 1
                line += "  - then the notes define no call"
            if r.stop == "none":
                counts["none"] += 1
                line += f"  - {r.none_at[0]} ({r.none_at[1]}) fits no call here"
            for seat, hand, calls, at in r.several:
                counts["several"] += 1
                line += (f"  - {seat} ({hand}) after '{at or '(start)'}' fits several: {' '.join(calls)}; "
                         f"the auction stops there")
            if args.handviewer:
                line += "\n    " + handviewer_url(b.deal, r.auction, r.notes, b.number, b.vulnerable)
        if args.json:
            obj = r.as_json() if r is not None else {"board": b.number, "error": b.error}
            if r is not None and args.handviewer and r.auction is not None:
                obj["handviewer"] = handviewer_url(b.deal, r.auction, r.notes, b.number, b.vulnerable)
            print(json.dumps(obj), file=report)
        else:
            print(line, file=report)
    if not args.json:
        print(f"{len(boards)} boards: {counts['bid']} bid, {counts['none']} stopped at a hand fitting no call, "
              f"{counts['several']} stopped at a hand fitting several calls, {counts['undefined']} reached a point "
              f"the notes leave undefined, {counts['unread']} not bid (unreadable or no full deal)", file=report)
    try:
        data = _output_bytes(src, changes, _output_format(args, src))
    except _FileProblem as e:
        return _fail(str(e), "file")
    return _write_output(args.output or "-", data) or 0


def cmd_bid(args) -> int:
    from canary_infer.tools.bidding import Bidder

    if args.pbn or args.lin:
        if args.hand:
            return _fail("give a HAND or --pbn FILE, not both")
        return cmd_bid_file(args)
    if not args.hand:
        return _fail("give a HAND (e.g. AKQ83.J2.K4.QT92) or --pbn FILE")
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
        mark = "open" if c.judgement else "fits" if c.fits else "no  "
        print(f"  {mark} {c.call:<3} {c.meaning}" + (f"  [{c.source}]" if c.source else ""))
        if c.fits and c.constraint:
            print(f"         because {c.constraint}")
    return 0


def cmd_verify_relays(args) -> int:
    from canary_infer.deal.infer import Inferencer
    from canary_infer.tools.verify import Verifier

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
    system = _load_system(args, {"trees": []})
    if system is None:
        return 2
    prog = Progress(args.progress)
    v = Verifier(Inferencer(system), progress=prog.say)
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


def cmd_check_system(args) -> int:
    from canary_infer.deal.infer import Inferencer
    from canary_infer.tools.verify import Verifier, summary

    system = _load_system(args, {"nodes": 0, "gaps": [], "overlaps": []})
    if system is None:
        return 2
    prog = Progress(args.progress)
    v = Verifier(Inferencer(system), progress=prog.say)
    # without --all the families of loose overlaps get no witness; --every-witness: every finding one
    r = v.check_system(loose_witnesses=args.all, every_witness=args.every_witness)
    prog.done()
    head = summary(r)
    if args.json:  # the summary first, then the families, then every finding (each with its family)
        v.fill_patterns(r["gaps"] + r["overlaps"] + r.get("settled", []))
        print(json.dumps({"summary": head, "families": [f.as_json() for f in r["families"]],
                          "nodes": r["nodes"], "gaps": [g.as_json() for g in r["gaps"]],
                          "overlaps": [o.as_json() for o in r["overlaps"]],
                          "settled": [g.as_json() for g in r.get("settled", [])]}))
        return 0
    real = [o for o in r["overlaps"] if not o.unconstrained]
    loose = [o for o in r["overlaps"] if o.unconstrained]
    print(f"{r['nodes']} points checked: {len(r['gaps'])} gaps, {len(real)} overlaps between calls that both "
          f"state something, {len(loose)} more with a call that states nothing about the hand")
    fams = r["families"]
    shown = [f for f in fams if args.all or not f.unconstrained]
    for verdict in ("an encoding defect", "left open by the notes", "settled"):
        these = [f for f in shown if f.verdict == verdict]
        n = sum(f.count for f in these)
        print(f"{verdict}: {len(these)} families, {n} findings")
    for verdict, title in (("an encoding defect", "Encoding defects (fix the files)"),
                           ("left open by the notes", "Left open by the notes (their own gaps and contradictions)"),
                           ("settled", "Settled by a rule of the files")):
        these = [f for f in shown if f.verdict == verdict]
        if not these:
            continue
        print(f"\n{title}: one line per family (the same calls of the same lines of the files), its count "
              "and one witness")
        for f in these:
            print(_family_line(f))
    hidden = len([f for f in fams if f.unconstrained]) - len([f for f in shown if f.unconstrained])
    if hidden:
        print(f"\n({hidden} families of overlaps with a call that states nothing not listed: --all lists them)")
    return 0


def _family_line(f) -> str:
    x = f.first
    where = x.auction or "(opening)"
    calls = " / ".join(x.calls) if f.kind == "overlap" else ("taken by " if f.verdict == "settled" else "none of ") \
        + " ".join(x.calls)
    times = f"{f.count} x " if f.count > 1 else ""
    why = f"\n      {f.verdict}: {f.why}" if f.why else ""
    return (f"  {f.first.family} {times}{f.kind} {calls}  [{f.rule()}]\n      e.g. at {where}: {x.hand}; "
            f"patterns {' '.join(x.patterns[:6])}{' ...' if len(x.patterns) > 6 else ''}; {x.hands:,} hands"
            f"{' ' + x.note if x.note else ''}{why}")


def cmd_selfcheck(args) -> int:
    import time

    from canary_infer.deal.infer import Inferencer
    from canary_infer.tools.selfcheck import default_workers, run

    system = _load_system(args, {"deals": 0})
    if system is None:
        return 2
    workers = args.workers or default_workers()
    prog = Progress(args.progress)
    t = time.monotonic()
    try:
        r = run(args.deals, args.seed, inferencer=Inferencer(system), progress=prog.step, workers=workers,
                engine=args.engine, scheduler=args.scheduler, defenders=args.defenders)
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
              f"{r.competitive} competitive (the defenders bid), "
              f"{r.undefined_stops} stopped where the notes define no call, {r.none} hands fitting no call, "
              f"{r.several} hands fitting several  [{seconds:.1f} s, {workers} worker(s), {args.engine}]")
        for e in r.examples:
            print(f"  {e['kind']}: dealer {e['dealer']} '{e['auction']}' {e['seat']} {e['hand']}"
                  + (f" {e.get('calls') or e.get('problems')}" if e.get("calls") or e.get("problems") else ""))
        print(_coverage_text(r.coverage_json(), r.deals))
        top = r.several_points()[:30]
        if top:
            print("Where hands most often fit several calls (the point; hands; share of the hands there; calls):")
        for p in top:
            calls = ", ".join(f"{c} ({n})" for c, n in list(p["calls"].items())[:3])
            print(f"  '{p['point']}': {p['several']} of {p['reached']} ({p['share']:.1%}): {calls}")
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
    from canary_infer.system.folders import SystemDirError, SystemSource, choose, error_json
    from canary_infer.system.model import SystemFileError
    from canary_infer.tools.diff import diff_systems, render_text
    from canary_infer.tools.loader import load

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


EXPLAIN_EPILOG = f"""\
examples:
  canary-infer explain "{EXAMPLE}"
  canary-infer explain "2S P 2N P 3C" --hand S:AKQ.AKJT4.K.AKT7   an auction your hand makes impossible
  canary-infer explain "1S" --json

For each call: its meaning, what it says about the hand in plain words, the notes' line
([A123] = line 123 of the Canary Club notes), whether a vague word was interpreted, and how
the caller's HCP, suit lengths and patterns narrow.  Where no hand fits a seat, the calls
that contradict each other are named."""


def cmd_explain(args) -> int:
    from canary_infer.deal.infer import Inferencer
    from canary_infer.tools.explain import explain, render

    text = " ".join(args.auction)
    dealer = args.dealer.upper()
    try:
        known = _parse_known(args.hand)
        auction = Auction.parse(text, dealer=dealer)
    except AuctionError as e:
        if args.json:
            print(json.dumps({**_error_json(e.kind, str(e), e.position, split_calls(text), dealer), "steps": []}))
        else:
            print(f"error ({e.kind}): {e}", file=sys.stderr)
        return 2
    except CardError as e:
        if args.json:
            print(json.dumps({**_error_json("hand", str(e), None, split_calls(text), dealer), "steps": []}))
        else:
            print(f"error: {e}", file=sys.stderr)
        return 2
    system = _load_system(args, {**_error_json("system", "", None, split_calls(text), dealer), "steps": []})
    if system is None:
        return 2
    ex = explain(Inferencer(system), auction, known)
    print(json.dumps(ex) if args.json else render(ex))
    return 0


def load_system_dir(folder: str | None):
    """The system from ``--system DIR``, else ``$CANARY_SYSTEM``, else the built-in files.

    :raises _FileProblem: for a missing folder, one without system files, or a bad file."""
    from canary_infer.system.folders import SystemDirError, choose
    from canary_infer.system.model import SystemFileError
    from canary_infer.tools.loader import load

    try:
        return load(choose(folder))
    except (SystemDirError, SystemFileError) as e:
        raise _FileProblem(f"cannot read the system: {e}") from None


def cmd_export_system(args) -> int:
    from canary_infer.tools.export import export

    problem = _check_output(args) if args.output != "-" else None
    if problem:  # before any work: a folder, a missing folder, /dev/full
        return _fail(problem)
    try:
        system = load_system_dir(args.system)
    except _FileProblem as e:
        return _fail(str(e))
    progress = None
    if sys.stderr.isatty():  # the whole built-in tree takes seconds: say how far it has got
        def progress(n):
            sys.stderr.write(f"\r{n:,} calls written")
            sys.stderr.flush()
    try:
        text = export(system, args.format, progress, start=args.start, depth=args.depth, sources=args.sources)
    except ValueError as e:
        return _fail(str(e))
    if progress is not None:
        sys.stderr.write("\r\033[K")
    if args.output and args.output != "-":
        return _write_output(args.output, text.encode("utf-8")) or 0
    sys.stdout.write(text)
    return 0


def cmd_serve(args) -> int:
    try:
        system = load_system_dir(args.system)
    except _FileProblem as e:
        return _fail(str(e))
    from waitress import create_server

    from canary_infer.ui.web import WARM, create_app, fewer_malloc_arenas, prepare

    fewer_malloc_arenas()  # the threads share two malloc arenas (the memory stays lower)
    app = create_app(system, deals=args.deals, warm=WARM if args.warm else ())
    prepare(app)  # what the first request would pay, whatever it asks
    # waitress: a production WSGI server, its threads answering requests (the page computes one
    # position at a time under a lock and serves computed ones from its cache without waiting)
    server = create_server(app, host=args.host, port=args.port, threads=args.threads)
    print(f"Canary Club explorer on http://{args.host}:{server.effective_port}/  (Ctrl-C stops it)", file=sys.stderr)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
    return 0


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


def _columns() -> int:
    """The terminal's width as :func:`shutil.get_terminal_size` reads it ($COLUMNS, else the
    terminal of standard output, else 80)."""
    try:
        n = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        n = 0
    if n <= 0:
        try:
            n = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            n = 0
    return n or 80


class _Help(argparse.RawDescriptionHelpFormatter):
    """argparse's layout (descriptions and epilogs as written), with the width found without
    importing :mod:`shutil`, which argparse does for it: with bz2, lzma and zlib that is some 2 ms
    of every process, and nothing else in a command needs them."""

    def __init__(self, prog, indent_increment=2, max_help_position=24, width=None):
        super().__init__(prog, indent_increment, max_help_position, _columns() - 2 if width is None else width)


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

    def _print_message(self, message, file=None):
        """As argparse's, but a help that cannot be written to standard output says so
        (argparse drops the error: ``--help > /dev/full`` would end silently, with status 0)."""
        if message and file is sys.stdout:
            file.write(message)
            return
        super()._print_message(message, file)


def _whole(lo: int, hi: int):
    """An argparse type: a whole number from ``lo`` to ``hi``, in ASCII digits (no 4,301-digit
    number reaches int(), no other script's digits pass for ours)."""

    def read(text: str) -> int:
        t = text.strip()
        digits = t[1:] if t[:1] in "+-" else t
        if not digits or not digits.isascii() or not digits.isdigit():
            raise argparse.ArgumentTypeError(f"'{text[:20]}' is not a whole number")
        if len(digits) > len(str(hi)) + 1 or not lo <= int(t) <= hi:
            raise argparse.ArgumentTypeError(f"{t[:20]}: give a whole number from {lo:,} to {hi:,}")
        return int(t)

    return read


_count = _whole(1, 10_000_000)  # deals, workers: at least one, and no more than a machine can hold


def _seconds(text: str) -> float:
    """A positive number of seconds, at most 600 (a budget of work)."""
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number of seconds") from None
    if not 0 < x <= 600:  # also refuses nan and inf
        raise argparse.ArgumentTypeError(f"{text}: give more than 0 and at most 600 seconds")
    return x


def _options_infer(pi) -> None:
    pi.add_argument("auction", nargs="*", default=None,
                    help="the calls, e.g. \"2S P 2N P 3C\"; omit to read auctions from standard input")
    pi.add_argument("--dealer", default=None, choices=list("NESWnesw"),
                    help="who made the first call (default N; a PBN auction's tag names it)")
    pi.add_argument("--hand", metavar="SEAT:PBN", help="your own hand, e.g. S:KQ2.A87.QJ54.962 (S.H.D.C)")
    pi.add_argument("--json", action="store_true", help="machine-readable output (see the README's contract)")
    add_play_options(pi)
    pi.add_argument("--pbn", metavar="FILE", help="infer every board of a PBN file; each actual hand is checked")
    pi.add_argument("--lin", metavar="FILE", help="the same for a LIN file (BBO)")
    pi.add_argument("-o", "--output", metavar="OUT",
                    help="with --pbn/--lin: write the boards with each call's meaning as a note (.lin: LIN)")
    pi.add_argument("--to", choices=["pbn", "lin", "handviewer"],
                    help="print the AUCTION as PBN or LIN with each call's meaning, or as a BBO handviewer link")
    _add_system_option(pi)

    pi.add_argument("--prob", action="store_true",
                    help="each seat's distributions: suit lengths, HCP, patterns (exact counts where possible)")
    pi.add_argument("--ask", action="append", metavar='"SEAT: CONSTRAINT"',
                    help='the probability that a seat\'s hand satisfies a constraint, e.g. "N: H >= 4" (repeatable)')
    pi.add_argument("--samples", type=_whole(1, 200_000), default=20000, metavar="N",
                    help="deals drawn for estimates where they are not exact (default 20000; at most 100 N "
                         "are dealt, so deals rarer than that give fewer)")
    pi.add_argument("--budget", type=_seconds, default=DEFAULT_BUDGET, metavar="SECONDS",
                    help="work allowed, per auction, for the joint answer when two or more unseen seats "
                         "are constrained, their tables and the search for proofs together "
                         f"(default {DEFAULT_BUDGET:g}): every bound and pattern shown "
                         "is then attained by a deal the engine found, or refuted; what the budget leaves "
                         "open is kept as possible and listed as not proven. Counted in work, not read "
                         "off a clock, so the answer does not depend on the machine's load")
    pi.set_defaults(func=cmd_infer)


def _options_explain(pe) -> None:
    pe.add_argument("auction", nargs="+", help='the calls, e.g. "2S P 2N P 3C"')
    pe.add_argument("--dealer", default="N", choices=list("NESWnesw"), help="who made the first call (default N)")
    pe.add_argument("--hand", metavar="SEAT:PBN", help="your own hand, e.g. S:KQ2.A87.QJ54.962 (S.H.D.C)")
    pe.add_argument("--json", action="store_true", help="machine-readable output")
    _add_system_option(pe)
    pe.set_defaults(func=cmd_explain)


def _options_deal(pd) -> None:
    pd.add_argument("auction", nargs="+", help='the calls, e.g. "2S P 2N P 3C"')
    pd.add_argument("-n", type=_whole(1, 1_000_000), default=1, help="how many deals (default 1, at most 1,000,000)")
    pd.add_argument("--seed", type=_whole(0, 2**63 - 1), default=0, help="random seed (default 0)")
    pd.add_argument("--hand", metavar="SEAT:PBN", help="your own hand, e.g. S:KQ2.A87.QJ54.962")
    pd.add_argument("--dealer", default="N", choices=list("NESWnesw"), help="who made the first call (default N)")
    pd.add_argument("--format", default="text", choices=["text", "pbn", "lin"], help="output format (default text)")
    pd.add_argument("--time-limit", type=float, default=120.0, metavar="S",
                    help="stop after S seconds with the deals found so far (default 120; a warning says so)")
    _add_system_option(pd)
    pd.set_defaults(func=cmd_deal)


def _options_bid(pb) -> None:
    pb.add_argument("hand", nargs="?", help="13 cards in PBN order S.H.D.C, e.g. AKQ83.J2.K4.QT92")
    pb.add_argument("--auction", default="", help="the calls so far (default: none; the hand is the dealer's)")
    pb.add_argument("--dealer", default="N", choices=list("NESWnesw"))
    pb.add_argument("--json", action="store_true")
    add_play_options(pb)
    pb.add_argument("--pbn", metavar="FILE", help="bid every board of a PBN file (all four hands) and write it "
                                                  "back with each board's auction and the calls' meanings")
    pb.add_argument("--lin", metavar="FILE", help="the same for a LIN file")
    pb.add_argument("-o", "--output", metavar="OUT", help="with --pbn/--lin: where to write (default standard "
                                                          "output; the report then goes to standard error)")
    pb.add_argument("--handviewer", action="store_true", help="with --pbn/--lin: a BBO handviewer link per board")
    pb.add_argument("--progress", action="store_true", default=None)
    _add_system_option(pb)
    pb.set_defaults(func=cmd_bid)


def _options_export_system(px) -> None:
    px.add_argument("--format", required=True, choices=["bml", "bss", "bboalert"])
    _add_system_option(px)
    px.add_argument("-o", "--output", metavar="OUT", help="where to write (default: standard output)")
    px.add_argument("--from", dest="start", metavar="AUCTION",
                    help="only the calls after this auction (say '1S P 2H P 2N')")
    px.add_argument("--depth", type=int, metavar="N", help="only N levels of calls (below --from, if given)")
    px.add_argument("--sources", action="store_true",
                    help="BBOalert: the chat text with what each call shows in words and its source "
                         "(by default the meaning only: BBOalert sends it to the opponents' chat)")
    px.set_defaults(func=cmd_export_system)


def _options_serve(pw) -> None:
    pw.add_argument("--port", type=_whole(0, 65535), default=8000, help="default 8000; 0: any free port")
    pw.add_argument("--host", default="127.0.0.1", help="default 127.0.0.1 (this machine only)")
    _add_system_option(pw)
    pw.add_argument("--deals", type=_whole(0, 20), default=3,
                    help="example deals shown per position (default 3; 0: none)")
    pw.add_argument("--threads", type=_whole(1, 64), default=8, help="threads answering requests (default 8)")
    pw.add_argument("--no-warm", dest="warm", action="store_false",
                    help="do not compute the openings and the slowest first visits in the background at start")
    pw.set_defaults(func=cmd_serve)


def _options_verify_relays(pv) -> None:
    pv.add_argument("start", nargs="*", help='where a tree starts, e.g. "2S P 2N" (default: every tree)')
    pv.add_argument("--json", action="store_true")
    pv.add_argument("--progress", action="store_true", default=None, help="show progress even when not a terminal")
    _add_system_option(pv)
    pv.set_defaults(func=cmd_verify_relays)


def _options_check_system(pc) -> None:
    pc.add_argument("--json", action="store_true")
    pc.add_argument("--all", action="store_true", help="also list overlaps with calls that state nothing")
    pc.add_argument("--progress", action="store_true", default=None)
    _add_system_option(pc)
    pc.add_argument("--every-witness", action="store_true",
                    help="a witness hand for every finding, not one per family (minutes on the whole system)")
    pc.set_defaults(func=cmd_check_system)


def _options_selfcheck(ps) -> None:
    ps.add_argument("--deals", type=_count, default=1000, help="how many deals (default 1000)")
    ps.add_argument("--seed", type=_whole(0, 2**63 - 1), default=1, help="the random seed (default 1)")
    ps.add_argument("--defenders", choices=["system", "pass"], default="system",
                    help="'system' (default): the defenders bid with the system too, so competitive "
                         "auctions are bid and checked; 'pass': they pass throughout")
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
    _add_system_option(ps)
    ps.set_defaults(func=cmd_selfcheck)


def _options_diff_system(pd) -> None:
    pd.add_argument("folders", nargs="+", metavar="[OLD] NEW",
                    help="the two system folders ('builtin' names the built-in system); with only NEW, OLD is "
                         "the system in use (--system, else $CANARY_SYSTEM, else the built-in one)")
    pd.add_argument("--json", action="store_true", help="machine-readable output (stable keys, see the README)")
    pd.add_argument("--seconds", type=float, default=5.0, metavar="S",
                    help="time limit for finding each example hand (default 5)")
    pd.add_argument("--progress", action="store_true", default=None, help="show progress even when not a terminal")
    _add_system_option(pd)
    pd.set_defaults(func=cmd_diff_system)


# the commands, in build_parser's order (a test holds the two together)
COMMANDS = ("infer", "explain", "deal", "bid", "export-system", "serve", "verify-relays", "check-system",
            "selfcheck", "diff-system")


def _command(sub, only: str | None, name: str, options, **kwargs) -> None:
    """A command's parser, with its options (``options`` adds them) if ``only`` is None or its name."""
    p = sub.add_parser(name, formatter_class=_Help, **kwargs)
    if only in (None, name):
        options(p)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser; with ``only`` (a command's name) that command's options alone
    are added, the others being listed for ``--help`` without theirs: a process runs one command,
    and adding every option of all ten costs it some milliseconds."""
    p = _Parser(prog="canary-infer", description=DESCRIPTION, formatter_class=_Help,
                epilog=f'Start with:  canary-infer infer "{EXAMPLE}"')
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    _command(sub, only, "infer", _options_infer, help="what each player can hold after an auction",
             description="What each player can hold after an auction, exactly.",
             epilog=INFER_EPILOG)
    _command(sub, only, "explain", _options_explain,
             help="call by call: what each call shows and how each seat narrows",
             description="Explain an auction call by call, from the system files.",
             epilog=EXPLAIN_EPILOG)
    _command(sub, only, "deal", _options_deal, help="deals drawn uniformly from those consistent with an auction",
             description="N deals drawn uniformly from all deals consistent with the auction "
                         "(and your hand), reproducible by seed.",
             epilog=DEAL_EPILOG)
    _command(sub, only, "bid", _options_bid, help="the call the system makes with a hand",
             description="The call the system makes with this hand at this point: ok (one call fits), "
                         "several (all that fit, with why), none (the notes mean their calls here to "
                         "cover every hand, as relay answers do, and this one fits none: a gap), or "
                         "undefined (the notes define no call for this hand here).  Conventions attached "
                         "everywhere that say nothing of the hand (RKCB's 4N, the grand slam force's 5N, "
                         "the serious 3N) are shown as 'open': they are used by judgement, so the bidder "
                         "never chooses them.",
             epilog='examples:\n  canary-infer bid KJ2.QJ3.KJ32.A32\n'
                    '  canary-infer bid AQJ83.2.K4.QT932 --auction "P P"\n'
                    '  canary-infer bid KQ876.AK2.8.8765 --auction "2S P 2N P" --json\n'
                    '  canary-infer bid --pbn boards.pbn -o bid.pbn     every board, auctions written back')
    _command(sub, only, "export-system", _options_export_system,
             help="the system as BML, BBO full disclosure (BSS) or BBOalert",
             description="Write the system for other tools: BML (Bridge Markup Language), BSS (BBO "
                         "full disclosure) or a BBOalert table; each call with its meaning, its "
                         "constraints in words and its source in the notes.",
             epilog="examples:\n  canary-infer export-system --format bml -o canary.bml\n"
                    "  canary-infer export-system --format bboalert --system my-system/")
    _command(sub, only, "serve", _options_serve, help="a local web page to explore the system and its inferences",
             description="Start a local web page: a bidding box with the legal calls, the system's "
                         "next calls with their meanings, each seat's picture (ranges, patterns with "
                         "probability bars, an HCP histogram), your own hand, example deals with BBO "
                         "handviewer links. The position is in the page's address, to share it.",
             epilog="example:\n  canary-infer serve --port 8080   then open http://127.0.0.1:8080/")
    _command(sub, only, "verify-relays", _options_verify_relays,
             help="prove every relay tree: coverage, overlaps, resolved patterns",
             description="Walk every relay tree in the system files. At each relay, prove that the "
                         "answers cover every hand that reaches it (a gap comes with a hand that fits "
                         "none) and that no hand fits two (an overlap comes with such a hand); at each "
                         "leaf give the exact patterns left, whether the shape is resolved and the "
                         "exact share of the tree's hands that end there.",
             epilog='examples:\n  canary-infer verify-relays\n  canary-infer verify-relays "2S P 2N" --json')
    _command(sub, only, "check-system", _options_check_system, help="gaps and overlaps at every point of the system",
             description="Check every point of the call tree: no hand may fit two calls (overlaps), "
                         "and where the calls are meant to cover all hands (relay and schedule answers, "
                         "points marked 'covers' such as the openings) every hand must fit one (gaps). "
                         "Each finding comes with a witness hand.")
    _command(sub, only, "selfcheck", _options_selfcheck,
             help="bid random deals, infer, and check every hand lies inside",
             description="Deal random deals, let the bidder bid all four hands until the auction ends "
                         "or reaches a point the notes leave undefined, infer from the auction, and "
                         "check that every actual hand lies inside what was inferred for its seat. "
                         "Exit status 1 if any hand does not.",
             epilog="The deals are a function of --seed only (any whole number; -1 and 1 differ): the "
                    "result is the same whatever --workers or --engine.\n\n"
                    "examples:\n  canary-infer selfcheck --deals 10000 --seed 1\n"
                    "  canary-infer selfcheck --deals 100000 --workers 2 --progress\n"
                    "  canary-infer selfcheck --deals 1000000 --engine dask --scheduler tcp://10.0.0.5:8786"
                    "   (pip install 'canary-infer[dask]')")
    _command(sub, only, "diff-system", _options_diff_system,
             help="what changed between two versions of the system files",
             usage="canary-infer diff-system [-h] [--json] [--seconds S] [--progress] [--system DIR] "
                   "[OLD] NEW",
             description=DIFF_DESCRIPTION,
             epilog="examples:\n  cp -r \"$(python -c 'import canary_infer.system.model as s; "
                    "print(s.builtin_dir())')\" mine\n"
                    "  canary-infer diff-system builtin mine       what my edits change\n"
                    "  canary-infer diff-system mine               the same, against $CANARY_SYSTEM "
                    "or the built-in system\n"
                    "  canary-infer diff-system old new --json")
    return p


_PROCESS = {"own": False}  # whether main() runs as the process's command (not called with arguments)


def main(argv=None) -> int:
    """The command line; ends quietly (no traceback) on a closed pipe or an interrupt, and with a
    one-line error on standard output that cannot be written (``> /dev/full``)."""
    from canary_infer.ui.output import GuardedStdout, StdoutError, stdout_nowhere

    _PROCESS["own"] = argv is None
    stdout = sys.stdout
    sys.stdout = GuardedStdout(stdout)
    try:
        return _main(argv)
    except BrokenPipeError:
        # the reader went away (`| head`): stop writing, and keep Python from complaining at exit
        stdout_nowhere()
        return 141  # as a program stopped by SIGPIPE
    except StdoutError as e:
        stdout_nowhere()
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    finally:
        if isinstance(sys.stdout, GuardedStdout):  # as it was (a caller may have replaced it meanwhile)
            sys.stdout = stdout


def _main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    _Parser.json_errors = "--json" in argv
    # a command's own options only: the others' are not needed to run it (nor to show its --help)
    parser = build_parser(argv[0] if argv and argv[0] in COMMANDS else None)
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
    try:
        return args.func(args)
    except BrokenPipeError:  # the reader went away (| head): not an error of ours
        sys.stderr.close()
        return 0


def _environment_problem() -> str | None:
    """A setting in the environment that cannot be followed (checked before any work starts)."""
    from canary_infer.caches import CacheConfigError, folder
    from canary_infer.system import cache as syscache

    try:
        folder()
        syscache.folder()
    except CacheConfigError as e:
        return str(e)
    return None


if __name__ == "__main__":
    sys.exit(main())
