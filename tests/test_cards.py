"""Tests for canary_infer.bridge.cards: hands, deals, PBN round trips and errors."""

import copy
import doctest
import pickle
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from canary_infer.bridge import cards
from canary_infer.bridge.cards import HCP, RANKS, SEATS, SUITS, CardError, Deal, DealError, Hand, HandError

DECK = [(s, r) for s in SUITS for r in RANKS]
EXAMPLE = "AKQ83.J2.K4.QT92"

shuffled_decks = st.permutations(DECK)
hands = shuffled_decks.map(lambda deck: Hand.from_cards(deck[:13]))


@st.composite
def deals(draw):
    """A full deal with some hands (maybe none, maybe all) replaced by unknown."""
    deck = draw(shuffled_decks)
    known = draw(st.lists(st.booleans(), min_size=4, max_size=4))
    hands = {seat: Hand(deck[13 * k : 13 * k + 13]) for k, seat in enumerate(SEATS)}
    return Deal({seat: hand if known[k] else None for k, (seat, hand) in enumerate(hands.items())})


def test_constants():
    assert SUITS == "SHDC"
    assert RANKS == "AKQJT98765432"
    assert HCP == {"A": 4, "K": 3, "Q": 2, "J": 1}
    assert SEATS == "NESW"


def test_exception_hierarchy():
    assert issubclass(CardError, ValueError)
    assert issubclass(HandError, CardError)
    assert issubclass(DealError, CardError)
    assert not issubclass(HandError, DealError)


# ---------------------------------------------------------------- Hand


def test_hand_accessors():
    hand = Hand.from_pbn(EXAMPLE)
    assert hand.suit("S") == "AKQ83"
    assert hand.suit("H") == "J2"
    assert hand.suit("D") == "K4"
    assert hand.suit("C") == "QT92"
    assert [hand.length(s) for s in SUITS] == [5, 2, 2, 4]
    assert hand.lengths == (5, 2, 2, 4)
    assert hand.pattern == "5-2-2-4"
    assert hand.hcp == 4 + 3 + 2 + 1 + 3 + 2
    assert len(hand) == 13
    assert hand.has("S", "A") and hand.has("C", "T") and hand.has("C", "10")
    assert not hand.has("S", "J") and not hand.has("H", "A")
    assert ("S", "8") in hand and ("D", "4") in hand
    assert ("D", "5") not in hand
    assert hand.cards == frozenset(
        [("S", r) for r in "AKQ83"]
        + [("H", r) for r in "J2"]
        + [("D", r) for r in "K4"]
        + [("C", r) for r in "QT92"]
    )
    assert isinstance(hand.cards, frozenset)


def test_pattern_is_in_suit_order_not_sorted():
    hand = Hand.from_pbn("AKQ83.J92.4.QT92")
    assert hand.pattern == "5-3-1-4"
    assert hand.lengths == (5, 3, 1, 4)


def test_canonical_form_sorts_ranks_and_uses_t():
    hand = Hand.from_pbn("38KAQ.2J.4K.9210Q")
    assert hand.pbn() == EXAMPLE
    assert str(hand) == EXAMPLE
    assert hand.suit("C") == "QT92"


def test_ten_spellings_are_equivalent():
    assert Hand.from_pbn("AKQ83.J2.K4.Q1092") == Hand.from_pbn("AKQ83.J2.K4.QT92")
    assert Hand.from_pbn("AKQ83.J2.K4.Q1092").pbn() == EXAMPLE
    assert Hand.from_pbn("AKQ83.J2.K4.Qt92") == Hand.from_pbn(EXAMPLE)
    from_ten = Hand.from_cards([("C", "10") if c == ("C", "T") else c for c in Hand.from_pbn(EXAMPLE).cards])
    assert from_ten == Hand.from_pbn(EXAMPLE)
    assert ("C", "10") in from_ten


def test_case_insensitive():
    assert Hand.from_pbn("akq83.j2.k4.qt92") == Hand.from_pbn(EXAMPLE)
    hand = Hand.from_pbn(EXAMPLE)
    assert hand.suit("s") == "AKQ83"
    assert hand.has("s", "a")
    assert ("c", "q") in hand
    assert Hand.from_cards((s.lower(), r.lower()) for s, r in hand.cards) == hand


