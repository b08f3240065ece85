"""HTML for Jupyter: hands, deals and inference results with suit symbols.

``Hand``, ``Deal`` and an inference result have a ``_repr_html_`` that uses these, so a
notebook shows them as a small diagram instead of text.  The fragments are well-formed
XHTML (every tag closed, entities escaped).

    >>> from canary_infer.bridge.cards import Hand
    >>> html = hand_html(Hand.from_pbn("AKQ83.J2..QT9862"))
    >>> html.count("<br/>"), '<span style="color: #c00">♥</span> J2' in html, "♦</span> —" in html
    (3, True, True)
"""

from __future__ import annotations

from html import escape

from canary_infer.bridge.cards import SEATS, SUITS

SYMBOL = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
COLOUR = {"S": "#000", "H": "#c00", "D": "#c00", "C": "#000"}
SEAT_NAME = {"N": "North", "E": "East", "S": "South", "W": "West"}


def suit(s: str) -> str:
    return f'<span style="color: {COLOUR[s]}">{SYMBOL[s]}</span>'


def call_html(call: str) -> str:
    """'2S' -> 2♠ (coloured), 'N' as NT, passes and doubles as words."""
    c = call.strip()
    if len(c) == 2 and c[0] in "1234567":
        return c[0] + ("NT" if c[1] == "N" else suit(c[1]))
    return escape({"P": "Pass", "X": "Dbl", "XX": "Rdbl"}.get(c, c))


def hand_html(hand) -> str:
    rows = [f"{suit(s)} {escape(hand.suit(s)) or '—'}" for s in SUITS]
    return ('<div class="canary-hand" style="font-family: monospace; line-height: 1.3">'
            + "<br/>".join(rows) + "</div>")


def _cell(hand, seat: str) -> str:
    inner = hand_html(hand) if hand is not None else '<div class="canary-hand">?</div>'
    return f'<td style="padding: 4px 10px; vertical-align: top"><b>{SEAT_NAME[seat]}</b>{inner}</td>'


def deal_html(deal) -> str:
    empty = "<td></td>"
    return ('<table class="canary-deal" style="border-collapse: collapse">'
            f"<tr>{empty}{_cell(deal['N'], 'N')}{empty}</tr>"
            f"<tr>{_cell(deal['W'], 'W')}{empty}{_cell(deal['E'], 'E')}</tr>"
            f"<tr>{empty}{_cell(deal['S'], 'S')}{empty}</tr></table>")


def _rng(r) -> str:
    if not r:
        return "–"
    lo, hi = r
    return str(lo) if lo == hi else f"{lo}–{hi}"


def _pct(pt: dict) -> str:
    se = f" ±{100 * pt['se']:.1f}" if "se" in pt else ""
    return f"{100 * pt['p']:.1f}%{se}"


def inference_html(inference, limit: int = 8) -> str:
    """The auction with each call's meaning, then each seat's ranges and patterns.

    With probabilities (``infer(auction, known, prob=True, joint=True)``) each pattern has
    its probability over the deals consistent with the auction (exact, or estimated from
    the exact sampler with ± one standard error), through
    :func:`canary_infer.tools.present.seat_picture`; a line under the table says which."""
    from canary_infer.tools.present import scope_note, seat_picture

    rows = []
    for c in inference.calls:
        mark = "" if c.defined else ' style="color: #888"'
        src = f" [{escape(c.source)}]" if c.source and c.defined else ""
        rows.append(f"<tr{mark}><td>{c.seat}</td><td><b>{call_html(c.call)}</b></td>"
                    f"<td>{escape(c.meaning)}{src}</td></tr>")
    calls = ('<table class="canary-calls">' + "".join(rows) + "</table>") if rows else "<p>(no calls)</p>"
    head = "".join(f"<th>{suit(s)}</th>" for s in SUITS)
    with_p = any(inference.hands[s].distribution is not None for s in SEATS)
    seats, pictures = [], []
    for s in SEATS:
        h = inference.hands[s]
        if not h.consistent:
            seats.append(f'<tr><td>{s}</td><td colspan="6">no hand fits these calls</td></tr>')
            continue
        lens = "".join(f"<td>{_rng(h.lengths[x])}</td>" for x in SUITS)
        if with_p and (h.distribution is not None or h.known):
            pic = seat_picture(None, inference, s)
            pictures.append(pic)
            shown = [f"{pt['pattern']} {_pct(pt)}" for pt in pic["patterns"][:limit]]
            total = len(pic["patterns"])
        else:
            shown, total = h.patterns[:limit], len(h.patterns)
        pats = ", ".join(shown) if with_p else " ".join(shown)
        pats += f" … ({total})" if total > limit else ""
        mine = " (your hand)" if h.known else ""
        seats.append(f"<tr><td>{s}{mine}</td><td>{_rng(h.hcp)}</td>{lens}<td>{escape(pats)}</td></tr>")
    table = (f'<table class="canary-seats"><tr><th>seat</th><th>HCP</th>{head}<th>patterns (most frequent first)'
             "</th></tr>" + "".join(seats) + "</table>")
    if pictures:
        note = "Probabilities: " + scope_note(pictures) + "."
    else:
        note = "infer(auction, prob=True, joint=True) gives the patterns' probabilities."
    dealer = inference.auction.dealer
    return (f'<div class="canary-inference"><p>Dealer {SEAT_NAME[dealer]}</p>{calls}{table}'
            f'<p class="canary-probabilities">{escape(note)}</p></div>')
