"""The grammar of the system files and the parser that reads their lines with it.

:data:`GRAMMAR` is the text of ``system.lark`` beside this module, the grammar lark reads: the
loader (:mod:`canary_infer.system.model`) parses every line with it, so the grammar printed in
the documentation is the parser.  A line parses to plain values (tuples, strings, dicts), from
which the loader builds the model's objects::

    >>> parse_line('1x for x in D, H  "4+ {x}"  [A32]  forcing', "in_call")  # doctest: +NORMALIZE_WHITESPACE
    ('call', (False, 'bid', '1x'), [('for', 'x', ((',', 'D'), (',', 'H')))], '4+ {x}', 'A32',
     [('flag', 'forcing')])
    >>> parse_line("= when chair 3: hcp >= 9", "in_call")
    ('rule', ([{'kind': 'chair', 'lo': 3, 'hi': 3}], 'formula', 'hcp >= 9', '', '', ''))
    >>> parse_line("tree opening 1S", "margin", "t.canary", 4)
    ('tree', 'opening', [(False, 'bid', '1S')])
    >>> parse_line("1S  spades", "in_call", "t.canary", 4, indent=4)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    canary_infer.system.parser.SystemFileError: t.canary:4: unexpected 'spades' after the call ... (column 9)
"""

from __future__ import annotations

import functools
from pathlib import Path

GRAMMAR = Path(__file__).with_name("system.lark").read_text(encoding="utf-8")
STARTS = ("margin", "in_define", "in_schedule", "in_root", "in_call", "pattern")


class SystemFileError(ValueError):
    """A system file that cannot be loaded: ``path``, ``line`` (1-based) and the reason."""

    def __init__(self, path: str, line: int, reason: str):
        super().__init__(f"{path}:{line}: {reason}")
        self.path, self.line, self.reason = path, line, reason

    def __reduce__(self):
        return (type(self), (self.path, self.line, self.reason))


def strip_comment(line: str) -> str:
    """The line without its comment: ``#`` outside quotes and brackets."""
    if "#" not in line:
        return line.rstrip()
    quoted = bracket = False
    for i, ch in enumerate(line):
        if ch == '"':
            quoted = not quoted
        elif ch == "[" and not quoted:
            bracket = True
        elif ch == "]" and not quoted:
            bracket = False
        elif ch == "#" and not quoted and not bracket:
            return line[:i].rstrip()
    return line.rstrip()


@functools.cache
def _lark():
    """The parser, built on the first line read: a process that finds the whole system already
    loaded (see :mod:`canary_infer.system.cache`) never imports lark."""
    from lark import Lark

    return Lark(GRAMMAR, parser="lalr", lexer="contextual", start=list(STARTS), maybe_placeholders=False,
                transformer=_values(), cache=True)


def parse_line(body: str, start: str, path: str = "<text>", no: int = 0, indent: int = 0):
    """One line's text (no indentation, no comment) read from ``start`` (see ``system.lark``)."""
    from lark.exceptions import UnexpectedInput

    try:
        return _lark().parse(body, start=start)
    except UnexpectedInput as e:
        end = getattr(getattr(e, "token", None), "type", None) == "$END"
        col = len(body) + 1 if end or not isinstance(e.column, int) or e.column < 1 else e.column
        raise SystemFileError(path, no, f"{_why(body, start, col)} (column {col + indent})") from None


def parse_pattern(text: str) -> tuple:
    """A call pattern alone (``1x``, ``(X)``, ``next y``) as (theirs, kind, value); ValueError if none."""
    from lark.exceptions import UnexpectedInput

    try:
        return _lark().parse(text.strip(), start="pattern")
    except UnexpectedInput:
        raise ValueError(f"expected a call (1C..7N, P, X, XX) or a call pattern (1x, *e, next y, jump y, "
                         f"cheapest, step 2, other), got '{text}'") from None


