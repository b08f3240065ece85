"""The compiled kernels (canary_infer/engine/_kernels.pyx) compute exactly what the numpy programme
they replace computes: every table built both ways, on random formulas and on the seats'
formulas of many auctions, is the same to the last state, count, move and last-suit sum (the
levels by ``expand``, the last suit by ``last_suit``), and the compiled walk of a formula
(``formula_truth``) answers as numpy's, node by node, on any packed state.

Where the kernels were not built (a machine without a C compiler at install) the engine runs
the numpy programme alone and these comparisons are skipped; CI builds them, and says so."""

import os
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_fast_paths import formula_texts

from canary_infer.bridge.auction import Auction
from canary_infer.bridge.cards import Hand
from canary_infer.engine import kernels
from canary_infer.engine import tables as engine
from canary_infer.engine.tables import Available, build_seat
from canary_infer.language.expr import conj, parse

KERNELS = kernels.compiled
needs_kernels = pytest.mark.skipif(KERNELS is None, reason="the compiled kernels were not built here")


@pytest.mark.skipif(os.environ.get("CI") != "true", reason="only CI promises a compiler at install")
def test_the_install_built_the_kernels():
    assert KERNELS is not None, "pip install did not compile canary_infer/engine/_kernels.pyx"


def _both(formula, monkeypatch, **kw):
    """The table built by the numpy programme and by the kernels."""
    with monkeypatch.context() as m:
        m.setattr(kernels, "compiled", None)
        numpy_way = build_seat(formula, **kw)
    return numpy_way, build_seat(formula, **kw)


def _assert_same(a, b):
    assert (a is None) == (b is None)
    if a is None:
        return
    assert len(a.keys) == len(b.keys) == 4
    for x, y in zip(a.keys, b.keys, strict=True):
        assert x.dtype == y.dtype and np.array_equal(x, y)
    for x, y in zip(a.counts, b.counts, strict=True):
        assert np.array_equal(x, y)
    assert np.array_equal(a.ph, b.ph) and np.array_equal(a.completions, b.completions)
    assert (a.aux is None and b.aux is None) or np.array_equal(a.aux, b.aux)
    assert a.work == b.work and a.last_pairs == b.last_pairs  # the deal-level budget reads the pairs formed
    assert a._moves.keys() == b._moves.keys()
    for k in a._moves:
        for x, y in zip(a._moves[k], b._moves[k], strict=True):
            assert x.dtype == y.dtype and np.array_equal(x, y)


OPTIONS = [{}, {"lite": 3}, {"aux": ("A", "K")}, {"honour_cap": 5}, {"max_honours": 4}]


@needs_kernels
@settings(max_examples=60, deadline=None)
@given(formula_texts(), st.sampled_from(OPTIONS), st.integers(0, 2**32), st.booleans())
def test_the_kernels_build_the_tables_the_numpy_programme_builds(text, kw, seed, known):
    avail = Available.excluding(Hand.random(random.Random(seed))) if known else Available()
    with pytest.MonkeyPatch.context() as mp:
        _assert_same(*_both(parse(text), mp, avail=avail, **kw))


@needs_kernels
@settings(max_examples=60, deadline=None)
@given(formula_texts(), st.integers(0, 2**32))
def test_the_compiled_walk_of_a_formula_is_numpys(text, seed):
    t = build_seat(parse(text))
    if t is None or t.evaluate is None:
        return
    ev, rng = t.evaluate, np.random.default_rng(seed)
    # the states the formula is read on, and any others: both compute a function of the bits
    keys = np.concatenate([t.keys[3], rng.integers(0, 1 << 62, 500, dtype=np.int64)])
    # the groups' formulas, and the length tests the groups settle (so that none is left out)
    lengths = [parse(x) for x in ("shape 4333 | 5431 | 7600", "pattern 5-3-x-x | 4-4-1-4 | x-x-x-0",
                                  "not shape 4432 and pattern x-5-x-x")]
    for f in [*ev.formulas, *lengths]:
        assert np.array_equal(ev.truth(f, keys), ev.numpy_truth(f, keys)), str(f)


