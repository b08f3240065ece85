"""The bidder: which call the system makes with a hand at a point of the auction.

It reads the auction with the same call tree and evaluates the same constraints as
inference, exactly, on the concrete hand: a call fits when the hand satisfies its
constraints in this context (chair, and so on).

    >>> from canary_infer.system.model import load_system
    >>> from canary_infer.bridge.cards import Hand
    >>> b = Bidder(load_system())
    >>> b.bid(Hand.from_pbn("KJ2.QJ3.KJ32.A32"), Auction.parse("")).calls
    ['1N']
    >>> b.bid(Hand.from_pbn("43.2.KJ32.AQJ832"), Auction.parse("")).calls  # '6 4 min 1D or 2C'
    ['1D', '2C']
    >>> b.bid(Hand.from_pbn("AQJ83.2.K4.QT932"), Auction.parse("")).calls  # the table gives it 2S
    ['2S']
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from canary_infer.bridge.auction import SEATS, Auction, Call
from canary_infer.bridge.cards import Hand
from canary_infer.caches import Bounded
from canary_infer.language.compiled import compile_formulas, hand_classes
from canary_infer.language.expr import TRUE, evaluate
from canary_infer.system.model import CallNode, System, load_system, read_auction


@dataclass
class Position:
    """Where an auction stands in the call tree, for the player to call next."""

    seat: str
    chair: int
    node: CallNode | None  # the tree node whose children are the caller's options
    side: str  # "opening" (the tree describes this player's calls), "defence", or "none" (nobody bid yet)


def position(system: System, auction: Auction, we: str | None = None,
             admit: Callable[[CallNode, int], bool] | None = None) -> Position:
    """Where the player to call stands: in the opening tree if his side opened (or nobody has bid),
    in the defence tree if the other side opened; no node if his pair does not play the system.
    ``admit`` reads the calls' conditions as inference does (see ``read_auction``)."""
    reading = read_auction(system, auction, we, admit)
    seat = auction.turn
    chair = (SEATS.index(seat) - SEATS.index(auction.dealer)) % 4 + 1
    node, side = reading.position(system, seat)
    if we is not None and seat not in we:
        node = None
    return Position(seat, chair, node, side)


@dataclass
class Candidate:
    call: str
    meaning: str
    source: str
    formula: object  # the constraint (an expr Node); written out only when asked for
    fits: bool
    judgement: bool = False  # a convention attached everywhere ('apply') that says nothing of the hand

    @property
    def constraint(self) -> str:
        return "" if self.formula == TRUE else str(self.formula)

    def as_json(self) -> dict:
        out = {"call": self.call, "meaning": self.meaning, "source": self.source,
               "constraint": self.constraint, "fits": self.fits}
        if self.judgement:
            out["judgement"] = True
        return out


@dataclass
class BidResult:
    """``status``: ok (one call fits), several, none (a gap: the notes mean their calls to cover this
    hand, as a relay's answers or the openings do, and it fits none), or undefined (the notes define
    no call here, or none for this hand).  A convention attached everywhere by ``apply`` that says
    nothing of the hand (RKCB's 4N, the grand slam force's 5N) is a candidate marked ``judgement``
    and is never among ``calls``: whether to use it is judgement, not the hand."""

    seat: str
    status: str
    calls: list[str]
    candidates: list[Candidate] = field(default_factory=list)
    reason: str = ""
    side: str = "opening"  # "defence" when the player is on the side the tree does not describe

    def as_json(self) -> dict:
        return {"seat": self.seat, "status": self.status, "calls": self.calls,
                "why": [c.as_json() for c in self.candidates if c.fits],
                "considered": [c.as_json() for c in self.candidates], "reason": self.reason}


