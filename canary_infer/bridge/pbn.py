"""PBN files as real files are written: games, tags, the auction with its notes, the play.

:func:`read_pbn` reads every game of a file; each becomes a :class:`Board` with its tags,
its deal, its auction (``None`` for a board with no ``[Auction]``), the note attached to
each call and the text of those notes.  What real files contain is accepted: ``%`` lines
(``% PBN 2.1``, ``% EXPORT``), ``{...}`` and ``;`` comments, calls spread over several
lines, ``Pass``/``P``, ``AP`` (all pass), ``-`` standing for the calls of the seats before
the dealer when the auction is laid out from another seat, ``=1=`` note references with
their ``[Note "1:..."]`` tags, ``!``/``?`` suffixes and ``$n`` NAGs, ``*`` for an auction
or play that is not finished, ``[Play]`` and other sections, and ``"#"`` (the previous
game's value).

    >>> boards = read_pbn('''
    ... % PBN 2.1
    ... [Board "7"]
    ... [Dealer "S"]
    ... [Deal "N:AKQ83.J2.K4.QT92 - - -"]
    ... [Auction "S"]
    ... 1C =1= Pass 1NT
    ... Pass AP
    ... [Note "1:17+ HCP"]
    ... ''')
    >>> b = boards[0]
    >>> b.number, b.dealer, str(b.auction), b.note_of(0), b.deal["N"].hcp
    ('7', 'S', '1C P 1N P P P', '17+ HCP', 15)

:func:`auction_section` writes an auction with a note for each call that has one, and
:func:`replace_auction` puts it into a game's text in place of the old one, leaving
everything else as it was.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from canary_infer.bridge.auction import SEATS, Auction, AuctionError, Call
from canary_infer.bridge.cards import CardError, Deal

__all__ = ["PbnError", "Board", "read_pbn", "auction_section", "game", "write_pbn", "annotate_auction",
           "replace_auction", "splice", "escape"]


class PbnError(ValueError):
    """A PBN file that cannot be read: ``line`` (1-based) and ``board`` when known."""

    def __init__(self, message: str, line: int | None = None, board: str | None = None):
        where = ", ".join(x for x in (f"line {line}" if line else "", f"board {board}" if board else "") if x)
        super().__init__(f"{where}: {message}" if where else message)
        self.line, self.board, self.reason = line, board, message


# a tag's value is matched as runs of plain characters between escapes ("unrolled"): the
# alternation (?:[^"\\]|\\.)* kept a backtracking point per character, 1.3 GB for a 5 MB note
_TOKEN = re.compile(
    r"""
      (?P<space>\s+)
    | (?P<comment>\{[^}]*\}|;[^\n]*|(?m:^%[^\n]*))
    | (?P<tag>\[\s*(?P<name>[A-Za-z0-9_]+)\s*"(?P<value>[^"\\]*(?:\\.[^"\\]*)*)"\s*\])
    | (?P<word>[^\s\[\]{};]+)
    | (?P<bad>.)
    """,
    re.VERBOSE | re.DOTALL,
)
_NOTE_REF = re.compile(r"^=(\d+)=$")
_VULNERABLE = {"NONE": "None", "LOVE": "None", "-": "None", "NS": "NS", "EW": "EW", "ALL": "All", "BOTH": "All"}


def escape(text: str) -> str:
    """A tag value with its backslashes and quotes escaped."""
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


@dataclass
class Tag:
    name: str
    value: str
    start: int  # offset of "[" in the game text
    end: int  # offset after the tag's section (the tokens that follow it)
    line: int
    tokens: list[tuple[str, int, int]] = field(default_factory=list)  # section words: line, offset in the text


@dataclass
class Board:
    """One game of a PBN file."""

    text: str  # the game's text as in the file
    line: int  # the line it starts on
    tags: list[Tag]
    values: dict[str, str]  # tag name -> value (first occurrence, "#" resolved)
    deal: Deal | None
    auction: Auction | None
    call_notes: list[int | None]  # the note number of each call
    notes: dict[int, str]  # the auction's notes
    auction_incomplete: bool = False
    play: list[str] = field(default_factory=list)  # the play section's cards, '-' for none
    error: str | None = None  # why the game could not be read (read_pbn with strict=False)
    start: int = 0  # where the game's text starts in the file's text (its end: start + len(text))
    call_ends: list[int | None] = field(default_factory=list)  # where each call's word ends in text

    @property
    def number(self) -> str | None:
        return self.values.get("Board")

    @property
    def dealer(self) -> str | None:
        if self.auction is not None:
            return self.auction.dealer
        d = self.values.get("Dealer", "").strip().upper()
        return d if d in SEATS and len(d) == 1 else None

    @property
    def vulnerable(self) -> str:
        """``None``, ``NS``, ``EW`` or ``All``."""
        return _VULNERABLE.get(self.values.get("Vulnerable", "None").strip().upper(), "None")

    def note_of(self, i: int) -> str | None:
        """The text of the note attached to call *i*, if any."""
        n = self.call_notes[i] if i < len(self.call_notes) else None
        return self.notes.get(n) if n is not None else None


def _games(text: str):
    """Split a file into games: (game text, first line, offset).  A game runs from its first
    line that is neither empty nor a '%' line to the last line before an empty line (outside
    a {...} comment); the '%' lines within it stay in its text (the tokens skip them)."""
    lines = text.splitlines(keepends=True)
    cur: list[str] = []
    start = offset = at = 0
    in_comment = False
    for no, line in enumerate(lines, 1):
        here, at = at, at + len(line)
        if not in_comment and not line.strip():
            if cur:
                yield "".join(cur), start, offset
            cur = []
            continue
        if not cur:
            if not in_comment and line.startswith("%"):
                continue
            start, offset = no, here
        cur.append(line)
        # track an open {...} comment so that an empty line inside it does not end the game
        if not (not in_comment and line.startswith("%")):
            for ch in line:
                if ch == "{":
                    in_comment = True
                elif ch == "}":
                    in_comment = False
    if cur:
        yield "".join(cur), start, offset


def _parse_tags(game: str, first_line: int) -> list[Tag]:
    tags: list[Tag] = []
    line = first_line
    for m in _TOKEN.finditer(game):
        kind = m.lastgroup
        here = line
        line += m.group().count("\n")
        if kind in ("space", "comment"):
            continue
        if kind == "bad":
            raise PbnError(f"unreadable text {game[m.start():m.start() + 20]!r}", here)
        if kind == "tag":
            if tags:
                tags[-1].end = m.start()
            tags.append(Tag(m.group("name"), _unescape(m.group("value")), m.start(), len(game), here))
            continue
        if not tags:
            if not any(x.lastgroup == "tag" for x in _TOKEN.finditer(game)):
                return []  # a paragraph of plain text between games (a program's summary): not a game
            raise PbnError(f"{m.group()!r} before the first tag", here)
        tags[-1].tokens.append((m.group(), here, m.end()))
    if tags:
        # a section ends where its last token ends (trailing space and comments stay outside it)
        last = tags[-1]
        last.end = len(game.rstrip())
    return tags


def _read_auction(tag: Tag, dealer_tag: str | None, board: str | None):
    """(auction, note of each call, incomplete, where each call's word ends) from an
    [Auction] tag and its section.

    After the auction has ended, or after '*' or a '-' (a call not made), '-' and '*' are
    fillers; a call there is an error."""
    first = tag.value.strip().upper()
    if first not in SEATS or len(first) != 1:
        raise PbnError(f'[Auction "{tag.value}"] does not name a seat', tag.line, board)
    words = list(tag.tokens)
    lead = 0
    while words and words[0][0] == "-":
        words.pop(0)
        lead += 1
    dealer = SEATS[(SEATS.index(first) + lead) % 4]
    if dealer_tag and dealer_tag.strip().upper() in SEATS and dealer_tag.strip().upper() != dealer:
        raise PbnError(f'[Dealer "{dealer_tag}"] disagrees with the auction, whose first call is '
                       f"{dealer}'s", tag.line, board)
    auction = Auction([], dealer)
    notes: list[int | None] = []
    ends: list[int | None] = []
    incomplete = False
    for word, line, end in words:
        if _NOTE_REF.match(word):
            if not notes:
                raise PbnError(f"note {word} before any call", line, board)
            notes[-1] = int(_NOTE_REF.match(word).group(1))
            continue
        if word.startswith("$"):
            continue
        w = word.rstrip("!?")
        if not w:
            continue
        if w in ("*", "-"):
            # '*': the auction is not finished; '-': a call not made (the rest is unknown), or,
            # after the auction has ended, a filler that lays the last line out to four columns
            incomplete = incomplete or not auction.is_complete
            continue
        if incomplete or (auction.is_complete and len(auction)):
            raise PbnError(f"{word!r} after '*', '-' or the end of the auction", line, board)
        if w.startswith("^"):  # an irregularity marker (^S insufficient bid, ...): the call is kept as given
            continue
        try:
            if w.upper() == "AP":
                if auction.is_complete:
                    raise AuctionError("'AP' comes after the auction ended", "illegal", len(auction))
                while not auction.is_complete:
                    auction = auction.append("P")
                    notes.append(None)
                    ends.append(None)  # no note can be put on one of the passes 'AP' stands for
                continue
            auction = auction.append(Call.parse(w))
            notes.append(None)
            ends.append(end)
        except (AuctionError, ValueError) as e:
            raise PbnError(f"call {len(auction) + 1} {word!r}: {e}", line, board) from None
    return auction, notes, incomplete, ends


def _note(value: str) -> tuple[int, str] | None:
    m = re.match(r"\s*(\d+)\s*:(.*)$", value, re.DOTALL)
    return (int(m.group(1)), m.group(2)) if m else None


def read_pbn(text: str, strict: bool = True) -> list[Board]:
    """Every game of a PBN file, in file order.

    :raises PbnError: naming the line (and board) of anything that cannot be read: a bad
        deal, an illegal or unreadable call, a note before any call, a dealer that disagrees.
        With ``strict=False`` such a game comes back with ``error`` set instead, and the
        others are read as usual.
    """
    boards: list[Board] = []
    previous: dict[str, str] = {}
    for game, line, offset in _games(text):
        try:
            board = _read_game(game, line, previous)
        except PbnError as e:
            if strict:
                raise
            m = re.search(r'\[\s*Board\s*"([^"]*)"', game)
            board = Board(game, line, [], {"Board": m.group(1)} if m else {}, None, None, [], {}, error=str(e))
        if board is not None:
            board.start = offset
            boards.append(board)
    return boards


def _read_game(game: str, line: int, previous: dict) -> Board | None:
    """One game: its tags, deal, auction and notes ("#" takes the previous game's value)."""
    tags = _parse_tags(game, line)
    if not tags:
        return None
    values: dict[str, str] = {}
    for t in tags:
        if t.value == "#" and t.name in previous:
            t.value = previous[t.name]
        values.setdefault(t.name, t.value)
    previous.update(values)
    number = values.get("Board")
    deal = None
    if values.get("Deal", "").strip():
        try:
            deal = Deal.from_pbn(values["Deal"])
        except CardError as e:
            raise PbnError(f"[Deal]: {e}", next(t.line for t in tags if t.name == "Deal"), number) from None
    auction, call_notes, incomplete, ends = None, [], False, []
    notes: dict[int, str] = {}
    play: list[str] = []
    section = None
    for t in tags:
        if t.name == "Auction":
            if auction is not None:
                raise PbnError("more than one [Auction] in a game", t.line, number)
            auction, call_notes, incomplete, ends = _read_auction(t, values.get("Dealer"), number)
            section = "auction"
        elif t.name == "Note":
            note = _note(t.value)
            if note is None:
                raise PbnError(f'[Note "{t.value[:20]}"] is not "number:text"', t.line, number)
            if section == "auction":
                notes[note[0]] = note[1]
        elif t.name == "Play":
            play = [w for w, _, _ in t.tokens if not _NOTE_REF.match(w) and not w.startswith("$")]
            section = "play"
        else:
            section = None
    return Board(game, line, tags, values, deal, auction, call_notes, notes, incomplete, play, call_ends=ends)


# --------------------------------------------------------------------------- writing
# One writer for every PBN the tool writes (infer --to pbn, deal --format pbn, bid and infer -o):
# tags as [Name "value"] with the value escaped, an auction four calls a line with '*' after one
# that is not finished, notes numbered in order of first use.


def _value(text: str) -> str:
    """A tag value: one line, backslashes and quotes escaped."""
    return escape(re.sub(r"[\r\n]+", " ", str(text)))


def auction_section(auction: Auction, notes: list[str | None] | None = None, incomplete: bool | None = None,
                    comment: str | None = None) -> str:
    """An ``[Auction]`` section, four calls a line, with ``=n=`` after each call that has a
    note and the ``[Note "n:..."]`` tags after it (equal texts share a number).  An auction
    that has not ended gets ``*`` (unless ``incomplete`` is False); ``comment`` goes after the
    calls as a ``{...}`` comment (why the auction stops there).

    >>> a = Auction.parse("2S P 2N P 3C P P P")
    >>> print(auction_section(a, ["11-16 HCP, 5-6 spades", None, "relay", None, "short diamonds"]))
    [Auction "N"]
    2S =1= Pass 2NT =2= Pass
    3C =3= Pass Pass Pass
    [Note "1:11-16 HCP, 5-6 spades"]
    [Note "2:relay"]
    [Note "3:short diamonds"]
    >>> print(auction_section(Auction.parse("1S P"), comment="North fits several calls: 2S 3S"))
    [Auction "N"]
    1S Pass *
    {North fits several calls: 2S 3S}
    """
    notes = list(notes or [])
    numbers: dict[str, int] = {}
    words = []
    for i, c in enumerate(auction.calls):
        w = c.pbn()
        text = notes[i] if i < len(notes) else None
        if text:
            n = numbers.setdefault(text, len(numbers) + 1)
            w += f" ={n}="
        words.append(w)
    if (incomplete is None or incomplete) and not auction.is_complete:
        words.append("*")
    lines = [f'[Auction "{auction.dealer}"]']
    for k in range(0, len(words), 4):
        lines.append(" ".join(words[k:k + 4]))
    if comment:
        lines.append("{" + re.sub(r"[{}\r\n]+", " ", comment) + "}")
    lines += [f'[Note "{n}:{_value(t)}"]' for t, n in numbers.items()]
    return "\n".join(lines)


def game(tags, auction: Auction | None = None, notes: list[str | None] | None = None,
         comment: str | None = None) -> str:
    """A game: ``tags`` (pairs of name and value, in order) and the auction's section.

    >>> print(game([("Board", "1"), ("Dealer", "N"), ("Event", 'a "quoted" word')], Auction.parse("1S")))
    [Board "1"]
    [Dealer "N"]
    [Event "a \\"quoted\\" word"]
    [Auction "N"]
    1S *
    """
    lines = [f'[{name} "{_value(value)}"]' for name, value in tags]
    if auction is not None:
        lines.append(auction_section(auction, notes, comment=comment))
    return "\n".join(lines)


def write_pbn(games, header=("% PBN 2.1", "% EXPORT")) -> str:
    """A file: the ``%`` header lines, then the games, an empty line after each."""
    return "".join(line + "\n" for line in header) + "".join(g.rstrip("\n") + "\n\n" for g in games)


# --------------------------------------------------------------------------- changing a file
# A game is changed in place: what the tool does not add stays as it was, byte for byte.


def newline_of(text: str) -> str:
    """The line end a text uses (``\\r\\n`` or ``\\n``)."""
    return "\r\n" if "\r\n" in text else "\n"


def _insert(text: str, at: int, block: str, nl: str) -> str:
    """``block`` (lines) put into ``text`` at ``at`` on lines of its own."""
    before = "" if at == 0 or text[at - 1] == "\n" else nl
    rest = text[at:]
    after = "" if not rest or rest.startswith(("\n", "\r\n")) else nl
    return text[:at] + before + block + after + rest


def annotate_auction(board: Board, notes: list[str | None]) -> str:
    """The board's game text with a note for each call that has none yet and has a text in
    ``notes``: `` =n=`` after the call's word and ``[Note "n:..."]`` after the auction's notes
    (numbered after the game's own; equal texts share a number).  Nothing else changes: the
    file's own notes, comments, layout and line ends stay; a call that already has a note
    keeps it, so that annotating twice changes nothing.  The passes ``AP`` stands for get none.

    >>> (b,) = read_pbn('[Board "1"]\\n[Auction "N"]\\n1S =1= Pass 2S {raise} Pass\\n[Note "1:mine"]\\n')
    >>> print(annotate_auction(b, ["5+ spades", None, "3-card raise", "nothing"]), end="")
    [Board "1"]
    [Auction "N"]
    1S =1= Pass 2S =2= {raise} Pass =3=
    [Note "1:mine"]
    [Note "2:3-card raise"]
    [Note "3:nothing"]
    """
    text = board.text
    if board.auction is None:
        return text
    nl = newline_of(text)
    used = {t.value.split(":", 1)[0].strip() for t in board.tags if t.name == "Note"}
    taken = {int(x) for x in used if x.isdigit()}
    first = max(taken, default=0) + 1
    numbers: dict[str, int] = {}
    inserts: list[tuple[int, str]] = []
    for i, end in enumerate(board.call_ends):
        note = notes[i] if i < len(notes) else None
        if not note or end is None or board.call_notes[i] is not None:
            continue
        n = numbers.setdefault(note, first + len(numbers))
        inserts.append((end, f" ={n}="))
    if not numbers:
        return text
    idx = next(i for i, t in enumerate(board.tags) if t.name == "Auction")
    j = idx + 1
    while j < len(board.tags) and board.tags[j].name == "Note":
        j += 1
    at = board.tags[j - 1].end
    for end, mark in sorted(inserts, reverse=True):  # the calls come before the notes' place
        text = text[:end] + mark + text[end:]
    at += sum(len(mark) for _, mark in inserts)
    block = nl.join(f'[Note "{n}:{_value(t)}"]' for t, n in numbers.items())
    return _insert(text, at, block, nl)


def replace_auction(board: Board, section: str) -> str:
    """The board's game text with ``section`` in place of its auction and the auction's notes
    (or, with no auction, after the ``[Deal]`` tag's section, or at the end), in the game's
    line ends; the rest stays as it was."""
    text = board.text
    tags = board.tags
    nl = newline_of(text)
    section = section.replace("\n", nl) if nl != "\n" else section
    idx = next((i for i, t in enumerate(tags) if t.name == "Auction"), None)
    if idx is not None:
        j = idx + 1
        while j < len(tags) and tags[j].name == "Note":
            j += 1
        start, end = tags[idx].start, tags[j - 1].end
        rest = text[end:]
        if rest and not rest.startswith(("\n", "\r\n")):
            rest = nl + rest.lstrip(" ")
        return text[:start] + section + rest
    deal = next((t for t in tags if t.name == "Deal"), None)
    at = deal.end if deal is not None else len(text.rstrip())
    return _insert(text, at, section, nl)


def splice(text: str, boards: list[Board], games: dict[int, str]) -> str:
    """The file's ``text`` with the game of ``boards[i]`` replaced by ``games[i]``; everything
    else (``%`` lines, empty lines, text between games, the other games) as it was."""
    out, at = [], 0
    for i, b in enumerate(boards):
        if i in games:
            out += [text[at:b.start], games[i]]
            at = b.start + len(b.text)
    out.append(text[at:])
    return "".join(out)