# --------------------------------------------------------------------------- what a syntax error says
USAGE = {  # what a line starting with a keyword should say
    "define": "expected 'define name(params) = constraint'",
    "schedule": "expected 'schedule name(params) \"meaning\" [source]'",
    "block": "expected 'block name(params) \"meaning\" [source]'",
    "apply": "expected 'apply BLOCK(trump) where trump agreed' or 'apply BLOCK(last) where no trump agreed'",
    "option": "expected 'option NAME \"what it changes\"'",
    "tree": "expected 'tree opening|defence [CALL ...]' (the calls the tree's lines attach to)",
    "step": "expected 'step N \"meaning\" = constraint' or 'step k for k in 1..6 \"meaning\" ...'",
    "delete": "expected 'delete steps 2, 5 if impossible: CONSTRAINT'",
    "note": 'expected note "..."',
    "interpretation": 'expected interpretation "..."',
    "=": "expected '= CONSTRAINT', '= when CONDITION: ...', '= denies ...', '= maximum', '= minimum' or "
         "'= replaces FEATURE' (a condition: chair N, vul, forcing, partner long X)",
    "covers": "expected 'covers CONSTRAINT'",
    "priority": 'expected priority CALL > CALL "why" [source]',
    "same": "expected 'same as CALL CALL ...' (a path from the start of the tree)",
    "answers": "expected 'answers SCHEDULE(S, H, ...)' [from first non-trump step]",
    "example": "expected 'example HAND' (13 cards in PBN order S.H.D.C)",
    "include": "expected 'include BLOCK(S, H, ...)'",
}
KEYWORDS = {  # the keywords a line may start with, by what it stands under
    "margin": ("define", "schedule", "block", "apply", "option", "tree"),
    "in_define": ("note", "interpretation"),
    "in_schedule": ("step", "delete", "note", "interpretation"),
    "in_root": ("covers", "note", "priority"),
    "in_call": ("=", "covers", "note", "interpretation", "priority", "same", "answers", "example", "include"),
}
ELSEWHERE = {
    "margin": "expected 'define', 'schedule', 'block', 'apply', 'option' or 'tree' at the margin",
    "in_define": "under a definition only 'note \"...\"' and 'interpretation \"...\"' lines may follow",
    "in_schedule": "a schedule holds 'step N \"meaning\" = constraint' and 'delete steps' lines",
}
FLAG_WORDS = "undefined, extension, relay, forcing, game-forcing, final, trump X, relays off"


def _why(body: str, start: str, col: int) -> str:
    """What a line that does not parse should have said (``col``: where it stopped making sense)."""
    first = "=" if body.startswith("=") else body.split()[0]
    if first in KEYWORDS.get(start, ()):
        if first == "step" and '"' not in body:
            return "a step needs a meaning in quotes"
        return USAGE[first]
    if start in ELSEWHERE:
        return f"{ELSEWHERE[start]}, got '{body[:20]}'"
    if col <= len(first) or start == "pattern":  # within the line's first word
        return f"expected a call (such as 1S, or (*e for e in suits)), got '{body[:20] if col == 1 else first}'"
    word = (body[col - 1:].split() or ["nothing"])[0]
    return f"unexpected '{word}' after the call (flags are {FLAG_WORDS}; meanings go in double quotes)"


# --------------------------------------------------------------------------- the values a line parses to
def _kind(x) -> str | None:
    return getattr(x, "type", None)


def _quoted(tok) -> str:
    return str(tok)[1:-1]


def _words(items, kind: str) -> list[str]:
    return [str(x) for x in items if _kind(x) == kind]


def _tail(items) -> tuple[str, str]:
    """The meaning and the source among a rule's children ('' when absent)."""
    meaning = [_quoted(x) for x in items if _kind(x) == "MEANING"]
    source = [_quoted(x) for x in items if _kind(x) == "SOURCE"]
    return (meaning[0] if meaning else ""), (source[0] if source else "")


def _test(kind: str, children, **more) -> dict:
    """A test of a guard or a condition, as the keywords of the model's ``Test``."""
    return {"kind": kind, **more, **({"neg": True} if any(_kind(x) == "NOT" for x in children) else {})}


def _call_line(pattern, items) -> tuple:
    clauses = [x for x in items if isinstance(x, tuple) and x[0] in ("for", "if")]
    flags = [x for x in items if isinstance(x, tuple) and x[0] not in ("for", "if")]
    return ("call", pattern, clauses, *_tail(items), flags)


