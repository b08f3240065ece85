"""The exact DP engine: counted against combinatorics, checked for soundness on random hands,
and held together with the card-level CP-SAT model on random formulas."""

import random
from math import comb, prod

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from canary_infer.bridge.cards import SUITS, Hand
from canary_infer.engine.cpsat import HandModel
from canary_infer.engine.tables import ALL_PATTERNS, Available, solve
from canary_infer.language.expr import TRUE, evaluate, parse


def test_every_hand_is_counted_once():
    r = solve(TRUE)
    assert r.hands == comb(52, 13)
    assert len(r.patterns) == 560 and r.hcp == (0, 37)


def test_counts_match_combinatorics():
    assert solve(parse("S == 5")).hands == comb(13, 5) * comb(39, 8)
    assert solve(parse("pattern 4-3-3-3")).hands == comb(13, 4) * comb(13, 3) ** 3
    # exactly one ace: choose it, then 12 cards from the 48 non-aces
    assert solve(parse("aces == 1")).hands == 4 * comb(48, 12)
    # 37 HCP is the maximum: all aces, kings and queens plus one jack
    r = solve(parse("hcp >= 37"))
    assert r.hands == 4 and r.hcp == (37, 37)


def test_unseen_cards_are_respected():
    mine = Hand.from_pbn("AKQJT98765432...")
    r = solve(parse("S >= 1"), Available.excluding(mine))
    assert r.hands == 0 and not r.consistent
    r = solve(TRUE, Available.excluding(mine))
    assert r.hands == comb(39, 13)
    assert all(p[0] == 0 for p in r.patterns)


def test_pattern_restriction_only_prunes():
    f = parse("hcp in 11..16 and losers <= 7 and qt >= 2")
    full = solve(f)
    some = [p for p in full.patterns if p[0] >= 5]
    part = solve(f, patterns=some)
    assert set(part.patterns) == set(some)
    assert all(part.patterns[p] == full.patterns[p] for p in some)


# ---------------------------------------------------------------- random formulas
ATOMS = [
    "hcp >= {a}", "hcp <= {b}", "{s} >= {n}", "{s} <= {m}", "losers <= {l}", "qt >= {q}",
    "control({s})", "stopper({s})", "top3({s}) >= {t}", "controls >= {c}", "hcp({s}) >= {h}",
    "shape 4333 | 4432 | 5332", "len({s}) == 1 -> hasA({s}) or hasK({s})", "losers({s}) <= {k}",
]


@st.composite
def formulas(draw):
    def atom():
        text = draw(st.sampled_from(ATOMS))
        return text.format(
            a=draw(st.integers(0, 20)), b=draw(st.integers(8, 30)), s=draw(st.sampled_from(SUITS)),
            n=draw(st.integers(0, 6)), m=draw(st.integers(2, 8)), l=draw(st.sampled_from([5, 6.5, 7, 8.25])),
            q=draw(st.sampled_from([1, 1.5, 2, 3])), t=draw(st.integers(1, 3)), c=draw(st.integers(1, 7)),
            h=draw(st.integers(1, 8)), k=draw(st.sampled_from([1, 1.25, 2])),
        )

    def tree(depth):
        if depth == 0 or draw(st.booleans()):
            return f"({atom()})"
        op = draw(st.sampled_from(["and", "or"]))
        left, right = tree(depth - 1), tree(depth - 1)
        neg = "not " if draw(st.booleans()) else ""
        return f"{neg}({left} {op} {right})"

    return tree(2)


@settings(max_examples=30, deadline=None)
@given(formulas(), st.randoms(use_true_random=False))
def test_engine_is_sound_on_random_hands(text, rng):
    f = parse(text)
    r = solve(f)
    for _ in range(40):
        h = Hand.random(rng)
        if evaluate(f, h):
            assert h.lengths in r.patterns, (text, h)
            assert r.hcp[0] <= h.hcp <= r.hcp[1], (text, h)


