"""The round trip: bid random deals with the system, infer from the auctions, and check that
every actual hand lies inside what was inferred for its seat.

The bidder and the inferencer read the same call tree and the same constraints, one
evaluating them on a concrete hand, the other solving them over all hands; a hand outside
its inferred ranges is a *violation* (a bug in one of them).  ``none`` counts hands that fit
no call the notes define at a point where they define some (gaps in the notes or the
encoding), ``several`` hands that fit more than one (overlaps); ``undefined_stops`` auctions
that reached a point where the notes define no call for the opening side.  Both sides bid
with the system (the defenders with the defence tree and the opening side over their
interference); a defender passes where the notes define no call for him, or where his hand
fits none of them and the notes give his pass no meaning (it then says nothing).
``defenders="pass"`` makes the defenders pass throughout, as before they had a system.
``competitive`` counts the auctions in which a defender made a call other than pass.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from .auction import SEATS, Auction
from .bidding import Bidder
from .cards import Deal
from .infer import Inferencer


@dataclass
class SelfCheck:
    deals: int = 0
    violations: int = 0
    undefined_stops: int = 0
    none: int = 0
    several: int = 0
    completed: int = 0
    competitive: int = 0
    examples: list[dict] = field(default_factory=list)
    per_kind_examples: int = 5
    _kept: dict[str, int] = field(default_factory=dict)

    def keep(self, kind: str, **detail) -> None:
        if self._kept.get(kind, 0) < (self.per_kind_examples if kind != "violation" else 50):
            self._kept[kind] = self._kept.get(kind, 0) + 1
            self.examples.append({"kind": kind, **detail})

    def as_json(self) -> dict:
        return {"deals": self.deals, "violations": self.violations, "undefined_stops": self.undefined_stops,
                "none": self.none, "several": self.several, "completed": self.completed,
                "competitive": self.competitive, "examples": self.examples}


@dataclass
class DealCheck:
    """One deal bid and inferred: the auction, why it stopped, and every seat that fell outside."""

    auction: Auction
    stop: str | None  # None (the auction ended), "undefined" or "none"
    none_at: tuple[str, str] | None = None  # (seat, hand) that fit no call
    several: list[tuple[str, str, list[str], str]] = field(default_factory=list)  # seat, hand, calls, auction
    violations: list[tuple[str, str, list[str]]] = field(default_factory=list)  # seat, hand, problems


def _defender_passes(r, defenders: str) -> bool:
    """A defender passes when told to, where the notes define no call for him, or where his hand
    fits none of the calls they define and his pass is not one of them (so it says nothing)."""
    if r.side != "defence":
        return False
    return (defenders == "pass" or r.status == "undefined"
            or r.status == "none" and all(c.call != "P" for c in r.candidates))


def bid_out(deal: Deal, dealer: str, bidder: Bidder, defenders: str = "system") -> DealCheck:
    """Bid a deal with the system until the auction ends or the notes stop defining calls;
    ``defenders`` is "system" (the defenders bid with the system too) or "pass"."""
    auction = Auction([], dealer=dealer)
    out = DealCheck(auction, None)
    while not auction.is_complete:
        seat = auction.turn
        r = bidder.bid(deal[seat], auction)
        if _defender_passes(r, defenders):
            auction = auction.append("P")
            continue
        if r.status == "undefined":
            out.stop = "undefined"
            break
        if r.status == "none":
            out.stop, out.none_at = "none", (seat, deal[seat].pbn())
            break
        if r.status == "several":
            out.several.append((seat, deal[seat].pbn(), r.calls, str(auction)))
        auction = auction.append(r.calls[0])
    out.auction = auction
    return out


def check_deal(deal: Deal, dealer: str, bidder: Bidder, inf: Inferencer, defenders: str = "system") -> DealCheck:
    """Bid a deal, infer from its auction, and list every hand outside what was inferred."""
    out = bid_out(deal, dealer, bidder, defenders)
    result = inf.infer(out.auction)
    for seat in SEATS:
        h, got = deal[seat], result.hands[seat]
        problems = []
        if not got.consistent:
            problems.append("inferred no hand at all")
        else:
            if h.pattern not in got.patterns:
                problems.append(f"pattern {h.pattern} not among {len(got.patterns)} inferred")
            if not got.hcp[0] <= h.hcp <= got.hcp[1]:
                problems.append(f"{h.hcp} HCP outside {got.hcp[0]}-{got.hcp[1]}")
        if problems:
            out.violations.append((seat, h.pbn(), problems))
    return out


def competitive(auction: Auction) -> bool:
    """Whether the side that did not open made a call other than pass (after the opening).

    >>> competitive(Auction.parse("1S 2C P P P")), competitive(Auction.parse("P 1S P 2H P P P"))
    (True, False)
    """
    calls = [str(c) for c in auction.calls]
    first = next((i for i, c in enumerate(calls) if c != "P"), None)
    return first is not None and any(c != "P" for c in calls[first + 1::2])


def run(deals: int, seed: int, inferencer: Inferencer | None = None,
        progress: Callable[[int, int], None] | None = None, defenders: str = "system") -> SelfCheck:
    inf = inferencer or Inferencer()
    bidder = Bidder(inf.system)
    rng = random.Random(seed)
    out = SelfCheck()
    for i in range(deals):
        deal = Deal.random(rng)
        c = check_deal(deal, SEATS[i % 4], bidder, inf, defenders)
        base = {"deal": deal.pbn(), "dealer": c.auction.dealer}
        if c.stop == "undefined":
            out.undefined_stops += 1
        elif c.stop == "none":
            out.none += 1
            out.keep("none", auction=str(c.auction), seat=c.none_at[0], hand=c.none_at[1], **base)
        else:
            out.completed += 1
        if competitive(c.auction):
            out.competitive += 1
        for seat, hand, calls, at in c.several:
            out.several += 1
            out.keep("several", auction=at, seat=seat, hand=hand, calls=calls, **base)
        for seat, hand, problems in c.violations:
            out.violations += 1
            out.keep("violation", auction=str(c.auction), seat=seat, hand=hand, problems=problems, **base)
        out.deals += 1
        if progress:
            progress(i + 1, deals)
    return out