def _values():
    """The transformer lark applies while it parses (lark is imported only here and in _lark)."""
    from lark import Transformer

    class Values(Transformer):
        """Each rule of ``system.lark`` to plain values (applied while lark parses)."""

        # ---------------------------------------------------------- the margin
        def define(self, c):
            return ("define", str(c[0]), c[1] if len(c) == 3 else (), str(c[-1]).strip())

        def params(self, c):
            return tuple(map(str, c))

        def schedule(self, c):
            return ("schedule", str(c[0]), c[1], *_tail(c))

        def block(self, c):
            return ("block", str(c[0]), c[1], *_tail(c))

        def apply_trump(self, c):
            return ("apply", str(c[0]), "trump")

        def apply_last(self, c):
            return ("apply", str(c[0]), "last")

        def option(self, c):
            return ("option", str(c[0]), _quoted(c[1]))

        def tree(self, c):
            return ("tree", str(c[0]), c[1:])

        # ---------------------------------------------------------- schedules
        def step(self, c):
            return ("step", None, int(c[0]), int(c[0]), *_tail(c), c[-1] if isinstance(c[-1], tuple) else None)

        def steps(self, c):
            var, again, lo, hi = str(c[0]), str(c[1]), int(c[2]), int(c[3])
            return ("step", (var, again), lo, hi, *_tail(c), c[-1] if isinstance(c[-1], tuple) else None)

        def delete(self, c):
            return ("delete", tuple(int(x) for x in c[:-1]), str(c[-1]).strip())

        # ---------------------------------------------------------- calls
        def call(self, c):
            return _call_line(c[0], c[1:])

        def theirs_with_clauses(self, c):
            return _call_line((True, *c[0]), c[1:])

        def ours(self, c):
            return (False, *c[0])

        def theirs(self, c):
            return (True, *c[0])

        def bid(self, c):
            return ("bid", str(c[0]))

        def call_word(self, c):
            return ("word", str(c[0]))

        def next_jump(self, c):
            return (str(c[0]), str(c[1]))

        def step_call(self, c):
            return ("step", int(c[0]))

        def binding(self, c):
            return ("for", str(c[0]), c[1])

        def guard(self, c):
            return ("if", c)

        def set(self, c):
            return tuple((c[i - 1] if i else ",", str(c[i])) for i in range(0, len(c), 2))

        def set_op(self, c):
            return str(c[0])

        # ---------------------------------------------------------- tests
        def suit_eq(self, c):
            return _test("suit-eq", c, arg=str(c[0]), items=(str(c[1]),))

        def suit_ne(self, c):
            return _test("suit-ne", c, arg=str(c[0]), items=(str(c[1]),))

        def suit_in(self, c):
            return _test("suit-in", c, arg=str(c[0]), items=c[-1])

        def suit_above(self, c):
            s = _words(c, "LETTER")
            return _test("suit-above", c, arg=s[0], items=(s[1],))

        def suit_below(self, c):
            s = _words(c, "LETTER")
            return _test("suit-below", c, arg=s[0], items=(s[1],))

        def below_game(self, c):
            return _test("below-game", c)

        def below_game_in(self, c):
            return _test("below-game-in", c, arg=_words(c, "LETTER")[0])

        def below_call(self, c):
            return _test("below-call", c, arg=_words(c, "LETTER")[0], lo=int(_words(c, "LEVEL")[0]))

        def passed(self, c):
            return _test("passed", c)

        def vul(self, c):
            return _test("vul", c)

        def forcing(self, c):
            return _test("forcing", c)

        def relays(self, c):
            return {"kind": "relays", "neg": True} if c[0] == "off" else {"kind": "relays"}

        def option_test(self, c):
            return _test("option", c, arg=_words(c, "NAME")[0])

        def fit(self, c):
            return _test("fit", c, arg=_words(c, "LETTER")[0])

        def partner_long(self, c):
            return _test("partner-long", c, arg=_words(c, "LETTER")[0])

        def chair(self, c):
            return {"kind": "chair", "lo": int(c[0]), "hi": int(c[-1])}

        # ---------------------------------------------------------- flags
        def flag(self, c):
            return ("flag", str(c[0]))

        def trump(self, c):
            return ("trump", str(c[0]))

        def relays_off(self, c):
            return ("relays", "off")

        # ---------------------------------------------------------- lines under a call
        def rule_line(self, c):
            return ("rule", c[0])

        def covers(self, c):
            return ("covers", (c[0] if len(c) == 2 else [], *c[-1]))

        def note(self, c):
            return ("note", _quoted(c[0]))

        def interpretation(self, c):
            return ("interpretation", _quoted(c[0]))

        def priority(self, c):
            return ("priority", [x for x in c if isinstance(x, tuple)], *_tail(c))

        def same_as(self, c):
            return ("same_as", c)

        def answers(self, c):
            return ("answers", str(c[0]), tuple(_words(c, "LETTER")), c[-1] is True)

        def answers_from(self, c):
            return True

        def example(self, c):
            return ("example", str(c[0]))

        def inherit(self, c):
            return ("inherit",)

        def include(self, c):
            return ("include", str(c[0]), tuple(map(str, c[1:])))

        # ---------------------------------------------------------- rules: (tests, kind, ...)
        def rule(self, c):
            return (c[0] if len(c) == 2 else [], *c[-1])

        def when(self, c):
            return c

        def formula(self, c):
            texts = _words(c, "CONSTRAINT")
            return ("formula", texts[0].strip(), texts[1].strip() if len(texts) > 1 else "", *_tail(c))

        def denies(self, c):
            return ("denies", tuple(c))

        def siblings(self, c):
            return "siblings"

        def cheaper(self, c):
            return "cheaper"

        def relative(self, c):
            return (str(c[0]), ())

        def replaces(self, c):
            return ("replaces", tuple(map(str, c)))

    return Values()
