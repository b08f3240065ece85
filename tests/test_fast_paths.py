"""The fast paths of issue 12 answer exactly what the slow ones answer.

* compiled formulas (:mod:`canary_infer.language.compiled`) against :func:`canary_infer.language.expr.evaluate`,
  on random formulas and on every constraint of the system, on random hands;
* the bidder's per-auction plans against evaluating each option afresh;
* the inferencer's lookup by identity against a fresh inferencer;
* the fast ``Deal.random`` against building the same deal the checked way.
"""

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from canary_infer.bridge.auction import SEATS, Auction
from canary_infer.bridge.cards import _DECK, SUITS, Deal, Hand
from canary_infer.deal.infer import Inferencer
from canary_infer.language.compiled import compile_formula, compile_formulas, hand_classes
from canary_infer.language.expr import evaluate, parse
from canary_infer.tools.bidding import Bidder

ATOMS = [
    "hcp >= {a}", "hcp <= {b}", "{s} >= {n}", "{s} <= {m}", "losers <= {l}", "qt >= {q}", "qt == {q}",
    "control({s})", "stopper({s})", "top3({s}) >= {t}", "controls >= {c}", "hcp({s}) >= {h}", "{s} != {n}",
    "shape 4333 | 4432 | 5332", "pattern 5-3-x-x | 4-4-1-4", "len({s}) == 1 -> hasA({s}) or hasK({s})",
    "losers({s}) <= {k}", "2 * {s} + hcp >= {a}", "hcp - 3 * {s} <= {n}", "queens2 + aces >= {t}",
    "all x in suits: len(x) >= 2", "any x in majors: len(x) >= 5 and top3(x) >= 2", "true", "false",
]


@st.composite
def formula_texts(draw, depth=3):
    def atom():
        return draw(st.sampled_from(ATOMS)).format(
            a=draw(st.integers(0, 30)), b=draw(st.integers(5, 30)), s=draw(st.sampled_from(SUITS)),
            n=draw(st.integers(0, 7)), m=draw(st.integers(1, 8)), l=draw(st.sampled_from([5, 6.5, 7, 8.25])),
            q=draw(st.sampled_from([0, 1, 1.5, 2, 3])), t=draw(st.integers(0, 3)), c=draw(st.integers(0, 8)),
            h=draw(st.integers(0, 10)), k=draw(st.sampled_from([0, 1, 1.25, 2])))

    def tree(d):
        if d == 0 or draw(st.booleans()):
            return f"({atom()})"
        op = draw(st.sampled_from(["and", "or", "->"]))
        neg = "not " if draw(st.booleans()) else ""
        return f"{neg}({tree(d - 1)} {op} {tree(d - 1)})"

    return tree(depth)


def _hands(seed, n=25):
    rng = random.Random(seed)
    return [Hand.random(rng) for _ in range(n)]


@settings(max_examples=200, deadline=None)
@given(st.lists(formula_texts(), min_size=1, max_size=4), st.integers(0, 2**32).map(_hands))
def test_compiled_formulas_are_evaluate_exactly(texts, hands):
    fs = [parse(t) for t in texts]
    fn = compile_formulas(fs + [parse(f"not ({texts[0]})")])  # a formula that contains another
    for h in hands:
        want = tuple(evaluate(f, h) for f in fs)
        got = fn(hand_classes(h))
        assert got[:-1] == want and got[-1] is (not want[0]), (texts, h.pbn())
        assert compile_formula(fs[0])(hand_classes(h)) == want[0]


def test_every_constraint_of_the_system_compiles_to_the_same_truth(system):
    fs = []
    for n in system.nodes():
        if n.defined:
            for chair in (1, 2, 3, 4):
                fs.append(n.constraint({"chair": chair}))
    assert len(fs) > 100
    fn = compile_formulas(fs)
    rng = random.Random(12)
    for _ in range(60):
        h = Hand.random(rng)
        assert fn(hand_classes(h)) == tuple(evaluate(f, h) for f in fs), h.pbn()