@settings(max_examples=12, deadline=None, derandomize=True)
@given(formulas(), st.randoms(use_true_random=False))
def test_engine_and_cpsat_agree(text, rng):
    # CP-SAT gets 5 s per question; a question it cannot settle in time is skipped, not failed
    f = parse(text)
    r = solve(f)
    m = HandModel()
    lit = m.add(f)
    feasible = m.feasible([lit], time_limit=5)
    assume(feasible is not None)
    assert feasible == r.consistent, text
    if not r.consistent:
        return
    lo = m.extreme([lit], m.hcp, "min", time_limit=5)
    hi = m.extreme([lit], m.hcp, "max", time_limit=5)
    assume(lo is not None and hi is not None)
    assert (lo, hi) == r.hcp, text
    inside = rng.sample(sorted(r.patterns), min(4, len(r.patterns)))
    outside = [p for p in ALL_PATTERNS if p not in r.patterns]
    for p in inside:
        ok = m.feasible([lit], pattern=p, time_limit=5)
        assume(ok is not None)
        assert ok, (text, p)
        ex = m.example([lit], pattern=p, time_limit=5)
        if ex is not None:
            assert evaluate(f, ex) and ex.lengths == p, (text, p)
    for p in rng.sample(outside, min(4, len(outside))):
        assert m.feasible([lit], pattern=p, time_limit=5) is not True, (text, p)


def test_random_hand_counts_agree_with_sampling():
    # a loose statistical cross-check of the counts: the share of hands with 11-16 HCP
    f = parse("hcp in 11..16")
    share = solve(f).hands / comb(52, 13)
    rng = random.Random(7)
    n = 4000
    hits = sum(evaluate(f, Hand.random(rng)) for _ in range(n))
    assert abs(hits / n - share) < 0.03


def test_disk_cache_returns_the_same_result(tmp_path, monkeypatch):
    import canary_infer.caches as cache
    import canary_infer.engine.tables as eng

    monkeypatch.setenv("CANARY_INFER_CACHE", str(tmp_path))
    monkeypatch.setattr(cache, "SLOW", 0.0)  # every result is "slow": the speed of this machine aside
    f = parse("hcp in 11..16 and losers <= 7 and qt >= 2")
    first = eng.solve(f)
    assert list(tmp_path.glob("*.json")), "a slow result is written to the cache"
    again = eng.solve(f)
    assert again == first
    # a corrupt entry is ignored, not trusted
    for p in tmp_path.glob("*.json"):
        p.write_text("{not json")
    assert eng.solve(f) == first


def test_drawing_a_column_by_weight_matches_comparing_every_column():
    """engine._pick_rows (one search over the rows' normalised cumulative weights) picks what
    comparing each draw with every column of its row picks, and never a column of weight 0."""
    import numpy as np

    from canary_infer.engine.tables import _pick_rows

    rng = np.random.default_rng(7)
    for _ in range(200):
        rows, cols, n = int(rng.integers(1, 6)), int(rng.integers(1, 9)), 50
        w = rng.random((rows, cols)) * (rng.random((rows, cols)) < 0.6)
        w[np.arange(rows), rng.integers(0, cols, rows)] += 0.5  # every row has some weight
        inv = rng.integers(0, rows, n)
        u = rng.random(n)
        cum = np.cumsum(w, axis=1)
        brute = np.minimum((cum[inv] <= (u * cum[inv, -1])[:, None]).sum(axis=1), cols - 1)
        got = _pick_rows(w, inv, u)
        assert (got == brute).all()
        assert (w[inv, got] > 0).all()


def test_a_table_with_no_hand_samples_none():
    """Eight hearts asked of a seat that can only get seven of them: the table holds no hand,
    and sampling from it answers None (it used to fail on the empty last level)."""
    import numpy as np

    from canary_infer.engine.tables import build_seat

    mine = Hand.from_pbn("AKQJ.AKQJ32.A.32")  # six hearts here: seven are left unseen
    t = build_seat(parse("H >= 8"), Available.excluding(mine))
    assert t is not None and t.hands == 0
    assert t.sample(10, np.random.default_rng(0)) is None


def test_ways_to_complete_under_a_pattern_condition_match_combinatorics():
    """SeatTable.backward with a condition on the pattern (allowed patterns, or a weight per
    pattern, as the witness search asks for) counts, from the empty hand, the hands of those
    patterns times their weights: for a formula on lengths, sum of prod C(cards left, length)."""
    import numpy as np

    from canary_infer.engine.tables import build_seat

    mine = Hand.from_pbn("AK2.QJ5.T987.643")
    left = [13 - len(mine.suit(s)) for s in SUITS]
    t = build_seat(parse("S >= 4 and H <= 4 and len(C) + len(D) >= 5"), Available.excluding(mine))
    fits = [p for p in ALL_PATTERNS if p[0] >= 4 and p[1] <= 4 and p[2] + p[3] >= 5]
    rng = np.random.default_rng(3)
    for trial in range(6):
        allowed = rng.random(len(ALL_PATTERNS)) < 0.3
        pat_ok = allowed if trial % 2 == 0 else np.where(allowed, rng.random(len(ALL_PATTERNS)) + 0.1, 0.0)
        want = sum(float(pat_ok[i]) * comb(left[0], p[0]) * comb(left[1], p[1]) * comb(left[2], p[2])
                   * comb(left[3], p[3]) for i, p in enumerate(ALL_PATTERNS) if p in fits)
        got = t.backward(pat_ok)[0][0]
        assert abs(got - want) <= 1e-9 * max(1.0, want)


