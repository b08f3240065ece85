"""Boards from PBN and LIN files: infer each auction and check the actual hands against it,
or bid each deal with the system and write the auctions back with their meanings.

    >>> from canary_infer.bridge.pbn import read_pbn
    >>> from canary_infer.deal.infer import Inferencer
    >>> (b,) = read_pbn('[Board "1"]\\n[Dealer "N"]\\n[Deal "N:AKQ83.J2.K4.QT92 - - -"]\\n[Auction "N"]\\n1S AP')
    >>> report = infer_board(Inferencer(), from_pbn(b))
    >>> report["board"], report["auction"], report["checks"]["N"]["hcp"], sorted(report["checks"])
    ('1', ['1S', 'P', 'P', 'P'], 15, ['N'])
"""

from __future__ import annotations

from dataclasses import dataclass, field

from canary_infer.bridge.auction import SEATS, Auction
from canary_infer.bridge.cards import Deal
from canary_infer.language.expr import TRUE, evaluate


@dataclass
class BoardIn:
    """A board as read from a file, whatever the format."""

    number: str | None
    dealer: str
    deal: Deal | None
    auction: Auction | None
    vulnerable: str = "None"
    error: str | None = None
    notes: list[str | None] = field(default_factory=list)
    source: object = None  # the pbn.Board or lin.LinBoard it came from
    players: dict[str, str] = field(default_factory=dict)  # seat -> name, when the file names them


_SEAT_TAGS = {"North": "N", "East": "E", "South": "S", "West": "W"}


def from_pbn(b) -> BoardIn:
    notes = [b.note_of(i) for i in range(len(b.auction))] if b.auction is not None else []
    players = {seat: b.values[tag] for tag, seat in _SEAT_TAGS.items() if b.values.get(tag, "").strip()}
    return BoardIn(b.number, b.dealer or "N", b.deal, b.auction, b.vulnerable, getattr(b, "error", None), notes, b,
                   players)


def from_lin(b) -> BoardIn:
    auction = b.auction if len(b.auction) else None
    names = next((v.split(",") for k, v, _, _ in b.pairs if k == "pn"), [])
    players = {seat: n for seat, n in zip("SWNE", names, strict=False) if n.strip()}
    return BoardIn(b.board, b.dealer, b.deal, auction, b.vulnerable, b.error, list(b.explanations), b, players)


def call_notes(inference) -> list[str | None]:
    """Each call's meaning and source, for the calls the system defines (None for the others)."""
    out = []
    for c in inference.calls:
        if not c.defined:
            out.append(None)
            continue
        out.append(c.meaning + (f" [{c.source}]" if c.source else ""))
    return out


def check_hands(inference, deal: Deal | None, words=None) -> dict:
    """For each seat whose hand is known: does it fit its calls, and does it lie inside the picture?"""
    out = {}
    if deal is None:
        return out
    for seat in SEATS:
        hand = deal[seat]
        if hand is None:
            continue
        failed = []
        for c in inference.calls:
            if c.seat == seat and c.defined and c.formula is not None and c.formula != TRUE:
                if not evaluate(c.formula, hand):
                    failed.append({"index": c.index, "call": c.call, "meaning": c.meaning,
                                   "words": words(c) if words else str(c.formula)})
        got = inference.hands[seat]
        inside = bool(got.consistent and hand.pattern in got.patterns and got.hcp[0] <= hand.hcp <= got.hcp[1])
        out[seat] = {"hand": hand.pbn(), "hcp": hand.hcp, "pattern": hand.pattern, "fits": not failed,
                     "inside": inside, "fails": failed}
    return out


def infer_board(inferencer, board: BoardIn) -> dict:
    """One board's report: the inference (the ``infer --json`` contract) plus ``board``,
    ``vulnerable``, ``deal`` and ``checks`` (each known hand against its seat's calls)."""
    from canary_infer.tools.present import call_words

    base = {"board": board.number, "dealer": board.dealer, "vulnerable": board.vulnerable,
            "deal": board.deal.pbn() if board.deal is not None else None}
    if board.error:
        return {**base, "auction": None, "calls": [], "hands": {}, "checks": {},
                "error": {"kind": "file", "message": board.error, "position": None}}
    if board.auction is None:
        return {**base, "auction": None, "calls": [], "hands": {}, "checks": {}, "error": None,
                "note": "the board has no auction"}
    inf = inferencer.infer(board.auction)
    system = inferencer.system

    def words(c):
        chair = (SEATS.index(c.seat) - SEATS.index(board.auction.dealer)) % 4 + 1
        return call_words(system, c.node, chair) if c.node is not None else ""

    return {**base, **inf.as_json(), "checks": check_hands(inf, board.deal, words)}


@dataclass
class BidOut:
    board: BoardIn
    auction: Auction | None
    notes: list[str | None]
    stop: str | None  # None (ended), "undefined", "none", "several" or "no deal"
    none_at: tuple[str, str] | None = None
    several: list = field(default_factory=list)

    def as_json(self) -> dict:
        return {"board": self.board.number, "dealer": self.board.dealer,
                "auction": [str(c) for c in self.auction.calls] if self.auction is not None else None,
                "stop": self.stop, "none": ({"seat": self.none_at[0], "hand": self.none_at[1]}
                                            if self.none_at else None),
                "several": [{"seat": s, "hand": h, "calls": c, "after": a} for s, h, c, a in self.several]}


    def why_stopped(self) -> str | None:
        """Why the auction stops before its end, in words (for a comment in the file)."""
        if self.stop == "several":
            seat, hand, calls, _ = self.several[-1]
            return (f"{_SEAT_NAMES[seat]} ({hand}) fits several calls here: {' '.join(calls)}; the system "
                    f"does not choose between them, so the auction stops")
        if self.stop == "none":
            seat, hand = self.none_at
            return f"{_SEAT_NAMES[seat]} ({hand}) fits no call the notes define here, so the auction stops"
        if self.stop == "undefined":
            seat = self.auction.turn
            return f"the notes define no call for {_SEAT_NAMES[seat]} here, so the auction stops"
        return None


_SEAT_NAMES = {"N": "North", "E": "East", "S": "South", "W": "West"}


def bid_board(inferencer, bidder, board: BoardIn) -> BidOut:
    """Bid a board's deal with the system (all four hands, as ``selfcheck`` does), stopping
    where a hand fits several calls (the system does not choose: no call is made up), fits
    none, or the notes define no call."""
    from canary_infer.tools.selfcheck import bid_out

    if board.deal is None or any(board.deal[s] is None for s in SEATS):
        return BidOut(board, None, [], "no deal")
    out = bid_out(board.deal, board.dealer, bidder, several="stop")
    inf = inferencer.infer(out.auction)
    return BidOut(board, out.auction, call_notes(inf), out.stop, out.none_at, list(out.several))
