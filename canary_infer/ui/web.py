"""The explorer page: ``canary-infer serve`` (Flask).

One page, rendered on the server, with the whole position in its URL
(``/?a=2S-P-2N&d=N&hand=S:KQ2.A87.QJ54.962``) so that it can be shared:

- the auction so far, each call with its meaning (undefined calls marked);
- a bidding box that offers only the legal calls, each a link to the next position;
- the system's next calls at this point with their meanings and what they show (the
  explore view);
- for each seat its picture: HCP and length ranges, the patterns left with probability
  bars, an HCP histogram (through :func:`canary_infer.tools.present.seat_picture`), all the
  deal's: exact over the deals consistent with the auction (and your hand) where at most
  one unseen seat is constrained, else estimated from ``samples`` deals drawn by the exact
  sampler (:data:`canary_infer.tools.present.SAMPLES`), shown with ± one standard error;
  a first visit draws :data:`FIRST_SAMPLES` deals (so that it is quick, and says so) and the
  page then asks for the rest at its ``data-later`` address (``full=1``), which it puts in
  place of the estimates;
- an optional own hand; a few example deals (through
  :func:`canary_infer.tools.present.example_deals`) with BBO handviewer links.

``/api/position`` gives the same as JSON.
"""

from __future__ import annotations

import random
import re
import threading
from urllib.parse import urlencode

from flask import Flask, jsonify, redirect, render_template, request
from markupsafe import Markup, escape

from canary_infer.bridge.auction import SEATS, Auction, AuctionError, legal_calls
from canary_infer.bridge.cards import SUITS, CardError, Hand
from canary_infer.bridge.lin import handviewer_url
from canary_infer.caches import Bounded
from canary_infer.deal.infer import Inferencer
from canary_infer.system.model import walk
from canary_infer.tools.bidding import Bidder, position
from canary_infer.tools.present import ESTIMATED, SAMPLES, _names, call_words, example_deals, scope_note, seat_picture
from canary_infer.ui.notebook import SEAT_NAME, SYMBOL

STRAINS = "CDHSN"


def _known(text: str | None):
    if not text:
        return None
    seat, _, pbn = text.partition(":")
    seat = seat.strip().upper()
    if seat not in SEATS or not pbn:
        raise CardError(f"your hand is SEAT:PBN, e.g. S:KQ2.A87.QJ54.962, not '{text}'")
    return seat, Hand.from_pbn(pbn)


VULS = ("none", "NS", "EW", "both")
FIRST_SAMPLES = 500
"""Deals drawn for a page's estimates on its first visit (a share's standard error at most 2.2
percentage points); the page then asks for :data:`canary_infer.tools.present.SAMPLES`."""
SHORT = 110  # characters of a call's meaning shown at once; the rest behind "more"
POSITIONS = 64  # computed positions the server keeps as data (about 0.5 MB each: every pattern's share)
PAGES = 256  # explorer pages kept as rendered (about 50 kB each)
# what each of the server's Inferencers (one per vulnerability asked for) keeps between positions:
# smaller than a batch's (deal.infer.CACHE_SIZES), so that the caches fill within the first few
# hundred positions and the server's memory is flat after that (benchmarks/server_memory.py)
SERVER_CACHES = {"results": 512, "tables": 48, "slam": 256, "joints": 16, "readings": 4096, "conflicts": 256}


def _url(calls, dealer, hand, vul=None, path="/", **extra) -> str:
    q = {"a": "-".join(calls), "d": dealer}
    if hand:
        q["hand"] = hand
    if vul:
        q["v"] = vul
    q.update({k: v for k, v in extra.items() if v is not None})
    return path + "?" + urlencode(q)


_SUPER = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def readable(n) -> str:
    """A deal count a person can read: exact up to a million, else 3.7 × 10¹⁵.

    >>> readable(999_999), readable(69_703_634_629_943_622_648_547_200), readable(3_650_000_000_000_000)
    ('999,999', '7.0 × 10²⁵', '3.6 × 10¹⁵')
    """
    n = int(n)
    if n < 1_000_000:
        return f"{n:,}"
    e = len(str(n)) - 1
    m = int(str(n)[:3]) / 100  # the first digits, exactly (a float of n could overflow)
    m = f"{m:.1f}"
    if m == "10.0":
        m, e = "1.0", e + 1
    return f"{m} × 10{str(e).translate(_SUPER)}"


