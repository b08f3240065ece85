"""Constraints in plain words: what a call's formula says, written for a bridge player.

The words are generated from the formula itself (the same one inference solves), so they
can never drift from what the engine uses.  Ranges on one feature are merged, a condition
repeated for every suit is said once, and an implication reads as "if ..., ...".

    >>> from canary_infer.language.expr import parse
    >>> say(parse("hcp in 11..16 and S in 5..6 and C in 4..5 and losers in 5..6"))
    '11-16 HCP, 5-6 spades, 4-5 clubs, 5-6 Roman losers'
    >>> say(parse("all x in suits: len(x) == 1 -> not hasA(x) and not hasK(x)"))
    'in every suit: if a singleton there then not the ace and not the king'
    >>> say(parse("D <= 1 and H >= 3"))
    'at most 1 diamond, 3+ hearts'
    >>> say(parse("S > H"))
    'more spades than hearts'

``names`` maps formulas to the words a system defines for them (``balanced``), so that
a definition reads as its name:

    >>> say(parse("shape 4333 | 4432 | 5332 and hcp >= 12"), {parse("shape 4333 | 4432 | 5332"): "balanced"})
    'balanced, 12+ HCP'
"""

from __future__ import annotations

from fractions import Fraction

from canary_infer.language.expr import TRUE, And, Cmp, Feat, Node, Not, Or, Pattern, Shape
from canary_infer.language.features import FEATURES

SUIT_WORD = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
SUIT_ONE = {"S": "spade", "H": "heart", "D": "diamond", "C": "club"}
SUIT_SETS = {"SHDC": "every suit", "SH": "both majors", "DC": "both minors"}
SUIT_SETS_ANY = {"SHDC": "some suit", "SH": "a major", "DC": "a minor"}

# total features: (singular, plural) nouns
_TOTAL = {
    "hcp": ("HCP", "HCP"),
    "losers": ("Roman loser", "Roman losers"),
    "qt": ("quick trick", "quick tricks"),
    "controls": ("control (A=2, K=1)", "controls (A=2, K=1)"),
    "aces": ("ace", "aces"),
    "kings": ("king", "kings"),
    "queens": ("queen", "queens"),
    "queens2": ("queen (a singleton queen not counted)", "queens (a singleton queen not counted)"),
}
_CARD = {"hasA": "the ace", "hasK": "the king", "hasQ": "the queen", "hasJ": "the jack", "hasT": "the ten",
         "has9": "the nine"}


def _num(x: Fraction) -> str:
    if x.denominator == 1:
        return str(x.numerator)
    whole, frac = divmod(x, 1)
    sym = {Fraction(1, 4): "¼", Fraction(1, 2): "½", Fraction(3, 4): "¾"}.get(frac)
    return f"{whole or ''}{sym}" if sym else str(float(x))


def _single(c: Cmp) -> tuple[Feat, str, Fraction] | None:
    """A one-feature comparison as (feature, op, value in the feature's own unit)."""
    if len(c.terms) != 1:
        return None
    (k, f), = c.terms
    op = c.op if k > 0 else {">=": "<=", "<=": ">="}.get(c.op, c.op)
    return f, op, Fraction(-c.const) / k / FEATURES[f.name].scale


def _noun(f: Feat, n: Fraction, sub: dict) -> str:
    """'5 spades', '12 HCP', '1 Roman loser in hearts' — the feature with a count."""
    plural = n != 1
    if f.name == "len":
        return SUIT_WORD[f.suit] if plural else SUIT_ONE[f.suit]
    if f.name in _TOTAL:
        word = _TOTAL[f.name][1 if plural else 0]
        return f"{word} in {_suit(f.suit, sub)}" if f.suit else word
    if f.name == "top3":
        return f"of the top three honours (A K Q) in {_suit(f.suit, sub)}"
    if f.name == "honours":
        return f"honour{'s' if plural else ''} (A K Q J T) in {_suit(f.suit, sub)}"
    if f.name in _CARD:
        card = _CARD[f.name]
        return card if f.suit in sub else f"{card} of {_suit(f.suit, sub)}"
    return f"{f}"