def _random_classes(rng: np.random.Generator, n: int) -> np.ndarray:
    """n random hands' holding classes, of the whole deck (beside a known hand, many of them
    hold some of its cards: classes the table's unseen cards cannot make)."""
    from canary_infer.deal.joint import classes_of

    owner = np.zeros((n, 52), np.int8)
    for i in range(n):
        owner[i, rng.choice(52, 13, replace=False)] = 1
    return classes_of(owner, 1)


@needs_kernels
@settings(max_examples=60, deadline=None)
@given(formula_texts(), st.integers(0, 2**32), st.booleans())
def test_the_compiled_check_of_hands_is_numpys(text, seed, known):
    """SeatTable.holds by the kernel and by numpy, on random hands (with a known hand, some of
    them hold its cards, which no unseen hand can: both say no)."""
    hand = Hand.random(random.Random(seed)) if known else None
    t = build_seat(parse(text), Available.excluding(hand) if hand else Available())
    if t is None:
        return
    cls = _random_classes(np.random.default_rng(seed), 300)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(kernels, "compiled", None)
        expected = t.holds(cls)
    assert np.array_equal(t.holds(cls), expected)


def _draws_both_ways(t, monkeypatch, seed: int) -> None:
    """The table's draws by the kernel and by numpy, from the same seed, under no condition,
    a condition on patterns (kept or weighed) or on HCP: the same hands, the same states."""
    by_pat = t.ph.sum(axis=1)
    for pat_ok, hcp_ok in [(None, None), (by_pat > by_pat.mean(), None),
                           (np.where(by_pat > 0, 1 / np.maximum(by_pat, 1), 0.0), None),
                           (None, np.arange(engine.NHCP) % 3 == 0), (by_pat > 0, np.arange(engine.NHCP) >= 10)]:
        with monkeypatch.context() as m:
            m.setattr(kernels, "compiled", None)
            expected, states = t.sample(200, np.random.default_rng(seed), pat_ok, hcp_ok), t.drawn_states
        got = t.sample(200, np.random.default_rng(seed), pat_ok, hcp_ok)
        assert (got is None and expected is None) or np.array_equal(got, expected)
        numpy_back = t._backward.pop((None if pat_ok is None else pat_ok.tobytes(),
                                      None if hcp_ok is None else hcp_ok.tobytes()), None)
        if numpy_back is not None:  # the completions both ways (the kernel's made afresh)
            kernel_back = t.backward(pat_ok, hcp_ok)
            assert all(np.array_equal(x, y) for x, y in zip(kernel_back, numpy_back, strict=True))
        assert t.drawn_states == states


@needs_kernels
@settings(max_examples=30, deadline=None)
@given(formula_texts(), st.integers(0, 2**32))
def test_the_compiled_draws_are_numpys(text, seed):
    """SeatTable.sample's walk by the kernel: the draws numpy makes, from the same seed, with the
    last suit evaluated on the states drawn and from its kept moves."""
    t = build_seat(parse(text))
    if t is None:
        return
    with pytest.MonkeyPatch.context() as mp:
        _draws_both_ways(t, mp, seed)
        t._last_moves()  # the last suit's moves kept, as after an HCP condition
        _draws_both_ways(t, mp, seed)


@needs_kernels
@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.integers(1, 3), st.booleans())
def test_the_compiled_grid_of_summed_lengths_is_numpys(seed, seats, known):
    """bounds._Grid.add (the outer bound's programme over the seats) by the kernel and by
    numpy: the same least and most summed HCP in every cell, seat after seat."""
    from canary_infer.deal import bounds

    rng = np.random.default_rng(seed)
    u = np.array([13, 13, 13, 13]) - (rng.integers(0, 5, 4) if known else 0)
    grids = {"numpy": bounds._Grid(u), "kernel": bounds._Grid(u)}
    for _ in range(seats):
        ok = rng.random(len(engine.ALL_PATTERNS)) < rng.uniform(0.05, 1.0)
        lo = rng.integers(0, 20, len(ok))
        hi = lo + rng.integers(0, 18, len(ok))
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(kernels, "compiled", None)
            grids["numpy"] = grids["numpy"].add(ok, lo, hi)
        grids["kernel"] = grids["kernel"].add(ok, lo, hi)
        a, b = grids["numpy"], grids["kernel"]
        assert np.array_equal(a.lo, b.lo) and np.array_equal(a.hi, b.hi) and a.ops == b.ops
        # one seat further, read at some cells only (add_at), both ways
        cells = rng.choice(14 ** 4, 300, replace=False)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(kernels, "compiled", None)
            expected = a.add_at(ok, lo, hi, cells)
        got = b.add_at(ok, lo, hi, cells)
        assert all(np.array_equal(x, y) for x, y in zip(got[:2], expected[:2], strict=True)) and got[2] == expected[2]


