"""From an auction to what each player can hold.

:class:`Inferencer` reads an auction against the system's call tree (calls are looked up
from the opening on; the side that opens is the one whose calls the tree describes), collects
for each seat the constraints of its calls, and solves them exactly with
:mod:`canary_infer.engine.tables`.  A call the system gives no meaning adds no constraint and is
reported as undefined; inference goes on.

    >>> inf = Inferencer()
    >>> r = inf.infer(Auction.parse("2S P 2N P 3C"))
    >>> sorted(r.hands["N"].patterns)
    ['5-3-0-5', '5-3-1-4', '5-4-0-4', '6-3-0-4']
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from itertools import repeat
from typing import TYPE_CHECKING

import numpy as np

from canary_infer.bridge.auction import SEATS, Auction, next_seat
from canary_infer.bridge.cards import SUITS, Hand
from canary_infer.caches import Bounded
from canary_infer.deal import DEFAULT_BUDGET
from canary_infer.engine.slam import SlamFacts, slam_facts
from canary_infer.engine.tables import (
    ALL_PATTERNS,
    PAT_LENGTHS,
    Available,
    Result,
    SeatTable,
    _truth,
    build_seat,
    solve,
)
from canary_infer.language.expr import TRUE, Node, conj, evaluate, feats, lengths_only
from canary_infer.system.model import FIT, CallNode, System, condition_text, load_system, read_auction

if TYPE_CHECKING:
    from canary_infer.deal.joint import Joint

CACHE_SIZES = {"results": 65536, "tables": 256, "slam": 2048, "joints": 64, "readings": 100_000, "conflicts": 2048}
"""How many entries of each kind an :class:`Inferencer` keeps between auctions (results and
tables of a seat's calls, slam facts, deal-level answers, readings of auction prefixes, searches
for contradicting calls); the least recently used are dropped first and computed again."""

OPPONENT_CALL = "a call by the side that did not open: the notes give the defenders' calls no meaning here"
OFF_TREE = "the notes give this call no meaning at this point"
NOT_PLAYING = "a call by the pair that does not play the system (--we): it adds nothing"


@dataclass
class CallReading:
    """One call of the auction as the system reads it."""

    index: int
    seat: str
    call: str
    defined: bool
    meaning: str
    source: str = ""
    node: CallNode | None = None
    formula: Node | None = None
    interpretation: str = ""
    parts: tuple[Node, ...] = ()  # the formula line by line (what a later 'replaces' may withdraw)
    replaces: tuple[str, ...] = ()
    status: str = ""  # "undefined" where the notes say so, "extension" where only an extension defines it
    trump: str | None = None  # the suit agreed after this call
    forcing: bool = False

    def as_json(self) -> dict:
        out = {"seat": self.seat, "call": self.call, "defined": self.defined, "meaning": self.meaning}
        if self.source:
            out["source"] = self.source
        if self.interpretation:
            out["interpretation"] = self.interpretation
        if self.formula is not None and self.formula != TRUE:
            out["constraint"] = str(self.formula)
        if self.forcing:
            out["forcing"] = True
        if self.status and self.status != "defined":
            out["status"] = self.status
        return out


@dataclass
class SeatInference:
    """What one seat can hold, in the deals consistent with every seat's calls (and my hand).

    ``hcp``, ``lengths`` and ``patterns`` are joint: every bound and pattern is attained by a
    consistent deal (``proven``; else ``unproven`` lists what could not be settled in time and
    is kept, so that nothing consistent is left out).  ``hands`` is the number of this seat's
    hands that fit its own calls, from the unseen cards."""

    consistent: bool
    hcp: tuple[int, int] | None
    lengths: dict[str, tuple[int, int]] | None
    patterns: list[str]
    hands: float  # number of 13-card hands (from the cards unseen) that fit the seat's own calls
    known: bool = False  # the asker's own hand
    conflict: list[int] | None = None  # when no hand fits: positions of calls that contradict each other
    conflict_minimal: bool | None = None  # whether no call of ``conflict`` can be left out (proven)
    hand: Hand | None = None  # the asker's own hand, when known
    breaks: list[int] | None = None  # for the asker's own hand: positions of its calls the hand does not fit
    proven: bool | None = True  # None: answered from the seat's own calls alone (not joint)
    unproven: list[str] = field(default_factory=list)
    distribution: object | None = None  # a joint.Distribution when probabilities were asked for
    slam: SlamFacts | None = None  # key cards, trump queen, controls (canary_infer.engine.slam)
    # when no deal fits because these seats' calls (or my hand) cannot be made: this seat then
    # holds nothing either, whatever its own calls allow
    no_deal_because: list[str] | None = None

    def as_json(self) -> dict:
        out = {
            "consistent": self.consistent,
            "hcp": list(self.hcp) if self.hcp else None,
            "lengths": {s: list(v) for s, v in self.lengths.items()} if self.lengths else None,
            "patterns": self.patterns,
            "hands": int(self.hands),
            "proven": self.proven,
            **(self.slam.as_json() if self.slam else {"keycards": None, "trump_queen": None, "controls": None}),
        }
        if self.conflict is not None:
            out["conflict"] = self.conflict
            out["conflict_minimal"] = bool(self.conflict_minimal)
        if self.known:
            out["known"] = True
            out["hand"] = self.hand.pbn() if self.hand is not None else None
            out["breaks"] = self.breaks or []
        if self.unproven:
            out["unproven"] = self.unproven
        if self.no_deal_because:
            out["no_deal_because"] = self.no_deal_because
        d = self.distribution
        if d is not None:
            out["probabilities"] = d.probabilities()
            out["counts"] = d.counts()
            out["exact"] = d.exact
            if not d.exact:
                out["samples"] = d.total
                out["standard_errors"] = d.standard_errors()
        return out


@dataclass
class Inference:
    auction: Auction
    calls: list[CallReading]
    hands: dict[str, SeatInference] = field(default_factory=dict)
    trump: str | None = None  # the suit agreed at the end of the auction
    deals: int | None = None  # deals consistent with all the calls (and my hand), when known exactly
    exact: bool = True  # whether distributions and questions are exact (else estimated from samples)
    asks: list = field(default_factory=list)  # joint.Answer for each --ask
    no_deal: bool = False  # each seat's calls fit alone, but no deal fits them all

    def as_json(self) -> dict:
        out = {
            "auction": [str(c) for c in self.auction.calls],
            "dealer": self.auction.dealer,
            "calls": [c.as_json() for c in self.calls],
            "hands": {s: self.hands[s].as_json() for s in SEATS},
            "trump": self.trump,
            "deals": self.deals,
            "error": None,
        }
        if self.asks:
            out["asks"] = [a.as_json() for a in self.asks]
        if self.no_deal:
            out["no_deal"] = True
        return out

    def _repr_html_(self) -> str:
        """The calls and each seat's picture with suit symbols, for Jupyter."""
        from canary_infer.ui.notebook import inference_html

        return inference_html(self)