def notation(text: str | None) -> Markup:
    """The notes' text as HTML: ``\\H`` (a high honour: A, K or Q) as an H one can point at.

    >>> str(notation(r"a suit of \\Hxxxx <b>"))
    'a suit of <abbr class="honour" title="an honour: A, K or Q">H</abbr>xxxx &lt;b&gt;'
    """
    out = str(escape(text or ""))
    return Markup(out.replace("\\H", '<abbr class="honour" title="an honour: A, K or Q">H</abbr>'))


def short(text: str | None) -> tuple[str, str]:
    """A call's meaning cut for the page: its first sentence (or first words), and the rest.

    >>> short("Natural. 5+ spades, 11-15 HCP and a very long story after it")
    ('Natural.', '5+ spades, 11-15 HCP and a very long story after it')
    >>> short("transfer to hearts")
    ('transfer to hearts', '')
    """
    text = (text or "").strip()
    if len(text) <= SHORT and ". " not in text:
        return text, ""
    m = re.search(r"[.;:!?](\s|$)", text)
    if m and 8 <= m.end() <= SHORT:
        return text[:m.end()].strip(), text[m.end():].strip()
    if len(text) <= SHORT:
        return text, ""
    cut = text.rfind(" ", 0, SHORT)
    cut = cut if cut > 40 else SHORT
    return text[:cut].rstrip(",;: ") + " …", text[cut:].strip()


def _matters(readings: list[dict], i: int, dealer: str) -> bool:
    """Whether an undefined call is worth a mark: not an opponents' pass in an auction their
    side has not entered (nothing is read from such a pass, and nothing is lost)."""
    r = readings[i]
    if r["defined"] or r["call"] != "P":
        return not r["defined"]
    pair = {r["seat"], SEATS[(SEATS.index(r["seat"]) + 2) % 4]}
    before = readings[:i]
    ours = [x for x in before if x["seat"] in pair and x["call"] != "P"]
    theirs = [x for x in before if x["seat"] not in pair and x["call"] != "P"]
    return bool(ours) or not theirs


