"""The card-level CP-SAT face: one hand as 52 booleans.

Every feature of :mod:`canary_infer.language.features` is encoded over the card booleans of a hand:
linear features as weighted sums of cards, the others as weighted sums of one-hot holding
classes (a suit's length and its top six cards), weighted by the same per-holding
definition the exact evaluator uses.  A formula
compiles to a literal; calls are added behind assumption literals, so one model answers
many questions: is there a hand, an example hand, which calls contradict each other (an
unsatisfiable core), the HCP extremes, whether a given pattern is possible.

    >>> from canary_infer.language.expr import parse
    >>> m = HandModel()
    >>> lit = m.add(parse("hcp in 11..16 and S == 6 and C == 4 and H in 1..2"))
    >>> m.feasible([lit], pattern=(6, 2, 1, 4)), m.feasible([lit], pattern=(6, 3, 0, 4))
    (True, False)
"""

from __future__ import annotations

import sys
import time
import types
from itertools import permutations

from canary_infer.bridge.cards import RANKS, SUITS, Hand
from canary_infer.engine.tables import Available, class_table
from canary_infer.language.expr import And, Cmp, Feat, Node, Not, Or, Pattern, Shape
from canary_infer.language.features import BIT, FEATURES, SMALL_CARDS, TOP


def _import_cp_model():
    """OR-Tools' ``cp_model``, imported without pandas where that can be done.

    ``cp_model`` imports pandas (0.4 s of its 0.5 s import here) only for helpers that make
    variables and constraints from pandas series, which this package never uses.  A stand-in
    module is put in pandas' place for the import and removed after it, so that a later
    ``import pandas`` gets the real one; if pandas is already imported, or the import fails
    with the stand-in (a version of OR-Tools that needs more of pandas), the plain import
    is made."""
    if "pandas" in sys.modules:
        from ortools.sat.python import cp_model
        return cp_model
    stand_in = types.ModuleType("pandas")
    stand_in.__doc__ = "A stand-in for pandas while OR-Tools' cp_model is imported (see canary_infer.engine.cpsat)."

    class _Absent:  # no object is an instance: cp_model's pandas branches are never taken
        pass

    stand_in.Index = stand_in.Series = stand_in.DataFrame = _Absent
    sys.modules["pandas"] = stand_in
    try:
        from ortools.sat.python import cp_model
    except Exception:  # noqa: BLE001 - any failure: undo and import the plain way
        sys.modules.pop("ortools.sat.python.cp_model", None)
        cp_model = None
    finally:
        if sys.modules.get("pandas") is stand_in:
            del sys.modules["pandas"]
    if cp_model is None:
        from ortools.sat.python import cp_model
    return cp_model


cp_model = _import_cp_model()

DEFAULT_SECONDS = 60.0
"""The time limit of a solver call that names none: no call of the solver is unbounded."""


CLASSES: tuple[tuple[int, int], ...] = tuple(
    (n, mask) for n in range(14) for mask in range(64) if 0 <= n - bin(mask).count("1") <= SMALL_CARDS)
"""The holding classes of a suit, (length, mask of the top cards held), in the model's order."""
_CLASS_INDEX = [n * 64 + mask for n, mask in CLASSES]  # their places in engine.class_table


class SolverTimeout(RuntimeError):
    """The solver's time limit ran out before it could answer."""


def _solver(thorough: bool = False) -> cp_model.CpSolver:
    """A single-threaded solver; ``thorough`` keeps presolve and probing, which pay on hard
    unsatisfiable questions and cost a second on easy ones."""
    s = cp_model.CpSolver()
    s.parameters.num_workers = 1
    if not thorough:
        s.parameters.cp_model_presolve = False
        s.parameters.linearization_level = 0
        s.parameters.symmetry_level = 0
        s.parameters.cp_model_probing_level = 0
    return s