_PATTERN_TEXT = {p: "-".join(map(str, p)) for p in ALL_PATTERNS}


def _as_auction(auction: Auction | str) -> Auction:
    return Auction.parse(auction) if isinstance(auction, str) else auction


def _as_known(known: tuple[str, Hand | str] | str | None) -> tuple[str, Hand] | None:
    """My seat and hand from ``("S", hand)``, ``("S", "KQ2.A87.QJ54.962")`` or ``"S:KQ2.A87.QJ54.962"``."""
    if known is None:
        return None
    if isinstance(known, str):
        seat, sep, cards = known.partition(":")
        if not sep or seat.strip().upper() not in SEATS:
            raise ValueError(f"a hand is given as SEAT:CARDS (S:KQ2.A87.QJ54.962), not {known!r}")
        known = (seat.strip().upper(), cards.strip())
    seat, hand = known
    return seat, Hand.from_pbn(hand) if isinstance(hand, str) else hand


def _pattern(p) -> str:
    return _PATTERN_TEXT.get(tuple(p)) or "-".join(map(str, p))


def _by_weight(patterns: dict, second: dict) -> list[str]:
    """The patterns as text, by weight (most first), then by ``second``'s weight, then in
    their own order: what sorting on (-weight, -second) gives, in one numpy sort."""
    keys = list(patterns)
    w = np.fromiter(patterns.values(), float, len(keys))
    w2 = np.fromiter(map(second.get, keys, repeat(0.0)), float, len(keys))
    text = _PATTERN_TEXT
    return [text.get(keys[i]) or _pattern(keys[i]) for i in np.lexsort((-w2, -w)).tolist()]


