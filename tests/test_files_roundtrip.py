"""Files that survive the round trip (issues 36 and 37): what -o writes keeps every byte the tool
does not add, in the file's own character set and line ends; unreadable boards are copied
through; the output is written only after all the work, whole or not at all; an output that
cannot be written and an input with no boards are errors found before any work."""

import errno
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from canary_infer.bridge.auction import Auction
from canary_infer.bridge.lin import read_lin
from canary_infer.bridge.pbn import annotate_auction, auction_section, read_pbn, replace_auction, splice
from canary_infer.bridge.textfile import decode, encode
from canary_infer.tools.bidding import Bidder
from canary_infer.ui.output import OutputError, check_writable, write_atomic

DATA = Path(__file__).resolve().parent / "data"
FEATURES = DATA / "features.pbn"
DEALER = DATA / "dealer-Refer.pbn"
LIN = DATA / "bbo.lin"
ROOT = Path(__file__).resolve().parent.parent

DEAL = "N:AKQ83.J2.K4.QT92 JT9.AKQ3.AQJ2.K3 7654.T987.T98.A8 2.654.7653.J7654"
GOOD = '[Board "{n}"]\n[Dealer "N"]\n[Deal "' + DEAL + '"]\n[Auction "N"]\n1S Pass 2S Pass\nPass Pass -\n*\n'
# boards real files hold that cannot be read (issue 37)
BAD = {
    "illegal": '[Board "b1"]\n[Dealer "N"]\n[Auction "N"]\n1S 1H\n',
    "truncated": '[Board "b2"]\n[Dealer "N"]\n[Deal "N:AKQ83.J2.K4.QT92 JT9.AKQ3.AQJ2.K3 7654.T98',
    "duplicate": '[Board "b3"]\n[Deal "N:AKQ83.J2.K4.QT92 AKQ83.J2.K4.QT92 7654.T987.T98.A8 2.654.7653.J7654"]\n',
    "12 cards": '[Board "b4"]\n[Deal "N:AKQ83.J2.K4.QT9 JT9.AKQ3.AQJ2.K3 7654.T987.T98.A8 2.654.7653.J7654"]\n',
    "seat X": '[Board "b5"]\n[Deal "X:AKQ83.J2.K4.QT92 JT9.AKQ3.AQJ2.K3 7654.T987.T98.A8 2.654.7653.J7654"]\n',
    "two auctions": '[Board "b6"]\n[Dealer "N"]\n[Auction "N"]\n1S\n[Auction "N"]\n1S\n',
}




def _mixed() -> bytes:
    """Good boards around each kind of unreadable board, and a board of binary bytes."""
    data = GOOD.format(n=1).encode() + b"\n"
    for text in BAD.values():
        data += text.encode() + b"\n\n" + GOOD.format(n="g").encode() + b"\n"
    return data + b'[Board "bin"]\n\x00\xff\xfe\x01 binary \x9c\n\n' + GOOD.format(n="last").encode()


def _games(data: bytes) -> list[bytes]:
    return [g for g in re.split(rb"\n\s*\n", data) if g.strip()]


# ------------------------------------------------------------------ 1: never a traceback
def test_a_filler_after_a_completed_auction_is_read():
    (b,) = read_pbn(GOOD.format(n=1))
    assert str(b.auction) == "1S P 2S P P P" and b.auction.is_complete and not b.auction_incomplete
    (b,) = read_pbn('[Board "1"]\n[Auction "N"]\n1S Pass 2S Pass\nPass Pass - -\n*')
    assert str(b.auction) == "1S P 2S P P P"
    (b,) = read_pbn('[Board "1"]\n[Auction "N"]\n1S Pass - *')  # a call not made, then '*'
    assert str(b.auction) == "1S P" and b.auction_incomplete
    with pytest.raises(ValueError, match="after"):
        read_pbn('[Board "1"]\n[Auction "N"]\nPass Pass Pass Pass 1S')


