"""The explorer page: ``canary-infer serve`` (Flask).

One page, rendered on the server, with the whole position in its URL
(``/?a=2S-P-2N&d=N&hand=S:KQ2.A87.QJ54.962``) so that it can be shared:

- the auction so far, each call with its meaning (undefined calls marked);
- a bidding box that offers only the legal calls, each a link to the next position;
- the system's next calls at this point with their meanings and what they show (the
  explore view);
- for each seat its picture: HCP and length ranges, the patterns left with probability
  bars, an HCP histogram (through :func:`canary_infer.tools.present.seat_picture`), all the
  deal's: exact over the deals consistent with the auction (and your hand) where at most
  one unseen seat is constrained, else estimated from ``samples`` deals drawn by the exact
  sampler (:data:`canary_infer.tools.present.SAMPLES`), shown with ± one standard error;
- an optional own hand; a few example deals (through
  :func:`canary_infer.tools.present.example_deals`) with BBO handviewer links.

``/api/position`` gives the same as JSON.
"""

from __future__ import annotations

import re

from flask import Flask, jsonify, render_template, request

from canary_infer.bridge.auction import SEATS, Auction, AuctionError, legal_calls
from canary_infer.bridge.cards import SUITS, CardError, Hand
from canary_infer.bridge.lin import handviewer_url
from canary_infer.deal.infer import Inferencer
from canary_infer.system.model import walk
from canary_infer.tools.bidding import position
from canary_infer.tools.present import SAMPLES, call_words, example_deals, scope_note, seat_picture
from canary_infer.ui.notebook import SEAT_NAME, SYMBOL

STRAINS = "CDHSN"


def _known(text: str | None):
    if not text:
        return None
    seat, _, pbn = text.partition(":")
    seat = seat.strip().upper()
    if seat not in SEATS or not pbn:
        raise CardError(f"your hand is SEAT:PBN, e.g. S:KQ2.A87.QJ54.962, not '{text}'")
    return seat, Hand.from_pbn(pbn)


def _url(calls, dealer, hand) -> str:
    from urllib.parse import urlencode

    q = {"a": "-".join(calls), "d": dealer}
    if hand:
        q["hand"] = hand
    return "/?" + urlencode(q)


