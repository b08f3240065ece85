"""Fuzz targets: input generators (hypothesis strategies) and the properties every input must keep.

Shared by ``tests/test_fuzz.py`` (a size CI affords) and ``benchmarks/fuzz.py`` (a larger run
that reports how many inputs were tried and how many failed).  Every check raises
AssertionError (or lets an unexpected exception through) when the property breaks:

* auctions, as text on the command line or in batch input: an AuctionError (syntax or illegal,
  with a position into the calls as split) or an auction that reads back the same; the command
  line answers with one JSON object (exit status 0 or 2), never a traceback;
* hands and deals in PBN: a CardError or a value that reads back the same;
* PBN auction sections: an AuctionError or an auction whose PBN reads back the same;
* system files: they load or raise SystemFileError, nothing else;
* disk-cache entries: refused, or a self-consistent result; ``solve`` through a corrupted entry
  gives the true result.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path
from unittest import mock

from hypothesis import strategies as st

import canary_infer.caches as cache
from canary_infer.bridge.auction import STRAINS, Auction, AuctionError, legal_calls, split_calls
from canary_infer.bridge.cards import CardError, Deal, Hand
from canary_infer.system.model import SystemFileError, builtin_dir, load_system
from canary_infer.ui.cli import main

SEATS = "NESW"

# --------------------------------------------------------------------------- auctions
CALL_WORDS = [f"{level}{s}" for level in range(1, 8) for s in STRAINS] + [
    "P", "p", "Pass", "PASS", "X", "x", "Dbl", "XX", "Rdbl", "Redouble", "1NT", "3nt", "8C", "0S", "1Z", "NT",
    "7", "AP", "*", "=1=", "$2", "!", "1S!", "(2D)", "[", "]", "{", "}", "\"", "%", ";", "\u00bd", "\ufeff",
    "\u2660", "10", "-", "--", "1S-1H", "",
]
SEPARATORS = [" ", "  ", ",", ", ", "-", " - ", "\t", "\n", "\r\n", ";", ""]


@st.composite
def auction_texts(draw):
    """Text that looks like an auction: call words, junk and separators."""
    words = draw(st.lists(st.one_of(st.sampled_from(CALL_WORDS), st.text(max_size=4)), max_size=14))
    seps = [draw(st.sampled_from(SEPARATORS)) for _ in words]
    return "".join(w + s for w, s in zip(words, seps, strict=True))


@st.composite
def legal_auctions(draw, max_calls=12):
    """A law-abiding auction, drawn call by call from the legal calls (mostly low ones)."""
    a = Auction([], dealer=draw(st.sampled_from(SEATS)))
    for _ in range(draw(st.integers(0, max_calls))):
        options = legal_calls(a)
        if not options:
            break
        low = options[:6]  # pass, double, redouble and the cheapest bids: the tree lives there
        a = a.append(draw(st.sampled_from(low if draw(st.booleans()) else options)))
    return a


def check_auction_text(text: str, dealer: str = "N") -> Auction | None:
    try:
        a = Auction.parse(text, dealer=dealer)
    except AuctionError as e:
        assert e.kind in ("syntax", "illegal"), e.kind
        assert e.position is None or 0 <= e.position < len(split_calls(text)), (e.position, text)
        return None
    assert Auction.parse(str(a), dealer=a.dealer) == a
    assert Auction.from_pbn(a.pbn()) == a
    return a


def run_cli(argv: list[str], stdin: bytes | None = None, inferencer=None) -> tuple[int, str, str]:
    """``canary-infer ARGV`` in-process: (status, stdout, stderr); argparse exits become statuses."""
    out, err = io.StringIO(), io.StringIO()
    patches = [mock.patch.object(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin or b""), encoding="utf-8"))]
    if inferencer is not None:
        patches.append(mock.patch("canary_infer.deal.infer.Inferencer", lambda *a, **k: inferencer))
    with contextlib.ExitStack() as stack:
        for p in patches:
            stack.enter_context(p)
        stack.enter_context(contextlib.redirect_stdout(out))
        stack.enter_context(contextlib.redirect_stderr(err))
        try:
            status = main(argv)
        except SystemExit as e:
            status = e.code
    return status, out.getvalue(), err.getvalue()


def check_contract(obj: dict) -> None:
    """The JSON answer of ``infer``: an error object, or a consistent inference."""
    assert set(obj) >= {"auction", "dealer", "calls", "hands", "error"}, obj.keys()
    if obj["error"] is not None:
        e = obj["error"]
        assert e["kind"] in ("syntax", "illegal", "hand", "usage") and isinstance(e["message"], str) and e["message"]
        if e["position"] is not None:
            assert isinstance(obj["auction"], list) and 0 <= e["position"] < len(obj["auction"])
        return
    assert obj["dealer"] in SEATS and len(obj["calls"]) == len(obj["auction"])
    assert set(obj["hands"]) == set(SEATS)
    for h in obj["hands"].values():
        if not h["consistent"]:
            assert h["hands"] == 0 and not h["patterns"]
            continue
        lo, hi = h["hcp"]
        assert 0 <= lo <= hi <= 37 and h["hands"] >= 1
        pats = [tuple(int(x) for x in p.split("-")) for p in h["patterns"]]
        assert pats and all(sum(p) == 13 for p in pats) and len(set(pats)) == len(pats)
        for i, s in enumerate("SHDC"):
            assert h["lengths"][s] == [min(p[i] for p in pats), max(p[i] for p in pats)]


def check_cli_infer(text: str, inferencer, hand: str | None = None) -> None:
    argv = ["infer", "--json"] + (["--hand", hand] if hand is not None else []) + ["--", text]
    status, out, err = run_cli(argv, inferencer=inferencer)
    assert status in (0, 2), (status, err)
    assert "Traceback" not in err, err
    lines = out.splitlines()
    assert len(lines) == 1, out
    obj = json.loads(lines[0])
    check_contract(obj)
    assert (status == 0) == (obj["error"] is None)


def check_cli_batch(data: bytes, inferencer) -> None:
    status, out, err = run_cli(["infer", "--json"], stdin=data, inferencer=inferencer)
    assert status == 0 and "Traceback" not in err, err
    for line in out.splitlines():
        check_contract(json.loads(line))


# --------------------------------------------------------------------------- hands
HAND_CHARS = "AKQJT98765432akqjt10.-:xX NESW"


def hand_texts():
    return st.one_of(st.text(HAND_CHARS, max_size=24), st.text(max_size=12), _shuffled_hands())


@st.composite
def _shuffled_hands(draw):
    """Near-valid PBN hands: a real hand with a card moved, dropped, doubled or relabelled."""
    h = Hand.random(draw(st.randoms(use_true_random=False))).pbn()
    i = draw(st.integers(0, len(h)))
    edit = draw(st.sampled_from(["", "A", ".", "10", "1", "Z", "..", "a"]))
    cut = draw(st.integers(0, 2))
    return h[:i] + edit + h[i + cut:]


def check_hand_text(text: str) -> None:
    try:
        h = Hand.from_pbn(text)
    except CardError:
        return
    assert len(h.cards) == 13 and Hand.from_pbn(h.pbn()) == h


def check_deal_text(text: str) -> None:
    try:
        d = Deal.from_pbn(text)
    except CardError:
        return
    assert Deal.from_pbn(d.pbn()) == d


# --------------------------------------------------------------------------- PBN auction sections
@st.composite
def pbn_texts(draw):
    pieces = []
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["tag", "auction", "dealer", "calls", "comment", "junk", "newline"]))
        if kind in ("tag", "auction", "dealer"):
            name = {"auction": "Auction", "dealer": "Dealer"}.get(kind) or draw(st.sampled_from(
                ["Event", "Note", "Board", "Auction", "Dealer", "x", ""]))
            value = draw(st.one_of(st.sampled_from(list(SEATS) + ["n", "", "NS", "\\\"", "Q"]), st.text(max_size=3)))
            pieces.append(f'[{name} "{value}"]')
        elif kind == "calls":
            pieces.append(draw(auction_texts()))
        elif kind == "comment":
            pieces.append(draw(st.sampled_from(["{relay}", "{", "}", "; to the end", "\n% comment\n", "=1=", "$12"])))
        elif kind == "junk":
            pieces.append(draw(st.text(max_size=6)))
        else:
            pieces.append("\n")
    return " ".join(pieces)


def check_pbn_text(text: str) -> None:
    try:
        a = Auction.from_pbn(text)
    except AuctionError as e:
        assert e.kind in ("syntax", "illegal")
        return
    assert Auction.from_pbn(a.pbn()) == a


# --------------------------------------------------------------------------- system files
def _system_base_texts() -> list[str]:
    texts = [SMALL_SYSTEM]
    d = builtin_dir()
    texts.append((d / "20-openings.canary").read_text(encoding="utf-8"))
    return texts


SMALL_SYSTEM = """\
define balanced = shape 4333 | 4432 | 5332

