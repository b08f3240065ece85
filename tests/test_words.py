"""Constraints in plain words (canary_infer.language.words) and the words of the system's calls."""

import pytest

from canary_infer.language.expr import parse
from canary_infer.language.words import definition_names, say
from canary_infer.tools.present import call_words


@pytest.mark.parametrize("text, words", [
    ("hcp in 11..16 and S in 5..6", "11-16 HCP, 5-6 spades"),
    ("hcp >= 17", "17+ HCP"),
    ("D <= 1 and H >= 3", "at most 1 diamond, 3+ hearts"),
    ("S == 0", "no spades"),
    ("C == 6", "exactly 6 clubs"),
    ("losers <= 7.25", "at most 7¼ Roman losers"),
    ("qt >= 1.5", "1½+ quick tricks"),
    ("S > H", "more spades than hearts"),
    ("S >= H", "at least as many spades as hearts"),
    ("S + H >= 9", "at least 9 hearts and spades together"),
    ("hcp(S) >= 4", "4+ HCP in spades"),
    ("control(S)", "a control (A, K, singleton or void) in spades"),
    ("not control(D)", "not a control (A, K, singleton or void) in diamonds"),
    ("hasA(H)", "the ace of hearts"),
    ("not hcp >= 12", "at most 11 HCP"),
    ("not S <= 3", "4+ spades"),
    ("S != 4", "not exactly 4 spades"),
    ("pattern 5-3-1-4 | 6-3-0-4", "pattern 5-3-1-4 or 6-3-0-4"),
    ("pattern 6-x-x-4", "6 spades and 4 clubs"),
    ("shape 4441", "4441 shape"),
    ("S >= 4 -> S >= 5", "if 4+ spades then 5+ spades"),
    ("all x in majors: len(x) <= 3", "in both majors: at most 3 cards there"),
    ("any x in minors: len(x) == 0", "a void in a minor"),
    ("all x in suits: len(x) == 1 -> not hasA(x)", "in every suit: if a singleton there then not the ace"),
    ("hcp >= 11 and qt >= 2 or hcp >= 14 and qt >= 1.5",
     "(11+ HCP and 2+ quick tricks) or (14+ HCP and 1½+ quick tricks)"),
    ("true", "nothing about the hand"),
])
def test_words_of_formulas(text, words):
    assert say(parse(text)) == words


def test_a_repeated_condition_inside_a_longer_conjunction_is_said_once():
    f = parse("hcp in 11..16 and (all x in suits: len(x) == 1 -> not hasK(x)) and C >= 4")
    assert say(f) == "11-16 HCP; in every suit: if a singleton there then not the king; 4+ clubs"


def test_definitions_read_as_their_names_but_a_whole_definition_is_spelled_out(system):
    names = definition_names(system)
    balanced = parse("balanced", system.definitions)
    assert names[balanced] == "balanced"
    assert say(parse("balanced and hcp in 23..24", system.definitions), names) == "balanced, 23-24 HCP"
    assert say(balanced, names) == "4333, 4432 or 5332 shape"
    good = parse("good_suit(H)", system.definitions)
    assert names[good] == "good suit in hearts"


def test_a_definition_that_only_counts_cards_does_not_name_every_such_count(system):
    """``support(x) = len(x) >= 3`` stands for an interpretation, not a word: the words of any
    call with 3+ hearts keep saying so, and ranges of a suit still merge."""
    names = definition_names(system)
    assert "support" in system.definitions
    assert parse("support(H)", system.definitions) not in names
    assert say(parse("S >= 5 and S <= 6 and C >= 4 and H >= 3", system.definitions), names) == \
        "5-6 spades, 4+ clubs, 3+ hearts"


def test_pass_that_denies_the_openings_is_said_so(system):
    words = call_words(system, system.root().children["P"])
    assert words.startswith("none of the other calls here (")
    assert set(words[words.index("(") + 1:-1].split()) == {
        c for c, n in system.root().children.items() if c != "P" and n.defined}


def test_chair_dependent_parts_are_said_per_chair(system):
    node = system.root().children["1D"]
    words = call_words(system, node)
    assert "in chairs 1-2 also: at most 7 Roman losers" in words
    assert "at most 7 Roman losers" not in call_words(system, node, chair=3)
    assert call_words(system, system.root().children["2S"]) == "11-16 HCP, 5-6 spades, 4-5 clubs, 5-6 Roman losers"
