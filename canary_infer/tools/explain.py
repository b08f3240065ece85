"""Explain an auction call by call: what each call shows and how the caller's picture narrows.

For every call: its meaning, its constraint in plain words, where the notes say it, whether
a vague word was interpreted, and for the caller's seat the HCP and length ranges before and
after the call, the number of patterns left and the probability (before the call) of the
patterns that remain.  Ranges, patterns and probabilities are the deal's (every seat's calls
and the shared deck, :func:`canary_infer.tools.present.seat_picture`): the probability is exact
over the deals consistent with the auction so far where at most one unseen seat's calls
constrain it, else estimated from :data:`canary_infer.tools.present.SAMPLES` deals drawn by the
exact sampler, with its standard error.  For an impossible auction it names, for each seat no hand fits, the
smallest set of its calls that contradict each other, in words.

    >>> from canary_infer.deal.infer import Inferencer
    >>> ex = explain(Inferencer(), Auction.parse("2S P 2N P 3C"))
    >>> step = ex["steps"][4]
    >>> step["call"], step["words"], step["after"]["patterns"], step["before"]["patterns"]
    ('3C', 'at most 1 diamond, 3+ hearts', 4, 16)
    >>> step["before"]["scope"], round(step["patterns_share"], 3), step["patterns_share_se"]
    ('exact', 0.212, None)
"""

from __future__ import annotations

from canary_infer.bridge.auction import SEATS, Auction
from canary_infer.tools.present import ESTIMATED, EXACT, SAMPLES, call_words, scope_note, seat_picture


def _summary(pic: dict) -> dict:
    return {"consistent": pic["consistent"], "hcp": pic["hcp"], "lengths": pic["lengths"],
            "patterns": len(pic["patterns"]), "hands": pic["hands"], "scope": pic["scope"],
            "deals": pic["deals"], "samples": pic["samples"]}


def _changed(before: dict, after: dict) -> bool:
    keys = ("consistent", "hcp", "lengths", "patterns", "hands")
    return any(before[k] != after[k] for k in keys)


def explain(inferencer, auction: Auction, known=None, samples: int = SAMPLES) -> dict:
    """The explanation of an auction as a JSON-ready dict (see the module docstring);
    ``samples``: the deals drawn where the probabilities are estimated."""
    system = inferencer.system
    prefixes = [inferencer.infer(Auction(auction.calls[:k], auction.dealer), known, prob=True, joint=True,
                                 samples=samples) for k in range(len(auction) + 1)]
    final = prefixes[-1]
    steps, pictures = [], []
    for i, c in enumerate(final.calls):
        before = seat_picture(inferencer, prefixes[i], c.seat, known, histogram=False)
        after = seat_picture(inferencer, prefixes[i + 1], c.seat, known, histogram=False)
        chair = (SEATS.index(c.seat) - SEATS.index(auction.dealer)) % 4 + 1
        words = call_words(system, c.node, chair) if c.defined and c.node is not None else ""
        pictures.append(before)
        left = {p["pattern"] for p in after["patterns"]}
        kept = sum(p["count"] for p in before["patterns"] if p["pattern"] in left) if before["consistent"] else 0
        of = before["deals"] or before["samples"] or 0
        if before["scope"] == EXACT or before["scope"] == ESTIMATED:
            share = kept / of if of else 0.0  # exact integers: the share of the deals, correctly rounded
        else:
            share = sum(p["p"] for p in before["patterns"] if p["pattern"] in left) if before["consistent"] else 0.0
        se = (share * (1 - share) / of) ** 0.5 if before["scope"] == ESTIMATED and of else None
        steps.append({
            "index": i, "seat": c.seat, "call": c.call, "defined": c.defined, "meaning": c.meaning,
            "source": c.source, "interpretation": c.interpretation, "words": words,
            "narrows": c.defined and _changed(_summary(before), _summary(after)),
            "before": _summary(before), "after": _summary(after),
            "patterns_share": share,  # probability, before the call, that the seat's pattern is one still left
            "patterns_share_se": se,  # its standard error, when estimated from samples
        })
    contradictions = []
    for seat in SEATS:
        h = final.hands[seat]
        if h.consistent or h.known or not h.conflict:
            continue
        calls = [final.calls[i] for i in h.conflict]
        contradictions.append({"seat": seat, "calls": h.conflict, "words": [
            {"index": x.index, "call": x.call, "meaning": x.meaning,
             "words": call_words(system, x.node, _chair(auction, x.seat)) if x.node is not None else ""}
            for x in calls]})
    mine = [s for s in SEATS if final.hands[s].known and not final.hands[s].consistent]
    hands = {s: seat_picture(inferencer, final, s, known, histogram=False) for s in SEATS}
    pictures += hands.values()
    scopes = {p["scope"] for p in pictures if p["consistent"] and not p["known"]}
    return {"auction": [str(c) for c in auction.calls], "dealer": auction.dealer, "steps": steps,
            "hands": {s: _summary(p) for s, p in hands.items()},
            "contradictions": contradictions, "your_hand_fits": not mine,
            "scope": scopes.pop() if len(scopes) == 1 else ("mixed" if scopes else None),
            "probabilities": scope_note(pictures, known is not None, "the auction so far"), "error": None}