class Explorer:
    """Everything the page shows for a position, as plain data.

    Not thread-safe underneath (the Inferencer's caches), so :meth:`cached` runs one
    computation at a time under ``lock``; a position computed once is kept (the last
    ``POSITIONS``, and the last ``PAGES`` explorer pages as rendered) and served again without
    waiting for the lock, and requests that arrive
    for a position while it is being computed wait for it and take the result."""

    def __init__(self, system=None, deals: int = 3, samples: int = SAMPLES, positions: int = POSITIONS,
                 pages: int = PAGES, first_samples: int = FIRST_SAMPLES):
        self.inferencer = Inferencer(system, cache_sizes=SERVER_CACHES)
        self.system = self.inferencer.system
        self._inferencers = {None: self.inferencer}
        self._bidders: dict = {}
        self.deals = deals
        self.samples = samples  # deals drawn where the probabilities are estimated
        self.first_samples = min(first_samples, samples)  # ... on a page's first visit
        self.lock = threading.RLock()  # one computation at a time (an exercise's may ask for its position)
        self._pages: Bounded[tuple, dict] = Bounded(positions)
        self._html: Bounded[tuple, str] = Bounded(pages)  # the explorer's pages as rendered
        self._pages_lock = threading.Lock()  # brief: the cache's own bookkeeping
        self.computed = 0  # positions computed (not served from the cache)

    def inferencer_for(self, vul: str | None) -> Inferencer:
        inf = self._inferencers.get(vul)
        if inf is None:
            inf = self._inferencers[vul] = Inferencer(self.system, vul=vul, cache_sizes=SERVER_CACHES)
        return inf

    def bidder_for(self, vul: str | None) -> Bidder:
        b = self._bidders.get(vul)
        if b is None:
            b = self._bidders[vul] = Bidder(self.system, inferencer=self.inferencer_for(vul))
        return b

    def cached(self, key: tuple, compute):
        with self._pages_lock:
            hit = self._pages.get(key)
        if hit is not None:
            return hit
        with self.lock:
            with self._pages_lock:
                hit = self._pages.get(key)  # computed while this request waited
            if hit is not None:
                return hit
            value = compute()
            self.computed += 1
        with self._pages_lock:
            self._pages[key] = value
        return value

    def page(self, text: str, dealer: str, hand_text: str | None, vul: str | None = None,
             with_deals: bool = True, samples: int | None = None) -> dict:
        """:meth:`position`, computed once per position and kept; with fewer ``samples`` than
        the Explorer's, the position with all of them if it is kept (or if nothing is drawn)."""
        samples = samples or self.samples
        key = ("position", text or "", (dealer or "N").upper(), hand_text or "", vul or "", with_deals)
        full = key + (self.samples,)
        if samples == self.samples:
            return self.cached(full, lambda: self.position(text, dealer, hand_text, with_deals, vul, samples))
        with self._pages_lock:
            hit = self._pages.get(full)
        if hit is not None:
            return hit

        def compute():
            p = self.position(text, dealer, hand_text, with_deals, vul, samples)
            if not p["estimated"]:  # nothing was drawn: this is the position with all the samples
                with self._pages_lock:
                    self._pages[full] = p
            return p

        return self.cached(key + (samples,), compute)

    def position(self, text: str, dealer: str, hand_text: str | None, with_deals: bool = True,
                 vul: str | None = None, samples: int | None = None) -> dict:
        dealer = (dealer or "N").upper()
        if dealer not in SEATS:
            dealer = "N"
        errors = []
        if vul is not None and vul not in VULS:
            errors.append(f"vulnerability '{vul}' is none, NS, EW or both — showing it unknown")
            vul = None
        inferencer = self.inferencer_for(vul)
        try:
            known = _known(hand_text)
        except CardError as e:
            errors.append(f"your hand '{hand_text}': {e}")
            known, hand_text = None, None
        try:
            auction = Auction.parse(text or "", dealer=dealer)
        except AuctionError as e:
            errors.append(f"{e} — showing the calls before it")
            tokens = [t for t in re.split(r"[\s,\-]+", text or "") if t]
            auction = Auction.parse(" ".join(tokens[:e.position or 0]), dealer=dealer)
        # the deal's ranges and probabilities, as the command line answers (infer --prob)
        samples = samples or self.samples
        inf = inferencer.infer(auction, known, prob=True, joint=True, samples=samples)
        calls = [str(c) for c in auction.calls]
        readings = []
        for c in inf.calls:
            chair = (SEATS.index(c.seat) - SEATS.index(dealer)) % 4 + 1
            first, more = short(c.meaning)
            readings.append({"index": c.index, "seat": c.seat, "call": c.call, "defined": c.defined,
                             "meaning": c.meaning, "short": first, "more": more,
                             "source": c.source, "interpretation": c.interpretation,
                             "words": call_words(self.system, c.node, chair) if c.defined and c.node else "",
                             "undo": _url(calls[:c.index], dealer, hand_text, vul)})
        for i, r in enumerate(readings):
            r["mark"] = _matters(readings, i, dealer)
        seats = {s: seat_picture(inferencer, inf, s, known) for s in SEATS}
        for s, pic in seats.items():
            pic["deals_text"] = readable(pic["deals"]) if pic.get("deals") else None
            pic["slam"] = _slam(inf, s)
        nxt = self._next_calls(auction, hand_text, vul)
        deals = []
        if with_deals and self.deals:
            for d in example_deals(inferencer, inf, self.deals, seed=len(calls) + 1, known=known,
                                   time_limit=2.0):
                deals.append({"pbn": d.pbn(), "hands": {s: {x: d[s].suit(x) for x in SUITS} for s in SEATS},
                              "hcp": {s: d[s].hcp for s in SEATS},
                              "handviewer": handviewer_url(d, auction, [r["meaning"] if r["defined"] else None
                                                                        for r in readings])})
        yours = None
        if known and not auction.is_complete and known[0] == auction.turn:
            yours = _bid_json(self.bidder_for(vul).bid(known[1], auction))
        pictures = list(seats.values())
        return {"auction": calls, "dealer": dealer, "hand": hand_text, "known": known[0] if known else None,
                "vul": vul, "calls": readings, "seats": seats, "next": nxt, "deals": deals, "errors": errors,
                "estimated": any(pic["scope"] == ESTIMATED for pic in pictures), "samples": samples,
                "complete": auction.is_complete, "turn": auction.turn if not auction.is_complete else None,
                "probabilities": scope_note(pictures, known is not None),
                "probabilities_short": scope_note(pictures, known is not None, count=readable),
                "trump": inf.trump, "system_bids": yours,
                "cards": {x: known[1].suit(x) for x in SUITS} if known else None,
                "url": _url(calls, dealer, hand_text, vul)}

    def _next_calls(self, auction: Auction, hand_text, vul=None) -> dict:
        """The bidding box (legal calls only) and the system's calls at this point."""
        calls = [str(c) for c in auction.calls]
        if auction.is_complete:
            return {"box": [], "system": [], "side": None, "seat": None}
        pos = position(self.system, auction)
        _, node, _ = walk(self.system, auction)
        meanings = {}
        system_calls = []
        if node is not None:
            for child in node.children.values():
                theirs = child.is_opponents
                if (pos.side == "defence") != theirs:
                    continue
                if child.conditions and not self.inferencer_for(vul).admits(child, auction):
                    child = child.fallback  # 'if fit T' unmet: what the point's other lines give it
                    if child is None:
                        continue
                call = child.call.strip("()")
                meanings[call] = child
                first, more = short(child.meaning)
                system_calls.append({"call": call, "defined": child.defined, "meaning": child.meaning,
                                     "short": first, "more": more,
                                     "source": child.source, "interpretation": child.interpretation,
                                     "words": call_words(self.system, child, pos.chair) if child.defined else "",
                                     "url": _url(calls + [call], auction.dealer, hand_text, vul)})
        order = {"P": -3, "X": -2, "XX": -1}
        from canary_infer.bridge.auction import Call

        system_calls.sort(key=lambda c: order.get(c["call"], Call.parse(c["call"]).rank or 0))
        legal = {str(c) for c in legal_calls(auction)}

        def link(call):
            return _url(calls + [call], auction.dealer, hand_text, vul)

        box = []
        for level in range(1, 8):
            row = []
            for strain in STRAINS:
                call = f"{level}{strain}"
                row.append(self._box_cell(call, legal, meanings, link))
            box.append(row)
        extra = [self._box_cell(c, legal, meanings, link) for c in ("P", "X", "XX")]
        return {"box": box, "extra": extra, "system": system_calls, "side": pos.side, "seat": pos.seat,
                "chair": pos.chair}

    def _box_cell(self, call, legal, meanings, link) -> dict:
        node = meanings.get(call)
        return {"call": call, "legal": call in legal, "label": _label(call),
                "defined": bool(node is not None and node.defined),
                "meaning": node.meaning if node is not None else "",
                "url": link(call) if call in legal else None}

    # ---------------------------------------------------------------- the exercises
    def bid_exercise(self, text: str, dealer: str, seed: int, vul: str | None = None) -> dict:
        """"What do you bid?": the hand of the player to call, dealt by the exact sampler
        from the deals consistent with the auction (``seed`` from the address), what the
        system bids with it, and what each call would show."""
        key = ("bid", text or "", (dealer or "N").upper(), seed, vul or "")
        return self.cached(key, lambda: self._bid_exercise(text, dealer, seed, vul))

    def _bid_exercise(self, text, dealer, seed, vul) -> dict:
        # the position as the explorer has it (computed once for every seed), then one deal
        # from the deal-level engine its inference built: a new hand costs only the draw
        p = self.page(text, dealer, None, vul=vul)  # shared with the explorer
        p = dict(p, errors=list(p["errors"]))
        auction = Auction.parse(" ".join(p["auction"]), dealer=p["dealer"])
        out = {"position": p, "seed": seed, "hand": None, "answer": None, "cards": None, "hcp": None}
        if auction.is_complete:
            p["errors"].append("the auction is over: nothing to bid")
            return out
        inferencer = self.inferencer_for(p["vul"])
        inf = inferencer.infer(auction, None, prob=True, joint=True, samples=self.samples)
        deals = example_deals(inferencer, inf, 1, seed=seed, time_limit=3.0)
        if not deals:
            p["errors"].append("no deal fits this auction: nothing to deal")
            return out
        hand = deals[0][auction.turn]
        out["hand"] = f"{auction.turn}:{hand.pbn()}"
        out["cards"] = {x: hand.suit(x) for x in SUITS}
        out["hcp"], out["pattern"] = hand.hcp, hand.pattern
        out["answer"] = _bid_json(self.bidder_for(p["vul"]).bid(hand, auction))
        return out

    def partner_exercise(self, text: str, dealer: str, vul: str | None = None) -> dict:
        """"What does partner hold?": the exact picture of the partner of the player to call."""
        p = self.page(text, dealer, None, vul=vul)  # shared with the explorer
        turn = p["turn"] or SEATS[(SEATS.index(p["dealer"]) + len(p["auction"])) % 4]
        partner = SEATS[(SEATS.index(turn) + 2) % 4]
        pic = p["seats"][partner]
        longest: dict[str, float] = dict.fromkeys(SUITS, 0.0)
        for pt in pic["patterns"]:
            lengths = [int(x) for x in pt["pattern"].split("-")]
            top = max(lengths)
            for x, n in zip(SUITS, lengths, strict=True):
                if n == top:
                    longest[x] += pt["p"]
        return {"position": p, "you": turn, "partner": partner, "picture": pic, "longest": longest}


