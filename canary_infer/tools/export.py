"""The system exported for the tools bridge players use: BML, BBO full disclosure (BSS)
and BBOalert, each call with its meaning, its constraint in words and its source.

The whole tree of the built-in system holds about a million calls (300,000 of ours), most of
them the same few blocks attached by ``apply`` at thousands of points (the key-card asks, the
serious 3NT and the grand slam force after every agreed suit).  Written out call by call that
was 190 MB; the system files say each rule once, and so does the export, with what each format
offers for it:

- The walk (:func:`outline`) writes every call of the tree once, except below a call that starts
  an applied block: there the continuations, the same at every such point, are written once, in
  a *section* of their own, and each point names that section.
- BML (Bridge Markup Language): an indented bidding table per opening (``1C = description``, two
  spaces a level; opponents' calls in parentheses, ``D`` and ``R`` for double and redouble;
  opponents' passes implicit).  A development that stands unchanged at two or more points is
  written once between ``#CUT name`` and ``#ENDCUT`` and put at each point with ``#PASTE name``
  (BML's own reuse, which bridge-markup's converters expand).  Each section is a bidding table
  of its own, after a heading, starting with the auction of one of its points (``1S-2S-4N``).
- BSS (BBO full disclosure): a header record ``*00{name}=NYYYYYY summary`` and one record per call
  of ours, ``00<calls>=<artificial>YYYYYY<disposition>[<min><max>]<description>``, the calls
  written out with every pass (``2SP2NP3C``); a section's calls once, after the auction of one of
  its points.
- BBOalert: the header ``BBOalert,<text>`` and one ``context,call,explanation`` record per call of
  ours, calls as two-character tokens (``--`` a pass, ``Db``, ``Rd``); openings have an empty
  context (any seat); ``+`` repeats the context before.  A section's calls are written once
  with a regular-expression context on how the auction ends (``/4N--5C--$/``: partner's 5C
  answer to our 4N), before the other records, so that a point's own records, later in the
  file, win where they exist; where such a context also matches an auction at which the tree
  gives calls of ours but not that one (``1C--1D--2N--3N--`` ends like the serious 3NT's
  ``3N--``), a record of that auction says "no agreement".  The explanation's part before ``#``
  goes to the bidding box (39 characters at most), the rest to the chat, which BBOalert sends to
  the opponents: the meaning only, unless ``sources`` asks for the words and sources too.

``start`` (an auction: that call's continuations) and ``depth`` (levels of calls below it) export a
part of the tree.

    >>> from canary_infer.system.model import builtin_dir, load_system
    >>> files = ["10-evaluation.canary", "20-openings.canary", "30-two-major-relays.canary"]
    >>> text = export(load_system([builtin_dir() / f for f in files]), "bboalert")
    >>> [line for line in text.splitlines() if line.startswith("2S--,2N,")]
    ['2S--,2N,relay#relay']
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from canary_infer.language.expr import And, Cmp
from canary_infer.tools.present import call_words

FORMATS = ("bml", "bss", "bboalert")
TITLE = "Canary Club"
SUMMARY = "Canary Club (canapé, relays, strong club), exported by canary-infer from the system files"
# a development written once in BML when it stands at two or more points and has this many calls
_CUT_MIN = 3
# a bidding table holds at most about this many calls (a larger development is split, a table per call)
_TABLE_MAX = 400
# _PASTE: bridge-markup 2.7 reads "#PASTE name" with a pattern whose "\s*" after the name runs on
# into the next line, which it then takes for "target=replacement" arguments: a "=" on the line
# itself (replace '' by '', nothing) ends the pattern there.  And it puts the PASTE's indentation
# before the line after the pasted lines too: that line is a tab alone, which BML skips (a line
# of spaces would end the table)


@dataclass
class Line:
    """One call of the outline: its node, its level below the start, and for the first call of
    an applied block, the section its continuations are written in."""

    node: object
    level: int
    section: Section | None = None
    children: list[Line] = field(default_factory=list)


@dataclass
class Section:
    """An applied block's continuations, written once: ``top`` is its first call at the first
    point met, ``points`` how many points it stands at (in the part exported)."""

    name: str
    top: object
    points: int = 0
    lines: list[Line] = field(default_factory=list)

    @property
    def title(self) -> str:
        return f"{_bare(self.top.call)}: {self.top.meaning}"


@dataclass
class Outline:
    lines: list[Line]  # the start's calls, each with its continuations
    sections: list[Section]
    prefix: list  # the CallNodes from the root to the start (none for the whole tree)
    count: int = 0  # calls written


def _find(system, auction: str):
    """The node of a tree that ``auction`` (``1S P 2H P 2N``, opponents' calls included) leads to."""
    from canary_infer.tools.verify import auction_text

    names = {"DBL": "X", "D": "X", "RDBL": "XX", "R": "XX", "RD": "XX"}
    want = [names.get(t, t) for t in auction.upper().replace("NT", "N").split()]
    lead = 0
    while lead < 3 and lead < len(want) and want[lead] == "P":
        lead += 1
    for tree in system.trees:
        for skip in sorted({0, lead}):
            node = system.root(tree, skip)
            rest = want[skip:]
            done = []
            while True:
                if auction_text(done).split() == rest:
                    return node
                nxt = None
                for child in node.children.values():
                    shown = auction_text(done + [child]).split()
                    if shown == rest[:len(shown)]:
                        nxt = child
                        break
                if nxt is None:
                    break
                node, done = nxt, nxt.lineage()
    raise ValueError(f"no call of the system's trees is reached by {auction!r}")


def outline(system, start: str | None = None, depth: int | None = None, progress=None) -> Outline:
    """The calls to write: every call of the trees (or those below ``start``, ``depth`` levels
    deep), each applied block's continuations once in a :class:`Section`."""
    sections: dict = {}
    out = Outline([], [], [])
    if start:
        node = _find(system, start)
        starts = [node]
        out.prefix = node.lineage()
    else:
        starts = [system.root(t) for t in system.trees]

    def walk(node, level: int, into: list, limit: int | None, in_section: bool) -> None:
        for child in node.children.values():
            line = Line(child, level)
            into.append(line)
            out.count += 1
            if progress is not None and out.count % 1000 == 0:
                progress(out.count)
            key = child.applied_key
            if key is not None and not in_section:
                sec = sections.get(key)
                if sec is None:
                    sec = sections[key] = Section(f"s{len(sections) + 1}", child)
                    walk(child, 0, sec.lines, None, True)
                sec.points += 1
                line.section = sec
                continue
            if limit is None or level + 1 < limit:
                walk(child, level + 1, line.children, limit, in_section)

    for s in starts:
        walk(s, 0, out.lines, depth, False)
    out.sections = list(sections.values())
    return out


def _bare(call: str) -> str:
    return call.strip("()")


def _full_sequence(path) -> list[tuple[str, bool]]:
    """The calls in order with the implicit passes: (call, ours)."""
    out: list[tuple[str, bool]] = []
    for n in path:
        ours = not n.is_opponents
        if out and out[-1][1] == ours:
            out.append(("P", not ours))
        out.append((_bare(n.call), ours))
    return out


def description(system, node, chair: int | None = None, interpretation: bool = True, memo: dict | None = None) -> str:
    """Meaning; the constraint in words; interpretation; source — on one line (``memo``: see
    :func:`canary_infer.tools.present.call_words`)."""
    if not node.defined:
        what = "not defined in the notes" if node.status == "undefined" else "no meaning given in the notes"
        return what + (f" [{node.source}]" if node.source else "")
    words = call_words(system, node, chair, memo)
    parts = [node.meaning]
    if words:
        parts.append(f"shows {words}")
    if interpretation and node.interpretation:
        parts.append("interpretation: " + node.interpretation)
    text = "; ".join(parts) + (f" [{node.source}]" if node.source else "")
    return " ".join(text.split())


def _one_line(text: str) -> str:
    return " ".join(text.split())


# ------------------------------------------------------------------ BML
_BML_CALL = {"X": "D", "XX": "R"}


def _bml_call(call: str) -> str:
    bare = _bare(call)
    c = _BML_CALL.get(bare, bare)
    return f"({c})" if call.startswith("(") else c


def _bml_desc(system, node, section: Section | None = None, memo: dict | None = None) -> str:
    desc = description(system, node, interpretation=False, memo=memo) if not node.is_opponents \
        else (node.meaning or "they call")
    if section is not None:
        desc += f" (continued in the section '{section.title[:60]}')"
    return _one_line(desc)


def bml(system, progress=None, start: str | None = None, depth: int | None = None) -> str:
    o = outline(system, start, depth, progress)
    memo: dict = {}
    head = [f"#+TITLE: {TITLE}", "", f"#+DESCRIPTION: {SUMMARY}", "",
            "Generated from the system files by canary-infer export-system. Each call: its meaning, "
            "what it shows in words, and its source in the notes ([A123] is line 123). A call that "
            "starts a block applied at many points (key-card asks, the serious 3NT, the grand slam "
            "force) names the section below where its continuations are written once."]
    # each line's text and, for its development, a digest of the text below it (relative indentation)
    text: dict[int, str] = {}
    digest: dict[int, str] = {}
    size: dict[int, int] = {}
    uses: dict[str, int] = {}

    def measure(line: Line) -> tuple[str, int]:
        own = f"{_bml_call(line.node.call)} = {_bml_desc(system, line.node, line.section, memo)}"
        text[id(line)] = own
        h = hashlib.sha1(own.encode())
        n = 1
        for c in line.children:
            d, k = measure(c)
            h.update(b"\0" + d.encode())
            n += k
        below = hashlib.sha1(h.digest() + b"below").hexdigest()[:16] if line.children else ""
        digest[id(line)] = below
        size[id(line)] = n - 1
        if below and n - 1 >= _CUT_MIN:
            uses[below] = uses.get(below, 0) + 1
        return h.hexdigest(), n

    for line in o.lines:
        measure(line)
    for sec in o.sections:
        for line in sec.lines:
            measure(line)
    cuts: dict[str, list[str]] = {}  # digest -> the development's lines, indented from 0

    def emit(lines: list[Line], indent: int, out: list[str]) -> None:
        for line in lines:
            out.append("  " * indent + text[id(line)])
            below(line, indent + 1, out)

    def below(line: Line, indent: int, out: list[str]) -> None:
        """A call's development: pasted when it stands at two or more points, else written out."""
        d = digest[id(line)]
        if d and uses.get(d, 0) >= 2:
            if d not in cuts:
                cuts[d] = []  # taken before it is filled: a development does not hold itself
                body: list[str] = []
                emit(line.children, 0, body)
                cuts[d] = body
            out += ["  " * indent + f"#PASTE c{d} =", "\t"]  # see _PASTE
        else:
            emit(line.children, indent, out)

    def history(path: list) -> str:
        return "-".join(_bml_call(n.call) for n in path)

    tables: list[list[str]] = []

    def table(line: Line, path: list) -> None:
        """One bidding table from this call, its first row the auction to it (``1C-1D``); a large
        development whose calls are not pasted is split into a table per call below (BML's
        reader searches a table's whole text once per PASTE)."""
        head_row = f"{history(path)} = {text[id(line)].split(' = ', 1)[1]}"
        pasted = digest[id(line)] and uses.get(digest[id(line)], 0) >= 2
        if size[id(line)] <= _TABLE_MAX or pasted:
            body = [head_row]
            below(line, 1, body)
            tables.append(body)
            return
        tables.append([head_row])
        for c in line.children:
            table(c, path + [c.node])

    for line in o.lines:
        table(line, list(o.prefix) + [line.node])
    sec_tables: list[tuple[Section, list[str]]] = []
    for sec in o.sections:
        body = [f"{history(sec.top.lineage())} = {_bml_desc(system, sec.top, None, memo)}"]
        emit(sec.lines, 1, body)
        sec_tables.append((sec, body))
    out = head + [""]
    for d, body in cuts.items():  # BML's clipboard: each in a table of its own (a CUT is read to the last ENDCUT)
        out += [f"#CUT c{d}", *body, "#ENDCUT", ""]
    out += ["* The calls", ""]
    for body in tables:
        out += ["#BIDTABLE", *body, ""]
    if sec_tables:
        out += ["* Continuations written once", "",
                "Each is the same wherever its first call stands; it is shown after one of those auctions.", ""]
        for sec, body in sec_tables:
            out += [f"** {_one_line(sec.title)} ({sec.points} points)", "", "#BIDTABLE", *body, ""]
    return "\n".join(out)


# ------------------------------------------------------------------ BSS
_BSS_CALL = {"P": "P", "X": "D", "XX": "R"}


def _length_bounds(node, suit: str) -> tuple[int, int]:
    """Bounds on the bid suit's length that the call's own constraint states outright (in every chair)."""
    lo, hi = 0, 13
    for ch in (1, 2, 3, 4):
        f = node.constraint({"chair": ch})
        items = f.items if isinstance(f, And) else [f]
        clo, chi = 0, 13
        for x in items or []:
            if isinstance(x, Cmp) and len(x.terms) == 1 and x.terms[0][1].name == "len" and x.terms[0][1].suit == suit:
                k, _ = x.terms[0]
                v = -x.const / k
                op = x.op if k > 0 else {">=": "<=", "<=": ">="}.get(x.op, x.op)
                if op in (">=", "=="):
                    clo = max(clo, int(v))
                if op in ("<=", "=="):
                    chi = min(chi, int(v))
        lo, hi = (clo, chi) if ch == 1 else (min(lo, clo), max(hi, chi))
    return lo, hi


def _entries(o: Outline):
    """(path from the root, line) for every call of the outline, sections after the tree."""
    def walk(lines, path):
        for line in lines:
            p = path + [line.node]
            yield p, line
            yield from walk(line.children, p)
    yield from walk(o.lines, list(o.prefix))
    for sec in o.sections:
        yield from walk(sec.lines, sec.top.lineage())


def bss(system, progress=None, start: str | None = None, depth: int | None = None) -> str:
    o = outline(system, start, depth, progress)
    memo: dict = {}
    lines = [f"*00{{{TITLE}}}=NYYYYYY{SUMMARY}"]
    for path, line in _entries(o):
        n = line.node
        if n.is_opponents:
            continue
        seq = "".join(_BSS_CALL.get(c, c) for c, _ in _full_sequence(path))
        artificial = "Y" if n.is_relay or "artificial" in n.flags or "artificial" in n.meaning.lower() else "N"
        disposition = "C" if n.is_relay else "0"
        last = _bare(n.call)
        kl = ""
        if len(last) == 2 and last[1] in "CDHS":
            lo, hi = _length_bounds(n, last[1])
            kl = f"{min(lo, 8)}{hi if hi <= 7 else 8}"
        lines.append(f"00{seq}={artificial}YYYYYY{disposition}{kl}{_bml_desc(system, n, line.section, memo)}")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ BBOalert
def _bbo_token(call: str) -> str:
    c = _bare(call)
    return {"P": "--", "X": "Db", "XX": "Rd"}.get(c, c)


def _bbo_text(text: str) -> str:
    return _one_line(text.replace(",", ";").replace("#", "No.").replace("%", " percent"))


def _box(meaning: str, limit: int = 39) -> str:
    if len(meaning) <= limit:
        return meaning
    cut = meaning[:limit - 3].rsplit(" ", 1)[0].rstrip(";:,")
    return cut + "..."


_SUIT_WORDS = {"S": ("spades", "spade"), "H": ("hearts", "heart"), "D": ("diamonds", "diamond"),
               "C": ("clubs", "club")}


def _general(meaning: str, node) -> str:
    """A section's meaning said of 'the trump suit' rather than the suit of its first point."""
    t = (node.env or {}).get("T") or node.trump
    if t not in _SUIT_WORDS:
        return meaning
    plural, one = _SUIT_WORDS[t]
    return re.sub(rf"\b{plural}\b", "trumps", re.sub(rf"\b{one}\b", "trump", meaning))


def bboalert(system, progress=None, start: str | None = None, depth: int | None = None,
             sources: bool = False) -> str:
    o = outline(system, start, depth, progress)
    lines = [f"BBOalert,{_bbo_text(TITLE + ' from canary-infer')}",
             "Generated by canary-infer export-system from the system files; opponents' calls are not alerted.",
             "The calls after a block applied at many points (key-card asks; the serious 3NT; the grand slam "
             "force) come first; given by how the auction ends; a point's own records below win."]

    memo: dict = {}

    def chat(n) -> str:
        return _bbo_text(description(system, n, memo=memo) if sources else n.meaning)

    # the sections: context = the tokens from the section's first call to the call before this one
    generic: dict[tuple[str, str], list] = {}

    def walk_section(lines_, tokens: list[str], last_ours: bool):
        for line in lines_:
            n = line.node
            ours = not n.is_opponents
            before = tokens + (["--"] if ours == last_ours else [])  # the implicit pass between
            tok = _bbo_token(n.call)
            if ours and n.defined:
                generic.setdefault(("".join(before), tok), []).append(n)
            walk_section(line.children, before + [tok], ours)

    for sec in o.sections:
        for line in sec.lines:
            walk_section([line], [_bbo_token(sec.top.call)], not sec.top.is_opponents)
    for (context, tok), nodes in generic.items():
        meanings = {n.meaning for n in nodes}
        meaning = nodes[0].meaning if len(meanings) == 1 else _general(nodes[0].meaning, nodes[0])
        box = _bbo_text(_box(meaning))
        text = _bbo_text(meaning) if not sources else chat(nodes[0])
        lines.append(f"/{context}$/,{tok},{box}#{text}")
    previous = None
    own: set[tuple[str, str]] = set()
    for path, line in _entries(Outline(o.lines, [], o.prefix)):
        n = line.node
        if n.is_opponents or not n.defined:
            continue
        seq = _full_sequence(path)
        context = "" if len(seq) == 1 else "".join(_bbo_token(c) for c, _ in seq[:-1])
        shown = "+" if context and context == previous else context
        previous = context
        own.add((context, _bbo_token(n.call)))
        lines.append(f"{shown},{_bbo_token(n.call)},{_bbo_text(_box(n.meaning))}#{chat(n)}")
    lines += _no_agreement(generic, own)
    return "\n".join(lines) + "\n"


def _no_agreement(generic: dict, own: set) -> list[str]:
    """Records for the auctions where the tree gives calls of ours and a section's regular-expression
    context matches, but its call means nothing there (``1N--3N--`` ends like the serious 3NT's
    ``3N--``): no agreement.  (Where a section stands, the tree gives no calls of its own: those
    auctions are the section's.)"""
    live = {c for c, _ in own}
    by_end: dict[str, list[str]] = {}  # the auctions by each of their endings a section's context has
    for k in {len(c) for c, _ in generic}:
        for context in live:
            if len(context) >= k:
                by_end.setdefault(context[len(context) - k:], []).append(context)
    out, previous = [], None
    for context, tok in sorted((c, tok) for (ctx, tok) in generic for c in by_end.get(ctx, [])
                               if (c, tok) not in own):
        out.append(f"{'+' if context == previous else context},{tok},no agreement#no agreement in the system")
        previous = context
    return out


def export(system, fmt: str, progress=None, start: str | None = None, depth: int | None = None,
           sources: bool = False) -> str:
    """The system in one of :data:`FORMATS` (``progress(n)``: n calls walked so far); ``start``
    and ``depth``: a part of it; ``sources``: BBOalert's chat text with the words and sources."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
    if depth is not None and depth < 1:
        raise ValueError("the depth is a number of levels of calls, 1 or more")
    if fmt == "bboalert":
        return bboalert(system, progress, start, depth, sources)
    return {"bml": bml, "bss": bss}[fmt](system, progress, start, depth)