def test_ways_to_complete_under_an_hcp_condition_match_brute_force():
    """SeatTable.backward with an HCP condition (as the search draws a seat held to its least or
    most HCP) counts, from the empty hand, the hands whose HCP the condition allows (and, given
    one, whose pattern the pattern condition allows).  Expected: each suit's unseen cards
    enumerated by subsets, counted by (length, HCP), and combined over the four suits."""
    from itertools import combinations

    import numpy as np

    from canary_infer.engine.tables import NHCP, build_seat

    mine = Hand.from_pbn("Q32..T98765.5432")  # unseen: 10 spades, 13 hearts, 7 diamonds, 9 clubs
    t = build_seat(parse("hcp >= 8 and len(H) >= 4"), Available.excluding(mine))
    left = {s: [r for r in "AKQJT98765432" if r not in mine.suit(s)] for s in SUITS}
    value = {"A": 4, "K": 3, "Q": 2, "J": 1}
    by_suit = []
    for s in SUITS:
        table = {}
        for n in range(len(left[s]) + 1):
            for cards in combinations(left[s], n):
                key = (n, sum(value.get(c, 0) for c in cards))
                table[key] = table.get(key, 0) + 1
        by_suit.append(table)
    counts = {}  # (pattern, HCP) -> hands
    for (a, ha), ca in by_suit[0].items():
        for (b, hb), cb in by_suit[1].items():
            for (c, hc), cc in by_suit[2].items():
                for (d, hd), cd in by_suit[3].items():
                    if a + b + c + d == 13:
                        key = ((a, b, c, d), ha + hb + hc + hd)
                        counts[key] = counts.get(key, 0) + ca * cb * cc * cd
    rng = np.random.default_rng(11)
    for trial in range(4):
        hcp_ok = rng.random(NHCP) < 0.5
        pat_ok = None if trial < 2 else rng.random(len(ALL_PATTERNS)) < 0.5
        want = sum(n for (p, h), n in counts.items() if h >= 8 and p[1] >= 4 and hcp_ok[h]
                   and (pat_ok is None or pat_ok[ALL_PATTERNS.index(p)]))
        assert t.backward(pat_ok, hcp_ok)[0][0] == want


def test_draws_are_the_same_whether_the_last_suits_moves_are_kept_or_not():
    """A table keeps its last suit's moves once a draw of many states or an HCP condition
    needs them; before that, a draw of few states evaluates the last suit on those states.
    Which of the two a table does depends on what was asked of it before, so both must give
    the same ways and the same hands for the same random numbers, else an answer would
    depend on the auctions answered before it."""
    from canary_infer.engine.tables import NHCP, build_seat

    f = parse("hcp >= 11 and (S >= 5 or H >= 5) and losers <= 8")
    fresh, kept = build_seat(f), build_seat(f)
    kept._last_moves()
    assert "_last" in kept.__dict__ and "_last" not in fresh.__dict__
    by_pat = fresh.ph.sum(axis=1)
    even = np.where(by_pat > 0, 1.0 / np.maximum(by_pat, 1), 0.0)
    five = np.zeros(len(by_pat), bool)
    five[int(np.argmax(by_pat))] = True
    high = np.zeros(NHCP, bool)
    high[17:20] = True
    for k, (pat, hcp) in enumerate(((None, None), (even, None), (five, high), (None, high), (even, high))):
        for a, b in zip(fresh.backward(pat, hcp), kept.backward(pat, hcp), strict=True):
            assert np.array_equal(a, b)
        got = [t.sample(64, np.random.default_rng(3), pat, hcp) for t in (fresh, kept)]
        assert np.array_equal(got[0], got[1])
        # the fresh table evaluates only the states drawn, until an HCP condition (the third
        # question) makes it keep its moves
        assert ("_last" in fresh.__dict__) == (k >= 2)