@needs_kernels
@pytest.mark.parametrize("auction", ["P P P 1D", "P 1S", "P P 2H", "1S P 2N P 3N", "P P 1S X XX 1N"])
def test_the_compiled_resharing_is_numpys(auction, monkeypatch):
    """bounds.reshare by the kernel and by numpy, from the same deals, asked for every pattern
    of every seat: the same new deals, in the same order."""
    from canary_infer.deal import bounds
    from canary_infer.deal.infer import Inferencer
    from canary_infer.deal.joint import Joint

    inf = Inferencer()
    calls = inf.read(Auction.parse(auction))
    j = Joint({s: conj(f) for s in "NESW" if (f := inf.seat_formulas(calls, s))})
    drawn = j.sample(200, np.random.default_rng(3))
    want = {s: np.ones(len(engine.ALL_PATTERNS), bool) for s in "NESW"}
    for low_hcp in (False, True):
        got, work = bounds.reshare(j, drawn, want, low_hcp)
        with monkeypatch.context() as m:
            m.setattr(kernels, "compiled", None)
            expected, expected_work = bounds.reshare(j, drawn, want, low_hcp)
        assert len(got) and np.array_equal(got, expected) and work == expected_work


@needs_kernels
@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32))
def test_the_compiled_filler_fit_is_numpys(seed):
    """bounds._fit_everywhere (the fillers' second proof) by the kernel and by numpy, on random
    grids of room and random ways of holding small cards."""
    from canary_infer.deal import bounds

    rng = np.random.default_rng(seed)
    spots = rng.integers(3, 10, 4)
    fits = rng.random(tuple(int(x) + 1 for x in spots)) < rng.uniform(0.3, 1.0)
    lo = rng.integers(0, 3, (200, 4))
    hi = np.minimum(lo + rng.integers(0, 5, (200, 4)), spots)
    lo = np.minimum(lo, hi)
    most = lo.sum(axis=1) + rng.integers(-1, 18, 200)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(kernels, "compiled", None)
        expected = bounds._fit_everywhere(fits, spots, lo, hi, most)
    assert np.array_equal(bounds._fit_everywhere(fits, spots, lo, hi, most), expected)


@needs_kernels
@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 300), st.integers(0, 300))
def test_the_compiled_pairing_of_hands_is_numpys(seed, na, nb):
    """_kernels.disjoint_pairs (bounds._Search.paired's test of two seats' hands) against numpy:
    the pairs of 13-card masks that share no card, in the same order."""
    rng = np.random.default_rng(seed)

    def masks(n):
        held = np.zeros((n, 52), bool)
        for i in range(n):
            held[i, rng.choice(52, 13, replace=False)] = True
        return (held.astype(np.uint64) * (np.uint64(1) << np.arange(52, dtype=np.uint64))).sum(axis=1, dtype=np.uint64)

    a, b = masks(na), masks(nb)
    r, c = kernels.compiled.disjoint_pairs(a, b)
    er, ec = np.nonzero((a[:, None] & b[None, :]) == 0)
    assert np.array_equal(r, er) and np.array_equal(c, ec)


@needs_kernels
@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 3))
def test_the_compiled_holding_classes_are_numpys(seed, seat):
    """joint.classes_of by the kernel and by numpy, on random deals (some cards held by no one)."""
    from canary_infer.deal import joint

    owner = np.random.default_rng(seed).integers(-1, 4, (50, 52)).astype(np.int8)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(kernels, "compiled", None)
        expected = joint.classes_of(owner, seat)
    assert np.array_equal(joint.classes_of(owner, seat), expected)


