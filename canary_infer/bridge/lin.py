"""LIN, BBO's format: the deal (``md|``), the calls (``mb|``) and their explanations
(``an|``), and BBO handviewer links.

A LIN text is a run of ``key|value|`` pairs.  ``md|`` gives the dealer (1 = South,
2 = West, 3 = North, 4 = East) and the hands in the order South, West, North, East, each
as ``S...H...D...C...`` (the fourth may be left out: it holds the remaining cards);
``mb|`` is a call (``p``, ``d``, ``r``, ``1N``; a trailing ``!`` marks an alert); ``an|``
explains the call just made; ``sv|`` is the vulnerability (``o``, ``n``, ``e``, ``b``) and
``ah|`` the board's title; ``nt|`` is a note, BBO's commentary at that point of the board.
A new ``qx|`` or ``md|`` starts a new board.

    >>> from canary_infer.bridge.cards import Deal
    >>> deal = Deal.from_pbn("N:AKQ83.J2.K4.QT92 JT9.AKQ3.AQJ2.K3 7654.T987.T98.A8 2.654.7653.J7654")
    >>> text = write_lin(deal, Auction.parse("1C P 1S"), ["17+ HCP", None, "natural"], board="3")
    >>> text[:len("md|3S7654HT987DT98CA8,")], text[text.index("|sv|"):]
    ('md|3S7654HT987DT98CA8,', '|sv|o|ah|Board 3|mb|1C!|an|17+ HCP|mb|p|mb|1S!|an|natural|')
    >>> b = read_lin(text)[0]
    >>> b.deal == deal, str(b.auction), b.explanations
    (True, '1C P 1S', ['17+ HCP', None, 'natural'])
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import quote

from canary_infer.bridge.auction import Auction, AuctionError, Call
from canary_infer.bridge.cards import RANKS, SUITS, CardError, Deal, Hand

__all__ = ["LinError", "LinBoard", "read_lin", "write_lin", "handviewer_url", "HANDVIEWER", "explain",
           "replace_calls", "apply_edits"]

HANDVIEWER = "https://www.bridgebase.com/tools/handviewer.html"
_DEALER_DIGIT = {"1": "S", "2": "W", "3": "N", "4": "E"}
_DIGIT_OF = {v: k for k, v in _DEALER_DIGIT.items()}
_ORDER = "SWNE"  # the order of the hands in md|
_VUL_IN = {"o": "None", "0": "None", "n": "NS", "e": "EW", "b": "All"}
_VUL_OUT = {"None": "o", "NS": "n", "EW": "e", "All": "b"}
_PAIR = re.compile(r"([A-Za-z]{2})\|([^|]*)\|")


class LinError(ValueError):
    """A LIN text that cannot be read, naming the pair at fault."""


@dataclass
class LinBoard:
    deal: Deal | None
    dealer: str
    auction: Auction
    explanations: list[str | None] = field(default_factory=list)
    board: str | None = None
    vulnerable: str = "None"
    error: str | None = None  # why the board could not be read (read_lin with strict=False)
    pairs: list[tuple[str, str, int, int]] = field(default_factory=list)  # key, value, start, end in the text


def _hand(text: str) -> Hand | None:
    """``SAKQ83HJ2DK4CQT92`` as a hand (``None`` for an empty field)."""
    if not text.strip():
        return None
    cards, suit = [], None
    for ch in text.strip().upper():
        if ch in SUITS:
            suit = ch
        elif ch in RANKS and suit is not None:
            cards.append((suit, ch))
        else:
            raise LinError(f"unreadable card {ch!r} in hand {text!r}")
    return Hand(cards)


def _hand_text(hand: Hand) -> str:
    return "".join(s + hand.suit(s) for s in SUITS)


def _md(value: str) -> tuple[str, Deal | None]:
    if not value or value[0] not in _DEALER_DIGIT:
        raise LinError(f"md|{value[:12]}|: expected the dealer's digit 1-4 first")
    dealer = _DEALER_DIGIT[value[0]]
    fields = value[1:].split(",")
    hands: dict[str, Hand | None] = {}
    try:
        for seat, f in zip(_ORDER, fields, strict=False):
            hands[seat] = _hand(f)
        known = [h for h in hands.values() if h is not None]
        missing = [s for s in _ORDER if hands.get(s) is None]
        if len(known) == 3 and len(missing) == 1:  # the fourth hand: the cards left
            held = {c for h in known for c in h}
            hands[missing[0]] = Hand([(s, r) for s in SUITS for r in RANKS if (s, r) not in held])
        return dealer, (Deal(hands) if known else None)
    except CardError as e:
        raise LinError(f"md|{value[:20]}...|: {e}") from None


def read_lin(text: str, strict: bool = True) -> list[LinBoard]:
    """Every board of a LIN text (a file, or the ``lin=`` value of a handviewer link).

    :raises LinError: on an unreadable deal, call or vulnerability; with ``strict=False``
        such a board comes back with ``error`` set instead (and no deal or calls).
    """
    boards: list[LinBoard] = []
    cur: dict | None = None

    def close():
        if cur is not None and (cur["md"] is not None or cur["calls"]):
            try:
                board = _board(cur)
            except LinError as e:
                if strict:
                    raise
                board = LinBoard(None, "N", Auction([], "N"), board=_number(cur["ah"]), error=str(e))
            board.pairs = cur["pairs"]
            boards.append(board)

    for m in _PAIR.finditer(text):
        key, value = m.group(1).lower(), m.group(2)
        if key == "qx" or (key == "md" and cur is not None and cur["md"] is not None):
            close()
            cur = None
        if cur is None:
            cur = {"md": None, "calls": [], "notes": [], "sv": "o", "ah": None, "pairs": [], "error": None}
        cur["pairs"].append((key, value, m.start(), m.end()))
        if key == "md":
            cur["md"] = value
        elif key == "mb":
            cur["calls"].append(value)
            cur["notes"].append(None)
        elif key == "an":
            if not cur["calls"]:
                cur["error"] = cur["error"] or f"an|{value[:20]}| explains no call"
                continue
            cur["notes"][-1] = value
        elif key == "sv":
            cur["sv"] = value
        elif key == "ah":
            cur["ah"] = value
    close()
    return boards


def _board(cur: dict) -> LinBoard:
    if cur["error"]:
        raise LinError(cur["error"])
    dealer, deal = _md(cur["md"]) if cur["md"] is not None else ("N", None)
    auction = Auction([], dealer)
    for i, raw in enumerate(cur["calls"]):
        c = raw.strip().rstrip("!").upper()
        c = {"D": "X", "R": "XX"}.get(c, c)
        try:
            auction = auction.append(Call.parse(c))
        except (AuctionError, ValueError) as e:
            raise LinError(f"mb|{raw}| (call {i + 1}): {e}") from None
    sv = cur["sv"].strip().lower()
    if sv not in _VUL_IN:
        raise LinError(f"sv|{cur['sv']}|: expected o, n, e or b")
    title = cur["ah"]
    board = _number(title)
    return LinBoard(deal, dealer, auction, cur["notes"], board, _VUL_IN[sv])


def _number(title: str | None) -> str | None:
    return title[len("Board "):].strip() if title and title.startswith("Board ") else title


def _clean(text: str) -> str:
    return text.replace("|", "/").replace("\n", " ")


def _calls(auction: Auction, explanations: list[str | None] | None, comment: str | None = None) -> str:
    """``mb|`` for each call, and ``an|`` after each with an explanation (the call alerted: ``!``);
    ``comment`` as a note (``nt|``) after the last call.

    LIN has no comment; ``nt|`` is BBO's commentary, shown when the board reaches it.  Only
    after a call: endplay's reader takes ``nt|`` for the explanation of the call before it
    (so it reads the note as the last call's) and finds no board where there is none.

    >>> _calls(Auction.parse("1C P"), ["17+ HCP"], "the auction stops here")
    'mb|1C!|an|17+ HCP|mb|p|nt|the auction stops here|'
    >>> _calls(Auction.parse(""), [], "the auction stops here")
    ''
    """
    parts = []
    notes = list(explanations or [])
    for i, c in enumerate(auction.calls):
        call = {"pass": "p", "double": "d", "redouble": "r"}.get(c.kind) or str(c)
        note = notes[i] if i < len(notes) else None
        parts.append(f"mb|{call}{'!' if note else ''}|" + (f"an|{_clean(note)}|" if note else ""))
    if comment and parts:
        parts.append(f"nt|{_clean(comment)}|")
    return "".join(parts)


def write_lin(deal: Deal | None, auction: Auction, explanations: list[str | None] | None = None,
              board: str | None = None, vulnerable: str = "None", players: list[str] | None = None,
              comment: str | None = None) -> str:
    """A LIN text: ``pn|`` (with ``players``, South West North East, as LIN readers such as
    endplay's want a board to start), ``md|`` (the deal, or the dealer alone), ``sv|``,
    ``ah|``, then ``mb|`` and ``an|`` for each call, and ``comment`` as a note after the last
    (see :func:`_calls`).  A call with an explanation is marked alerted (``!``)."""
    parts = []
    if players is not None:
        parts.append(f"pn|{','.join(_clean(p).replace(',', ' ') for p in players)}|")
    dealer = auction.dealer
    if deal is not None:
        hands = ",".join("" if deal[s] is None else _hand_text(deal[s]) for s in _ORDER)
        parts.append(f"md|{_DIGIT_OF[dealer]}{hands}|")
    else:
        parts.append(f"md|{_DIGIT_OF[dealer]},,,|")
    parts.append(f"sv|{_VUL_OUT.get(vulnerable, 'o')}|")
    if board is not None:
        parts.append(f"ah|Board {_clean(str(board))}|")
    parts.append(_calls(auction, explanations, comment))
    return "".join(parts)


# --------------------------------------------------------------------------- changing a file
# A board is changed in place: every pair the tool does not add or replace stays as it was
# (pn|, st|, rh|, qx|, the play pc|, the claim mc|, and any other), and so does the text
# between pairs.  Each function gives edits (start, end, new text) to apply to the file's text.


def explain(board: LinBoard, explanations: list[str | None]) -> list[tuple[int, int, str]]:
    """Edits putting ``an|text|`` after each ``mb|`` that has no ``an|`` yet and has a text in
    ``explanations``; the calls themselves are not touched.

    >>> text = "pn|a,b,c,d|md|3,,,|mb|1C|mb|p|mb|1S|an|mine|pc|SA|"
    >>> (b,) = read_lin(text)
    >>> apply_edits(text, explain(b, ["17+ HCP", None, "natural"]))
    'pn|a,b,c,d|md|3,,,|mb|1C|an|17+ HCP|mb|p|mb|1S|an|mine|pc|SA|'
    """
    edits, k = [], 0
    for idx, (key, _, _, end) in enumerate(board.pairs):
        if key != "mb":
            continue
        note = explanations[k] if k < len(explanations) else None
        k += 1
        if note and not (idx + 1 < len(board.pairs) and board.pairs[idx + 1][0] == "an"):
            edits.append((end, end, f"an|{_clean(note)}|"))
    return edits


def replace_calls(board: LinBoard, auction: Auction, explanations: list[str | None] | None = None,
                  comment: str | None = None) -> list[tuple[int, int, str]]:
    """Edits putting ``auction`` (with its explanations, and ``comment`` as a note after its last
    call: see :func:`_calls`) in place of the board's ``mb|`` and ``an|`` pairs: where the
    first call was, or before the play (``pg|``, ``pc|``, ``mc|``), or after the board's last pair."""
    calls = [p for p in board.pairs if p[0] in ("mb", "an")]
    if calls:
        at = calls[0][2]
    else:
        at = next((p[2] for p in board.pairs if p[0] in ("pg", "pc", "mc")), board.pairs[-1][3])
    edits = [(start, end, "") for _, _, start, end in calls]
    edits.append((at, at, _calls(auction, explanations, comment)))
    return edits


def apply_edits(text: str, edits) -> str:
    """``text`` with each edit's span (start, end) replaced by its new text."""
    out, at = [], 0
    for start, end, new in sorted(edits, key=lambda e: (e[0], e[1])):
        out += [text[at:start], new]
        at = max(at, end)
    out.append(text[at:])
    return "".join(out)


def handviewer_url(deal: Deal | None, auction: Auction, explanations: list[str | None] | None = None,
                   board: str | None = None, vulnerable: str = "None") -> str:
    """A BBO handviewer link showing the deal and the auction with its explanations."""
    return f"{HANDVIEWER}?lin={quote(write_lin(deal, auction, explanations, board, vulnerable), safe='')}"