def score_partner(ex: dict, lo: int, hi: int, suit: str) -> dict:
    """How good a guess of partner's HCP range and longest suit is, against the exact answer.

    HCP (50 points): the share of partner's possible hands inside your range, times how
    narrow your range is against the exact range (a range wider than it loses in proportion;
    the exact range itself scores 50).  Suit (50): the chance that your suit is (one of)
    partner's longest.  The narrowest range holding 80% of the hands is shown as a hint."""
    pic = ex["picture"]
    lo, hi = min(lo, hi), max(lo, hi)
    dist = {int(k): v for k, v in pic["hcp_dist"].items()}
    inside = sum(v for k, v in dist.items() if lo <= k <= hi)
    best = _narrowest(dist, 0.8)
    width = pic["hcp"][1] - pic["hcp"][0] + 1
    hcp_points = 50 * inside * min(1.0, width / (hi - lo + 1))
    suit_p = ex["longest"].get(suit, 0.0)
    return {"lo": lo, "hi": hi, "suit": suit, "inside": inside, "narrowest": best, "hcp_points": round(hcp_points),
            "suit_p": suit_p, "suit_points": round(50 * suit_p), "score": round(hcp_points + 50 * suit_p),
            "exact": pic["hcp"], "best_suit": max(ex["longest"], key=ex["longest"].get)}