def _suit(s: str, sub: dict) -> str:
    return sub.get(s, SUIT_WORD[s])


def _range(f: Feat, lo: Fraction | None, hi: Fraction | None, sub: dict) -> str:
    """Words for lo <= f <= hi (either end may be open)."""
    if f.name == "len" and f.suit in sub:  # inside "in every suit: ..."
        where = sub[f.suit]
        if lo is not None and lo == hi:
            return {0: f"a void {where}", 1: f"a singleton {where}"}.get(lo, f"exactly {_num(lo)} cards {where}")
        if lo is None:
            return f"at most {_num(hi)} card{'s' if hi != 1 else ''} {where}"
        if hi is None:
            return f"{_num(lo)}+ cards {where}"
        return f"{_num(lo)}-{_num(hi)} cards {where}"
    if FEATURES[f.name].boolean:
        return _boolean(f, lo is not None and lo >= 1, sub)
    if lo is not None and lo == hi:
        if lo == 0 and f.name == "len":
            return f"no {SUIT_WORD[f.suit]}"
        return f"exactly {_num(lo)} {_noun(f, lo, sub)}"
    if lo is None or lo == 0 and f.name != "losers":
        return f"at most {_num(hi)} {_noun(f, hi, sub)}" if hi is not None else "anything"
    if hi is None:
        return f"{_num(lo)}+ {_noun(f, Fraction(2), sub)}"
    return f"{_num(lo)}-{_num(hi)} {_noun(f, hi, sub)}"


def _boolean(f: Feat, holds: bool, sub: dict) -> str:
    where = _suit(f.suit, sub)
    if f.name in _CARD:
        card = _CARD[f.name]
        word = card if f.suit in sub else f"{card} of {where}"
    elif f.name == "control":
        word = f"a control (A, K, singleton or void) in {where}"
    elif f.name == "stopper":
        word = f"a stopper (A, Kx, Qxx or Jxxx) in {where}"
    else:
        word = f"{f.name} in {where}"
    return word if holds else f"not {word}"


def _linear(c: Cmp, sub: dict) -> str:
    """Several features compared together."""
    names = []
    for k, f in c.terms:
        base = _suit(f.suit, sub) if f.name == "len" else _noun(f, Fraction(2), sub)
        names.append((k * FEATURES[f.name].scale, base))
    rhs = -c.const
    if len(names) == 2 and {names[0][0], names[1][0]} == {1, -1}:
        (ka, a), (kb, b) = names
        if ka < 0:
            (ka, a), (kb, b), rhs = (kb, b), (ka, a), rhs
        # a - b  op  rhs
        table = {(">=", 0): f"at least as many {a} as {b}", (">=", 1): f"more {a} than {b}",
                 ("<=", 0): f"at least as many {b} as {a}", ("<=", -1): f"more {b} than {a}",
                 ("==", 0): f"as many {a} as {b}", ("!=", 0): f"not as many {a} as {b}"}
        if (c.op, rhs) in table:
            return table[(c.op, rhs)]
    if all(k == 1 for k, _ in names):
        together = " and ".join(n for _, n in names)
        word = {">=": "at least", "<=": "at most", "==": "exactly", "!=": "not exactly"}[c.op]
        if any(FEATURES[f.name].boolean for _, f in c.terms):  # aces + hasK(S): cards counted
            cards = " and ".join(n if FEATURES[f.name].boolean else f"the {n}" for (_, n), (_, f)
                                 in zip(names, c.terms, strict=True))
            return f"{word} {_num(rhs)} of {cards}"
        return f"{word} {_num(rhs)} {together} together"
    return str(c)