def test_pairs_formed_in_small_chunks_give_the_same_counts(monkeypatch):
    """A suit's (state, holding) pairs come in chunks of about _PAIRS; with chunks of a few
    pairs (rows split across many of them) the table must count exactly the same hands,
    and the counts still match combinatorics."""
    from canary_infer.engine import tables as engine

    f = parse("S == 5 and H >= 3 and hcp in 11..15")
    whole = engine.build_seat(f)
    monkeypatch.setattr(engine, "_PAIRS", 7)
    small = engine.build_seat(f)
    assert np.array_equal(whole.ph, small.ph) and whole.work == small.work
    g = parse("S == 5")
    assert engine.build_seat(g).hands == comb(13, 5) * comb(39, 8)


@pytest.mark.parametrize("text, kw", [
    ("S == 5 and H >= 3 and hcp in 11..15", {}),
    ("hcp in 11..15 and (S >= 5 or H >= 5) and not shape 4441", {}),  # several pattern groups
    ("C >= 6 and top3(C) >= 2 and hcp <= 10", {"aux": ("A", "K")}),
    ("S >= 4 and hcp >= 8", {"lite": 2}),
    ("H == 6 and hcp in 5..10", {"max_honours": 2}),
    ("S == 13", {}),  # one pattern, where the programme's last suit has no cards
])
def test_a_small_tables_last_suit_formed_at_once_counts_as_by_length(monkeypatch, text, kw):
    """A table whose last suit has few pairs forms them all at once (_few_last_pairs) rather
    than by length and pattern group (_blocks); both must give the same counts by pattern and
    HCP, the same completions of every state, aux counts and work."""
    from canary_infer.engine import tables as engine

    f = parse(text)
    monkeypatch.setattr(engine, "_FEW", 1 << 40)  # always few: at once
    at_once = engine.build_seat(f, **kw)
    assert at_once._few_last_pairs() is not None
    monkeypatch.setattr(engine, "_FEW", -1)  # never few: by length and group
    by_length = engine.build_seat(f, **kw)
    assert np.array_equal(at_once.ph, by_length.ph)
    assert np.array_equal(at_once.completions, by_length.completions)
    assert (at_once.aux is None) == (by_length.aux is None)
    if at_once.aux is not None:
        assert np.array_equal(at_once.aux, by_length.aux)
    assert at_once.work == by_length.work and at_once.last_pairs == by_length.last_pairs


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(1, 12), st.sampled_from([1, 2, 4, 256]), st.randoms(use_true_random=False))
def test_rows_are_grouped_in_order_of_first_appearance(n, width, values, rnd):
    """Rows of up to 8 bytes are grouped as numbers, wider ones as bytes: both against a dict."""
    from canary_infer.engine.tables import _row_groups

    rows = np.array([[rnd.randrange(values) for _ in range(width)] for _ in range(n)], np.uint8)
    seen: dict[bytes, int] = {}
    expect = [seen.setdefault(r.tobytes(), len(seen)) for r in rows]
    gid, first = _row_groups(rows)
    assert gid.tolist() == expect
    assert first.tolist() == [expect.index(k) for k in range(len(seen))]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 40), min_size=1, max_size=6), st.randoms(use_true_random=False))
def test_recapping_brings_every_column_back_to_its_cap(caps, rnd):
    """After one addition a capped column holds at most twice its cap; _recap must leave
    min(value, cap) in each column and every other bit as it was (checked column by column)."""
    from canary_infer.engine.tables import Layout, _recap

    widths = [max(1, (2 * c).bit_length()) for c in caps] + [6]  # and a column never recapped
    offs = np.cumsum([0] + widths[:-1])
    masks = (1 << np.array(widths, np.int64)) - 1
    lay = Layout(None, np.array(caps + [63], np.int64), offs.astype(np.int64), masks, 0,
                 list(range(len(caps))), 0)
    vals = np.array([[rnd.randint(0, 2 * c) for c in caps] + [rnd.randint(0, 63)] for _ in range(50)], np.int64)
    keys = (vals << offs[None, :]).sum(axis=1)
    out = _recap(keys, lay)
    got = (out[:, None] >> offs[None, :]) & masks[None, :]
    want = np.minimum(vals, np.array(caps + [63]))
    assert np.array_equal(got, want)
    assert np.array_equal(keys, (vals << offs[None, :]).sum(axis=1))  # the input is left alone


