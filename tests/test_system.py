"""The system files: the built-in system, malformed files, schedules, chair rules, denies siblings."""

import re

import pytest

from canary_infer.bridge.cards import Hand
from canary_infer.language.expr import TRUE, evaluate, parse
from canary_infer.system.model import CallNode, SystemFileError, load_system

CALL = re.compile(r"^\(?(?:[1-7][CDHSN]|P|X|XX)\)?$")

BAL_15 = "AKQ2.K32.QJ2.432"  # 4-3-3-3, 15 HCP: a 1N opening
BAL_10 = "A432.Q32.K32.J32"  # 4-3-3-3, 10 HCP: no opening at all
LIGHT_MAJORS = "QJ432.QJ32.Q32.K"  # 5-4-3-1, 11 HCP, 7½ losers: 1H/1S only in 3rd/4th chair


def write(tmp_path, text, name="sys.canary"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def load(tmp_path, text, name="sys.canary"):
    return load_system([write(tmp_path, text, name)])


def load_error(tmp_path, text, name="bad.canary") -> SystemFileError:
    p = write(tmp_path, text, name)
    with pytest.raises(SystemFileError) as e:
        load_system([p])
    err = e.value
    assert err.path == str(p)
    assert str(err) == f"{p}:{err.line}: {err.reason}"
    return err


def node(system, *calls, tree="opening") -> CallNode:
    n = system.root(tree)
    for c in calls:
        n = n.children[c]
    return n


def holds(n: CallNode, pbn: str, chair: int = 1) -> bool:
    return evaluate(n.constraint({"chair": chair}), Hand.from_pbn(pbn))


# --------------------------------------------------------------------------- the built-in system
def test_built_in_system_loads_in_name_order(system):
    assert len(system.files) >= 3
    assert system.files == sorted(system.files)
    assert all(f.startswith("constraints/") and f.endswith(".canary") for f in system.files)
    assert {"balanced", "opening_values", "good_suit", "nt_shape"} <= set(system.definitions)
    assert "second_relay" in system.schedules
    openings = {"P", "1C", "1D", "1H", "1S", "1N", "2C", "2D", "2H", "2S", "2N", "3C"}
    assert set(node(system).children) >= openings


def test_every_defined_call_has_a_meaning_a_source_and_a_well_formed_call(system):
    defined = 0
    for n in system.nodes():
        if n.parent is None:
            continue  # a tree root, not a call
        assert CALL.match(n.call), n.auction()
        assert n.parent.children[n.call] is n
        if n.defined:
            defined += 1
            assert n.meaning.strip(), n.auction()
            assert re.fullmatch(r"[AB]\d+.*", n.source), (n.auction(), n.source)
            assert n.path.startswith("constraints/") and n.line > 0
    assert defined > 100


def test_every_rule_of_the_built_in_system_is_resolved(system):
    rules = 0
    says_something: dict[tuple, bool] = {}  # a generic line may say nothing for one suit, not for all
    for n in system.nodes():
        for r in n.rules:
            rules += 1
            assert (r.formula is None) == (r.kind != "formula"), (n.auction(), r.text)
            key = (r.path, r.line)
            says_something[key] = says_something.get(key, False) or r.formula != TRUE
            assert r.path.startswith("constraints/") and r.line > 0
    assert rules > 50
    assert all(says_something.values()), [k for k, v in says_something.items() if not v]


def test_undefined_calls_are_reported_undefined(system):
    n = node(system, "2H", "3S")
    assert n.status == "undefined" and not n.defined
    assert n.source == "A1137"


def test_built_in_openings_mean_what_the_notes_say(system):
    two_spades = node(system, "2S")  # 11-16, 5-6 spades, 4-5 clubs, 5 or 6 losers [A36]
    assert holds(two_spades, "AQJ32.2.K2.QJ432")  # 13 HCP, 5-1-2-5, 5¼ losers
    assert not holds(two_spades, "AQJ3.A2.K32.QJ43")  # 4 spades
    assert not holds(two_spades, "AKQJ2.A.K2.AQ432")  # 23 HCP
    one_nt = node(system, "1N")
    assert holds(one_nt, BAL_15)
    assert not holds(one_nt, BAL_10)


def test_opponents_calls_are_in_parentheses(system):
    assert "(X)" in node(system, "2S").children
    assert "(3D)" in node(system, "2S", "2N").children
    assert node(system, "2S", "2N", "(3D)", "X").meaning == "5-1-3-4"


def test_a_source_cited_inside_a_meaning_is_not_the_lines_source(tmp_path):
    s = load(tmp_path, 'schedule ask(M)  "shape [A9]"  [A1-2]\n  step 1  "{M} [A8]"  [A3]  = M >= 5\n'
                       'tree opening\n  1C  "strong: \'17+\' [A5]"  [A4, A6]\n'
                       '      = hcp >= 17 unless hcp >= 16  "why [A7]"  [A7-8]\n'
                       '    priority 1D > 1H  "why [A9]"  [A10]\n'
                       '    1D  "d"  [A11]\n    1H  "h"  [A12]\n')
    assert (s.schedules["ask"].source, s.schedules["ask"].steps[0].source) == ("A1-2", "A3")
    assert node(s, "1C").source == "A4, A6" and node(s, "1C").rule.rules[0].src == "A7-8"
    assert node(s, "1C").rule.priorities[0][1:] == ("why [A9]", "A10")


# --------------------------------------------------------------------------- malformed files
def test_tabs_in_indentation(tmp_path):
    e = load_error(tmp_path, 'tree opening\n  1C "strong" [A1]\n\t  = hcp >= 17\n')
    assert e.line == 3 and "tabs" in e.reason


def test_unknown_word_at_the_margin(tmp_path):
    e = load_error(tmp_path, "define a = hcp >= 1\n\nfoo bar\n")
    assert e.line == 3
    assert "expected 'define', 'schedule', 'block', 'apply', 'option' or 'tree'" in e.reason and "foo bar" in e.reason
    assert "(column 1)" in e.reason


@pytest.mark.parametrize("text,line,token", [
    ('tree opening\n  1C "strong" [A1]\n  8C "eight"\n', 3, "8C"),
    ('tree opening\n  1C "strong" [A1]\n    8Z "zed" [A2]\n', 3, "8Z"),
    ('tree opening\n  1NT "notrump" [A1]\n', 2, "1NT"),
    ('tree opening\n  1C "strong" [A1]\n  Pass "pass"\n', 3, "Pass"),
])
def test_bad_call_token(tmp_path, text, line, token):
    e = load_error(tmp_path, text)
    assert e.line == line and token in e.reason and "expected a call" in e.reason


def test_unreadable_constraint_is_reported_at_its_line(tmp_path):
    e = load_error(tmp_path, 'tree opening\n  1C "strong" [A1]\n      = hcp >= 17\n      = hcp >> 3\n')
    assert e.line == 4
    assert "cannot read the constraint" in e.reason and "column" in e.reason


def test_unknown_name_in_a_constraint(tmp_path):
    e = load_error(tmp_path, 'tree opening\n  1C "strong" [A1]\n      = hcp >= 17\n'
                             '      = strong_suit >= 1\n')
    assert e.line == 4 and "unknown name 'strong_suit'" in e.reason


@pytest.mark.parametrize("constraint", ["false", "hcp >= 3 and false", "3 > 4"])
def test_a_constraint_that_can_never_hold(tmp_path, constraint):
    e = load_error(tmp_path, f'tree opening\n  1C "strong" [A1]\n      = {constraint}\n')
    assert e.line == 3 and "can never hold" in e.reason


def test_answers_naming_an_unknown_schedule(tmp_path):
    e = load_error(tmp_path, 'tree opening\n  1S "spades" [A1]\n    1N "relay" [A2]\n'
                             '        answers nosuch(S, H)\n')
    assert e.line == 4 and "no schedule named 'nosuch'" in e.reason


def test_answers_with_the_wrong_number_of_suits(tmp_path):
    e = load_error(tmp_path, 'schedule ask(M, X) "shape" [A1]\n  step 1 "{M}" = M >= 5\n'
                             'tree opening\n  1S "spades" [A2]\n    1N "relay" [A3]\n'
                             '        answers ask(S)\n')
    assert e.line == 6 and "takes 2 suits, got 1" in e.reason


def test_a_step_constraint_error_is_reported_at_the_step(tmp_path):
    e = load_error(tmp_path, 'schedule ask(M) "shape" [A1]\n  step 1 "{M}" = M >= 5\n'
                             '  step 2 "{M}" = M >> 6\n'
                             'tree opening\n  1S "spades" [A2]\n    1N "relay" [A3]\n'
                             '        answers ask(S)\n')
    assert e.line == 3 and "step 2 of 'ask'" in e.reason


def test_a_step_needs_a_meaning_and_a_constraint(tmp_path):
    e = load_error(tmp_path, 'schedule ask(M) "shape" [A1]\n  step 1 M >= 5\n')
    assert e.line == 2 and "meaning" in e.reason
    e = load_error(tmp_path, 'schedule ask(M) "shape" [A1]\n  1C "x"\n')
    assert e.line == 2 and "step N" in e.reason


def test_duplicate_definition(tmp_path):
    e = load_error(tmp_path, "define strong = hcp >= 17\n# again\ndefine strong = hcp >= 16\n")
    assert e.line == 3 and "'strong' is defined twice" in e.reason


def test_duplicate_definition_across_files(tmp_path):
    good = write(tmp_path, "define strong = hcp >= 17\n", "10-a.canary")
    bad = write(tmp_path, "\n\ndefine strong = hcp >= 16\n", "20-b.canary")
    with pytest.raises(SystemFileError) as e:
        load_system([good, bad])
    assert e.value.path == str(bad) and e.value.line == 3


def test_duplicate_schedule(tmp_path):
    e = load_error(tmp_path, 'schedule ask(M) "a"\n  step 1 "x" = M >= 1\n'
                             'schedule ask(M) "b"\n  step 1 "x" = M >= 1\n')
    assert e.line == 3 and "defined twice" in e.reason


def test_a_second_meaning_for_the_same_call(tmp_path):
    e = load_error(tmp_path, 'tree opening\n  1C "strong" [A1]\n  1C "also strong" [A2]\n')
    assert e.line == 3 and "1C is already defined at" in e.reason and ":2" in e.reason


def test_a_second_meaning_in_a_continued_tree(tmp_path):
    e = load_error(tmp_path, 'tree opening\n  1S "spades" [A1]\n    1N "relay" [A2]\n\n'
                             'tree opening 1S\n  1N "natural" [A3]\n')
    assert e.line == 6 and "1S 1N is already defined" in e.reason


def test_a_step_call_with_its_own_meaning(tmp_path):
    e = load_error(tmp_path, 'schedule ask(M) "shape" [A1]\n  step 1 "{M}" = M >= 5\n'
                             'tree opening\n  1S "spades" [A2]\n    1N "relay" [A3]\n        answers ask(S)\n'
                             '      2C "clubs" [A4]\n')
    assert e.line == 6 and "has its own meaning and is also step 1" in e.reason


def test_continuing_a_tree_at_a_missing_call(tmp_path):
    e = load_error(tmp_path, 'tree opening\n  1S "spades" [A1]\ntree opening 1H\n  1N "x"\n')
    assert e.line == 3 and "no call 1H to attach to" in e.reason


def test_words_after_a_call_must_be_flags(tmp_path):
    e = load_error(tmp_path, 'tree opening\n  1S spades [A1]\n')
    assert e.line == 2 and "unexpected 'spades'" in e.reason


def test_a_line_that_breaks_the_grammar_names_its_column(tmp_path):
    e = load_error(tmp_path, 'tree opening\n  1S  "spades"  [A1]  forcing  spades\n')
    assert e.line == 2 and "unexpected 'spades'" in e.reason and "(column 32)" in e.reason
    e = load_error(tmp_path, 'schedule ask(M)  "shape"\n  step 1  "{M}"  = M >= 5\n  delete steps 1 if: M >= 6\n')
    assert e.line == 3 and "delete steps 2, 5 if impossible" in e.reason and "(column 20)" in e.reason


@pytest.mark.parametrize("line,retired", [
    ("  1S  \"s\"  [A1]\n    (any)  \"they bid\"  [A2]\n", "(any): write (other)"),
    ("  1S  \"s\"  [A1]\n    anything  \"x\"  [A2]\n", "no call"),
    ("  1S  \"s\"  [A1]\n    2x for x in theirs  \"cue\"  [A2]\n", "the set 'theirs'"),
    ("  1S  \"s\"  [A1]  game forcing\n", "'game forcing': write game-forcing"),
    ("  1S  \"s\"  [A1]\n    4N if trump agreed  \"asks\"  [A2]\n", "the guard 'trump agreed'"),
    ("  1S  \"s\"  [A1]  relays on\n", "the flag 'relays on'"),
    ("  1S  \"s\"  [A1]\n      = when passed: hcp >= 9\n", "the condition 'passed'"),
    ("  1S  \"s\"  [A1]\n      = when option x: hcp >= 9\n", "the condition 'option'"),
    ("  1S  \"s\"  [A1]\n      = when relays on: hcp >= 9\n", "the condition 'relays'"),
    ("  1S  \"s\"  [A1]\n      = maximum losers\n", "a feature after maximum"),
])
def test_retired_constructs_are_refused(tmp_path, line, retired):
    e = load_error(tmp_path, "tree opening\n" + line)
    assert "column" in e.reason, retired


def test_apply_names_no_tree(tmp_path):
    e = load_error(tmp_path, 'block kc(T)  "asks"\n  4N  "RKCB"  [B1]\napply kc(trump) where trump agreed in opening\n')
    assert e.line == 3 and "apply BLOCK" in e.reason


def test_the_documented_grammar_is_the_parsers():
    from pathlib import Path

    from canary_infer.system import model, parser

    assert parser.GRAMMAR == (Path(parser.__file__).parent / "system.lark").read_text(encoding="utf-8")
    assert parser._lark().source_grammar == parser.GRAMMAR == model.GRAMMAR


def test_interpretation_needs_quotes(tmp_path):
    e = load_error(tmp_path, 'tree opening\n  1S "spades" [A1]\n      interpretation read as 4+\n')
    assert e.line == 3 and "interpretation" in e.reason


def test_an_attribute_line_directly_under_a_tree(tmp_path):
    e = load_error(tmp_path, 'tree opening\n  = hcp >= 3\n')
    assert e.line == 2 and "expected a call" in e.reason


def test_indented_line_outside_anything(tmp_path):
    e = load_error(tmp_path, '# a comment\n  1S "spades"\n')
    assert e.line == 2 and "outside" in e.reason


def test_an_unusable_definition_is_refused_at_its_line(tmp_path):
    e = load_error(tmp_path, "define a = hcp >= 1\ndefine b = a and nosuch >= 2\n")
    assert e.line == 2 and "'b'" in e.reason
    e = load_error(tmp_path, "define a = hcp >= 1\ndefine loop = hcp >= 3 or loop\n")
    assert e.line == 2 and "'loop'" in e.reason


@pytest.mark.parametrize("text,words", [
    ("define b = hcp >= 1 and nosuch >= 2\n", "unknown name 'nosuch'"),
    ("define loop = hcp >= 3 or loop\n", "refers to itself"),
    ("define loop(x) = len(x) >= 3 and loop(x)\n", "refers to itself"),
])
def test_an_unusable_definition_says_why(tmp_path, text, words):
    e = load_error(tmp_path, text)
    assert words in e.reason


@pytest.mark.parametrize("text", [
    'tree opening\n  1C "strong" [A1]\n      1D "relay" [A2]\n    1H "hearts" [A3]\n',
    'tree opening\n    1C "strong" [A1]\n      1D "relay" [A2]\n   1H "hearts" [A3]\n',
])
def test_indentation_that_matches_no_enclosing_call(tmp_path, text):
    e = load_error(tmp_path, text)
    assert e.line == 4 and "indentation" in e.reason


@pytest.mark.parametrize("token", ["(1D", "1D)"])
def test_unbalanced_parentheses_are_a_bad_call(tmp_path, token):
    e = load_error(tmp_path, f'tree opening\n  1C "strong" [A1]\n    {token} "they bid"\n')
    assert e.line == 3


@pytest.mark.parametrize("tree", [
    '  P "pass" [A2]\n    answers ask(S)\n',
    '  1S "spades" [A2]\n    (X) "double" [A3]\n      answers ask(S)\n',
    '  7S "grand" [A2]\n    answers ask(S)\n',
    '  1S "spades" [A2]\n    answers ask(Z)\n',
])
def test_answers_that_cannot_be_applied(tmp_path, tree):
    text = ('schedule ask(M) "shape" [A1]\n  step 1 "{M}" = M >= 5\n  step 2 "{M}" = M >= 6\n'
            'tree opening\n' + tree)
    e = load_error(tmp_path, text)
    assert e.line == text.count("\n")


def test_a_definition_cannot_quietly_shadow_a_feature(tmp_path):
    p = write(tmp_path, "define stopper(x) = hasA(x)\n")
    try:
        s = load_system([p])
    except SystemFileError:
        return  # refusing the name is one fix
    h = Hand.from_pbn("K2.432.432.AKQ76")  # K2 of spades: a stopper, no ace
    bare, compared = parse("stopper(S)", s.definitions), parse("stopper(S) >= 1", s.definitions)
    assert evaluate(bare, h) == evaluate(compared, h)


# --------------------------------------------------------------------------- the tree
def test_calls_nest_by_indentation_and_trees_continue(tmp_path):
    s = load(tmp_path, '# comment\ntree opening\n  1S "spades" [A1]  forcing\n      = S >= 4  # comment\n'
                       '    1N "relay" [A2]\n      2C "clubs" [A3]  trump C\n  1H "hearts" [A4]\n\n'
                       'tree opening 1S 1N\n  2D "diamonds" [A5]\n'
                       '    (X) "they double" [A6]\n      XX "redouble" [A7]\n')
    assert list(node(s).children) == ["1H", "1S"]  # in the order of the calls
    assert list(node(s, "1S", "1N").children) == ["2C", "2D"]
    assert node(s, "1S", "1N", "2C").trump == "C"
    assert node(s, "1S", "1N", "2D", "(X)", "XX").auction() == ["1S", "1N", "2D", "(X)", "XX"]
    assert node(s, "1S").rules[0].formula == parse("S >= 4")
    assert node(s, "1S", "1N", "2D").path.endswith("sys.canary") and node(s, "1S", "1N", "2D").line == 10


def test_a_call_with_no_meaning_is_a_step_on_the_way(tmp_path):
    s = load(tmp_path, 'tree opening\n  1S\n    1N "relay" [A2]\n  1H "hearts" [A3] undefined\n')
    assert not node(s, "1S").defined and node(s, "1S", "1N").defined
    assert node(s, "1H").status == "undefined" and not node(s, "1H").defined


# --------------------------------------------------------------------------- schedules
SCHEDULE = '''\
schedule shape_ask(M, X)  "opener's shape"  [A100]
  step 1  "5 {M}, 4 {X}"  = M == 5 and X == 4
  step 2  "6 {M}"  = M == 6
  step 3  "long {X}"  = X >= 6

tree opening
  1S  "spades"  [A1]
      = S >= 4
    1N  "relay"  [A2]
        answers shape_ask(S, H)
      2D  [A9]
        2H  "after step 2"  [A10]
  2S  "spades and clubs"  [A3]
    2N  "relay"  [A4]
        answers shape_ask(S, C)
'''


def test_answers_counts_steps_from_the_cheapest_call_above_the_asking_call(tmp_path):
    s = load(tmp_path, SCHEDULE)
    assert set(node(s, "1S", "1N").children) == {"2C", "2D", "2H"}
    step1, step2, step3 = (node(s, "1S", "1N", c) for c in ("2C", "2D", "2H"))
    assert (step1.meaning, step2.meaning, step3.meaning) == ("5 spades, 4 hearts", "6 spades", "long hearts")
    assert step1.defined and step2.defined and step3.defined
    assert step1.rules[0].formula == parse("S == 5 and H == 4")
    assert step3.rules[0].formula == parse("H >= 6")
    # above a suit bid the steps go through notrump: 2N asks, 3C 3D 3H answer
    assert set(node(s, "2S", "2N").children) == {"3C", "3D", "3H"}
    assert node(s, "2S", "2N", "3C").meaning == "5 spades, 4 clubs"
    assert node(s, "2S", "2N", "3H").rules[0].formula == parse("C >= 6")


def test_an_explicit_line_under_a_step_call_merges_with_it(tmp_path):
    s = load(tmp_path, SCHEDULE)
    step2 = node(s, "1S", "1N", "2D")
    assert step2.meaning == "6 spades"
    assert step2.source == "A9"  # the explicit line's own source wins
    assert node(s, "1S", "1N", "2C").source == "A100"  # a step without its own line takes the schedule's
    assert list(step2.children) == ["2H"] and step2.children["2H"].meaning == "after step 2"
    assert holds(step2, "AKQ432.K32.2.Q32") and not holds(step2, "AKQ43.K32.2.Q432")


def test_step_constraints_evaluate_on_hands(tmp_path):
    s = load(tmp_path, SCHEDULE)
    step1 = node(s, "1S", "1N", "2C")
    assert holds(step1, "AKQ32.K432.2.Q32")  # 5-4-1-3
    assert not holds(step1, "AKQ32.K32.2.Q432")  # 5-3-1-4


def test_built_in_second_relay_schedule(system):
    after = node(system, "2S", "2N", "3C", "3D")  # answers second_relay(S, H, D)
    assert {"3H", "3S", "3N", "4C"} <= set(after.children)
    assert after.children["3H"].meaning == "5 spades, 3 hearts, 1 card in diamonds, 4 clubs"
    assert after.children["4C"].meaning == "5 spades, 4 hearts, no diamonds (void), 4 clubs"
    assert after.children["3H"].source == "A1175-1176"
    assert "4S" in after.children["3H"].children  # the explicit lines under the step call are kept
    assert holds(after.children["3H"], "AKQ32.K32.2.Q432")  # 5-3-1-4
    assert not holds(after.children["3H"], "AKQ32.K32..Q5432")  # 5-3-0-5 is step 3
    assert holds(after.children["3N"], "AKQ32.K32..Q5432")
    hearts = node(system, "2H", "2S", "2N", "3C")  # answers second_relay(H, D, S)
    assert hearts.children["3D"].meaning == "5 hearts, 3 diamonds, 1 card in spades, 4 clubs"
    assert holds(hearts.children["3D"], "2.AKQ32.K32.Q432")


# --------------------------------------------------------------------------- chair rules
def test_when_chair_rules_apply_only_in_those_chairs(tmp_path):
    s = load(tmp_path, 'tree opening\n  1S "spades" [A1]\n      = S >= 5\n'
                       '      = when chair 1..2: hcp >= 12\n      = when chair 4: hcp >= 15\n')
    n = node(s, "1S")
    assert [r.when for r in n.rules] == [None, ("chair", 1, 2), ("chair", 4, 4)]
    eleven, thirteen, fifteen = "AQJ32.K32.J2.432", "AQJ32.K32.K2.432", "AQJ32.K32.K2.Q32"
    assert [holds(n, eleven, c) for c in (1, 2, 3, 4)] == [False, False, True, False]
    assert [holds(n, thirteen, c) for c in (1, 2, 3, 4)] == [True, True, True, False]
    assert [holds(n, fifteen, c) for c in (1, 2, 3, 4)] == [True, True, True, True]


def test_built_in_one_level_openings_need_opening_values_only_in_first_and_second_chair(system):
    hand = Hand.from_pbn(LIGHT_MAJORS)
    assert hand.hcp == 11 and evaluate(parse("losers == 7.5"), hand)
    one_heart = node(system, "1H")  # with five spades and four hearts the canapé opening is 1H
    assert [holds(one_heart, LIGHT_MAJORS, c) for c in (1, 2, 3, 4)] == [False, False, True, True]
    assert not any(holds(node(system, "1S"), LIGHT_MAJORS, c) for c in (1, 2, 3, 4))


# --------------------------------------------------------------------------- denies siblings
def test_denies_siblings_negates_the_defined_siblings(tmp_path):
    s = load(tmp_path, 'tree opening\n  P "no opening" [A1]\n      = denies siblings\n'
                       '  1S "spades" [A2]\n      = S >= 5\n  1H "hearts" [A3]\n      = H >= 5\n'
                       '  2C "not defined" [A4] undefined\n      = C >= 6\n'
                       '  1C "strong" [A5]\n      = when chair 3..4: hcp >= 15\n')
    p = node(s, "P")
    assert p.constraint({"chair": 1}) == parse("not (true or H >= 5 or S >= 5)") == parse("false")
    assert p.constraint({"chair": 3}) == parse("not (hcp >= 15 or H >= 5 or S >= 5)")  # siblings in call order
    assert not holds(p, "AKQ32.K32.2.Q432", 3)  # five spades open 1S
    assert holds(p, "2.K32.K32.QJ5432", 3)  # six clubs: 2C adds nothing, it is undefined
    assert not holds(p, "A2.KQ2.AK2.KQ432", 3)  # 1C in third chair


def test_built_in_pass_denies_every_opening(system):
    p = node(system, "P")
    assert not holds(p, BAL_15, 1)  # it opens 1N
    assert holds(node(system, "1N"), BAL_15, 1)
    assert holds(p, BAL_10, 1)  # nothing to open
    assert holds(p, BAL_10, 3)
    assert holds(p, LIGHT_MAJORS, 1)  # no opening values in first chair
    assert not holds(p, LIGHT_MAJORS, 3)  # but 1S/1H in third
    assert not holds(p, "AKQ2.AK32.A2.432", 1)  # 20 HCP: 1C