class Bidder:
    """Chooses calls with the same constraints the inference reads.  ``inferencer`` (made on first
    need) reads what a call's constraint looks at besides the hand (the ranges the caller has
    shown, for 'maximum' or 'minimum'; partner's long suits): :meth:`Inferencer.call_context`."""

    def __init__(self, system: System | None = None, inferencer=None, we: str | None = None):
        self.system = system if system is not None else load_system()
        self._inferencer = inferencer
        self.we = we
        # per auction: what the call depends on besides the hand
        self._plans: Bounded[Auction, object] = Bounded(100_000)

    def options(self, pos: Position) -> list[CallNode]:
        if pos.node is None:
            return []
        opts = [c for c in pos.node.children.values() if not c.is_opponents and c.defined]
        order = {"P": -3, "X": -2, "XX": -1}
        return sorted(opts, key=lambda c: order.get(c.call, Call.parse(c.call).rank or 0))

    def _inf(self):
        if self._inferencer is None:
            from canary_infer.deal.infer import Inferencer

            self._inferencer = Inferencer(self.system, we=self.we)
        return self._inferencer

    def bid(self, hand: Hand | str, auction: Auction | str = "") -> BidResult:
        """The call the system makes with ``hand`` (a :class:`Hand` or its PBN text) after
        ``auction`` (an :class:`Auction` or calls as typed, dealer North)."""
        hand = Hand.from_pbn(hand) if isinstance(hand, str) else hand
        auction = Auction.parse(auction) if isinstance(auction, str) else auction
        plan = self._plans.get(auction)
        if plan is None:
            plan = self._plans[auction] = self._plan(auction)
        if isinstance(plan, BidResult):
            return replace(plan)
        pos, opts, formulas, fast, judged, cover = plan
        truths = fast(hand_classes(hand)) if fast is not None else [evaluate(f, hand) for f in formulas]
        cands = [Candidate(call, meaning, source, f, ok, j)
                 for (call, meaning, source), f, ok, j in zip(opts, formulas, truths, judged, strict=True)]
        fits = [c.call for c in cands if c.fits and not c.judgement]
        if len(fits) == 1:
            return BidResult(pos.seat, "ok", fits, cands, side=pos.side)
        if fits:
            return BidResult(pos.seat, "several", fits, cands, side=pos.side)
        left = [c.call for c in cands if c.judgement]
        aside = f" ({', '.join(left)}: a convention used by judgement, not by the hand)" if left else ""
        if cover is not None and (cover is TRUE or evaluate(cover, hand)):
            return BidResult(pos.seat, "none", [], cands, reason="the hand fits none of the calls the notes "
                             "give here, and they are meant to cover it" + aside, side=pos.side)
        named = [c.call for c in cands if not c.judgement]
        return BidResult(pos.seat, "undefined", [], cands, side=pos.side,
                         reason=("the notes define no call for this hand here: they give only "
                                 + ", ".join(named) if named else "the notes define no call here") + aside)

    def _plan(self, auction: Auction):
        """What the call depends on besides the hand, worked out once per auction: the player's
        options, their constraints here, and one compiled function evaluating them all (or the
        answer itself when the notes define no call)."""
        if auction.is_complete:
            return BidResult(auction.turn if auction.calls else auction.dealer, "undefined", [],
                             reason="the auction is over")
        def admit(node: CallNode, i: int) -> bool:  # as inference reads the calls so far
            return self._inf().admits(node, Auction(auction.calls[:i], auction.dealer))

        pos = position(self.system, auction, self.we, admit)
        opts = self.options(pos)
        if any(n.conditions for n in opts):  # a call whose line holds only where the calls so far show a fit
            kept = [n if self._inf().admits(n, auction) else n.fallback for n in opts]
            opts = [n for n in kept if n is not None and n.defined]
        if not opts:
            why = ("the notes give the defenders' calls no meaning here" if pos.side == "defence"
                   else "the notes define no call at this point")
            if self.we is not None and pos.seat not in self.we:
                why = "this pair does not play the system (--we)"
            return BidResult(pos.seat, "undefined", [], reason=why, side=pos.side)
        reading = None  # the calls so far, read only for options that look at them
        formulas = []
        for node in opts:
            ctx: dict = {"chair": pos.chair}
            if node.relative or node.reads_partner:
                reading = self._inf().read(auction) if reading is None else reading
                ctx = self._inf().call_context(reading, pos.seat, pos.chair, node)
            formulas.append(node.constraint(ctx))
        try:
            fast = compile_formulas(formulas)
        except TypeError:
            fast = None  # evaluate() answers the same, only slower
        judged = [n.applied_key is not None and f == TRUE for n, f in zip(opts, formulas, strict=True)]
        cover = TRUE if pos.node.asks else pos.node.domain({"chair": pos.chair})
        return pos, [(n.call, n.meaning, n.source) for n in opts], formulas, fast, judged, cover
