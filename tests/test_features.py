"""Hand features: the notes' definitions, and the evaluator and CP-SAT faces held together."""

from math import comb

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from canary_infer.bridge.cards import RANKS, SUITS, Hand
from canary_infer.engine.cpsat import HandModel
from canary_infer.language.expr import Feat
from canary_infer.language.features import BIT, FEATURES, classes, losers_q

# The loser table of the notes [A76-104], transcribed here from the text: holding -> losers.
# "x" is any small card; "(xxxx)" means more small cards do not change the count.
NOTES_LOSER_TABLE = {
    "AKQ": 0, "AK": 0, "A": 0, "KQJ": 1, "KQ": 1, "K": 1, "Ax": 1, "Axx": 2, "AQ": 1, "AQx": 1,
    "Qx": 2, "Qxx": 2.5, "QJ": 2, "Q10x": 2.5, "Axxx": 2, "Kx": 1.25, "Kxx": 2.25, "KQx": 1,
    "KJ": 1, "KJx": 2, "K10": 1.25, "K10x": 2.25, "x": 1, "xx": 2, "xxx": 3, "AKx": 1, "QJx": 2,
}
EXTENDABLE = {"AKQ", "Axxx", "Kxx", "KQx", "AQx", "xxx", "Qxx"}  # the "(xxxx)" entries


def holding(text: str) -> tuple[int, int]:
    text = text.replace("10", "T")
    mask = 0
    for ch in text:
        if ch != "x":
            mask |= BIT[ch]
    return len(text), mask


@pytest.mark.parametrize("text,losers", sorted(NOTES_LOSER_TABLE.items()))
def test_roman_losers_match_the_notes_table(text, losers):
    n, m = holding(text)
    assert losers_q(n, m) == losers * 4
    if text in EXTENDABLE:
        for extra in range(1, 5):
            assert losers_q(n + extra, m) == losers * 4, f"{text} + {extra} small cards"


def test_no_suit_has_more_than_three_losers():
    for n in range(14):
        for m, _ in classes(n):
            assert 0 <= losers_q(n, m) <= 12


@pytest.mark.parametrize("pbn,qt", [("AK2.A.KQ5432.Q32", 4.0), ("AQ2.K2.J5432.432", 2.0),
                                    ("K.Q32.J5432.5432", 0.0)])
def test_quick_tricks(pbn, qt):
    assert FEATURES["qt"].value(Hand.from_pbn(pbn)) / 2 == qt


def test_cue_bid_control_is_ace_king_singleton_or_void():
    h = Hand.from_pbn("A32.K432.5.QJ987")
    c = FEATURES["control"]
    assert [c.value(h, s) for s in SUITS] == [1, 1, 1, 0]
    void = Hand.from_pbn("QJ2.QJ432..QJ987")
    assert c.value(void, "D") == 1 and c.value(void, "S") == 0


def test_holding_classes_count_every_holding():
    for n in range(14):
        assert sum(c for _, c in classes(n)) == comb(13, n)


hands = st.randoms(use_true_random=False).map(Hand.random)
MODEL = HandModel()


@settings(max_examples=25, deadline=None)
@given(hands)
def test_evaluator_and_cpsat_agree_on_every_feature(hand):
    feats = [Feat(name, s) for name in FEATURES for s in SUITS]
    feats += [Feat(name) for name in FEATURES if not FEATURES[name].of_suit]
    got = MODEL.values(hand, feats)
    want = [FEATURES[f.name].value(hand, f.suit) for f in feats]
    assert dict(zip(map(str, feats), got, strict=True)) == dict(zip(map(str, feats), want, strict=True))


@settings(max_examples=50, deadline=None)
@given(hands)
def test_hcp_and_lengths_from_the_cards(hand):
    points = {"A": 4, "K": 3, "Q": 2, "J": 1}
    assert FEATURES["hcp"].value(hand) == sum(points.get(r, 0) for _, r in hand.cards)
    assert [FEATURES["len"].value(hand, s) for s in SUITS] == list(hand.lengths)
    assert FEATURES["controls"].value(hand) == sum({"A": 2, "K": 1}.get(r, 0) for _, r in hand.cards)
    assert all(r in RANKS for _, r in hand.cards)