def test_voids():
    hand = Hand.from_pbn("AKQJT98765432...")
    assert hand.lengths == (13, 0, 0, 0)
    assert hand.pattern == "13-0-0-0"
    assert hand.suit("H") == ""
    assert hand.hcp == 10
    assert hand.pbn() == "AKQJT98765432..."
    assert Hand.from_pbn(".AKQJT98765432..").lengths == (0, 13, 0, 0)
    assert Hand.from_pbn("AKQJ.AKQ.AKQ.AKQ").hcp == 37


def test_surrounding_whitespace_ignored():
    assert Hand.from_pbn(f"  {EXAMPLE}\n") == Hand.from_pbn(EXAMPLE)


def test_iteration_order_is_canonical():
    hand = Hand.from_pbn(EXAMPLE)
    assert list(hand)[:3] == [("S", "A"), ("S", "K"), ("S", "Q")]
    assert list(hand)[-1] == ("C", "2")
    assert set(hand) == hand.cards


def test_repr_round_trips():
    hand = Hand.from_pbn(EXAMPLE)
    assert repr(hand) == f"Hand.from_pbn('{EXAMPLE}')"
    assert eval(repr(hand), {"Hand": Hand}) == hand


def test_contains_ignores_garbage():
    hand = Hand.from_pbn(EXAMPLE)
    assert "SA" not in hand
    assert ("S",) not in hand
    assert ("Z", "A") not in hand
    assert ("S", "Z") not in hand
    assert 7 not in hand


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("AKQ83.J2.K4.QT92.", "expected 4 suits separated by '.', got 5"),
        ("AKQ83.J2.K4", "expected 4 suits separated by '.', got 3"),
        ("AKQ83J2K4QT92", "expected 4 suits separated by '.', got 1"),
        ("AKQ83.J2.K43.QT92", "hand has 14 cards, expected 13"),
        ("AKQ83.J2.K.QT92", "hand has 12 cards, expected 13"),
        ("...", "hand has 0 cards, expected 13"),
        ("AKQ83.J77.K4.QT9", "card H7 appears twice"),
        ("AKQ83.J2.K4.QT102", "card CT appears twice"),
        ("AKQ83.J2.KZ.QT92", "unknown rank 'Z' in diamonds"),
        ("AKQ83.J2.K4.Q192", "unknown rank '1' in clubs"),
        ("AKQ 83.J2.K4.QT92", "unknown rank ' ' in spades"),
        ("AKQ83.J2.K4.QT9-", "unknown rank '-' in clubs"),
    ],
)
def test_hand_from_pbn_errors(text, message):
    with pytest.raises(HandError) as info:
        Hand.from_pbn(text)
    assert str(info.value) == message


def test_hand_from_cards_errors():
    good = sorted(Hand.from_pbn(EXAMPLE).cards)
    with pytest.raises(HandError, match=r"^hand has 12 cards, expected 13$"):
        Hand.from_cards(good[:12])
    with pytest.raises(HandError, match=r"^hand has 14 cards, expected 13$"):
        Hand.from_cards([*good, ("H", "A")])
    with pytest.raises(HandError, match=r"^card SA appears twice$"):
        Hand.from_cards([*good[:12], ("s", "a")])
    with pytest.raises(HandError, match=r"^card DT appears twice$"):
        Hand.from_cards([*good[:11], ("D", "10"), ("D", "T")])
    with pytest.raises(HandError, match=r"^unknown suit 'X'$"):
        Hand.from_cards([*good[:12], ("X", "A")])
    with pytest.raises(HandError, match=r"^unknown rank 'Z' in hearts$"):
        Hand.from_cards([*good[:12], ("H", "Z")])
    with pytest.raises(HandError, match=r"expected a \(suit, rank\) pair, got 'S10'"):
        Hand.from_cards([*good[:12], "S10"])
    assert Hand(good) == Hand.from_cards(good)


def test_accessor_errors():
    hand = Hand.from_pbn(EXAMPLE)
    with pytest.raises(CardError, match=r"unknown suit 'N'"):
        hand.suit("N")
    with pytest.raises(CardError, match=r"unknown suit 'SH'"):
        hand.length("SH")
    with pytest.raises(CardError, match=r"unknown rank '1' in spades"):
        hand.has("S", "1")