class Inferencer:
    """Reads auctions with a system and infers hands.  Results are cached per seat formula.

    ``we`` ("NS" or "EW") says that only that pair plays the system; by default both do (the
    side that opens is read with the opening tree, the other with the defence tree).  ``vul``
    gives the vulnerability ("NS", "EW", "both" or "none"; unknown by default, when rules that
    depend on it add nothing).  ``conflict_seconds`` bounds the search for the calls that
    contradict each other when no hand fits a seat."""

    def __init__(self, system: System | None = None, we: str | None = None, vul: str | None = None,
                 conflict_seconds: float = 2.0, budget: float = DEFAULT_BUDGET, joint: bool = False,
                 cache_sizes: dict[str, int] | None = None):
        self.system = system or load_system()
        # seconds of work (counted, not clocked: bounds.py) for proofs with 2+ unseen seats constrained
        self.budget = budget
        self.joint = joint  # the default of infer(joint=...)
        if we is not None and we not in ("NS", "EW"):
            raise ValueError(f"--we takes NS or EW, got {we!r}")
        if vul is not None and vul not in ("NS", "EW", "both", "none"):
            raise ValueError(f"vulnerability is NS, EW, both or none, got {vul!r}")
        self.we, self.vul = we, vul
        self.conflict_seconds = conflict_seconds  # the bound on the search for contradicting calls
        # what it remembers between auctions, each bounded (the least recently used dropped first,
        # and computed again when asked for): a long-lived Inferencer (the web server's) stays
        # within them however many positions it is asked about (``cache_sizes`` overrides CACHE_SIZES)
        sizes = {**CACHE_SIZES, **(cache_sizes or {})}
        self._results: Bounded[tuple, Result] = Bounded(sizes["results"])  # (formulas, unseen)
        self._tables: Bounded[tuple, SeatTable | None] = Bounded(sizes["tables"])  # see _table_chain
        self._slam_facts: Bounded[tuple, dict] = Bounded(sizes["slam"])  # see _slam
        self._joints: Bounded[tuple, Joint] = Bounded(sizes["joints"])  # see infer
        self._grids: dict = {}  # the deal-level outer bound's grids (bounds.GRID_MEMO of them; see Joint)
        self._readings: Bounded[tuple, CallReading] = Bounded(sizes["readings"])  # see read
        self._by_identity: Bounded[tuple, tuple] = Bounded(sizes["results"])  # see _solve_seat
        self._conflicts: Bounded[tuple, tuple[list[int], bool]] = Bounded(sizes["conflicts"])
        self._text: Bounded[int, tuple] = Bounded(sizes["results"])  # see _described
        if self.system.oracle is None:  # a function of the calls alone: the system keeps no Inferencer alive
            self.system.oracle = self._possible

    @staticmethod
    def _possible(node: CallNode, formula: Node) -> bool:
        """Whether the player answering after ``node`` can hold ``formula`` given his calls so far
        (used where a schedule deletes steps that are impossible)."""
        path = []
        n = node
        while n is not None and n.parent is not None:
            path.append(n)
            n = n.parent
        answerer = node.index + (1 if node.is_opponents else 2)
        mine = [x.constraint({"chair": x.chair}) for x in path if not x.is_opponents and x.defined
                and (answerer - x.index) % 4 == 0]
        return solve(conj(mine + [formula])).consistent

    def _vul(self, seat: str) -> bool | None:
        if self.vul is None:
            return None
        return self.vul == "both" or (self.vul != "none" and seat in self.vul)

    # ------------------------------------------------------------------ reading calls
    def read(self, auction: Auction, tree: bool = False) -> list[CallReading]:
        """Look every call up in the call trees.  A call's reading depends on the calls before
        it only, so each is kept by the auction up to it (a batch reads the same prefixes again).

        A call whose line holds only where the calls before it show something (``if fit T``) is
        read so where they do (:meth:`admits`), and as what the point otherwise gives it where
        they do not; ``tree=True`` reads the tree as written instead, those conditions taken as
        met (what a walk of the tree checks: check-system, the lint, diff-system)."""
        out: list[CallReading] = []
        key: tuple = (tree, auction.dealer)

        def admit(node: CallNode, i: int) -> bool:
            return self.admits(node, Auction(auction.calls[:i], auction.dealer))

        for st in read_auction(self.system, auction, self.we, None if tree else admit).steps:
            key += (st.call,)
            reading = self._readings.get(key)
            if reading is None:
                reading = self._readings[key] = self._read_call(st, out)
            out.append(reading)
        return out

    def _read_call(self, st, out: list[CallReading]) -> CallReading:
        """The reading of one step of the auction after the readings ``out`` of the calls before."""
        node = st.node if st.plays else None
        if node is not None and node.defined:
            parts = tuple(node.constraint_parts(self.call_context(out, st.seat, st.chair, node)))
            reading = CallReading(st.index, st.seat, st.call, True, node.meaning, node.source, node,
                                  conj(parts), node.interpretation, parts, node.replaces, node.status,
                                  node.trump, node.forcing)
        else:
            if not st.plays:
                why, src = NOT_PLAYING, ""
            elif node is not None and node.status in ("undefined", "extension"):
                why = (f"not defined in the notes ({node.meaning or 'undefined'})" if node.status == "undefined"
                       else f"defined only by an extension, which is off ({node.meaning})")
                src = node.source
            elif node is None and st.refused is not None:
                r = st.refused
                why = (f"{OFF_TREE}: it would be '{r.bare_meaning}' [{r.source}], but that applies "
                       + " and ".join(condition_text(t) for t in r.conditions) + ", which they do not")
                src = r.source
            elif st.side == "defence" and node is None:
                why, src = OPPONENT_CALL, ""
            else:
                why, src = OFF_TREE, node.source if node is not None else ""
            reading = CallReading(st.index, st.seat, st.call, False, why, src, node,
                                  status=node.status if node is not None else "")
        other = st.other
        if other is not None and other.defined:
            # the other side's tree says something of this call (an opponent's call there)
            if not reading.defined and st.side != "none":
                reading.meaning, reading.source = other.meaning, other.source
            ctx = {"chair": st.chair}
            extra = tuple(other.constraint_parts(ctx))
            if extra:
                reading.parts += extra
                reading.formula = conj(reading.parts)
                reading.defined = True
                reading.node = reading.node or other
                if other.interpretation:
                    reading.interpretation = (reading.interpretation + " " + other.interpretation).strip()
        return reading

    def call_context(self, calls: list[CallReading], seat: str, chair: int, node: CallNode) -> dict:
        """What a call's constraint reads besides the hand, after ``calls``: the chair, the
        vulnerability, what the caller has shown (for 'maximum'/'minimum') and the suits partner
        has shown 5+ cards in (for 'when partner long X')."""
        ctx: dict = {"chair": chair}
        v = self._vul(seat)
        if v is not None:
            ctx["vul"] = v
        if node.relative:
            ctx["shown"] = self._shown(calls, seat, node.relative)
        if node.reads_partner:
            ctx["partner_long"] = self._long_suits(calls, next_seat(seat, 2))
        return ctx

    def _shown(self, calls: list[CallReading], seat: str, features: tuple[str, ...]) -> dict:
        """The ranges the seat has shown so far, for calls that read 'maximum' or 'minimum'."""
        res = self._solve_chain(self.seat_formulas(calls, seat), Available())
        out = {}
        if "hcp" in features and res.hcp:
            out["hcp"] = tuple(res.hcp)
        return out

    def _long_suits(self, calls: list[CallReading], seat: str) -> frozenset[str]:
        """The suits in which the seat has shown 5+ cards by its own calls so far."""
        res = self._solve_chain(self.seat_formulas(calls, seat), Available())
        lengths = res.lengths() if res.consistent else None
        return frozenset(s for s in SUITS if lengths and lengths[s][0] >= 5)

    def admits(self, node: CallNode, auction: Auction) -> bool:
        """Whether the conditions of ``node``, a call made after ``auction``, hold there: ``fit T``
        holds where the caller's and his partner's least lengths in T, each over the hands his own
        calls allow (exact, seat by seat), add to 8 or more.  Each seat's least length over the
        deals is at least that, so a fit this finds is guaranteed; an inconsistent seat
        guarantees nothing."""
        conds = node.conditions
        if not conds:
            return True
        calls = self.read(auction)
        seat = auction.turn
        return all(self.fit_length(calls, seat, t.arg) >= FIT for t in conds if t.kind == "fit")

    def fit_length(self, calls: list[CallReading], seat: str, suit: str) -> int:
        """The cards in ``suit`` that the seat's and his partner's calls guarantee between them:
        each one's least length over the hands his own calls allow, summed (0 where either
        seat's calls fit no hand)."""
        total = 0
        for s in (seat, next_seat(seat, 2)):
            res = self._solve_chain(self.seat_formulas(calls, s), Available())
            lengths = res.lengths() if res.consistent else None
            if not lengths:
                return 0
            total += lengths[suit][0]
        return total

    def trump(self, calls: list[CallReading]) -> str | None:
        """The suit agreed as trumps at the end of the auction (None if none is)."""
        for c in reversed(calls):
            if c.defined and c.node is not None and not c.node.is_opponents:
                return c.trump
        return None

    # ------------------------------------------------------------------ solving
    def _solve_chain(self, formulas: tuple[Node, ...], avail: Available) -> Result:
        key = (formulas, avail)
        if key in self._results:
            return self._results[key]
        if not formulas:  # a seat whose calls say nothing: any hand from the unseen cards
            from canary_infer.deal.joint import free_result

            res = self._results[key] = free_result(avail)
            return res
        t = self._table_chain(formulas, avail)
        if t is not None:
            res = t.result()
        elif len(formulas) > 1:
            parent = self._solve_chain(formulas[:-1], avail)
            res = solve(conj(formulas), avail, patterns=list(parent.patterns)) if parent.patterns else parent
        else:
            res = solve(formulas[0] if formulas else TRUE, avail)
        self._results[key] = res
        return res

    def _table_chain(self, formulas: tuple[Node, ...], avail: Available, aux: tuple = (),
                     honour_cap: int | None = None) -> SeatTable | None:
        """A seat's table for its calls so far, pruned to the patterns its earlier calls allow."""
        key = (formulas, avail, aux, honour_cap)
        if key in self._tables:
            return self._tables[key]
        patterns = None
        if len(formulas) > 1 and lengths_only(formulas[-1]):
            # a call that shows lengths only (most relay answers): the earlier calls' table,
            # kept to the patterns it allows
            parent = self._table_chain(formulas[:-1], avail, aux, honour_cap)
            if parent is not None:
                ok = _truth(formulas[-1], len(ALL_PATTERNS), lambda f: PAT_LENGTHS[:, SUITS.index(f.suit)])
                t = self._tables[key] = parent.restrict(ok)
                self._results.setdefault((formulas, avail), t.result())
                return t
        if len(formulas) > 1:
            parent = self._solve_chain(formulas[:-1], avail)
            patterns = list(parent.patterns)
        t = build_seat(conj(formulas) if formulas else TRUE, avail, patterns, aux=aux, honour_cap=honour_cap)
        self._tables[key] = t
        if t is not None:
            self._results.setdefault((formulas, avail), t.result())
        return t

    def _free_table_of(self, avail: Available):
        """What gives a Joint the table of every hand of the unseen cards from these tables: by
        a weak reference, since the Joint is kept among them (a strong one would keep every
        Inferencer's tables alive until the garbage collector finds the cycle)."""
        me = weakref.ref(self)

        def table() -> SeatTable | None:
            inf = me()
            return inf._table_chain((), avail) if inf is not None else build_seat(TRUE, avail)

        return table

    def conflict(self, calls: list[CallReading], seat: str, avail: Available) -> list[int]:
        """Positions of a set of the seat's calls that no hand can satisfy together (CP-SAT core)."""
        return self.explain(calls, seat, avail)[0]

    def explain(self, calls: list[CallReading], seat: str, avail: Available,
                time_limit: float | None = None) -> tuple[list[int], bool]:
        """Which of the seat's calls contradict each other: ``(positions, minimal)``.

        A CP-SAT core, made minimal by deletion, within ``time_limit`` seconds (default
        ``conflict_seconds``).  When the bound is hit before a core is found, the answer is
        what the exact engine already knows: the seat's calls up to the first one after which
        no hand fits; ``minimal`` is then False, as it is when the core could not be shrunk
        to the end in time."""
        mine = [(c.index, c.formula) for c in calls
                if c.seat == seat and c.defined and c.formula is not None and c.formula != TRUE]
        limit = self.conflict_seconds if time_limit is None else time_limit
        key = (tuple(mine), avail, limit)
        if key not in self._conflicts:  # a batch repeats its auctions: search once
            self._conflicts[key] = self._explain(mine, avail, limit)
        return self._conflicts[key]

    def _explain(self, mine: list[tuple[int, Node]], avail: Available, limit: float) -> tuple[list[int], bool]:
        from canary_infer.engine.cpsat import HandModel, SolverTimeout

        m = HandModel(avail)
        lits = [m.add(f) for _, f in mine]
        try:
            core, minimal = m.minimal_core(lits, limit)
        except SolverTimeout:
            return self._first_impossible(mine, avail), False
        ids = {lit.Index() for lit in core or []}
        return [i for (i, _), lit in zip(mine, lits, strict=True) if lit.Index() in ids], minimal

    def _first_impossible(self, mine: list[tuple[int, Node]], avail: Available) -> list[int]:
        """The calls up to the first one after which no hand fits (the engine's prefixes, cached)."""
        formulas = tuple(f for _, f in mine)
        for k in range(1, len(formulas) + 1):
            if not self._solve_chain(formulas[:k], avail).consistent:
                return [i for i, _ in mine[:k]]
        return [i for i, _ in mine]

    def seat_formulas(self, calls: list[CallReading], seat: str) -> tuple[Node, ...]:
        """The formulas of one seat's calls, in order; a call that 'replaces' a feature withdraws
        the earlier lines that limit it."""
        return tuple(f for _, f in self._seat_calls(calls, seat))

    def _seat_calls(self, calls: list[CallReading], seat: str) -> list[tuple[int, Node]]:
        """(position, formula) of each of the seat's calls that still says something, as
        :meth:`seat_formulas` reads them."""
        return [(i, f) for i, f in ((i, conj(parts)) for i, parts in self._seat_parts(calls, seat)) if f != TRUE]

    def _seat_parts(self, calls: list[CallReading], seat: str) -> list[tuple[int, list[Node]]]:
        """(position, constraint lines) of each of the seat's calls, after 'replaces'."""
        per_call: list[tuple[int, list[Node]]] = []
        for c in calls:
            if c.seat != seat or not c.defined or c.formula is None:
                continue
            if c.replaces:
                gone = set(c.replaces)
                per_call = [(i, [p for p in parts if not {f.name for f in feats(p)} & gone]) for i, parts in per_call]
            per_call.append((c.index, list(c.parts) if c.parts else [c.formula]))
        return per_call

    def _solve_seat(self, calls: list[CallReading], seat: str, avail: Available) -> Result:
        """The seat's result, looked up by the identity of its constraint lines first.

        The lines are the system's own (memoised) objects, so the same auction read again gives
        the same objects: no formula has to be hashed (deep hashing of formula trees and their
        Fractions was most of a self-check's inference time).  The entry keeps the lines alive,
        so an id cannot be reused while it is in the table."""
        per_call = self._seat_parts(calls, seat)
        lines = tuple(tuple(parts) for _, parts in per_call)
        fp = (tuple(tuple(map(id, parts)) for parts in lines), avail)
        hit = self._by_identity.get(fp)
        if hit is not None:
            return hit[1]
        formulas = tuple(f for f in (conj(parts) for parts in lines) if f != TRUE)
        res = self._solve_chain(formulas, avail)
        self._by_identity[fp] = (lines, res)
        return res

    def _each_seat(self, inf: Inference, calls, formulas, known, avail, slam: bool = True) -> Inference:
        """Each seat from its own calls alone (sound; not joint): ``proven`` is None."""
        inf.exact = False
        for seat in SEATS:
            if known and known[0] == seat:
                inf.hands[seat] = self._own_hand(calls, seat, known[1])
                continue
            res = self._solve_seat(calls, seat, avail)
            pats, lengths = self._described(res)
            inf.hands[seat] = SeatInference(res.consistent, res.hcp, lengths, list(pats), res.hands, proven=None)
            if not res.consistent:
                h = inf.hands[seat]
                h.conflict, h.conflict_minimal = self.explain(calls, seat, avail)
        if slam:
            self._slam(inf, formulas, avail)
        return inf

    def _slam(self, inf: Inference, formulas, avail) -> None:
        """Key cards, trump queen and controls per seat, once a suit is agreed (they cost engine
        solves, so an auction with no agreed suit leaves them null)."""
        if inf.trump is None:
            return
        for seat in SEATS:
            h = inf.hands[seat]
            if h.known or not h.consistent:
                continue
            key = (formulas[seat], inf.trump, avail)
            if key not in self._slam_facts:  # the same calls and trump give the same facts
                res = self._solve_chain(formulas[seat], avail)
                self._slam_facts[key] = slam_facts(formulas[seat], inf.trump, avail, res.patterns)
            h.slam = self._slam_facts[key]

    @staticmethod
    def _no_deal(inf: Inference, dead: list[str], asks: list) -> Inference:
        """No deal fits: the seats in ``dead`` cannot make their calls, so no seat holds anything
        (and every question asked is about none of the deals)."""
        from canary_infer.deal.joint import Answer

        inf.asks = [Answer(text, seat, 0, 0, True) for text, seat, _ in asks]
        for seat in SEATS:
            if seat not in dead and not (seat in inf.hands and inf.hands[seat].known):  # my hand stays mine
                inf.hands[seat] = SeatInference(False, None, None, [], 0.0, no_deal_because=dead)
        inf.deals, inf.exact = 0, True
        return inf

    def _described(self, res: Result) -> tuple[tuple[str, ...], dict | None]:
        """A result's patterns as text (most frequent first) and its length ranges, computed once."""
        key = id(res)
        hit = self._text.get(key)
        if hit is None or hit[0] is not res:
            pats = tuple(_pattern(p) for p, _ in sorted(res.patterns.items(), key=lambda kv: -kv[1]))
            hit = self._text[key] = (res, pats, res.lengths())
        return hit[1], hit[2]

    def _own_hand(self, calls: list[CallReading], seat: str, hand: Hand) -> SeatInference:
        """The asker's own hand: exactly itself if it fits its calls; else no hand, and the calls it breaks."""
        broken = [i for i, f in self._seat_calls(calls, seat) if not evaluate(f, hand)]
        if broken:
            return SeatInference(False, None, None, [], 0.0, known=True, hand=hand, breaks=broken)
        lens = {s: (hand.length(s), hand.length(s)) for s in SUITS}
        return SeatInference(True, (hand.hcp, hand.hcp), lens, [hand.pattern], 1.0, known=True, hand=hand,
                             breaks=[])

    def infer(self, auction: Auction | str, known: tuple[str, Hand | str] | str | None = None, prob: bool = False,
              asks: list[tuple[str, str, Node]] | None = None, samples: int = 20000,
              joint: bool | None = None, slam: bool = True) -> Inference:
        """What every seat can hold after the auction (and with my hand, if given).

        ``auction`` is an :class:`Auction` or the calls as a person types them (``"2S P 2N"``,
        dealer North); ``known`` my seat and hand, as ``("S", hand)`` or ``"S:KQ2.A87.QJ54.962"``.

        ``joint`` (default: the Inferencer's ``joint``): every seat's answer from every seat's
        calls and the shared deck, each bound and pattern attained by a consistent deal (the
        command line always asks for it); else each seat from its own calls alone, which is
        sound and cheaper (what a round trip over many deals needs).  With ``prob``, each seat
        also gets its distributions (exact where the deal-level engine is, else from
        ``samples`` deals drawn); ``asks`` are (question text, seat, formula) whose
        probabilities are wanted.  Both imply ``joint``.  ``slam=False`` leaves out the key
        cards, trump queen and controls (engine solves a round trip does not check)."""
        from canary_infer.deal.joint import Joint

        auction, known = _as_auction(auction), _as_known(known)
        calls = self.read(auction)
        inf = Inference(auction, calls, trump=self.trump(calls))
        avail = Available.excluding(known[1]) if known else Available()
        formulas = {seat: self.seat_formulas(calls, seat) for seat in SEATS}
        if not (self.joint if joint is None else joint) and not prob and not asks:
            return self._each_seat(inf, calls, formulas, known, avail, slam)
        unseen = [s for s in SEATS if not (known and known[0] == s)]
        constrained = [s for s in unseen if formulas[s]]
        extra: dict = {}
        if len(constrained) == 1:  # what the free seats' HCP needs of the constrained seat's honours
            extra = {"aux": ("A", "K", "Q", "J")} if prob else {}
        tables, single = {}, {}
        for seat in SEATS:
            if known and known[0] == seat:
                inf.hands[seat] = self._own_hand(calls, seat, known[1])
                inf.hands[seat].slam = slam_facts((), inf.trump, hand=known[1])
                continue
            if seat in constrained:
                t = self._table_chain(formulas[seat], avail, **extra)
                if t is None:
                    tables = None
                elif tables is not None:
                    tables[seat] = t
            res = self._solve_chain(formulas[seat], avail)
            single[seat] = res
            if not res.consistent:
                h = inf.hands[seat] = SeatInference(False, None, None, [], 0.0)
                h.conflict, h.conflict_minimal = self.explain(calls, seat, avail)
        dead = [s for s in SEATS if s in inf.hands and not inf.hands[s].consistent]
        if dead:  # a seat's own calls contradict each other, or my hand breaks mine: no deal at all
            return self._no_deal(inf, dead, asks or [])
        if tables is None:
            # a seat's own calls contradict each other (or the formulas are too wide to pack):
            # the seats' own answers
            for seat, res in single.items():
                if seat not in inf.hands:
                    pats, lengths = self._described(res)
                    inf.hands[seat] = SeatInference(res.consistent, res.hcp, lengths, list(pats), res.hands)
            inf.deals = None
            inf.exact = False
            return inf
        jkey = (tuple(formulas[s] for s in SEATS), known, bool(prob))
        joint = self._joints.get(jkey)
        if joint is None:
            joint = Joint({s: conj(formulas[s]) for s in constrained}, known, tables=tables, budget=self.budget,
                          free_table=self._free_table_of(avail), grids=self._grids)
            self._joints[jkey] = joint
        inf.exact = joint.exact
        inf.deals = joint.deals
        ordered: dict[tuple[int, int], list[str]] = {}  # seats that share a view share its order
        for seat in unseen:
            v = joint.seat(seat)
            res = single[seat]
            key = (id(v.patterns), id(res))
            if key not in ordered:
                ordered[key] = _by_weight(v.patterns, res.patterns)
            pats = ordered[key]
            # no deal fits: none of the seat's own hands is part of one
            si = SeatInference(v.consistent, v.hcp, v.lengths(), pats, res.hands if v.consistent else 0.0,
                               proven=v.proven, unproven=list(v.unproven))
            if prob and v.consistent:
                si.distribution = joint.distribution(seat, samples)
            inf.hands[seat] = si
        if prob and known:
            inf.hands[known[0]].distribution = joint.distribution(known[0], samples)
        if not all(inf.hands[s].consistent for s in unseen):
            inf.no_deal = True
            inf.deals = 0
        for text, seat, f in asks or []:
            inf.asks.append(joint.ask(seat, f, text, samples))
        if slam:
            self._slam(inf, formulas, avail)
        return inf