schedule answers_to(M, X) "the describer's pattern"  [A9]
  step 1  "four {M}"  = M == 4
  step 2  "five {M}"  = M == 5 and X <= 3

tree opening
  covers hcp >= 11
  P   "no opening"  [A1]
      = denies siblings
  1S  "11-16, five or more spades"  [A2]
      = hcp in 11..16 and S >= 5
      = when chair 1..2: hcp >= 12
    2N  "relay"  [A3]  relay
      3C  "short clubs"  [A4]
          = C <= 1
        3D  "relay"  [A5]
            answers answers_to(H, D)
      3H  "six or more spades"  [A6]  trump S
          = S >= 6
  1N  "13-16 balanced"  [A7]
      = hcp in 13..16 and balanced
      interpretation "balanced as usual"
    (X)
      2C  "as without the double"  [A8]
          same as 1S 2N
  priority 1S > 1N "five spades first"  [A10]
"""

LINE_POOL = [
    "define x = hcp >= 1", "define = ", "define balanced = shape 4333", "tree opening", "tree", "tree opening 9Z",
    "  2C  \"clubs\"  [A1]", "    = hcp >= 99999999999999999999999999999", "      = when chair 5..9: S >= 1",
    "    = denies siblings", "    answers nowhere(S)", "    answers answers_to(S)", "    same as 7N",
    "    same as 1S", "  covers", "  priority 1S > ", "\tindented with a tab", "step 1 \"x\" = S == 1",
    "schedule s() \"x\"", "   odd indentation", "  1S  \"again\"  [A2]", "  (3D)", "  XX", "  P",
    "    interpretation", "    note \"x\"", "    = pattern 5-5-5-5", "    = shape 13000", "    = S >= ",
    "    = all x in suits:", "    = len(Z) == 1", "    = hcp(S, H) >= 1", "    = 1 >= 2", "\ufeffdefine y = S >= 1",
    "\u00a0 1H \"nbsp\"", "    = (((((((((((((((((((((((((((((((hcp >= 1)))))))))))))))))))))))))))))))",
]


@st.composite
def system_texts(draw):
    """A system file mutated: lines dropped, doubled, swapped, re-indented, cut, or replaced."""
    lines = draw(st.sampled_from(_BASES)).splitlines()
    for _ in range(draw(st.integers(1, 4))):
        if not lines:
            lines = [""]
        i = draw(st.integers(0, len(lines) - 1))
        op = draw(st.sampled_from(["drop", "dup", "swap", "indent", "cut", "insert", "replace", "chars"]))
        if op == "drop":
            del lines[i]
        elif op == "dup":
            lines.insert(i, lines[i])
        elif op == "swap" and len(lines) > 1:
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "indent":
            lines[i] = " " * draw(st.integers(0, 9)) + lines[i].lstrip()
        elif op == "cut":
            k = draw(st.integers(0, len(lines[i])))
            lines[i] = lines[i][:k]
        elif op == "insert":
            lines.insert(i, draw(st.sampled_from(LINE_POOL)))
        elif op == "replace":
            lines[i] = draw(st.one_of(st.sampled_from(LINE_POOL), st.text(max_size=20)))
        else:
            k = draw(st.integers(0, len(lines[i])))
            lines[i] = lines[i][:k] + draw(st.text(max_size=3)) + lines[i][k + draw(st.integers(0, 3)):]
    return "\n".join(lines) + "\n"


_BASES = _system_base_texts()


def check_system_text(text: str, folder: Path) -> str:
    """Load a system file; returns "loaded" or "refused".  Anything but SystemFileError fails."""
    path = folder / "fuzz.canary"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        load_system([path])
    except SystemFileError:
        return "refused"
    return "loaded"


# --------------------------------------------------------------------------- cache entries
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=True) | st.text(max_size=4),
    lambda kids: st.lists(kids, max_size=5) | st.dictionaries(st.text(max_size=8), kids, max_size=5),
    max_leaves=20)


@st.composite
def cache_entries(draw, real: dict):
    """Text for a cache entry: random JSON, random text, or the real entry with a field changed."""
    kind = draw(st.sampled_from(["json", "text", "field", "pattern"]))
    if kind == "json":
        return json.dumps(draw(json_values))
    if kind == "text":
        return draw(st.text(max_size=40))
    entry = json.loads(json.dumps(real))
    if kind == "field":
        entry[draw(st.sampled_from(sorted(entry) + ["extra"]))] = draw(json_values)
    else:
        pats = entry["patterns"]
        i = draw(st.integers(0, len(pats) - 1))
        pats[i][draw(st.integers(0, 4))] = draw(json_values)
    return json.dumps(entry)


def check_cache_text(text: str, key: str, avail=None, asked=None) -> bool:
    """Whether decode accepted the text; when it does, what it gives must be self-consistent."""
    got = cache.decode(text, key, avail, asked)
    if got is None:
        return False
    pats, hcp, hands = got
    assert all(len(p) == 4 and sum(p) == 13 and all(0 <= n <= 13 for n in p) for p in pats)
    assert all(c > 0 and c == int(c) for c in pats.values()) and sum(pats.values()) == hands
    assert (hcp is None) == (not pats)
    if hcp is not None:
        assert 0 <= hcp[0] <= hcp[1] <= 37
    return True