class Explorer:
    """Everything the page shows for a position, as plain data."""

    def __init__(self, system=None, deals: int = 3, samples: int = SAMPLES):
        self.inferencer = Inferencer(system)
        self.system = self.inferencer.system
        self.deals = deals
        self.samples = samples  # deals drawn where the probabilities are estimated

    def position(self, text: str, dealer: str, hand_text: str | None, with_deals: bool = True) -> dict:
        dealer = (dealer or "N").upper()
        if dealer not in SEATS:
            dealer = "N"
        errors = []
        try:
            known = _known(hand_text)
        except CardError as e:
            errors.append(f"your hand '{hand_text}': {e}")
            known, hand_text = None, None
        try:
            auction = Auction.parse(text or "", dealer=dealer)
        except AuctionError as e:
            errors.append(f"{e} — showing the calls before it")
            tokens = [t for t in re.split(r"[\s,\-]+", text or "") if t]
            auction = Auction.parse(" ".join(tokens[:e.position or 0]), dealer=dealer)
        # the deal's ranges and probabilities, as the command line answers (infer --prob)
        inf = self.inferencer.infer(auction, known, prob=True, joint=True, samples=self.samples)
        calls = [str(c) for c in auction.calls]
        readings = []
        for c in inf.calls:
            chair = (SEATS.index(c.seat) - SEATS.index(dealer)) % 4 + 1
            readings.append({"index": c.index, "seat": c.seat, "call": c.call, "defined": c.defined,
                             "meaning": c.meaning, "source": c.source, "interpretation": c.interpretation,
                             "words": call_words(self.system, c.node, chair) if c.defined and c.node else "",
                             "undo": _url(calls[:c.index], dealer, hand_text)})
        seats = {s: seat_picture(self.inferencer, inf, s, known) for s in SEATS}
        nxt = self._next_calls(auction, hand_text)
        deals = []
        if with_deals and self.deals:
            for d in example_deals(self.inferencer, inf, self.deals, seed=len(calls) + 1, known=known,
                                   time_limit=2.0):
                deals.append({"pbn": d.pbn(), "hands": {s: {x: d[s].suit(x) for x in SUITS} for s in SEATS},
                              "hcp": {s: d[s].hcp for s in SEATS},
                              "handviewer": handviewer_url(d, auction, [r["meaning"] if r["defined"] else None
                                                                        for r in readings])})
        return {"auction": calls, "dealer": dealer, "hand": hand_text, "known": known[0] if known else None,
                "calls": readings, "seats": seats, "next": nxt, "deals": deals, "errors": errors,
                "complete": auction.is_complete, "turn": auction.turn if not auction.is_complete else None,
                "probabilities": scope_note(list(seats.values()), known is not None),
                "url": _url(calls, dealer, hand_text)}

    def _next_calls(self, auction: Auction, hand_text) -> dict:
        """The bidding box (legal calls only) and the system's calls at this point."""
        calls = [str(c) for c in auction.calls]
        if auction.is_complete:
            return {"box": [], "system": [], "side": None, "seat": None}
        pos = position(self.system, auction)
        _, node, _ = walk(self.system, auction)
        meanings = {}
        system_calls = []
        if node is not None:
            for child in node.children.values():
                theirs = child.is_opponents
                if (pos.side == "defence") != theirs:
                    continue
                call = child.call.strip("()")
                meanings[call] = child
                system_calls.append({"call": call, "defined": child.defined, "meaning": child.meaning,
                                     "source": child.source, "interpretation": child.interpretation,
                                     "words": call_words(self.system, child, pos.chair) if child.defined else "",
                                     "url": _url(calls + [call], auction.dealer, hand_text)})
        order = {"P": -3, "X": -2, "XX": -1}
        from canary_infer.bridge.auction import Call

        system_calls.sort(key=lambda c: order.get(c["call"], Call.parse(c["call"]).rank or 0))
        legal = {str(c) for c in legal_calls(auction)}
        box = []
        for level in range(1, 8):
            row = []
            for strain in STRAINS:
                call = f"{level}{strain}"
                row.append(self._box_cell(call, legal, meanings, calls, auction, hand_text))
            box.append(row)
        extra = [self._box_cell(c, legal, meanings, calls, auction, hand_text) for c in ("P", "X", "XX")]
        return {"box": box, "extra": extra, "system": system_calls, "side": pos.side, "seat": pos.seat,
                "chair": pos.chair}

    def _box_cell(self, call, legal, meanings, calls, auction, hand_text) -> dict:
        node = meanings.get(call)
        return {"call": call, "legal": call in legal, "label": _label(call),
                "defined": bool(node is not None and node.defined),
                "meaning": node.meaning if node is not None else "",
                "url": _url(calls + [call], auction.dealer, hand_text) if call in legal else None}


def _label(call: str) -> str:
    if call in ("P", "X", "XX"):
        return {"P": "Pass", "X": "Dbl", "XX": "Rdbl"}[call]
    return call[0] + ("NT" if call[1] == "N" else SYMBOL[call[1]])


def create_app(system=None, deals: int = 3) -> Flask:
    """The Flask application; ``system`` is a loaded system (default: the built-in one)."""
    app = Flask(__name__)
    explorer = Explorer(system, deals)
    app.config["explorer"] = explorer

    @app.get("/")
    def page():
        data = explorer.position(request.args.get("a", ""), request.args.get("d", "N"), request.args.get("hand"))
        return render_template("explore.html", p=data, seats=SEATS, suits=SUITS, symbol=SYMBOL,
                               seat_name=SEAT_NAME, dealers=SEATS)

    @app.get("/api/position")
    def api():
        data = explorer.position(request.args.get("a", ""), request.args.get("d", "N"), request.args.get("hand"),
                                 with_deals=request.args.get("deals", "1") != "0")
        return jsonify(data)

    return app