def _cmp(c: Cmp, sub: dict) -> str:
    s = _single(c)
    if s is None:
        return _linear(c, sub)
    f, op, v = s
    if op == ">=":
        return _range(f, v, None, sub)
    if op == "<=":
        return _range(f, None, v, sub)
    if op == "==":
        return _range(f, v, v, sub)
    if FEATURES[f.name].boolean:
        return _boolean(f, v != 1, sub)
    return f"not exactly {_num(v)} {_noun(f, v, sub)}"


def _pattern(p: Pattern) -> str:
    def one(pat):
        if None not in pat:
            return "-".join(map(str, pat))
        return " and ".join(f"{n} {SUIT_WORD[s] if n != 1 else SUIT_ONE[s]}" for s, n in zip("SHDC", pat, strict=True)
                            if n is not None)
    parts = [one(x) for x in p.patterns]
    return "pattern " + _either(parts) if all(None not in x for x in p.patterns) else _either(parts)


def _either(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " or " + parts[-1]


def _suits_of(n: Node) -> set:
    if isinstance(n, Cmp):
        return {f.suit for _, f in n.terms}
    if isinstance(n, (Pattern, Shape)):
        return {None}
    out: set = set()
    for c in n.children():
        out |= _suits_of(c)
    return out


def _per_suit(items: tuple[Node, ...], kind: str, names: dict, sub: dict) -> str | None:
    """Items that say the same thing of each suit of a set, said once ("in every suit: ...")."""
    if len(items) < 2:
        return None
    suits = []
    for i in items:
        s = _suits_of(i)
        if len(s) != 1 or None in s:
            return None
        suits.append(next(iter(s)))
    key = "".join(sorted(suits, key="SHDC".index))
    if len(set(suits)) != len(suits) or key not in SUIT_SETS:
        return None
    where = (SUIT_SETS if kind == "and" else SUIT_SETS_ANY)[key]
    here = "there" if kind == "and" else f"in {where}"
    texts = {_say(i, names, {**sub, s: here}) for i, s in zip(items, suits, strict=True)}
    if len(texts) != 1:
        return None
    return f"in {where}: {texts.pop()}" if kind == "and" else texts.pop()


def _implication(n: Or) -> tuple[Node, Node] | None:
    if len(n.items) >= 2 and isinstance(n.items[0], Not):
        rest = n.items[1:]
        return n.items[0].item, rest[0] if len(rest) == 1 else Or(rest)
    return None


def _say(n: Node, names: dict, sub: dict, top: bool = False) -> str:
    if n in names:
        return names[n]
    if n == TRUE:
        return "nothing about the hand"
    if isinstance(n, Cmp):
        return _cmp(n, sub)
    if isinstance(n, Pattern):
        return _pattern(n)
    if isinstance(n, Shape):
        return _either(["".join(map(str, s)) for s in n.shapes]) + " shape"
    if isinstance(n, Not):
        inner = n.item
        if isinstance(inner, Cmp):
            s = _single(inner)
            if s and FEATURES[s[0].name].boolean and s[1] == ">=" and s[2] == 1:
                return _boolean(s[0], False, sub)
            if s and s[1] == "==":
                return "not " + _cmp(inner, sub)
            if inner.op in (">=", "<="):  # integer units: not (v >= 0) is v <= -1, not (v <= 0) is v >= 1
                shift = 1 if inner.op == ">=" else -1
                return _cmp(Cmp(inner.terms, inner.const + shift, "<=" if inner.op == ">=" else ">="), sub)
            return _cmp(Cmp(inner.terms, inner.const, "=="), sub)
        if isinstance(inner, Shape):
            return "not " + _say(inner, names, sub)
        if isinstance(inner, Pattern):
            return "not " + _pattern(inner)
        return f"not ({_say(inner, names, sub)})"
    if isinstance(n, And):
        per = _per_suit(n.items, "and", names, sub)
        if per:
            return per
        return _conjunction(n.items, names, sub, top)
    if isinstance(n, Or):
        imp = _implication(n)
        if imp:
            a, b = imp
            return f"if {_say(a, names, sub)} then {_say(b, names, sub)}"
        per = _per_suit(n.items, "or", names, sub)
        if per:
            return per
        return " or ".join(_wrapped(i, names, sub) for i in n.items)
    return str(n)


def _wrapped(n: Node, names: dict, sub: dict) -> str:
    text = _say(n, names, sub)
    return f"({text})" if isinstance(n, And) and n not in names and len(n.items) > 1 else text


def _runs(items, names, sub) -> list:
    """Items, with each run that says the same of every suit of a set replaced by its words."""
    out, i = [], 0
    while i < len(items):
        for k in (4, 2):
            run = items[i:i + k]
            text = _per_suit(tuple(run), "and", names, sub) if len(run) == k else None
            if text:
                out.append(text)
                i += k
                break
        else:
            out.append(items[i])
            i += 1
    return out


def _conjunction(items, names, sub, top) -> str:
    """Merge the bounds on one feature ('hcp >= 11 and hcp <= 16' -> '11-16 HCP'), keep order."""
    order: list = []
    bounds: dict[Feat, list] = {}
    for i in _runs(items, names, sub):
        s = _single(i) if isinstance(i, Cmp) and i not in names else None
        if s and s[1] in (">=", "<=", "==") and not FEATURES[s[0].name].boolean:
            f, op, v = s
            b = bounds.setdefault(f, [None, None])
            if f not in order:
                order.append(f)
            if op in (">=", "=="):
                b[0] = v if b[0] is None else max(b[0], v)
            if op in ("<=", "=="):
                b[1] = v if b[1] is None else min(b[1], v)
        else:
            order.append(i)
    parts = []
    for x in order:
        if isinstance(x, Feat):
            lo, hi = bounds[x]
            parts.append(_range(x, lo, hi, sub))
        elif isinstance(x, str):
            parts.append(x)
        else:
            text = _say(x, names, sub)
            parts.append(f"({text})" if isinstance(x, Or) and not top and " or " in text else text)
    if not top:
        return " and ".join(parts)
    busy = any("," in p or " or " in p or p.startswith("if ") or ": " in p for p in parts)
    return ("; " if busy else ", ").join(parts)


def say(formula: Node, names: dict | None = None) -> str:
    """A formula in plain words (see the module docstring).

    A formula that is itself one of the named definitions is spelled out, so that the
    words of a call never are just a name."""
    names = dict(names or {})
    names.pop(formula, None)
    return _say(formula, names, {}, top=True)


def definition_names(system) -> dict:
    """Formulas of the system's definitions mapped to their names, for :func:`say`.

    A definition with suit parameters is named for each suit (``good_suit(H)`` becomes
    "good suit in hearts").  Whatever cannot be resolved is left out: the words then
    spell the formula out instead.  So is a definition that only compares one count with a
    number (``support(x) = len(x) >= 3``, ``upper_half = hcp >= 14``): the count says it
    better, and its name would stand for every such comparison in the system, whatever the call.
    """
    from canary_infer.language.expr import parse

    out: dict = {}
    defs = getattr(system, "definitions", None) or {}
    for name, d in defs.items():
        word = name.replace("_", " ")
        try:
            if not d.params:
                f = parse(name, defs)
                if not _one_count(f):
                    out.setdefault(f, word)
            elif len(d.params) == 1:
                for s in "SHDC":
                    f = parse(f"{name}({s})", defs)
                    if not _one_count(f):
                        out.setdefault(f, f"{word} in {SUIT_WORD[s]}")
        except Exception:  # noqa: BLE001 - a definition we cannot name is spelled out
            continue
    return out


def _one_count(f: Node) -> bool:
    """A comparison of one count with a number (``len(S) >= 5``, ``hcp >= 14``)."""
    return isinstance(f, Cmp) and len(f.terms) == 1
