"""Fuzz targets: input generators (hypothesis strategies) and the properties every input must keep.

Shared by ``tests/test_fuzz.py`` (a size CI affords) and ``benchmarks/fuzz.py`` (a larger run
that reports how many inputs were tried and how many failed).  Every check raises
AssertionError (or lets an unexpected exception through) when the property breaks:

* auctions, as text on the command line or in batch input: an AuctionError (syntax or illegal,
  with a position into the calls as split) or an auction that reads back the same; the command
  line answers with one JSON object (exit status 0 or 2), never a traceback;
* hands and deals in PBN: a CardError or a value that reads back the same;
* PBN auction sections: an AuctionError or an auction whose PBN reads back the same;
* system files: they load or raise SystemFileError, nothing else; those built to explode
  (nesting, lost sharing, chains, huge numbers and steps) within seconds;
* loaded-system cache entries of every file type (a FIFO, /dev/zero, a folder, links, a file
  others can write, a planted pickle): the files load the same system, at once, and nothing
  planted runs;
* numeric arguments (huge, negative, foreign digits, junk): exit 0 or 2, never a traceback;
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


# --------------------------------------------------------------------------- system files that explode
@st.composite
def exploding_system_texts(draw):
    """A system file built to explode: quantifiers nested, definitions used twice in the next
    (sharing lost when inlined), long chains of them, negations and brackets deep, huge numbers,
    steps far beyond 7N, calls nested many levels, digits of other scripts."""
    kind = draw(st.sampled_from(["quantifiers", "doubling", "chain", "nots", "brackets", "number", "steps",
                                 "nesting", "digits"]))
    n = draw(st.integers(1, 1200))
    head, body = [], "hcp >= 1"
    if kind == "quantifiers":
        for i in range(min(n, 14)):
            body = f"all x{i} in suits: ({body})" if i % 2 else f"any x{i} in suits: ({body})"
    elif kind == "doubling":
        head = ["define d0 = hcp >= 1"] + [f"define d{i} = d{i - 1} and d{i - 1}" for i in range(1, min(n, 40))]
        body = f"d{min(n, 40) - 1}"
    elif kind == "chain":
        head = ["define c0 = hcp >= 1"] + [f"define c{i} = c{i - 1} or S >= {i % 13}" for i in range(1, n)]
        body = f"c{n - 1}"
    elif kind == "nots":
        body = "not " * n + body
    elif kind == "brackets":
        body = "(" * n + body + ")" * n
    elif kind == "number":
        body = f"hcp >= {'9' * n}"
    elif kind == "steps":
        return "\n".join(["schedule s(M) \"x\"  [A1]", f"  step k for k in 1..{10 ** min(n, 30)}  \"{{k}}\"  = M >= 1",
                          "tree opening", "  1C \"x\" [A1]", "      = hcp >= 12", ""])
    elif kind == "nesting":
        lines = ["tree opening"]
        for depth in range(min(n, 400)):
            lines.append("  " * (depth + 1) + ("1C" if depth == 0 else "P") + f' "x" [A{depth + 1}]')
        return "\n".join(lines) + "\n"
    else:
        digit = draw(st.sampled_from(["\u0661", "\u06f3", "\u0967", "\uff13", "\u00b2"]))
        body = f"hcp >= {digit}"
        return "\n".join(["tree opening", f"  {digit}C \"x\" [A1]", f"      = {body}", ""])
    return "\n".join(head + ["tree opening", '  1C "x" [A1]', f"      = {body}", ""])


def check_exploding_system_text(text: str, folder: Path, seconds: float = 20.0) -> str:
    """Load it: "loaded" or "refused" (SystemFileError), nothing else, within ``seconds``."""
    import time

    t = time.perf_counter()
    out = check_system_text(text, folder)
    assert time.perf_counter() - t < seconds, f"took {time.perf_counter() - t:.1f} s"
    return out


# --------------------------------------------------------------------------- system-cache entries of every file type
ENTRY_KINDS = ["bytes", "truncated", "fifo", "zero", "folder", "dangling", "loop", "wide open", "planted"]


def check_system_cache_entry(kind: str, data: bytes, entry: Path, good: bytes, files: list[Path], fresh) -> None:
    """Put something of ``kind`` where the loaded-system entry of ``files`` lives (``entry``,
    whose true contents are ``good``); loading the files again must give the same system, at
    once, and never run a planted pickle."""
    import hashlib
    import pickle
    import shutil
    import time

    from canary_infer.system import cache as syscache

    folder = entry.parent
    if entry.is_dir() and not entry.is_symlink():
        shutil.rmtree(entry)
    elif entry.is_symlink() or entry.exists():
        entry.unlink()
    marker = folder.parent / "planted-ran"
    if kind == "bytes":
        entry.write_bytes(data)
    elif kind == "truncated":
        entry.write_bytes(good[: len(data) % max(1, len(good))])
    elif kind in SPECIAL_FILES:
        make_special(entry, kind)
    elif kind == "wide open":
        entry.write_bytes(good)
        entry.chmod(0o666)
    else:  # a pickle that would write the marker, signed as an attacker can (a plain digest)
        payload = pickle.dumps(_Planted(str(marker)))
        head = good[: good.index(b"\n", len(syscache.MAGIC)) + 1]
        entry.write_bytes(head + hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload)
    t = time.perf_counter()
    again = load_system(files)
    assert time.perf_counter() - t < 30, "the load hung on the entry"
    assert again == fresh
    assert not marker.exists(), "a planted pickle ran"


SPECIAL_FILES = ("fifo", "zero", "folder", "dangling", "loop")


def make_special(path: Path, kind: str) -> None:
    """Put at ``path`` something that is no regular file: a FIFO, a link to /dev/zero, a folder,
    a link to nothing or a link to itself."""
    import os

    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "zero":
        path.symlink_to("/dev/zero")
    elif kind == "folder":
        path.mkdir()
    elif kind == "dangling":
        path.symlink_to(path.parent / "nowhere")
    else:
        path.symlink_to(path)


class _Planted:
    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):
        return (Path.write_text, (Path(self.marker), "ran"))


# --------------------------------------------------------------------------- numeric arguments
NUMERIC_OPTIONS = [(["deal", "1S", "-n"], 3), (["deal", "1S", "--seed"], None),
                   (["infer", "1S", "--prob", "--samples"], 200), (["selfcheck", "--deals"], 4),
                   (["selfcheck", "--deals", "2", "--seed"], None), (["infer", "1S", "--budget"], None)]


@st.composite
def numeric_arguments(draw):
    """An option that takes a number, with a value: small and valid, or huge, negative, foreign,
    fractional, blank or junk."""
    argv, cap = draw(st.sampled_from(NUMERIC_OPTIONS))
    value = draw(st.one_of(
        st.integers(-3, cap or 3).map(str),
        st.integers(1, 6000).map(lambda k: "9" * k),
        st.integers(1, 30).map(lambda k: "-" + "1" * k),
        st.sampled_from(["\u0661", "\uff13", "1e9", "1e999", "nan", "inf", "-inf", "0x10", "1_000", " 1", "", "+2",
                         "1.5", "\u00bd", "٣٣"]),
        st.text(max_size=6)))
    return argv + [value]


def check_numeric_argument(argv: list[str]) -> None:
    """Exit 0, or 2 with a message: never a traceback, and never more than a few seconds."""
    import time

    t = time.perf_counter()
    status, out, err = run_cli(argv + (["--workers", "1"] if argv[0] == "selfcheck" else []))
    assert status in (0, 1, 2), status
    assert "Traceback" not in err and "Traceback" not in out
    if status == 2:
        assert err.strip() or '"error"' in out
    assert time.perf_counter() - t < 60
