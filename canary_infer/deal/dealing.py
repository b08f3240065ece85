"""Deals drawn uniformly from all deals consistent with an auction, and how they are written.

:func:`deal` reads the auction with the system, hands every seat's formula (and my hand) to
the deal-level engine (:class:`canary_infer.deal.joint.Joint`) and draws from its exact sampler:
every deal consistent with the calls is equally likely, and the same seed gives the same deals.

    >>> from canary_infer.bridge.auction import Auction
    >>> ds = deal(Auction.parse("2S P 2N P 3C"), 2, seed=7)
    >>> [d["N"].pattern in ("5-3-1-4", "5-4-0-4", "5-3-0-5", "6-3-0-4") for d in ds.deals]
    [True, True]

The formats: ``text`` (one compact block per deal), ``pbn`` (a PBN record per deal, with
``[Deal]`` and ``[Auction]`` and each call's meaning as a note) and ``lin`` (one BBO LIN line
per deal, each call's meaning as its alert).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from canary_infer.bridge.auction import SEATS, Auction
from canary_infer.bridge.cards import SUITS, Deal, Hand
from canary_infer.bridge.lin import write_lin
from canary_infer.bridge.pbn import game, write_pbn
from canary_infer.language.expr import conj, evaluate


@dataclass
class DealSet:
    auction: Auction
    calls: list  # infer.CallReading
    deals: list[Deal] = field(default_factory=list)
    seed: int = 0
    wanted: int = 0


def deal(auction: Auction, n: int, seed: int = 0, known: tuple[str, Hand] | None = None, inferencer=None,
         time_limit: float | None = None) -> DealSet:
    """n deals drawn uniformly from those consistent with the auction (and my hand)."""
    from canary_infer.deal.deck import deal_of
    from canary_infer.deal.infer import Inferencer
    from canary_infer.deal.joint import Joint

    inf = inferencer or Inferencer()
    calls = inf.read(auction)
    formulas = {s: conj(inf.seat_formulas(calls, s)) for s in SEATS}
    if known and not evaluate(formulas[known[0]], known[1]):  # my hand breaks my own calls: no deal fits
        return DealSet(auction, calls, [], seed, n)
    j = Joint(formulas, known)
    if n > 0 and not j.consistent:  # proven: no deal fits, so drawing would only run out of time
        return DealSet(auction, calls, [], seed, n)
    owner = j.sample(n, np.random.default_rng(seed), time_limit=time_limit)
    return DealSet(auction, calls, [deal_of(row) for row in owner], seed, n)


# --------------------------------------------------------------------------- formats
_SYMBOL = {"S": "S", "H": "H", "D": "D", "C": "C"}


def _hand_line(h: Hand) -> str:
    return "  ".join(f"{s} {h.suit(s) or '-'}" for s in SUITS)


def format_text(ds: DealSet) -> str:
    out = []
    for k, d in enumerate(ds.deals, 1):
        out.append(f"Deal {k}   {d.pbn()}")
        for s in SEATS:
            h = d[s]
            out.append(f"  {s}  {_hand_line(h):<44} {h.hcp:>2} HCP  {h.pattern}")
        out.append("")
    return "\n".join(out).rstrip("\n")


def _meanings(ds: DealSet) -> list[str | None]:
    """Each call's meaning and source (None for a call the system does not define)."""
    return [reading.meaning + (f" [{reading.source}]" if reading.source else "")
            if reading.defined and reading.meaning else None for reading in ds.calls]


def format_pbn(ds: DealSet, event: str = "canary-infer deal") -> str:
    """A PBN game per deal, written by the one PBN writer (:func:`canary_infer.bridge.pbn.game`):
    the deal, the auction with each call's meaning as a note, '*' after an auction not ended."""
    plural = "" if len(ds.deals) == 1 else "s"
    header = ["% PBN 2.1", f'% {len(ds.deals)} deal{plural} drawn uniformly from those consistent with '
              f'"{ds.auction}" (seed {ds.seed})']
    notes = _meanings(ds)
    games = [game([("Event", event), ("Board", str(k)), ("Dealer", ds.auction.dealer), ("Vulnerable", "None"),
                   ("Deal", d.pbn(first=ds.auction.dealer))], ds.auction, notes)
             for k, d in enumerate(ds.deals, 1)]
    return write_pbn(games, header).rstrip("\n")


def format_lin(ds: DealSet) -> str:
    """A BBO LIN line per deal (:func:`canary_infer.bridge.lin.write_lin`), each call's meaning
    as its explanation, the call alerted."""
    notes = _meanings(ds)
    return "\n".join(write_lin(d, ds.auction, notes, str(k), "None", ["South", "West", "North", "East"]) + "pg||"
                     for k, d in enumerate(ds.deals, 1))


FORMATS = {"text": format_text, "pbn": format_pbn, "lin": format_lin}
