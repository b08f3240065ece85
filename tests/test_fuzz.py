"""Fuzzing at a size CI affords (a few hundred inputs a target); ``benchmarks/fuzz.py`` runs the
same targets on many more.  The generators and properties are in ``fuzz_targets.py``."""

import json

import fuzz_targets as fz
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from canary_infer.engine.tables import Available, solve
from canary_infer.language.expr import parse

CI = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])


@CI
@given(fz.auction_texts(), st.sampled_from("NESWnesw"))
def test_auction_text(text, dealer):
    fz.check_auction_text(text, dealer.upper())


@settings(CI, max_examples=60)
@given(st.one_of(fz.auction_texts(), fz.legal_auctions().map(str), fz.pbn_texts()))
def test_infer_on_the_command_line(inferencer, text):
    fz.check_cli_infer(text, inferencer)


@settings(CI, max_examples=40)
@given(fz.legal_auctions(), fz.hand_texts())
def test_infer_with_a_hand(inferencer, auction, hand):
    fz.check_cli_infer(str(auction), inferencer, hand="S:" + hand)


@settings(CI, max_examples=40)
@given(st.lists(st.one_of(fz.auction_texts(), fz.pbn_texts(), st.binary(max_size=12).map(repr)), max_size=6),
       st.lists(st.sampled_from([b"\xff", b"\xfe\xff", b"\xef\xbb\xbf", b"\x00", b"\r", b"\n"]), max_size=3))
def test_batch_input(inferencer, lines, raw):
    data = b"\n".join(line.encode("utf-8", "surrogatepass") for line in lines) + b"".join(raw)
    fz.check_cli_batch(data, inferencer)


@CI
@given(fz.hand_texts())
def test_hand_text(text):
    fz.check_hand_text(text)


@CI
@given(st.one_of(st.text(fz.HAND_CHARS, max_size=70), st.text(max_size=20)))
def test_deal_text(text):
    fz.check_deal_text(text)


@CI
@given(fz.pbn_texts())
def test_pbn_text(text):
    fz.check_pbn_text(text)


@settings(CI, max_examples=80)
@given(fz.system_texts())
def test_system_file(tmp_path_factory, text):
    fz.check_system_text(text, tmp_path_factory.mktemp("sys"))


@pytest.fixture(scope="module")
def entry(tmp_path_factory):
    """A real cache entry, its key and the true result."""
    import os

    import canary_infer.caches as cache

    folder = tmp_path_factory.mktemp("cache")
    old, slow = os.environ.get("CANARY_INFER_CACHE"), cache.SLOW
    os.environ["CANARY_INFER_CACHE"] = str(folder)
    cache.SLOW = 0.0  # keep the result, however fast the engine is
    try:
        f = parse("hcp in 11..16 and losers <= 7 and qt >= 2")
        truth = solve(f)
        k = cache.key(f, Available(), None)
        real = json.loads((folder / f"{k}.json").read_text())
    finally:
        os.environ["CANARY_INFER_CACHE"] = old if old is not None else "off"
        cache.SLOW = slow
    return f, truth, k, real, folder


@settings(CI, max_examples=200)
@given(st.data())
def test_cache_entry(entry, data):
    f, truth, k, real, folder = entry
    text = data.draw(fz.cache_entries(real))
    fz.check_cache_text(text, k)


@settings(CI, max_examples=25)
@given(st.data())
def test_solve_through_a_corrupted_entry(entry, data):
    import os

    f, truth, k, real, folder = entry
    text = data.draw(fz.cache_entries(real))
    (folder / f"{k}.json").write_text(text, encoding="utf-8", errors="surrogatepass")
    os.environ["CANARY_INFER_CACHE"] = str(folder)
    try:
        assert solve(f) == truth
    finally:
        os.environ["CANARY_INFER_CACHE"] = "off"


@settings(CI, max_examples=40)
@given(fz.exploding_system_texts())
def test_a_system_file_built_to_explode(tmp_path_factory, text):
    fz.check_exploding_system_text(text, tmp_path_factory.mktemp("sys"))


@pytest.fixture(scope="module")
def kept_system(tmp_path_factory):
    """A small system loaded once with its cache entry kept: (the entry, its bytes, files, system)."""
    import os

    from canary_infer.system import cache as syscache
    from canary_infer.system.model import load_system

    where = tmp_path_factory.mktemp("kept") / "systems"
    files_dir = tmp_path_factory.mktemp("files")
    (files_dir / "a.canary").write_text(fz.SMALL_SYSTEM, encoding="utf-8")
    files = sorted(files_dir.glob("*.canary"))
    old = os.environ.get(syscache.ENV)
    os.environ[syscache.ENV] = str(where)
    try:
        system = load_system(files)
        entry, = where.glob("system-*.pickle")
        yield entry, entry.read_bytes(), files, system
    finally:
        if old is None:
            del os.environ[syscache.ENV]
        else:
            os.environ[syscache.ENV] = old


@settings(CI, max_examples=30)
@given(st.sampled_from(fz.ENTRY_KINDS), st.binary(max_size=64))
def test_a_system_cache_entry_of_any_file_type(kept_system, kind, data):
    entry, good, files, fresh = kept_system
    fz.check_system_cache_entry(kind, data, entry, good, files, fresh)


@settings(CI, max_examples=60)
@given(fz.numeric_arguments())
def test_a_numeric_argument(argv):
    fz.check_numeric_argument(argv)