def test_holding_classes_are_the_features_view_of_a_hand():
    from canary_infer.language.features import holding_class

    rng = random.Random(3)
    for _ in range(200):
        h = Hand.random(rng)
        assert hand_classes(h) == tuple(n * 64 + m for n, m in (holding_class(h, s) for s in SUITS))


def test_the_bidders_plans_answer_as_evaluating_afresh(system):
    """Each option's fit, read from the per-auction plan, against evaluate() on its constraint."""
    b = Bidder(system)
    rng = random.Random(5)
    auctions = ["", "P", "P P", "P P P", "2S P", "2S P 2N P", "2H P 2S P", "2H P 2S P 3C P", "1S P"]
    for _ in range(40):
        deal = Deal.random(rng)
        for text in auctions:
            a = Auction.parse(text)
            hand = deal[a.turn]
            for _ in range(2):  # planned, then from the plan
                r = b.bid(hand, a)
                for c in r.candidates:
                    assert c.fits == evaluate(c.formula, hand), (text, hand.pbn(), c.call)
                assert r.calls == [c.call for c in r.candidates if c.fits and not c.judgement]


def test_inference_by_identity_answers_as_a_fresh_inferencer(system):
    inf = Inferencer(system)
    texts = ["1S", "1H", "2S P 2N P 3C", "2S P 2N P 3D", "P", "P P 1S", "1S", "2S P 2N P 3C"]
    first = [inf.infer(Auction.parse(t)).as_json() for t in texts]
    again = [inf.infer(Auction.parse(t)).as_json() for t in texts]
    assert first == again
    for t, got in zip(texts[:4], first, strict=False):
        assert Inferencer(system).infer(Auction.parse(t)).as_json() == got


def test_a_random_deal_is_the_deal_the_checked_constructor_builds():
    for seed in range(40):
        d = Deal.random(random.Random(seed))
        rng = random.Random(seed)
        deck = list(_DECK)
        rng.shuffle(deck)
        slow = Deal({s: Hand(deck[13 * k:13 * k + 13]) for k, s in enumerate(SEATS)})
        assert d == slow and hash(d) == hash(slow) and d.pbn() == slow.pbn()
        for s in SEATS:
            assert d[s].cards == slow[s].cards and d[s].hcp == slow[s].hcp


REPEATING = """\
tree opening
  P   "no opening"  [A1]
      = denies siblings
  2S  "11-16, five or more spades"  [A2]
      = hcp in 11..16 and S >= 5
    2N  "relay"  [A3]
      3C  "short clubs"  [A4]
          = C <= 1
      3D  "four or more hearts"  [A5]
          = H >= 4
      3H  "six or more spades"  [A6]
          = S >= 6
    (X)
      2N  "relay"  [A7]
          same as 2S 2N
"""


def test_check_system_solves_each_question_once(tmp_path, monkeypatch):
    """A tree that repeats itself ('same as') asks the same questions twice: solved once."""
    import canary_infer.tools.verify as verify
    from canary_infer.system.model import load_system

    p = tmp_path / "repeating.canary"
    p.write_text(REPEATING, encoding="utf-8")
    asked = Counter()
    real = verify.solve

    def counting(formula, avail=None, patterns=None):
        asked[(formula, tuple(sorted(patterns)) if patterns is not None else None)] += 1
        return real(formula, patterns=patterns)

    monkeypatch.setattr(verify, "solve", counting)
    got = verify.Verifier(Inferencer(load_system([p]))).check_system()
    assert asked and max(asked.values()) == 1, [n for n in asked.values() if n > 1]
    # and the answers are those of solving every question afresh
    monkeypatch.setattr(verify.Verifier, "solve_among", lambda self, f, pats: real(f, patterns=sorted(pats)))
    fresh = verify.Verifier(Inferencer(load_system([p]))).check_system()
    assert [g.as_json() for g in got["gaps"]] == [g.as_json() for g in fresh["gaps"]]
    assert [o.as_json() for o in got["overlaps"]] == [o.as_json() for o in fresh["overlaps"]]
    assert got["overlaps"] and got["nodes"] == fresh["nodes"]