def test_hand_is_immutable_and_hashable():
    hand = Hand.from_pbn(EXAMPLE)
    with pytest.raises(AttributeError):
        hand._suits = ("", "", "", "")  # type: ignore[misc]
    with pytest.raises(AttributeError):
        hand.foo = 1  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        del hand._cards
    assert hand.pbn() == EXAMPLE
    same = Hand.from_pbn("akq83.j2.k4.q1092")
    assert hash(hand) == hash(same)
    assert len({hand, same, Hand.from_pbn("AKQJT98765432...")}) == 2
    assert hand != EXAMPLE
    assert pickle.loads(pickle.dumps(hand)) == hand
    assert copy.deepcopy(hand) == hand


def test_hand_random_is_reproducible_and_valid():
    a = Hand.random(random.Random(42))
    assert a == Hand.random(random.Random(42))
    assert len(a.cards) == 13 and sum(a.lengths) == 13
    assert len({Hand.random(random.Random(seed)) for seed in range(20)}) > 1


@given(hands)
def test_hand_pbn_round_trip(hand):
    text = hand.pbn()
    again = Hand.from_pbn(text)
    assert again == hand
    assert again.pbn() == text
    assert str(hand) == text
    assert Hand.from_cards(hand.cards) == hand


@given(shuffled_decks, st.randoms(use_true_random=False))
def test_hand_parses_any_rank_order_case_and_ten_spelling(deck, rng):
    held = deck[:13]
    parts = []
    for suit in SUITS:
        ranks = [r for s, r in held if s == suit]
        rng.shuffle(ranks)
        spelled = [("10" if r == "T" and rng.random() < 0.5 else r) for r in ranks]
        spelled = [r.lower() if rng.random() < 0.5 else r for r in spelled]
        parts.append("".join(spelled))
    hand = Hand.from_pbn(".".join(parts))
    assert hand.cards == frozenset(held)
    for suit in SUITS:
        expected = "".join(r for r in RANKS if (suit, r) in held)
        assert hand.suit(suit) == expected


@given(hands)
def test_hand_derived_values_agree(hand):
    assert sum(hand.lengths) == 13
    assert hand.pattern == "-".join(str(hand.length(s)) for s in SUITS)
    assert hand.hcp == sum(HCP.get(r, 0) for _, r in hand.cards)
    assert 0 <= hand.hcp <= 37
    for suit, rank in DECK:
        assert hand.has(suit, rank) == ((suit, rank) in hand) == ((suit, rank) in hand.cards)


@given(st.integers(0, 2**32))
def test_hand_random_from_any_seed(seed):
    hand = Hand.random(random.Random(seed))
    assert Hand.from_pbn(hand.pbn()) == hand


# ---------------------------------------------------------------- Deal

NORTH = "AKQ83.J2.K4.QT92"
EAST = "JT9.AKQ3.AQJ2.K3"
SOUTH = "7654.T987.T98.J8"
WEST = "2.654.7653.A7654"
FULL = f"N:{NORTH} {EAST} {SOUTH} {WEST}"


def test_full_deal_from_pbn():
    deal = Deal.from_pbn(FULL)
    assert deal["N"] == Hand.from_pbn(NORTH)
    assert deal["E"] == Hand.from_pbn(EAST)
    assert deal["S"] == Hand.from_pbn(SOUTH)
    assert deal["W"] == Hand.from_pbn(WEST)
    assert sum(deal[s].hcp for s in SEATS) == 40
    assert deal.pbn() == FULL
    assert str(deal) == FULL


def test_deal_first_seat_rotates_clockwise():
    deal = Deal.from_pbn(f"E:{EAST} {SOUTH} {WEST} {NORTH}")
    assert deal == Deal.from_pbn(FULL)
    assert deal["N"] == Hand.from_pbn(NORTH)
    assert Deal.from_pbn(f"W:{WEST} {NORTH} {EAST} {SOUTH}") == deal
    assert deal.pbn(first="S") == f"S:{SOUTH} {WEST} {NORTH} {EAST}"
    assert deal.pbn("w") == f"W:{WEST} {NORTH} {EAST} {SOUTH}"


def test_deal_unknown_hands():
    deal = Deal.from_pbn(f"S:{SOUTH} - {NORTH} -")
    assert deal["W"] is None and deal["E"] is None
    assert deal["N"] == Hand.from_pbn(NORTH)
    assert deal.pbn() == f"N:{NORTH} - {SOUTH} -"
    empty = Deal.from_pbn("N:- - - -")
    assert all(empty[s] is None for s in SEATS)
    assert Deal({}) == empty