@pytest.mark.parametrize("command", ["infer", "bid"])
def test_unreadable_boards_are_copied_through_unchanged_and_reported(run, tmp_path, command):
    src = tmp_path / "mixed.pbn"
    src.write_bytes(_mixed())
    out_file = tmp_path / "out.pbn"
    status, out, err = run(command, "--pbn", src, "-o", out_file)
    assert status == 0 and "Traceback" not in err
    report = out + err
    for number in ("b1", "b3", "b4", "b5", "b6"):
        assert re.search(rf"line \d+, board {number}:", report), number  # where, and why
    assert "unreadable text" in report and report.count("cannot read") == 6  # and the truncated board
    before, after = _games(src.read_bytes()), _games(out_file.read_bytes())
    assert len(before) == len(after) == 15
    for old, new in zip(before, after, strict=True):
        if not old.startswith(b'[Board "g"]') and not old.startswith(b'[Board "1"]') and b'"last"' not in old:
            assert new == old  # each unreadable board (and the binary one) byte for byte
    boards = read_pbn(out_file.read_bytes().decode("latin-1"), strict=False)
    good = [b for b in boards if b.number in ("1", "g", "last")]
    assert len(good) == 8 and all(b.error is None and b.auction is not None for b in good)


def test_the_filler_board_through_the_command_line_without_traceback(tmp_path):
    src = tmp_path / "filler.pbn"
    src.write_text(GOOD.format(n=1))
    out_file = tmp_path / "out.pbn"
    for command in ("infer", "bid"):
        p = subprocess.run([sys.executable, "-m", "canary_infer", command, "--pbn", str(src), "-o", str(out_file)],
                           cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
        (b,) = read_pbn(out_file.read_text())
        assert b.error is None and b.auction is not None


def test_fillers_and_bytes_the_declared_set_cannot_read_through_the_command_line(tmp_path):
    """In a subprocess, standard output as a user has it: no traceback, the odd bytes kept."""
    src = tmp_path / "odd.pbn"
    data = b"%Content-type: text/x-pbn; charset=UTF-8\n" + GOOD.format(n="\xff1").encode("latin-1")
    src.write_bytes(data)
    out_file = tmp_path / "out.pbn"
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    p = subprocess.run([sys.executable, "-m", "canary_infer", "infer", "--pbn", str(src), "-o", str(out_file)],
                       cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)
    assert p.returncode == 0 and "Traceback" not in p.stderr and "Board \\udcff1" in p.stdout, p.stderr
    assert out_file.read_bytes().startswith(data[:data.index(b"[Auction")])
    p = subprocess.run([sys.executable, "-m", "canary_infer", "infer", '[Auction "N"] 1S P P P - *'],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0 and "1S P P P" in p.stdout


@pytest.mark.parametrize("command", ["infer", "bid"])
def test_no_boards_is_an_error_and_the_input_is_untouched(run, tmp_path, command):
    lin_file = tmp_path / "c.lin"
    lin_file.write_bytes(LIN.read_bytes())
    pbn_file = tmp_path / "f.pbn"
    pbn_file.write_bytes(FEATURES.read_bytes())
    empty = tmp_path / "empty.pbn"
    empty.write_bytes(b"% PBN 2.1\n\nnothing here\n")
    utf16 = tmp_path / "u16.pbn"
    utf16.write_bytes(FEATURES.read_text(encoding="latin-1").encode("utf-16"))
    cases = [("--pbn", lin_file, "no boards"), ("--lin", pbn_file, "no boards"), ("--pbn", empty, "no boards"),
             ("--pbn", utf16, "UTF-16")]
    for option, path, message in cases:
        before = path.read_bytes()
        status, out, err = run(command, option, path, "-o", path)
        assert status == 2 and message in err and "Traceback" not in err, (option, path, err)
        assert path.read_bytes() == before
        status, out, _ = run(command, option, path, "-o", path, "--json")
        assert status == 2 and message in json.loads(out)["error"]["message"]
        assert path.read_bytes() == before
    status, _, err = run(command, "--pbn", empty)
    assert status == 2 and "no boards" in err


# ------------------------------------------------------------------ 2: -o never destroys the input
@pytest.mark.parametrize("command", ["infer", "bid"])
def test_an_unwritable_output_is_refused_before_any_work(run, tmp_path, monkeypatch, command):
    def no_work(*a, **k):
        raise AssertionError("the system was read before -o was checked")
    monkeypatch.setattr("canary_infer.ui.cli._load_system", no_work)
    targets = [(tmp_path, "is a folder"), (tmp_path / "missing" / "out.pbn", "does not exist"),
               ("/dev/full", "not a regular file")]
    for target, message in targets:
        status, out, err = run(command, "--pbn", FEATURES, "-o", target)
        assert status == 2 and message in err and "Traceback" not in err
        status, out, err = run(command, "--pbn", FEATURES, "-o", target, "--json")
        error = json.loads(out)["error"]
        assert status == 2 and error["kind"] == "output" and message in error["message"]
    assert sorted(os.listdir(tmp_path)) == []


def test_a_failed_write_leaves_the_input_whole(run, tmp_path, monkeypatch):
    """A full disk while writing over the input: an error, the input as it was, no temporary file."""
    src = tmp_path / "b.pbn"
    src.write_bytes(FEATURES.read_bytes())

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(os, "fsync", full)
    status, _, err = run("infer", "--pbn", src, "-o", src)
    assert status == 2 and "No space left" in err and "Traceback" not in err
    assert src.read_bytes() == FEATURES.read_bytes() and os.listdir(tmp_path) == ["b.pbn"]


@pytest.mark.parametrize("argv", [
    ["bid", "--pbn", str(FEATURES)], ["infer", "--pbn", str(FEATURES)], ["infer", "--lin", str(LIN)],
    ["infer", "--pbn", str(FEATURES), "--json"], ["infer", "1S P 2S"], ["deal", "2S P 2N P", "-n", "5"],
    ["explain", "2S P 2N P 3C"], ["--help"], ["infer", "--help"],
], ids=" ".join)
def test_a_full_standard_output_is_an_error_not_a_traceback(argv):
    """``> /dev/full``: one line saying so and status 2, as for -o, for every command that prints
    (argparse's help too, which would otherwise end silently with status 0)."""
    with open("/dev/full", "w") as full:
        p = subprocess.run([sys.executable, "-m", "canary_infer", *argv], cwd=ROOT,
                           stdout=full, stderr=subprocess.PIPE, text=True, timeout=300)
    assert p.returncode == 2 and "Traceback" not in p.stderr and "Exception" not in p.stderr
    said = p.stderr.splitlines()  # (bid reports its boards on standard error first)
    assert said[-1] == "error: cannot write standard output: No space left on device"
    assert sum("cannot write" in line for line in said) == 1


def test_what_would_not_read_back_is_not_written(run, tmp_path, monkeypatch):
    src = tmp_path / "b.pbn"
    src.write_bytes(FEATURES.read_bytes())
    monkeypatch.setattr("canary_infer.bridge.pbn.annotate_auction",
                        lambda board, notes: board.text.replace("Pass 4S", "Pass 2S"))  # an illegal call
    status, _, err = run("infer", "--pbn", src, "-o", src)
    assert status == 2 and "would not read back" in err and src.read_bytes() == FEATURES.read_bytes()


def test_the_input_as_its_own_output(run, tmp_path):
    src = tmp_path / "b.pbn"
    src.write_bytes(FEATURES.read_bytes())
    status, _, _ = run("bid", "--pbn", src, "-o", src)
    assert status == 0
    boards = read_pbn(src.read_text(encoding="latin-1"))
    assert [b.number for b in boards] == ["1", "2", "3", "4"] and os.listdir(tmp_path) == ["b.pbn"]


def test_write_atomic_and_check_writable(tmp_path):
    target = tmp_path / "out.pbn"
    target.write_bytes(b"old")
    target.chmod(0o640)
    link = tmp_path / "link.pbn"
    link.symlink_to(target)
    if os.getuid() == 0:
        os.chown(target, 1234, 1234)
    write_atomic(str(link), b"new")
    assert link.is_symlink() and target.read_bytes() == b"new" and (target.stat().st_mode & 0o777) == 0o640
    if os.getuid() == 0:
        assert (target.stat().st_uid, target.stat().st_gid) == (1234, 1234)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for bad in (str(tmp_path), str(fifo), str(tmp_path / "no" / "x"), "/dev/full", ""):
        with pytest.raises(OutputError):
            check_writable(bad)
    assert check_writable("-") == "-"
    assert sorted(os.listdir(tmp_path)) == ["fifo", "link.pbn", "out.pbn"]


# ------------------------------------------------------------------ 3: the file's bytes, its encoding
HANDWRITTEN = (
    "% PBN 2.1\r\n"
    "% EXPORT\r\n"
    "%Content-type: text/x-pbn; charset=ISO-8859-1\r\n"
    "\r\n"
    '[Event "Café des Sports"]\r\n'
    '[Board "1"]\r\n'
    '[Dealer "N"]\r\n'
    '[Deal "' + DEAL + '"]\r\n'
    "{ a comment, with an empty line inside\r\n"
    "\r\n"
    "  that does not end the game }\r\n"
    '[Auction "N"]\r\n'
    "1S =1= Pass =2= 2S! =3= $1 Pass =2= ; pass\r\n"
    "Pass =2= Pass =2= - -\r\n"
    "*\r\n"
    '[Note "1:naturel, 5+ piques, élève"]\r\n'
    '[Note "2:rien"]\r\n'
    '[Note "3:soutien"]\r\n'
    "% a line for some program\r\n"
    '[Play "E"]\r\n'
    "HA H2 H3 H4\r\n"
    "*\r\n"
    "\r\n"
    "\r\n"
    "a summary line between games\r\n"
    "\r\n"
    '[Board "2"]\r\n'
    '[Deal "' + DEAL + '"]\r\n'
).encode("iso-8859-1")


def test_a_round_trip_with_nothing_to_add_is_byte_for_byte(run, tmp_path):
    hand = tmp_path / "hand.pbn"
    hand.write_bytes(HANDWRITTEN)
    for path in (DEALER, hand):
        out_file = tmp_path / "out.pbn"
        status, _, err = run("infer", "--pbn", path, "-o", out_file)
        assert status == 0, err
        assert out_file.read_bytes() == path.read_bytes(), path
    # annotating an annotated file adds nothing
    once, twice = tmp_path / "once.pbn", tmp_path / "twice.pbn"
    run("infer", "--pbn", FEATURES, "-o", once)
    run("infer", "--pbn", once, "-o", twice)
    assert once.read_bytes() == twice.read_bytes() != FEATURES.read_bytes()


def _without_added(data: bytes) -> bytes:
    """A written file with what the tool adds taken out: ' =n=' marks and [Note] lines."""
    return re.sub(rb' =\d+=', b"", data)


def test_annotating_keeps_every_line_in_the_file_s_encoding_and_line_ends(run, tmp_path):
    src = tmp_path / "hand.pbn"
    data = HANDWRITTEN.replace(b"2S! =3= $1", b"2S! $1").replace(b'[Note "3:soutien"]\r\n', b"")
    src.write_bytes(data)
    out_file = tmp_path / "out.pbn"
    status, _, err = run("infer", "--pbn", src, "-o", out_file)
    assert status == 0, err
    out = out_file.read_bytes()
    added = [line for line in out.split(b"\r\n") if line not in data.split(b"\r\n")]
    assert added and all(line.startswith(b'[Note "3:') or b" =3=" in line for line in added), added
    kept = [line for line in out.split(b"\r\n") if not line.startswith(b'[Note "3:')]
    assert _without_added(b"\r\n".join(kept)) == _without_added(data)
    assert b"\n" not in out.replace(b"\r\n", b"")  # every line end is the file's CRLF
    assert b"Caf\xe9 des Sports" in out and b"charset=ISO-8859-1" in out  # ISO-8859-1, as declared
    (b1, b2) = read_pbn(out.decode("iso-8859-1"))
    assert b1.values["Event"] == "Café des Sports" and b1.note_of(0) == "naturel, 5+ piques, élève"
    assert b1.note_of(2).startswith("single raise") and b1.play[:4] == ["HA", "H2", "H3", "H4"]


def test_an_iso_8859_1_file_is_read_as_declared():
    text, enc = decode(HANDWRITTEN)
    assert 'Café des Sports' in text and enc.codec == "iso8859-1" and encode(text, enc) == HANDWRITTEN
    # undeclared: UTF-8 when it is UTF-8, else ISO-8859-1; a UTF-8 byte-order mark stays
    for data in (b'[Event "Caf\xc3\xa9"]\n', b'[Event "Caf\xe9"]\n', b'\xef\xbb\xbf[Event "Caf\xc3\xa9"]\n'):
        text, enc = decode(data)
        assert 'Café' in text and encode(text, enc) == data
    text, enc = decode(b'%charset=UTF-8\n[Event "\xff"]\n')  # bytes the set cannot read come back as they were
    assert encode(text, enc) == b'%charset=UTF-8\n[Event "\xff"]\n'


def test_splice_and_annotate_change_only_their_game():
    text = FEATURES.read_text(encoding="iso-8859-1")
    boards = read_pbn(text)
    assert splice(text, boards, {}) == text
    assert all(text[b.start:b.start + len(b.text)] == b.text for b in boards)
    new = splice(text, boards, {1: annotate_auction(boards[1], ["x"] * 10)})
    again = read_pbn(new)
    assert [b.text for i, b in enumerate(again) if i != 1] == [b.text for i, b in enumerate(boards) if i != 1]
    assert again[1].note_of(0) == "x" and "; a comment to the end of the line" in again[1].text
    section = auction_section(Auction.parse("1S P 2S"), ["a", None, "b"])
    replaced = replace_auction(boards[0], section)
    assert "[Play" in replaced and "[HomeTeam" in replaced and str(read_pbn(replaced)[0].auction) == "1S P 2S"


# ------------------------------------------------------------------ 4: LIN keeps everything
def _pairs(text: str) -> list[tuple[str, str]]:
    return re.findall(r"([A-Za-z]{2})\|([^|]*)\|", text)


def test_lin_output_keeps_every_pair_and_adds_only_explanations(run, tmp_path):
    out_file = tmp_path / "out.lin"
    status, _, err = run("infer", "--lin", LIN, "-o", out_file)
    assert status == 0, err
    before, after = _pairs(LIN.read_text()), _pairs(out_file.read_text())
    added = list(after)
    for p in before:  # every pair of the input, in order, is in the output
        added = added[added.index(p) + 1:] if p in added else pytest.fail(f"{p} lost")
    extra = [p for p in after if p not in before]
    assert extra and all(k == "an" for k, _ in extra)
    assert [k for k, _ in after if k != "an"] == [k for k, _ in before if k != "an"]
    for i, (k, _) in enumerate(after):  # an explanation follows a call
        if k == "an":
            assert after[i - 1][0] == "mb"
    assert out_file.read_text().count("\n") == LIN.read_text().count("\n")
    b1, b2 = read_lin(out_file.read_text())
    assert b1.explanations[0] == "5-6 spades and 4-5 clubs" and b1.explanations[6] is not None


def test_lin_round_trips_and_unreadable_lin_boards(run, tmp_path):
    once, twice = tmp_path / "once.lin", tmp_path / "twice.lin"
    run("infer", "--lin", LIN, "-o", once)
    status, _, _ = run("infer", "--lin", once, "-o", twice)
    assert status == 0 and once.read_bytes() == twice.read_bytes() != LIN.read_bytes()
    src = tmp_path / "bad.lin"
    lines = [b"pn|a,b,c,d|md|3SAKQ83HJ2DK4CQT92,,,|sv|o|ah|Board 1|mb|1S|mb|p|",
             b"pn|a,b,c,d|md|9bad|ah|Board 2|mb|1S|", b"qx|o3|md|3,,,|ah|Board 3|mb|1S|mb|1H|"]
    src.write_bytes(b"\r\n".join(lines) + b"\r\n")
    out_file = tmp_path / "out.lin"
    status, out, err = run("infer", "--lin", src, "-o", out_file)
    assert status == 0 and out.count("cannot read this board") == 2 and "Traceback" not in err
    written = out_file.read_bytes().split(b"\r\n")
    assert written[1:] == lines[1:] + [b""] and written[0].startswith(lines[0][:-len(b"mb|p|")] + b"an|")


def test_lin_bid_keeps_everything_but_the_calls(run, tmp_path):
    out_file = tmp_path / "out.lin"
    status, _, err = run("bid", "--lin", LIN, "-o", out_file)
    assert status == 0, err
    before, after = _pairs(LIN.read_text()), _pairs(out_file.read_text())
    assert [p for p in after if p[0] not in ("mb", "an", "nt")] == [p for p in before if p[0] not in ("mb", "an")]
    assert not any(k == "nt" for k, _ in before)  # (each nt| of the output is a note saying why it stops)


def test_lin_bid_says_where_and_why_the_auction_stops(run, tmp_path, system):
    """LIN has no comment: where the system gives several calls (or none), a note (nt|, BBO's
    commentary) follows the last call and says why; the calls read back as bid."""
    out_file = tmp_path / "out.lin"
    status, _, err = run("bid", "--lin", LIN, "-o", out_file)
    assert status == 0, err
    text = out_file.read_text()
    bidder = Bidder(system)
    for line, b in zip(text.splitlines(), read_lin(text), strict=True):
        pairs = _pairs(line)
        notes = [i for i, (k, _) in enumerate(pairs) if k == "nt"]
        calls = [i for i, (k, _) in enumerate(pairs) if k in ("mb", "an")]
        res = bidder.bid(b.deal[b.auction.turn], b.auction)
        assert res.status in ("several", "none") and len(notes) == 1 and notes[0] == calls[-1] + 1
        said = pairs[notes[0]][1]
        assert "so the auction stops" in said and " ".join(res.calls) in said


def test_endplay_finds_the_boards_of_what_is_written(run, tmp_path):
    endplay_lin = pytest.importorskip("endplay.parsers.lin")
    original = endplay_lin.loads(LIN.read_text())
    for command in ("infer", "bid"):
        out_file = tmp_path / f"{command}.lin"
        status, _, err = run(command, "--lin", LIN, "-o", out_file)
        assert status == 0, err
        boards = endplay_lin.loads(out_file.read_text())
        assert len(boards) == len(original) == 2
        for b, o in zip(boards, original, strict=True):
            assert b.board_num == o.board_num and b.deal.to_pbn() == o.deal.to_pbn()
            assert [str(c) for c in b.play] == [str(c) for c in o.play] and b.claimed == o.claimed
        if command == "infer":
            assert [c.announcement for c in boards[0].auction][:3] == ["5-6 spades and 4-5 clubs", None, "relay"]
    out_file = tmp_path / "from-pbn.lin"
    status, _, _ = run("bid", "--pbn", DEALER, "-o", out_file)
    assert status == 0 and len(endplay_lin.loads(out_file.read_text())) == 10


# ------------------------------------------------------------------ 5: no guess presented as the system's call
def test_bid_never_presents_a_guess_as_the_system_s_call(run, tmp_path, system):
    out_file = tmp_path / "bid.pbn"
    status, out, _ = run("bid", "--pbn", DEALER, "-o", out_file)
    assert status == 0
    bidder = Bidder(system)
    boards = read_pbn(out_file.read_text())
    assert len(boards) == 10
    for b in boards:
        a = b.auction
        for i, call in enumerate(a.calls):
            r = bidder.bid(b.deal[a.seat_of(i)], Auction(a.calls[:i], a.dealer))
            # each call written is the one call the system gives, or a defender's pass it leaves open
            assert r.calls == [str(call)] or (r.side == "defence" and str(call) == "P" and r.status != "several"), \
                (b.number, i, r.status, r.calls)
        if not a.is_complete:  # stopped short: marked, and why
            r = bidder.bid(b.deal[a.turn], a)
            assert b.auction_incomplete and r.status in ("several", "none", "undefined")
            if r.status == "several":
                assert f"fits several calls here: {' '.join(r.calls)}" in b.text
                assert "does not choose" in b.text


# ------------------------------------------------------------------ 6: one PBN writer
def test_one_pbn_writer_for_infer_deal_and_bid(run, tmp_path):
    status, to_pbn, _ = run("infer", "2S P 2N", "--to", "pbn")
    status, dealt, _ = run("deal", "2S P 2N", "-n", "1", "--format", "pbn", "--seed", "1")

    def section(text):
        lines = text.splitlines()
        start = lines.index('[Auction "N"]')
        end = max(i for i, x in enumerate(lines) if x.startswith("[Note "))
        return lines[start:end + 1]
    assert section(to_pbn) == section(dealt)
    assert section(to_pbn)[1].endswith("*")  # an open auction is marked, by both
    (b,) = read_pbn(to_pbn)
    assert b.auction_incomplete and str(b.auction) == "2S P 2N"
    # the same escaping: a backslash in a meaning is written \\ by both
    assert all(re.fullmatch(r'\[Note "\d+:(?:[^"\\]|\\.)*"\]', x) for x in section(dealt) if x.startswith("[Note"))
    assert [x.note_of(2) for x in read_pbn(dealt)] == [b.note_of(2)]