@needs_kernels
@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 200))
def test_the_compiled_count_of_a_deals_cards_by_worth_is_numpys(seed, n):
    """_kernels.deal_cards (bounds' witness) against numpy's bincount: per deal, seat and suit,
    the cards worth 0 to 4 HCP."""
    from canary_infer.deal import bounds

    owner = np.random.default_rng(seed).integers(0, 4, (n, 52)).astype(np.int8)
    at = np.arange(n)[:, None]
    expected = np.bincount((at * 80 + owner.astype(np.int64) * 20 + bounds._CARD_CODE[None, :]).ravel(),
                           minlength=80 * n).reshape(n, 4, 4, 5)
    assert np.array_equal(kernels.compiled.deal_cards(owner), expected)


@needs_kernels
@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 200), st.lists(st.integers(0, 3), max_size=4, unique=True))
def test_the_compiled_deal_statistics_are_numpys(seed, n, free):
    """bounds.deal_stats (the witness's view of deals) by the kernel and by numpy, on random
    deals and any set of free seats: each seat's lengths and HCP,
    the free seats' pooled lengths and the HCP of their 13 lowest and highest cards."""
    from canary_infer.deal import bounds

    owner = np.random.default_rng(seed).integers(0, 4, (n, 52)).astype(np.int8)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(kernels, "compiled", None)
        expected = bounds.deal_stats(owner, sorted(free))
    got = bounds.deal_stats(owner, sorted(free))
    assert len(got) == len(expected) == 5
    assert all(np.array_equal(a, b) for a, b in zip(got, expected, strict=True))


@needs_kernels
@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.lists(st.integers(1, 14), min_size=4, max_size=4), st.floats(0.0, 0.05))
def test_the_compiled_closures_of_a_grid_are_numpys(seed, shape, density):
    """bounds._at_or_below, _at_or_above and _Grid.below by the kernels and by numpy's
    accumulations, on random grids of any shape (the fillers' grids are smaller than 14^4)."""
    from canary_infer.deal import bounds

    rng = np.random.default_rng(seed)
    grid = rng.random(shape) < density
    values = rng.integers(-5, 40, 14 ** 4)
    g = bounds._Grid([13, 13, 13, 13])
    g.lo = values
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(kernels, "compiled", None)
        expected = (bounds._at_or_below(grid), bounds._at_or_above(grid), g.below())
    g._below = None
    got = (bounds._at_or_below(grid), bounds._at_or_above(grid), g.below())
    assert all(a.dtype == b.dtype and np.array_equal(a, b) for a, b in zip(got, expected, strict=True))


@needs_kernels
@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.lists(st.integers(1, 11), min_size=4, max_size=4), st.floats(0.0, 0.2),
       st.integers(0, 300))
def test_the_compiled_sum_of_a_grid_and_rows_is_numpys(seed, shape, density, rows):
    """bounds._plus (the fillers' small cards taken, one more seat's added) by the kernel and
    by numpy, on random grids of any shape and random rows within it (sums past it dropped)."""
    from canary_infer.deal import bounds

    rng = np.random.default_rng(seed)
    reach = rng.random(shape) < density
    f = rng.integers(0, shape, (rows, 4))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(kernels, "compiled", None)
        expected = bounds._plus(reach, f)
        small = bounds._PLUS_PAIRS
        mp.setattr(bounds, "_PLUS_PAIRS", 0)  # numpy's other way, by shifted grids
        shifted = bounds._plus(reach, f)
        mp.setattr(bounds, "_PLUS_PAIRS", small)
    got = bounds._plus(reach, f)
    assert got.dtype == bool and np.array_equal(got, expected) and np.array_equal(got, shifted)


@needs_kernels
@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 40), st.integers(1, 3))
def test_the_compiled_room_for_fillers_is_numpys(seed, rows, seats):
    """bounds._room_for (the fillers' first proof) by the kernel and by numpy, each row of
    room with each row of the last seat's fillers, on random small cards and fillers."""
    from canary_infer.deal import bounds

    rng = np.random.default_rng(seed)
    spots = rng.integers(3, 10, 4)
    choices = [rng.integers(0, spots + 1, (int(rng.integers(1, 30)), 4)) for _ in range(seats)]
    room = rng.integers(0, spots + 1, (rows, 4))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(kernels, "compiled", None)
        expected = bounds._room_for(room, choices, spots)
    assert np.array_equal(bounds._room_for(room, choices, spots), expected)


