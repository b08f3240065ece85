"""Files that survive the round trip (issues 36 and 37): what -o writes keeps every byte the tool
does not add, in the file's own character set and line ends; unreadable boards are copied
through; the output is written only after all the work, whole or not at all; an output that
cannot be written and an input with no boards are errors found before any work."""

from pathlib import Path

import pytest

from canary_infer.bridge.auction import Auction
from canary_infer.bridge.pbn import annotate_auction, auction_section, read_pbn, replace_auction, splice
from canary_infer.bridge.textfile import decode, encode

DATA = Path(__file__).resolve().parent / "data"
FEATURES = DATA / "features.pbn"

DEAL = "N:AKQ83.J2.K4.QT92 JT9.AKQ3.AQJ2.K3 7654.T987.T98.A8 2.654.7653.J7654"
GOOD = '[Board "{n}"]\n[Dealer "N"]\n[Deal "' + DEAL + '"]\n[Auction "N"]\n1S Pass 2S Pass\nPass Pass -\n*\n'


def test_a_filler_after_a_completed_auction_is_read():
    (b,) = read_pbn(GOOD.format(n=1))
    assert str(b.auction) == "1S P 2S P P P" and b.auction.is_complete and not b.auction_incomplete
    (b,) = read_pbn('[Board "1"]\n[Auction "N"]\n1S Pass 2S Pass\nPass Pass - -\n*')
    assert str(b.auction) == "1S P 2S P P P"
    (b,) = read_pbn('[Board "1"]\n[Auction "N"]\n1S Pass - *')  # a call not made, then '*'
    assert str(b.auction) == "1S P" and b.auction_incomplete
    with pytest.raises(ValueError, match="after"):
        read_pbn('[Board "1"]\n[Auction "N"]\nPass Pass Pass Pass 1S')


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