def _narrowest(dist: dict[int, float], share: float) -> tuple[int, int]:
    """The narrowest HCP range holding at least ``share`` of the hands (the lowest of equals)."""
    keys = sorted(dist)
    if not keys:
        return (0, 0)
    best = (keys[0], keys[-1])
    for i, a in enumerate(keys):
        total = 0.0
        for b in keys[i:]:
            total += dist[b]
            if total >= share - 1e-12:
                if b - a < best[1] - best[0]:
                    best = (a, b)
                break
    return best


def _bid_json(res) -> dict:
    fits = [c for c in res.candidates if c.fits and not c.judgement]
    return {"status": res.status, "calls": res.calls, "reason": res.reason,
            "why": [{"call": c.call, "meaning": c.meaning, "short": short(c.meaning)[0], "source": c.source}
                    for c in fits]}


def _slam(inf, seat: str) -> str | None:
    """The key cards, trump queen and controls of a seat, in words, as ``infer`` prints them
    (only where a suit is agreed and the seat's calls or hand narrow them)."""
    h = inf.hands[seat]
    f = getattr(h, "slam", None)
    if not inf.trump or f is None or not h.consistent:
        return None
    wide = f.controls == (0, 12) and f.trump_queen is None and f.keycards in (None, (0, 5))
    return f.describe() if (h.known or not wide) else None