@needs_kernels
@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.integers(1, 60), st.integers(0, 3), st.integers(1, 3), st.booleans(), st.booleans())
def test_the_compiled_deal_of_pooled_cards_is_numpys(seed, n, k, nfree, low, keeping):
    """bounds._give (a seat's and the free seats' pooled cards dealt anew) by the kernel and by
    numpy, on random deals: the seat keeps some of its cards (its honours) or none, takes the
    lowest or highest others to random lengths, and the free seats the rest."""
    from canary_infer.deal import bounds

    rng = np.random.default_rng(seed)
    rows = np.stack([rng.permutation(np.repeat(np.arange(4), 13)) for _ in range(n)]).astype(np.int8).reshape(n, 52)
    free = [s for s in rng.permutation(4).tolist() if s != k][:nfree]
    pool = np.isin(rows, free + [k])
    lengths = rng.integers(0, 8, (n, 4))
    keep = ((rows == k) & (bounds.CARD_HCP > 0)[None, :]) if keeping else None
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(kernels, "compiled", None)
        expected = bounds._give(rows, pool, k, free, lengths, low, keep)
    assert np.array_equal(bounds._give(rows, pool, k, free, lengths, low, keep), expected)


@needs_kernels
@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32), st.integers(1, 300), st.sampled_from(["hcp >= 12 and S >= 5", "H == 0", "hcp <= 37"]),
       st.booleans())
def test_the_compiled_placing_of_holding_classes_is_numpys(seed, n, text, known):
    """joint.place_classes by the kernel and by numpy, from the same drawn classes and the same
    random numbers: the same cards to the same seat (some cards already held: my hand)."""
    from canary_infer.deal import joint

    mine = Hand.from_pbn("AKQ2.JT9.8765.43")
    avail = Available.excluding(mine) if known else Available()
    cls = build_seat(parse(text), avail).sample(n, np.random.default_rng(seed))
    owner = np.full((n, 52), -1, np.int8)
    unseen = joint.Joint({"N": parse(text)}, known=("S", mine) if known else None).unseen
    got, expected = owner.copy(), owner.copy()
    joint.place_classes(got, cls, 2, avail, unseen, np.random.default_rng(seed + 1))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(kernels, "compiled", None)
        joint.place_classes(expected, cls, 2, avail, unseen, np.random.default_rng(seed + 1))
    assert np.array_equal(got, expected) and ((got == 2).sum(axis=1) == 13).all()


@needs_kernels
@pytest.mark.parametrize("auction", ["P P P 1D", "P 1S", "1S P 2N P 3N", "P P 1S X XX 1N"])
def test_the_compiled_swaps_are_numpys(auction, monkeypatch):
    """bounds.swap_moves by the kernel and by numpy, from the same deals, every pattern of every
    seat wanted and HCP beyond a middle range: the same new deals in the same order, the same
    work."""
    from canary_infer.deal import bounds
    from canary_infer.deal.infer import Inferencer
    from canary_infer.deal.joint import Joint

    inf = Inferencer()
    calls = inf.read(Auction.parse(auction))
    j = Joint({s: conj(f) for s in "NESW" if (f := inf.seat_formulas(calls, s))})
    drawn = j.sample(60, np.random.default_rng(5))
    want = {s: np.random.default_rng(6).random(len(engine.ALL_PATTERNS)) < 0.5 for s in "NESW"}
    lo, hi = {s: 6 for s in "NESW"}, {s: 14 for s in "NESW"}
    got, work = bounds.swap_moves(j, drawn, want, lo, hi)
    monkeypatch.setattr(kernels, "compiled", None)
    expected, expected_work = bounds.swap_moves(j, drawn, want, lo, hi)
    assert len(got) and np.array_equal(got, expected) and work == expected_work


AUCTIONS = ["P", "P P P", "1S", "1H", "1D", "1C", "1N", "2C", "2H P 2N P 3D", "1S P 2N P 3N", "P 1C 1H P",
            "P P 1S X XX 1N", "1S 2H X P 2S", "1H P 1S P 3S P 5N P 7S"]


