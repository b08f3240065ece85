"""Every word the system files define (1N shape, balanced, suit quality, key cards, ...) has
the same two faces as the primitive features: exact on a hand, and in CP-SAT."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from canary_infer.bridge.cards import SUITS, Hand
from canary_infer.engine.cpsat import HandModel
from canary_infer.language.expr import ConstraintError, evaluate, parse


def instances(system):
    """Each definition applied to every choice of suits, as boolean formulas."""
    out = []
    for d in system.definitions.values():
        args_list = [()] if not d.params else [tuple(a) for a in _suit_tuples(len(d.params))]
        for args in args_list:
            call = d.name + (f"({', '.join(args)})" if args else "")
            try:
                out.append((call, parse(call, system.definitions)))
            except ConstraintError:  # a numeric definition: compare it with each possible value
                out += [(f"{call} == {k}", parse(f"{call} == {k}", system.definitions)) for k in range(6)]
    return out


def _suit_tuples(n):
    if n == 0:
        yield ()
        return
    for s in SUITS:
        for rest in _suit_tuples(n - 1):
            yield (s,) + rest


@pytest.fixture(scope="module")
def formulas(system):
    return instances(system)


@pytest.fixture(scope="module")
def model():
    return HandModel()


def test_every_definition_is_checked(formulas, system):
    names = {text.split("(")[0].split(" ")[0] for text, _ in formulas}
    assert names == set(system.definitions)


@settings(max_examples=30, deadline=None)
@given(rng=st.randoms(use_true_random=False))
def test_definitions_agree_on_random_hands(formulas, model, rng):
    hand = Hand.random(rng)
    exact = [evaluate(f, hand) for _, f in formulas]
    solver = model.truths(hand, [f for _, f in formulas])
    assert {t: v for (t, _), v in zip(formulas, solver, strict=True)} == \
        {t: v for (t, _), v in zip(formulas, exact, strict=True)}


@pytest.mark.parametrize("pbn,want", [
    ("KQ2.AJ3.Q432.K32", True),     # 3-3-4-3, balanced
    ("AK432.Q32.J32.Q2", False),    # five-card major with two high honours
    ("AJ432.Q32.K32.Q2", True),     # five-card major with one high honour
    ("KJ32.QJ32.KJ32.A", True),     # 4441, singleton ace
    ("KJ32.QJ32.AJ32.Q", False),    # 4441, singleton queen
    ("K2.Q3.QJ32.AK432", True),     # 2-2-4-5 without good minors
    ("K2.Q3.KQ32.AK432", False),    # 2-2-4-5 with good minors opens 1D
])
def test_one_notrump_shape(system, pbn, want):
    assert evaluate(parse("nt_shape", system.definitions), Hand.from_pbn(pbn)) is want


def test_keycards_count_aces_and_the_trump_king(system):
    h = Hand.from_pbn("AK2.K32.A432.432")
    assert evaluate(parse("keycards(S) == 3", system.definitions), h)
    assert evaluate(parse("keycards(H) == 3", system.definitions), h)
    assert evaluate(parse("keycards(D) == 2", system.definitions), h)