def _label(call: str) -> str:
    if call in ("P", "X", "XX"):
        return {"P": "Pass", "X": "Dbl", "XX": "Rdbl"}[call]
    return call[0] + ("NT" if call[1] == "N" else SYMBOL[call[1]])


# positions a first visit often asks for, computed in the background when the server starts
WARM = ("1S-P-2N-P-4N-P-5D-P-5H-P-6C-P", "P-P-P-P", "P-1H-X-XX-P", "", "1C", "1D", "1H", "1S", "1N", "2C",
        "2D", "2H", "2S", "2N", "P", "P-P", "P-P-P",
        "2S-P-2N-P", "1N-P-2C-P")
# the auctions the exercises deal from when the address names none
BID_AUCTIONS = ("", "P", "1S-P", "1H-P", "1N-P", "2S-P-2N-P", "2H-P-2N-P", "1C-P", "1D-P", "P-P")
PARTNER_AUCTIONS = ("1S-P-2S-P", "2S-P-2N-P-3C-P", "1N-P-2C-P-2H-P", "1H-P-1N-P", "2H-P-2N-P-3D-P",
                    "1D-P-1S-P", "1C-P-1H-P")


def fewer_malloc_arenas(n: int = 2) -> bool:
    """Let glibc's malloc keep at most ``n`` arenas in this process (M_ARENA_MAX), as
    ``MALLOC_ARENA_MAX=2`` would: by default each of the server's threads that computes a
    position gets an arena of its own, and each keeps what it once held, so the resident
    memory grows with the threads.  Call before the threads start; False where this is not
    glibc (then nothing changes)."""
    try:
        import ctypes

        return bool(ctypes.CDLL("libc.so.6").mallopt(-8, n))  # -8: M_ARENA_MAX
    except (OSError, AttributeError):
        return False


def _vul_arg(args) -> str | None:
    v = args.get("v") or None
    return v


def prepare(app: Flask) -> None:
    """What any first request would otherwise pay once, done before the server listens: the
    page's template compiled and the system's definitions named (about 0.3 s)."""
    app.jinja_env.get_template("explore.html")
    _names(app.config["explorer"].system)


