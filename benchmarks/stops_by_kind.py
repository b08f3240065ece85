"""Where the self-check's auctions after some openings end, by kind, with the defenders passing.

    python benchmarks/stops_by_kind.py [DEALS] [SEED] [OPENING ...]   (default 10000 1 1D 1H 1S)

Each deal is bid as ``canary-infer selfcheck --defenders pass`` bids it (the same deals for the
same seed).  An auction that stops where the notes define no call is put in one of four
kinds: at responder's first call; once a suit is agreed (the notes leave the rest to judgement
there); at a point with calls of which none fits the hand; at a point with no call at all.
"""

from __future__ import annotations

import sys
from collections import Counter

from canary_infer.deal.infer import Inferencer
from canary_infer.tools.bidding import Bidder, position
from canary_infer.tools.selfcheck import SEATS, bid_out, dealt


def main(argv: list[str]) -> int:
    deals = int(argv[0]) if argv else 10000
    seed = int(argv[1]) if len(argv) > 1 else 1
    openings = set(argv[2:]) or {"1D", "1H", "1S"}
    inf = Inferencer()
    bidder = Bidder(inf.system)
    kinds: Counter[str] = Counter()
    for i, deal in dealt(deals, seed):
        c = bid_out(deal, SEATS[i % 4], bidder, "pass")
        calls = [str(x) for x in c.auction.calls if str(x) != "P"]
        if not calls or calls[0] not in openings:
            continue
        if c.stop != "undefined":
            kinds["completed" if c.stop is None else "a gap (no call fits where the calls must cover the hand)"] += 1
            continue
        node = position(inf.system, c.auction).node
        if len(calls) == 1:
            kinds["undefined at responder's first call"] += 1
        elif node is not None and node.trump:
            kinds["undefined once a suit is agreed"] += 1
        elif node is not None and any(not k.is_opponents for k in node.children.values()):
            kinds["undefined: calls given, none fits this hand"] += 1
        else:
            kinds["undefined: no call given at the point"] += 1
    print(f"{sum(kinds.values())} deals opened {' '.join(sorted(openings))} ({deals} dealt, seed {seed}):")
    for k, v in kinds.most_common():
        print(f"  {v:6d}  {k}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
