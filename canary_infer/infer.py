"""From an auction to what each player can hold.

:class:`Inferencer` reads an auction against the system's call tree (calls are looked up
from the opening on; the side that opens is the one whose calls the tree describes), collects
for each seat the constraints of its calls, and solves them exactly with
:mod:`canary_infer.engine`.  A call the system gives no meaning adds no constraint and is
reported as undefined; inference goes on.

    >>> inf = Inferencer()
    >>> r = inf.infer(Auction.parse("2S P 2N P 3C"))
    >>> sorted(r.hands["N"].patterns)
    ['5-3-0-5', '5-3-1-4', '5-4-0-4', '6-3-0-4']
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .auction import SEATS, Auction
from .cards import SUITS, Hand
from .engine import Available, Result, solve
from .expr import TRUE, Node, conj, evaluate
from .system import CallNode, System, load_system, walk

OPPONENT_CALL = "a call by the side that did not open: the notes give the defenders' calls no meaning here"
OFF_TREE = "the notes give this call no meaning at this point"


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

    def as_json(self) -> dict:
        out = {"seat": self.seat, "call": self.call, "defined": self.defined, "meaning": self.meaning}
        if self.source:
            out["source"] = self.source
        if self.interpretation:
            out["interpretation"] = self.interpretation
        if self.formula is not None and self.formula != TRUE:
            out["constraint"] = str(self.formula)
        return out


@dataclass
class SeatInference:
    """What one seat can hold."""

    consistent: bool
    hcp: tuple[int, int] | None
    lengths: dict[str, tuple[int, int]] | None
    patterns: list[str]
    hands: float  # number of 13-card hands (from the cards unseen) that fit
    known: bool = False  # the asker's own hand
    conflict: list[int] | None = None  # when no hand fits: positions of calls that contradict each other

    def as_json(self) -> dict:
        return {
            "consistent": self.consistent,
            "hcp": list(self.hcp) if self.hcp else None,
            "lengths": {s: list(v) for s, v in self.lengths.items()} if self.lengths else None,
            "patterns": self.patterns,
            "hands": int(self.hands),
            **({"conflict": self.conflict} if self.conflict is not None else {}),
        }


@dataclass
class Inference:
    auction: Auction
    calls: list[CallReading]
    hands: dict[str, SeatInference] = field(default_factory=dict)

    def as_json(self) -> dict:
        return {
            "auction": [str(c) for c in self.auction.calls],
            "dealer": self.auction.dealer,
            "calls": [c.as_json() for c in self.calls],
            "hands": {s: self.hands[s].as_json() for s in SEATS},
            "error": None,
        }

    def _repr_html_(self) -> str:
        """The calls and each seat's picture with suit symbols, for Jupyter."""
        from .notebook import inference_html

        return inference_html(self)


def _pattern(p) -> str:
    return "-".join(map(str, p))


class Inferencer:
    """Reads auctions with a system and infers hands.  Results are cached per seat formula."""

    def __init__(self, system: System | None = None):
        self.system = system or load_system()
        self._cache: dict[tuple, Result] = {}
        self._text: dict[int, tuple] = {}

    # ------------------------------------------------------------------ reading calls
    def read(self, auction: Auction) -> list[CallReading]:
        """Look every call up in the call tree."""
        out: list[CallReading] = []
        for st in walk(self.system, auction)[0]:
            child = st.node
            if st.side == "defence":
                out.append(CallReading(st.index, st.seat, st.call, False,
                                       OPPONENT_CALL if child is None else child.meaning))
                continue
            if child is None or not child.defined:
                why = OFF_TREE
                if child is not None and child.status == "undefined":
                    why = f"not defined in the notes ({child.meaning or 'undefined'})"
                out.append(CallReading(st.index, st.seat, st.call, False, why, child.source if child else ""))
                continue
            out.append(CallReading(st.index, st.seat, st.call, True, child.meaning, child.source, child,
                                   child.constraint({"chair": st.chair}), child.interpretation))
        return out

    # ------------------------------------------------------------------ solving
    def _solve_chain(self, formulas: tuple[Node, ...], avail: Available) -> Result:
        key = (formulas, avail)
        if key in self._cache:
            return self._cache[key]
        if len(formulas) > 1:
            parent = self._solve_chain(formulas[:-1], avail)
            res = solve(conj(formulas), avail, patterns=list(parent.patterns)) if parent.patterns else parent
        else:
            res = solve(formulas[0] if formulas else TRUE, avail)
        self._cache[key] = res
        return res

    def conflict(self, calls: list[CallReading], seat: str, avail: Available) -> list[int]:
        """Positions of a set of the seat's calls that no hand can satisfy together (CP-SAT core)."""
        from .cpsat import HandModel

        mine = [c for c in calls if c.seat == seat and c.defined and c.formula is not None and c.formula != TRUE]
        m = HandModel(avail)
        lits = [m.add(c.formula) for c in mine]
        core = m.core(lits) or []
        ids = {lit.Index() for lit in core}
        return [c.index for c, lit in zip(mine, lits, strict=True) if lit.Index() in ids]

    def seat_formulas(self, calls: list[CallReading], seat: str) -> tuple[Node, ...]:
        return tuple(c.formula for c in calls if c.seat == seat and c.defined and c.formula is not None
                     and c.formula != TRUE)

    def _described(self, res: Result) -> tuple[tuple[str, ...], dict | None]:
        """A result's patterns as text (most frequent first) and its length ranges, computed once."""
        key = id(res)
        hit = self._text.get(key)
        if hit is None or hit[0] is not res:
            pats = tuple(_pattern(p) for p, _ in sorted(res.patterns.items(), key=lambda kv: -kv[1]))
            hit = self._text[key] = (res, pats, res.lengths())
        return hit[1], hit[2]

    def infer(self, auction: Auction, known: tuple[str, Hand] | None = None) -> Inference:
        calls = self.read(auction)
        inf = Inference(auction, calls)
        avail = Available.excluding(known[1]) if known else Available()
        for seat in SEATS:
            formulas = self.seat_formulas(calls, seat)
            if known and known[0] == seat:
                hand = known[1]
                ok = all(evaluate(f, hand) for f in formulas)
                lens = {s: (hand.length(s), hand.length(s)) for s in SUITS}
                inf.hands[seat] = SeatInference(ok, (hand.hcp, hand.hcp), lens, [hand.pattern], 1.0, known=True)
                continue
            res = self._solve_chain(formulas, avail)
            pats, lengths = self._described(res)
            inf.hands[seat] = SeatInference(res.consistent, res.hcp, lengths, list(pats), res.hands)
            if not res.consistent:
                inf.hands[seat].conflict = self.conflict(calls, seat, avail)
        return inf
