"""Hands, deals and inference results render as HTML in Jupyter, with suit symbols."""

import xml.etree.ElementTree as ET

from canary_infer.bridge.auction import Auction
from canary_infer.bridge.cards import Deal, Hand

SYMBOLS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}


def parse(fragment: str) -> ET.Element:
    return ET.fromstring(fragment)  # well-formed, or this raises


def suit_rows(element: ET.Element) -> dict[str, str]:
    """Each suit symbol with the ranks written after it, read back from the HTML."""
    text = "".join(element.itertext())
    out = {}
    for sym, s in SYMBOLS.items():
        i = text.index(sym)
        rest = text[i + 1:]
        j = min([rest.index(x) for x in SYMBOLS if x in rest] + [len(rest)])
        out[s] = rest[:j].strip()
    return out


def test_hand_html_lists_every_suit_with_its_symbol():
    hand = Hand.from_pbn("AKQ83.J2..QT9862")
    el = parse(hand._repr_html_())
    rows = suit_rows(el)
    assert rows == {"S": "AKQ83", "H": "J2", "D": "—", "C": "QT9862"}
    colours = [span.get("style") for span in el.iter("span")]
    assert colours == ["color: #000", "color: #c00", "color: #c00", "color: #000"]


def test_deal_html_puts_each_hand_at_its_seat():
    deal = Deal.from_pbn("N:AKQ83.J2.K4.QT92 JT9.AKQ3.AQJ2.K3 - 2.654.7653.J7654")
    el = parse(deal._repr_html_())
    cells = {}
    for td in el.iter("td"):
        b = td.find("b")
        if b is not None:
            cells[b.text] = td
    assert set(cells) == {"North", "East", "South", "West"}
    assert suit_rows(cells["North"])["S"] == "AKQ83" and suit_rows(cells["East"])["H"] == "AKQ3"
    assert "".join(cells["South"].itertext()).endswith("?")
    rows = list(el.iter("tr"))
    assert [b.text for b in rows[0].iter("b")] == ["North"] and [b.text for b in rows[2].iter("b")] == ["South"]


def test_inference_html_shows_calls_and_each_seat(inferencer):
    inf = inferencer.infer(Auction.parse("2S P 2N P 3C"))
    el = parse(inf._repr_html_())
    text = "".join(el.itertext())
    assert "2♠" in text and "2NT" in text and "3♣" in text and "Pass" in text
    seats = el.find(".//table[@class='canary-seats']")
    header = ["".join(th.itertext()) for th in seats.find("tr").findall("th")]
    assert header[:6] == ["seat", "HCP", "♠", "♥", "♦", "♣"]
    north = next(tr for tr in seats.findall("tr") if tr.find("td") is not None and tr.find("td").text == "N")
    cells = ["".join(td.itertext()) for td in north.findall("td")]
    h = inf.hands["N"]
    assert cells[1] == f"{h.hcp[0]}–{h.hcp[1]}" and cells[2] == "5–6" and cells[6].split() == h.patterns


def test_inference_html_shows_the_deals_probabilities_when_asked_for(inferencer):
    from canary_infer.bridge.auction import Auction

    inf = inferencer.infer(Auction.parse("2S P 2N P 3C"), prob=True, joint=True)
    el = parse(inf._repr_html_())
    seats = el.find(".//table[@class='canary-seats']")
    north = next(tr for tr in seats.findall("tr") if tr.find("td") is not None and tr.find("td").text == "N")
    shown = "".join(north.findall("td")[6].itertext()).split(", ")
    d = inf.hands["N"].distribution
    assert d.exact and shown == [f"{p} {100 * c / d.total:.1f}%" for p, c in d.patterns.items()]
    note = el.find(".//p[@class='canary-probabilities']").text
    assert note == f"Probabilities: exact: the share of each among all {inf.deals:,} deals consistent with the auction."
    # two constrained seats: estimated, with one standard error
    inf = inferencer.infer(Auction.parse("1H X"), prob=True, joint=True, samples=2000)
    el = parse(inf._repr_html_())
    assert "±" in "".join(el.find(".//table[@class='canary-seats']").itertext())
    assert "estimated from 2,000 deals" in el.find(".//p[@class='canary-probabilities']").text
    # without probabilities: the patterns alone, and how to ask for them
    el = parse(inferencer.infer(Auction.parse("1H X"))._repr_html_())
    assert "prob=True" in el.find(".//p[@class='canary-probabilities']").text