def test_deal_is_a_read_only_mapping():
    deal = Deal.from_pbn(FULL)
    assert list(deal) == ["N", "E", "S", "W"]
    assert len(deal) == 4
    assert dict(deal)["E"] == Hand.from_pbn(EAST)
    assert deal["s"] == deal["S"]
    assert "N" in deal and "X" not in deal
    assert deal.get("X") is None
    with pytest.raises(KeyError):
        deal["X"]
    with pytest.raises(KeyError):
        deal["NE"]
    with pytest.raises(AttributeError):
        deal._hands = ()  # type: ignore[misc]
    assert Deal(dict(deal)) == deal
    assert len({deal, Deal.from_pbn(f"E:{EAST} {SOUTH} {WEST} {NORTH}")}) == 1
    assert deal != Deal.from_pbn(f"N:{NORTH} {EAST} {SOUTH} -")
    assert pickle.loads(pickle.dumps(deal)) == deal
    assert eval(repr(deal), {"Deal": Deal}) == deal


def test_deal_rejects_shared_card_naming_card_and_seats():
    # North and South both hold the ace of spades.
    with pytest.raises(DealError, match=r"^card SA is in both the N and S hands$"):
        Deal.from_pbn(f"N:{NORTH} - AKQJT98765432... -")
    with pytest.raises(DealError, match=r"card H3 is in both the E and W hands"):
        Deal({"E": Hand.from_pbn(EAST), "W": Hand.from_pbn("2.653.7654.A7654")})


@pytest.mark.parametrize(
    ("text", "error", "message"),
    [
        (f"{NORTH} {EAST} {SOUTH} {WEST}", DealError, "expected '<seat>:' before the hands"),
        (f"X:{NORTH} {EAST} {SOUTH} {WEST}", DealError, "unknown seat 'X'"),
        (f"NE:{NORTH} {EAST} {SOUTH} {WEST}", DealError, "expected '<seat>:' before the hands"),
        (f"N:{NORTH} {EAST} {SOUTH}", DealError, "expected 4 hands after 'N:', got 3"),
        (f"N:{NORTH} {EAST} {SOUTH} {WEST} -", DealError, "expected 4 hands after 'N:', got 5"),
        (f"N:{NORTH} {EAST} 7654.T987.T98 {WEST}", HandError, "S hand '7654.T987.T98': expected 4 suits"),
        (f"N:{NORTH} - - 2.654.7653.A765Z", HandError, "W hand '2.654.7653.A765Z': unknown rank 'Z'"),
    ],
)
def test_deal_from_pbn_errors(text, error, message):
    with pytest.raises(error) as info:
        Deal.from_pbn(text)
    assert message in str(info.value)
    assert type(info.value) is error


def test_deal_pbn_bad_first_seat():
    with pytest.raises(DealError, match="unknown seat 'Q'"):
        Deal.from_pbn(FULL).pbn(first="Q")


def test_deal_constructor_checks():
    with pytest.raises(DealError, match="unknown seat 'Q'"):
        Deal({"Q": Hand.from_pbn(NORTH)})
    with pytest.raises(TypeError):
        Deal({"N": NORTH})  # type: ignore[dict-item]


def test_deal_lowercase_seat():
    assert Deal.from_pbn(FULL.replace("N:", "n:")) == Deal.from_pbn(FULL)


def test_deal_random_uses_whole_deck():
    deal = Deal.random(random.Random(3))
    held = [card for seat in SEATS for card in deal[seat].cards]
    assert sorted(held) == sorted(DECK)
    assert deal == Deal.random(random.Random(3))
    assert deal != Deal.random(random.Random(4))


@given(deals(), st.sampled_from(SEATS))
def test_deal_pbn_round_trip(deal, first):
    text = deal.pbn(first=first)
    assert text.startswith(first + ":")
    assert Deal.from_pbn(text) == deal
    assert Deal.from_pbn(text).pbn() == deal.pbn()


@given(st.integers(0, 2**32))
def test_deal_random_from_any_seed(seed):
    deal = Deal.random(random.Random(seed))
    assert Deal.from_pbn(deal.pbn()) == deal
    assert sum(deal[s].hcp for s in SEATS) == 40


def test_doctests():
    result = doctest.testmod(cards)
    assert result.attempted > 0
    assert result.failed == 0
