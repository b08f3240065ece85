"""The system exported for the tools bridge players use: BML, BBO full disclosure (BSS)
and BBOalert, each call with its meaning, its constraint in words and its source.

The exporters are one walk over the call tree (:func:`calls`); each format only spells
the calls and lays out the lines.

- BML (Bridge Markup Language): an indented bidding table, ``1C = description``, two
  spaces a level; opponents' calls in parentheses, ``D`` and ``R`` for double and
  redouble; opponents' passes are implicit, as in the system files.
- BSS (BBO full disclosure): a header record ``*00{name}=NYYYYYY summary`` and one record
  per call, ``00<calls>=<artificial>YYYYYY<disposition>[<min><max>]<description>``, the
  calls written out with every pass (``2SP2NP3C``).
- BBOalert: the header ``BBOalert,<text>`` and one ``context,call,explanation`` record per
  call of ours, calls as two-character tokens (``--`` a pass, ``Db``, ``Rd``), the
  context being the calls before it; openings have an empty context (any seat).  The
  explanation's part before ``#`` goes to the bidding box (39 characters at most), the
  rest to the chat.

    >>> from canary_infer.system.model import builtin_dir, load_system
    >>> files = ["10-evaluation.canary", "20-openings.canary", "30-two-major-relays.canary"]
    >>> text = export(load_system([builtin_dir() / f for f in files]), "bboalert")
    >>> [line.split("[")[0] for line in text.splitlines() if line.startswith("2S--,2N,")]
    ['2S--,2N,relay#relay ']
"""

from __future__ import annotations

from dataclasses import dataclass

from canary_infer.language.expr import And, Cmp
from canary_infer.tools.present import call_words

FORMATS = ("bml", "bss", "bboalert")
TITLE = "Canary Club"
SUMMARY = "Canary Club (canapé, relays, strong club), exported by canary-infer from the system files"


@dataclass
class Entry:
    """One call of the tree with the calls before it (opponents' passes implicit)."""

    path: list  # the CallNodes from the opening to this call
    node: object

    @property
    def ours(self) -> bool:
        return not self.node.is_opponents


def calls(system, progress=None):
    """Every call of the system's tree, depth first, in the order the files give them
    (``progress(n)`` is told every 1,000 calls: the whole built-in tree holds about 300,000)."""
    count = 0

    def walk(node, path):
        nonlocal count
        for child in node.children.values():
            p = path + [child]
            count += 1
            if progress is not None and count % 1000 == 0:
                progress(count)
            yield Entry(p, child)
            yield from walk(child, p)
    yield from walk(system.root("opening"), [])


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


def description(system, node, chair: int | None = None) -> str:
    """Meaning; the constraint in words; interpretation; source — on one line."""
    if not node.defined:
        what = "not defined in the notes" if node.status == "undefined" else "no meaning given in the notes"
        return what + (f" [{node.source}]" if node.source else "")
    words = call_words(system, node, chair)
    parts = [node.meaning]
    if words:
        parts.append(f"shows {words}")
    if node.interpretation:
        parts.append("interpretation: " + node.interpretation)
    text = "; ".join(parts) + (f" [{node.source}]" if node.source else "")
    return " ".join(text.split())


# ------------------------------------------------------------------ BML
_BML_CALL = {"X": "D", "XX": "R"}


def _bml_call(call: str) -> str:
    bare = _bare(call)
    c = _BML_CALL.get(bare, bare)
    return f"({c})" if call.startswith("(") else c


def bml(system, progress=None) -> str:
    lines = [f"#+TITLE: {TITLE}", "", f"#+DESCRIPTION: {SUMMARY}", "",
             "Generated from the system files by canary-infer export-system. Each call: its meaning, "
             "what it shows in words, and its source in the notes ([A123] is line 123).", "", "#BIDTABLE"]
    for e in calls(system, progress):
        depth = len(e.path) - 1
        desc = description(system, e.node) if e.ours else (e.node.meaning or "they call")
        lines.append(f"{'  ' * depth}{_bml_call(e.node.call)} = {_one_line(desc)}")
    return "\n".join(lines) + "\n"


def _one_line(text: str) -> str:
    return " ".join(text.split())


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


def bss(system, progress=None) -> str:
    lines = [f"*00{{{TITLE}}}=NYYYYYY{SUMMARY}"]
    for e in calls(system, progress):
        if not e.ours:
            continue
        seq = "".join(_BSS_CALL.get(c, c) for c, _ in _full_sequence(e.path))
        n = e.node
        artificial = "Y" if n.is_relay or "artificial" in n.meaning.lower() else "N"
        disposition = "C" if n.is_relay else "0"
        last = _bare(n.call)
        kl = ""
        if len(last) == 2 and last[1] in "CDHS":
            lo, hi = _length_bounds(n, last[1])
            kl = f"{min(lo, 8)}{hi if hi <= 7 else 8}"
        lines.append(f"00{seq}={artificial}YYYYYY{disposition}{kl}{_one_line(description(system, n))}")
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


def bboalert(system, progress=None) -> str:
    lines = [f"BBOalert,{_bbo_text(TITLE + ' from canary-infer')}",
             "Generated by canary-infer export-system from the system files; opponents' calls are not alerted."]
    for e in calls(system, progress):
        if not e.ours or not e.node.defined:
            continue
        seq = _full_sequence(e.path)
        before = seq[:-1]
        context = "" if len(e.path) == 1 else "".join(_bbo_token(c) for c, _ in before)
        n = e.node
        box = _bbo_text(_box(n.meaning))
        chat = _bbo_text(description(system, n))
        lines.append(f"{context},{_bbo_token(n.call)},{box}#{chat}")
    return "\n".join(lines) + "\n"


def export(system, fmt: str, progress=None) -> str:
    """The system in one of :data:`FORMATS` (``progress(n)``: n calls written so far)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
    return {"bml": bml, "bss": bss, "bboalert": bboalert}[fmt](system, progress)