def test_a_tables_hands_with_few_honours_are_counted_once_per_cap():
    """SeatTable.few_honours: the hands with fewer than ``cap`` honours (A K Q J), counted by
    their number of honours; built once for the last cap asked, not carried to a restricted copy."""
    from canary_infer.engine.tables import build_seat

    t = build_seat(TRUE)
    low = t.few_honours(2, TRUE, t.avail)
    assert low.aux.sum(axis=1).tolist() == [comb(36, 13), 16 * comb(36, 12), 0]  # none, one of 16
    assert t.few_honours(2, TRUE, t.avail) is low and t.few_honours(1, TRUE, t.avail) is not low
    assert t.restrict(np.ones(len(ALL_PATTERNS), bool))._low is None


@pytest.mark.parametrize("text,threshold", [
    ("not (hcp >= 11 and (S >= 5 or H >= 5)) and not (hcp >= 16)", 1 << 15),  # a pass-like table
    ("hcp in 11..16 and S >= 4", 1),  # every level kept
    ("H == 6 and hcp in 5..10", 1 << 40),  # none kept
])
def test_the_moves_a_build_keeps_are_those_a_draw_would_make(monkeypatch, text, threshold):
    import canary_infer.engine.tables as engine

    monkeypatch.setattr(engine, "_KEEP_MOVES", threshold)
    t = engine.build_seat(parse(text))
    kept = dict(t._moves)
    assert (len(kept) > 0) == (threshold < 1 << 40)
    t._moves.clear()
    for k, moves in kept.items():  # the same arrays, made on demand from the states alone
        again = t._transitions(k)
        assert all(a.dtype == b.dtype and np.array_equal(a, b) for a, b in zip(moves, again, strict=True)), k
    # and draws from the table fit the formula
    rng = np.random.default_rng(1)
    cls = t.sample(200, rng)
    assert cls is not None and t.holds(np.stack([engine.suit_classes(t.avail, si)[0][cls[:, si]] * 64
                                                 + engine.suit_classes(t.avail, si)[1][cls[:, si]]
                                                 for si in range(4)], axis=1)).all()


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 7), st.integers(1, 9), st.integers(0, 2**32 - 1), st.booleans())
def test_drawing_from_the_moves_picks_what_drawing_from_the_whole_rows_picks(rows, width, seed, near_one):
    """_pick_moves (the weights given as entries) against _pick_rows (the same weights as whole
    rows, zeros and all): the same column for every draw, the entry it names at that column,
    and rows of no weight, or draws past their row, sent to the last column."""
    from canary_infer.engine.tables import _pick_moves, _pick_rows

    rng = np.random.default_rng(seed)
    w = np.where(rng.random((rows, width)) < 0.4, rng.integers(0, 5, (rows, width)) * rng.random((rows, width)), 0.0)
    given_ = (w > 0) | (rng.random(w.shape) < 0.1)  # some entries of no weight given too
    at, col = np.nonzero(given_)
    order = rng.permutation(len(at))  # in any order
    at, col = at[order], col[order]
    inv, u = rng.integers(0, rows, 64), rng.random(64)
    if near_one:
        u[:8] = np.nextafter(1.0, 0.0)
    pick, entry = _pick_moves(at, col, w[at, col], w.shape, inv, u)
    assert (pick == _pick_rows(w.copy(), inv, u)).all()
    named = entry >= 0
    assert (col[entry[named]] == pick[named]).all() and (at[entry[named]] == inv[named]).all()
    assert (pick[~named] == width - 1).all() and not given_[inv[~named], width - 1].any()


@pytest.mark.parametrize("known", [None, "KQ2.A87.QJ54.962", "AKQJT98765432...", "5432.5432.5432.5"])
def test_free_hands_counted_by_pattern_and_hcp(known):
    """free_ph counts every hand of the unseen cards by (pattern, HCP) without a table: each
    pattern's total is the product of binomials over the suits, its 0-HCP column the same
    over the small cards, and the whole table is the one build_seat(TRUE) makes."""
    from canary_infer.engine.tables import PAT_LENGTHS, build_seat, free_ph

    avail = Available() if known is None else Available.excluding(Hand.from_pbn(known))
    ph = free_ph(avail)
    mine = Hand.from_pbn(known) if known else None
    unseen = [13 - (mine.length(s) if mine else 0) for s in SUITS]
    small = [9 - (sum(mine.has(s, r) for r in "T98765432") if mine else 0) for s in SUITS]
    for p, lengths in enumerate(PAT_LENGTHS.tolist()):
        assert ph[p].sum() == prod(comb(int(u), n) for u, n in zip(unseen, lengths, strict=True))
        assert ph[p, 0] == prod(comb(int(s), n) for s, n in zip(small, lengths, strict=True))
    assert np.array_equal(ph, build_seat(TRUE, avail).ph)