def create_app(system=None, deals: int = 3, warm: tuple = ()) -> Flask:
    """The Flask application; ``system`` is a loaded system (default: the built-in one);
    ``warm``: positions (auction texts, dealer North) computed in a background thread at once."""
    app = Flask(__name__)
    explorer = Explorer(system, deals)
    app.config["explorer"] = explorer
    app.jinja_env.filters["notation"] = notation
    common = {"seats": SEATS, "suits": SUITS, "symbol": SYMBOL, "seat_name": SEAT_NAME, "dealers": SEATS,
              "vuls": VULS}

    if warm:
        def warm_up():
            for text in warm:
                try:
                    explorer.page(text, "N", None)
                except Exception:  # noqa: BLE001  (a warm-up is a favour; the request will say what is wrong)
                    pass

        threading.Thread(target=warm_up, name="canary-warm", daemon=True).start()

    @app.get("/")
    def page():
        # a first visit draws explorer.first_samples deals where it estimates, and the page asks
        # for the rest at its data-later address (full=1); once they are drawn, every visit has them
        args = (request.args.get("a", ""), request.args.get("d", "N"), request.args.get("hand"), _vul_arg(request.args))
        full = request.args.get("full") == "1"
        p = explorer.page(*args, samples=None if full else explorer.first_samples)
        later = None
        if p["estimated"] and p["samples"] < explorer.samples:
            later = request.path + "?" + urlencode({**request.args.to_dict(), "full": "1"})
        key = ("html",) + tuple(x or "" for x in args) + (p["samples"] if p["estimated"] else 0,)
        with explorer._pages_lock:  # the page as sent (rendering a big one takes 20-30 ms)
            html = explorer._html.get(key)
        if html is None:
            html = render_template("explore.html", p=p, mode="explore", later=later, **common)
            with explorer._pages_lock:
                explorer._html[key] = html
        return html

    @app.get("/api/position")
    def api():
        data = explorer.page(request.args.get("a", ""), request.args.get("d", "N"), request.args.get("hand"),
                             _vul_arg(request.args), with_deals=request.args.get("deals", "1") != "0")
        return jsonify(data)

    @app.get("/bid")
    def bid():
        args = request.args
        seed = _int(args.get("seed"))
        seed = seed if seed is None or seed >= 0 else None
        if seed is None or "a" not in args:  # a new exercise: choose it, and say so in the address
            rng = random.Random()
            seed = seed if seed is not None else rng.randrange(1, 10**6)
            a = args.get("a", random.Random(seed).choice(BID_AUCTIONS))
            return redirect(_url(a.split("-") if a else [], args.get("d", "N"), None, _vul_arg(args), "/bid",
                                 seed=seed))
        ex = explorer.bid_exercise(args.get("a", ""), args.get("d", "N"), seed, _vul_arg(args))
        pick = args.get("pick")
        p = ex["position"]
        here = p["auction"]

        def picked(cell):  # the box's calls pick an answer (the cached position stays as it is)
            url = _url(here, p["dealer"], None, p["vul"], "/bid", seed=seed, pick=cell["call"])
            return {**cell, "url": url if cell["legal"] else None}

        nxt = dict(p["next"], box=[[picked(c) for c in row] for row in p["next"].get("box", [])],
                   extra=[picked(c) for c in p["next"].get("extra", [])])
        p = dict(p, next=nxt)
        ex = dict(ex, position=p)
        verdict = _verdict(ex, pick) if pick else None
        return render_template("explore.html", p=p, mode="bid", ex=ex, pick=pick, verdict=verdict,
                               again=_url(here, p["dealer"], None, p["vul"], "/bid", seed=seed),
                               another=_url(here, p["dealer"], None, p["vul"], "/bid", seed=seed + 1),
                               explore=_url(here, p["dealer"], ex["hand"], p["vul"]), **common)

    @app.get("/partner")
    def partner():
        args = request.args
        if "a" not in args:
            a = random.Random().choice(PARTNER_AUCTIONS)
            return redirect(_url(a.split("-"), args.get("d", "N"), None, _vul_arg(args), "/partner"))
        ex = explorer.partner_exercise(args.get("a", ""), args.get("d", "N"), _vul_arg(args))
        lo, hi, suit = _int(args.get("lo")), _int(args.get("hi")), (args.get("suit") or "").upper()
        result = None
        if lo is not None and hi is not None and suit in SUITS and ex["picture"]["consistent"]:
            result = score_partner(ex, max(0, min(lo, 37)), max(0, min(hi, 37)), suit)
        return render_template("explore.html", p=ex["position"], mode="partner", ex=ex, result=result,
                               form={"lo": lo, "hi": hi, "suit": suit}, **common)

    return app


def _verdict(ex: dict, pick: str) -> dict:
    ans = ex["answer"]
    p = ex["position"]
    shown = {c["call"]: c for c in p["next"].get("system", [])}
    if ans is None:
        return {"agree": None, "text": "no hand was dealt", "shown": shown.get(pick)}
    said = [_label(c) for c in ans["calls"]]
    mine = _label(pick) if pick in legal_names() else pick
    if ans["status"] == "ok":
        agree = pick in ans["calls"]
        text = (f"Yes: the system bids {said[0]} with this hand." if agree
                else f"No: the system bids {said[0]} with this hand, not {mine}.")
    elif ans["status"] == "several":
        agree = pick in ans["calls"]
        text = (f"{'Yes' if agree else 'No'}: several calls fit this hand ({', '.join(said)}); "
                "the choice between them is judgement.")
    elif ans["status"] == "none":
        agree = None
        text = f"The system has no call for this hand here: {ans['reason']}."
    else:
        agree = None
        text = f"The system does not say: {ans['reason']}."
    return {"agree": agree, "text": text, "shown": shown.get(pick)}


def legal_names() -> set[str]:
    """Every call's name: 1C..7N, P, X, XX."""
    return {f"{n}{s}" for n in range(1, 8) for s in STRAINS} | {"P", "X", "XX"}


def _int(x) -> int | None:
    try:
        v = int(x)
    except (TypeError, ValueError):
        return None
    return v if -10**9 < v < 10**9 else None