class HandModel:
    """A CP-SAT model of one 13-card hand drawn from the available cards (less ``exclude``).

    With ``cards``, a model made elsewhere and the hand's card booleans in it, (suit, rank) ->
    boolean (or a constant 0 for a card the hand cannot hold): the hand is one seat of that
    model's deal, whose own constraints say which cards it holds (``avail`` and ``exclude``
    are then not read)."""

    def __init__(self, avail: Available | None = None, exclude: Hand | None = None, *,
                 cards: tuple[cp_model.CpModel, dict] | None = None):
        self.model, self.x = cards if cards is not None else self._own_cards(avail, exclude)
        self._feat: dict[tuple[str, str], cp_model.IntVar] = {}
        self._cls: dict[str, list] = {}
        self._len_is: dict[tuple[str, int], cp_model.IntVar] = {}
        self._lit: dict[Node, cp_model.IntVar] = {}
        self.length = {s: self.feature(Feat("len", s)) for s in SUITS}
        self.hcp = self.feature(Feat("hcp"))

    @staticmethod
    def _own_cards(avail: Available | None, exclude: Hand | None) -> tuple[cp_model.CpModel, dict]:
        """A model of its own: a boolean per card, 13 of them true, of the available cards only."""
        avail = avail or Available()
        m = cp_model.CpModel()
        x = {(s, r): m.NewBoolVar(f"{s}{r}") for s in SUITS for r in RANKS}
        m.Add(sum(x.values()) == 13)
        for si, s in enumerate(SUITS):
            for r in TOP:
                if not avail.honours[si] & BIT[r]:
                    m.Add(x[s, r] == 0)
            small = [x[s, r] for r in RANKS if r not in TOP]
            m.Add(sum(small) <= avail.small[si])
            if avail.small[si] < SMALL_CARDS:  # fix which small cards are gone, for tidy witnesses
                for r in [r for r in RANKS if r not in TOP][avail.small[si]:]:
                    m.Add(x[s, r] == 0)
        if exclude is not None:
            for s, r in exclude.cards:
                m.Add(x[s, r] == 0)
        return m, x

    # ------------------------------------------------------------------ features
    def suit_feature(self, name: str, suit: str):
        """The CP-SAT expression of one feature on one suit."""
        key = (name, suit)
        if key in self._feat:
            return self._feat[key]
        f = FEATURES[name]
        m = self.model
        if f.linear is not None:
            expr = sum(w * self.x[suit, r] for r, w in f.linear.items())
            var = m.NewIntVar(0, 13 * max(f.linear.values()), f"{name}_{suit}")
            m.Add(var == expr)
        else:
            var = m.NewIntVar(f.lo, f.hi, f"{name}_{suit}")
            coef = class_table(name)[_CLASS_INDEX].tolist()  # the feature's value per class
            bs = self._classes(suit)
            nz = [i for i, c in enumerate(coef) if c]
            m.Add(var == cp_model.LinearExpr.WeightedSum([bs[i] for i in nz], [coef[i] for i in nz]))
        self._feat[key] = var
        return var

    def _classes(self, suit: str):
        """One boolean per holding class (length, top cards) of the suit, exactly one true.

        Every feature is then linear in these: the table of its per-holding values."""
        if suit not in self._cls:
            m = self.model
            out = [m.NewBoolVar(f"{suit}_{n}_{mask}") for n, mask in CLASSES]
            m.AddExactlyOne(out)
            m.Add(cp_model.LinearExpr.WeightedSum(out, [n for n, _ in CLASSES])
                  == sum(self.x[suit, r] for r in RANKS))
            for i, r in enumerate(TOP):
                m.Add(sum(b for (_, mask), b in zip(CLASSES, out, strict=True) if mask >> i & 1) == self.x[suit, r])
            # clauses too, so that the cards decide the class by propagation: one enforced
            # conjunction per class (the same clauses as an implication per literal, built in
            # a seventh of the calls)
            top = [(self.x[suit, r], self.x[suit, r].Not()) for r in TOP]
            lens = [self.length_is(suit, n) for n in range(14)]
            for (n, mask), b in zip(CLASSES, out, strict=True):
                m.AddBoolAnd([lens[n]] + [t[0] if mask >> i & 1 else t[1] for i, t in enumerate(top)]).OnlyEnforceIf(b)
            self._cls[suit] = out
        return self._cls[suit]

    def feature(self, feat: Feat):
        if feat.suit is not None:
            return self.suit_feature(feat.name, feat.suit)
        key = (feat.name, "*")
        if key not in self._feat:
            f = FEATURES[feat.name]
            var = self.model.NewIntVar(0, 4 * max(f.hi, 13), f"{feat.name}_total")
            self.model.Add(var == sum(self.suit_feature(feat.name, s) for s in SUITS))
            self._feat[key] = var
        return self._feat[key]

    def length_is(self, suit: str, n: int):
        key = (suit, n)
        if key not in self._len_is:
            b = self.model.NewBoolVar(f"len_{suit}_{n}")
            self.model.Add(self.length[suit] == n).OnlyEnforceIf(b)
            self.model.Add(self.length[suit] != n).OnlyEnforceIf(b.Not())
            self._len_is[key] = b
        return self._len_is[key]

    # ------------------------------------------------------------------ formulas
    def literal(self, n: Node):
        """A literal equivalent to the formula."""
        if n in self._lit:
            return self._lit[n]
        m = self.model
        if isinstance(n, Not):
            lit = self.literal(n.item).Not()
        elif isinstance(n, (And, Or)):
            items = [self.literal(i) for i in n.items]
            lit = m.NewBoolVar("")
            if isinstance(n, And):
                if items:
                    m.AddBoolAnd(items).OnlyEnforceIf(lit)
                    m.AddBoolOr([i.Not() for i in items]).OnlyEnforceIf(lit.Not())
                else:
                    m.Add(lit == 1)
            else:
                if items:
                    m.AddBoolOr(items).OnlyEnforceIf(lit)
                    m.AddBoolAnd([i.Not() for i in items]).OnlyEnforceIf(lit.Not())
                else:
                    m.Add(lit == 0)
        elif isinstance(n, Cmp):
            expr = sum(int(c) * self.feature(f) for c, f in n.terms) + int(n.const)
            lit = m.NewBoolVar("")
            if n.op == ">=":
                m.Add(expr >= 0).OnlyEnforceIf(lit)
                m.Add(expr <= -1).OnlyEnforceIf(lit.Not())
            elif n.op == "<=":
                m.Add(expr <= 0).OnlyEnforceIf(lit)
                m.Add(expr >= 1).OnlyEnforceIf(lit.Not())
            elif n.op == "==":
                m.Add(expr == 0).OnlyEnforceIf(lit)
                m.Add(expr != 0).OnlyEnforceIf(lit.Not())
            else:
                m.Add(expr != 0).OnlyEnforceIf(lit)
                m.Add(expr == 0).OnlyEnforceIf(lit.Not())
        elif isinstance(n, Pattern):
            opts = [And(tuple(_len_eq(s, k) for s, k in zip(SUITS, p, strict=True) if k is not None))
                    for p in n.patterns]
            lit = self.literal(opts[0] if len(opts) == 1 else Or(tuple(opts)))
        elif isinstance(n, Shape):
            opts = []
            for sh in n.shapes:
                for p in sorted(set(permutations(sh))):
                    opts.append(And(tuple(_len_eq(s, k) for s, k in zip(SUITS, p, strict=True))))
            lit = self.literal(Or(tuple(opts)))
        else:
            raise TypeError(f"cannot encode {n!r}")
        self._lit[n] = lit
        return lit

    def add(self, formula: Node):
        """Add a formula behind a fresh assumption literal and return that literal."""
        a = self.model.NewBoolVar("assume")
        self.model.AddImplication(a, self.literal(formula))
        return a

    # ------------------------------------------------------------------ questions
    def _solve(self, assumptions, pattern=None, objective=None, time_limit: float | None = None,
               thorough: bool = False):
        m = self.model
        m.ClearAssumptions()
        lits = list(assumptions)
        if pattern is not None:
            lits += [self.length_is(s, k) for s, k in zip(SUITS, pattern, strict=True)]
        m.AddAssumptions(lits)
        m.ClearObjective()
        if objective is not None:
            sense, expr = objective
            (m.Minimize if sense == "min" else m.Maximize)(expr)
        solver = _solver(thorough)
        solver.parameters.max_time_in_seconds = DEFAULT_SECONDS if time_limit is None else max(time_limit, 0.001)
        status = solver.Solve(m)
        return solver, status

    def feasible(self, assumptions, pattern=None, time_limit: float | None = None) -> bool | None:
        """True or False; None if the time limit ran out first."""
        _, st = self._solve(assumptions, pattern, time_limit=time_limit)
        if st == cp_model.UNKNOWN:
            return None
        return st in (cp_model.OPTIMAL, cp_model.FEASIBLE)

    def example(self, assumptions, pattern=None, time_limit: float | None = None) -> Hand | None:
        solver, st = self._solve(assumptions, pattern, time_limit=time_limit)
        if st not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            return None
        return Hand.from_cards([k for k, v in self.x.items() if solver.Value(v)])

    def extreme(self, assumptions, expr, sense: str, time_limit: float | None = None) -> int | None:
        """The minimum or maximum of an expression (None if infeasible or out of time)."""
        solver, st = self._solve(assumptions, objective=(sense, expr), time_limit=time_limit)
        if st != cp_model.OPTIMAL:
            return None
        return int(round(solver.ObjectiveValue()))

    def core(self, assumptions, time_limit: float | None = None) -> list | None:
        """A set of the assumptions that cannot all hold (None if they can).

        :raises SolverTimeout: if the time limit (default ``DEFAULT_SECONDS``) runs out first.
        """
        deadline = time.monotonic() + (DEFAULT_SECONDS if time_limit is None else time_limit)
        found = self._core(list(assumptions), deadline)
        if found is _UNKNOWN:
            raise SolverTimeout(f"no answer within {time_limit or DEFAULT_SECONDS:g} s")
        return found

    def minimal_core(self, assumptions, time_limit: float) -> tuple[list | None, bool]:
        """A set of the assumptions that cannot all hold, made minimal by deletion while time is left.

        Returns ``(core, minimal)``: ``core`` is None if the assumptions can all hold, and
        ``minimal`` is True only when no assumption of the core can be dropped (each was tried).

        :raises SolverTimeout: if no core is found within the time limit.
        """
        deadline = time.monotonic() + time_limit
        found = self._core(list(assumptions), deadline)
        if found is _UNKNOWN:
            raise SolverTimeout(f"no answer within {time_limit:g} s")
        if found is None:
            return None, False
        core, minimal = list(found), True
        for a in list(core):
            if len(core) == 1:
                break
            if all(b.Index() != a.Index() for b in core):
                continue  # already dropped with an earlier, smaller core
            rest = [b for b in core if b.Index() != a.Index()]
            smaller = self._core(rest, deadline)
            if smaller is _UNKNOWN:
                minimal = False
                break
            if smaller is not None:
                keep = {b.Index() for b in smaller}
                core = [b for b in rest if b.Index() in keep]
        return core, minimal

    def _core(self, assumptions, deadline: float):
        """One core query before a deadline: a core, None (satisfiable) or _UNKNOWN.

        The fast configuration gets the first quarter of the time; a thorough one (presolve,
        probing) the rest, as some unsatisfiable questions need it."""
        for thorough, share in ((False, 0.25), (True, 1.0)):
            left = deadline - time.monotonic()
            if left <= 0:
                return _UNKNOWN
            solver, st = self._solve(assumptions, time_limit=left * share, thorough=thorough)
            if st == cp_model.INFEASIBLE:
                idx = set(solver.SufficientAssumptionsForInfeasibility())
                return [a for a in assumptions if a.Index() in idx]
            if st in (cp_model.OPTIMAL, cp_model.FEASIBLE):
                return None
        return _UNKNOWN

    def truths(self, hand: Hand, formulas: list[Node]) -> list[bool]:
        """The model's truth of formulas when the cards are fixed to a hand (for the tests)."""
        lits = [self.literal(f) for f in formulas]
        return [bool(v) for v in self._fixed(hand, lits)]

    def values(self, hand: Hand, feats: list[Feat]) -> list[int]:
        """The model's values of features when the cards are fixed to a hand (for the tests)."""
        return self._fixed(hand, [self.feature(f) for f in feats])

    def _fixed(self, hand: Hand, variables) -> list[int]:
        m = self.model
        m.ClearAssumptions()
        m.ClearObjective()
        m.AddAssumptions([self.x[s, r] if (s, r) in hand.cards else self.x[s, r].Not()
                          for s in SUITS for r in RANKS])
        solver = _solver()
        solver.parameters.max_time_in_seconds = DEFAULT_SECONDS
        st = solver.Solve(m)
        if st not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            raise ValueError(f"the model rejects the hand {hand}")
        return [solver.Value(v) for v in variables]


_UNKNOWN = object()  # a solver answer cut short by its time limit


def _len_eq(suit: str, n: int) -> Cmp:
    from fractions import Fraction

    return Cmp(((Fraction(1), Feat("len", suit)),), Fraction(-n), "==")