@needs_kernels
def test_the_seats_tables_of_many_auctions_are_the_same_both_ways(monkeypatch):
    from canary_infer.deal.infer import Inferencer

    inf = Inferencer()
    formulas = {}
    for a in AUCTIONS:
        calls = inf.read(Auction.parse(a))
        for seat in "NESW":
            f = inf.seat_formulas(calls, seat)
            if f:
                formulas[conj(f)] = None
    assert len(formulas) >= 15
    cls = _random_classes(np.random.default_rng(7), 2000)
    for i, f in enumerate(formulas):  # the first-seat pass has the largest levels (moves kept)
        numpy_way, kernel_way = _both(f, monkeypatch, **OPTIONS[i % len(OPTIONS)])
        _assert_same(numpy_way, kernel_way)
        with monkeypatch.context() as m:
            m.setattr(kernels, "compiled", None)
            expected = numpy_way.holds(cls)
        assert np.array_equal(kernel_way.holds(cls), expected)
        _draws_both_ways(kernel_way, monkeypatch, i)


@pytest.mark.parametrize("auction", ["P", "1S P 2N P 3N", "P P 1S X XX 1N"])
def test_a_table_set_up_from_the_kept_preparation_is_the_table_built_afresh(auction, monkeypatch):
    """build_seat keeps what a formula's programme is set up with (engine._PREPARED): a table
    built again from it, after the first one was drawn from and checked hands against (which
    fills its evaluator's caches), is the table built with nothing kept."""
    from canary_infer.deal.infer import Inferencer

    inf = Inferencer()
    calls = inf.read(Auction.parse(auction))
    for seat in "NESW":
        if not (f := inf.seat_formulas(calls, seat)):
            continue
        first = build_seat(conj(f))
        first.sample(100, np.random.default_rng(1))
        first.holds(_random_classes(np.random.default_rng(2), 100))
        again = build_seat(conj(f))
        assert again.evaluate is first.evaluate or first.evaluate is None  # from the kept set-up
        monkeypatch.setattr(engine, "_PREPARED", {})
        _assert_same(build_seat(conj(f)), again)
        monkeypatch.undo()


@needs_kernels
def test_answers_are_the_same_with_and_without_the_kernels(monkeypatch):
    """Whole answers, joint ones with the deal-level search included, byte for byte the same
    with the compiled kernels and with the numpy engine alone (as on a machine that could not
    build them): every kernel computes what its numpy code does, to the last draw."""
    import json

    from canary_infer.deal.infer import Inferencer

    auctions = ["1S", "P", "2S P 2N P 3C", "P P 2H", "1S P 2N P 3N", "P 1C 1H P"]
    system = Inferencer().system
    with_kernels = [json.dumps(Inferencer(system).infer(Auction.parse(a), joint=True).as_json(), sort_keys=True)
                    for a in auctions]
    monkeypatch.setattr(engine, "_PREPARED", {})
    with kernels.numpy_only():  # the one switch: every module reads it when it runs
        assert kernels.compiled is None
        for a, expected in zip(auctions, with_kernels, strict=True):
            got = json.dumps(Inferencer(system).infer(Auction.parse(a), joint=True).as_json(), sort_keys=True)
            assert got == expected, a
    assert kernels.compiled is KERNELS


def test_a_restricted_table_checks_hands_against_its_own_patterns():
    """SeatTable.restrict keeps the parent's states but fewer patterns: a hand the parent's
    formula allows, of a pattern the restriction drops, fails the restricted table's check,
    even when the parent had checked hands before (the kernels' data of the parent is not the
    copy's)."""
    t = build_seat(parse("hcp >= 12"))
    rng = np.random.default_rng(3)
    cls = _random_classes(rng, 400)
    parent = t.holds(cls)
    long_spades = engine.PAT_LENGTHS[:, 0] >= 5
    r = t.restrict(long_spades)
    spades = (cls[:, 0] // 64) >= 5  # each hand's spade length, off its class
    got = r.holds(cls)
    assert parent.any() and (parent & ~spades).any()
    assert np.array_equal(got, parent & spades)