def _chair(auction: Auction, seat: str) -> int:
    return (SEATS.index(seat) - SEATS.index(auction.dealer)) % 4 + 1


def _rng(r) -> str:
    if r is None:
        return "-"
    lo, hi = r
    return str(lo) if lo == hi else f"{lo}-{hi}"


def render(ex: dict) -> str:
    """The explanation as text for a terminal."""
    calls = " ".join(ex["auction"]) or "(no calls)"
    out = [f"Auction: {calls}   dealer {ex['dealer']}", ""]
    for st in ex["steps"]:
        head = f"{st['index'] + 1:>2}. {st['seat']} {st['call']:<3} "
        pad = " " * len(head)
        if not st["defined"]:
            out.append(f"{head}? {st['meaning']}: adds nothing")
            continue
        src = f"  [{st['source']}]" if st["source"] else ""
        out.append(f"{head}{st['meaning']}{src}")
        out.append(f"{pad}shows: {st['words'] or 'nothing about the hand'}")
        if st["interpretation"]:
            out.append(f"{pad}interpretation: {st['interpretation']}")
        b, a = st["before"], st["after"]
        if not a["consistent"]:
            out.append(f"{pad}{st['seat']}: no hand fits any more")
        elif st["narrows"]:
            ch = [f"HCP {_rng(b['hcp'])} -> {_rng(a['hcp'])}"] if b["hcp"] != a["hcp"] else []
            ch += [f"{s} {_rng(b['lengths'][s])} -> {_rng(a['lengths'][s])}" for s in "SHDC"
                   if b["lengths"] and b["lengths"][s] != a["lengths"][s]]
            pats = f"patterns {b['patterns']} -> {a['patterns']}"
            if a["patterns"] < b["patterns"]:
                pm = f" ± {st['patterns_share_se']:.1%}" if st["patterns_share_se"] is not None else ""
                pats += f" (they had {st['patterns_share']:.1%}{pm} of the deals before)"
            out.append(f"{pad}{st['seat']}: " + ", ".join(ch + [pats]))
        else:
            out.append(f"{pad}{st['seat']}: no change")
    for c in ex["contradictions"]:
        out += ["", f"No hand fits {c['seat']}: these calls contradict each other:"]
        for w in c["words"]:
            out.append(f"  call {w['index'] + 1} {w['call']}: {w['words'] or w['meaning']}")
    if not ex["your_hand_fits"]:
        out += ["", "Your hand does not fit your own calls."]
    out += ["", f"Probabilities: {ex['probabilities']}."]
    return "\n".join(out)
