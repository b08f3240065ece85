"""Issue 12: no hang, no traceback, no trusted garbage.

Each test here failed before its fix.  Expectations come from the exact engine, from
counting, or from the laws of bidding, never from the answer under test."""

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from canary_infer.bridge.auction import Auction
from canary_infer.bridge.cards import Hand
from canary_infer.engine.tables import Available, solve
from canary_infer.language.expr import conj
from canary_infer.ui.cli import main

ROOT = Path(__file__).resolve().parent.parent
ALL_DIAMONDS = "..AKQJT98765432."  # South holds every diamond: North can show none


def cli(*argv, stdin: bytes | None = None, timeout: float = 120, env=None):
    """``python -m canary_infer ARGV`` as its own process, from the worktree root."""
    return subprocess.run([sys.executable, "-m", "canary_infer", *argv], input=stdin, capture_output=True,
                          timeout=timeout, cwd=ROOT, env=env)




# --------------------------------------------------------------------------- the hang
def test_the_contradiction_search_is_bounded():
    """This ran for minutes (the CP-SAT core search had no time limit); the call must return."""
    t = time.monotonic()
    r = cli("infer", "--json", "2H P 2S P 3D", "--hand", "S:" + ALL_DIAMONDS, timeout=60)
    assert r.returncode == 0, r.stderr
    assert time.monotonic() - t < 60
    north = json.loads(r.stdout)["hands"]["N"]
    assert north["consistent"] is False and north["hands"] == 0
    assert set(north["conflict"]) <= {0, 4} and 4 in north["conflict"]


@pytest.mark.parametrize("auction,seat", [("2H P 2S P 3D", "N"), ("2H X 2S P 3H", "N"),
                                          ("P P P 2H P 2S P 3D", "W")])
def test_the_calls_named_really_contradict_each_other(inferencer, auction, seat):
    """Checked with the exact engine, not with the CP-SAT model that named them."""
    avail = Available.excluding(Hand.from_pbn(ALL_DIAMONDS))
    calls = inferencer.read(Auction.parse(auction))
    t = time.monotonic()
    named, minimal = inferencer.explain(calls, seat, avail, time_limit=2.0)
    assert time.monotonic() - t < 30  # 2 s asked; generous for a loaded machine
    mine = {c.index: c.formula for c in calls if c.seat == seat and c.defined}
    assert named and set(named) <= set(mine)
    assert not solve(conj([mine[i] for i in named]), avail).consistent
    if minimal:  # each call named is needed: without it some hand fits
        for i in named:
            rest = [mine[j] for j in named if j != i]
            assert not rest or solve(conj(rest), avail).consistent


def test_when_the_bound_is_hit_the_answer_is_what_is_known(inferencer):
    """No time at all: the calls up to the first after which no hand fits, marked not minimal."""
    avail = Available.excluding(Hand.from_pbn(ALL_DIAMONDS))
    calls = inferencer.read(Auction.parse("2H P 2S P 3D"))
    named, minimal = inferencer.explain(calls, "N", avail, time_limit=0.0)
    assert minimal is False
    opening = calls[0].formula
    assert solve(opening, avail).consistent  # 2H alone fits a hand without diamonds (say 4-5-0-4)
    assert named == [0, 4]


def test_a_seat_no_hand_fits_says_whether_the_calls_named_are_the_fewest():
    r = cli("infer", "--json", "2H X 2S P 3H", "--hand", "S:" + ALL_DIAMONDS, timeout=60)
    north = json.loads(r.stdout)["hands"]["N"]
    assert r.returncode == 0 and isinstance(north["conflict_minimal"], bool)
    r = cli("infer", "2H P 2S P 3D", "--hand", "S:" + ALL_DIAMONDS, timeout=60)
    row = next(line for line in r.stdout.decode().splitlines() if line.startswith(" N     "))
    assert "no hand fits" in row and "3D (call 5)" in row


# --------------------------------------------------------------------------- own hand against own calls
def test_a_hand_that_breaks_its_own_call_is_said_plainly(run):
    status, out, _ = run("infer", "--json", "1S", "--hand", "N:2.5432.5432.5432")
    north = json.loads(out)["hands"]["N"]
    assert status == 0
    assert north["consistent"] is False and north["hands"] == 0 and north["hcp"] is None
    assert north["known"] is True and north["hand"] == "2.5432.5432.5432" and north["breaks"] == [0]
    status, out, _ = run("infer", "1S", "--hand", "N:2.5432.5432.5432")
    row = next(line for line in out.splitlines() if line.startswith(" N     "))
    assert "cannot have made these calls" in row and "1S (call 1)" in row and "(your hand)" in row


def test_a_hand_that_breaks_a_later_call_names_that_call(run):
    # a 2S opener (12 HCP, 5 spades, 4 clubs, 6 losers) with three hearts and one diamond:
    # after the relay 3C "short diamonds with 3+ hearts" [A1157] fits it, 3D "short hearts with
    # 3+ diamonds" [A1159] does not
    hand = "KQ876.AK2.8.8765"
    status, out, _ = run("infer", "--json", "2S P 2N P 3D", "--hand", "N:" + hand)
    north = json.loads(out)["hands"]["N"]
    assert north["breaks"] == [4]
    status, out, _ = run("infer", "--json", "2S P 2N P 3C", "--hand", "N:" + hand)
    north = json.loads(out)["hands"]["N"]
    assert north["consistent"] is True and north["breaks"] == [] and north["hcp"] == [12, 12]


# --------------------------------------------------------------------------- tracebacks
@pytest.mark.parametrize("argv,stdin", [
    (["infer", "--json"], b"2S P 2N P 3C\n" * 400),
    (["infer"], b"2S P 2N P 3C\n" * 400),
    (["infer", "--pbn", "tests/data/dealer-Refer.pbn"], None),
    (["deal", "2S P 2N P", "-n", "300"], None),
], ids=["batch", "batch-text", "pbn", "deal"])
def test_a_closed_pipe_ends_quietly(argv, stdin):
    """``... | head -c 10``: the reader goes away; no traceback, no complaint at exit."""
    reader = "import sys; sys.stdin.buffer.read(10)"
    producer = subprocess.Popen([sys.executable, "-m", "canary_infer", *argv], cwd=ROOT, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    head = subprocess.Popen([sys.executable, "-c", reader], stdin=producer.stdout)
    producer.stdout.close()  # only head reads it now
    if stdin is not None:
        try:
            producer.stdin.write(stdin)
        except BrokenPipeError:
            pass
    producer.stdin.close()
    head.wait(timeout=120)
    err = producer.stderr.read().decode()
    producer.wait(timeout=120)
    assert "Traceback" not in err and "BrokenPipeError" not in err and "Exception ignored" not in err, err


def test_a_batch_line_that_is_not_utf8_gets_its_error_and_the_batch_goes_on():
    env = {**__import__("os").environ, "PYTHONIOENCODING": "utf-8:strict"}
    r = cli("infer", "--json", stdin=b"1S\n\xff\xfe bad\n2S P 2N\n", env=env)
    assert r.returncode == 0 and b"Traceback" not in r.stderr, r.stderr
    objs = [json.loads(x) for x in r.stdout.splitlines()]
    assert len(objs) == 3
    assert objs[0]["auction"] == ["1S"] and objs[2]["auction"] == ["2S", "P", "2N"]
    assert objs[1]["error"]["kind"] == "syntax" and "line 2" in objs[1]["error"]["message"]
    assert "UTF-8" in objs[1]["error"]["message"] and objs[1]["hands"] == {}


def test_the_error_lists_the_calls_as_the_parser_split_them(run):
    status, out, _ = run("infer", "--json", "1S-1H")
    obj = json.loads(out)
    assert status == 2 and obj["error"]["position"] == 1
    assert obj["auction"] == ["1S", "1H"]
    assert obj["auction"][obj["error"]["position"]] == "1H"  # the position points into the list
    status, out, _ = run("infer", "--json", "1s,Pass - 2z")
    obj = json.loads(out)
    assert obj["auction"] == ["1s", "Pass", "2z"] and obj["error"]["position"] == 2


def test_an_empty_hand_is_an_error_not_ignored(run):
    status, out, err = run("infer", "1S", "--hand", "")
    assert status == 2 and out == "" and "--hand" in err
    status, out, err = run("infer", "--json", "1S", "--hand", "  ")
    assert status == 2 and json.loads(out)["error"]["kind"] == "hand"


@pytest.mark.parametrize("argv", [
    ["verify-relays", "--json", "2S 1H"],
    ["verify-relays", "--json", "3N P"],
    ["selfcheck", "--json", "--deals", "-5"],
    ["selfcheck", "--json", "--deals", "many"],
    ["infer", "--json", "1S", "--dealer", "Q"],
    ["bid", "--json", "AKQ.AKQ.AKQ.AKQ"],
    ["check-system", "--json", "--no-such-option"],
    ["infer", "--json", "--budget", "0", "1S"],
    ["infer", "--json", "--budget", "nan", "1S"],
])
def test_every_commands_json_error_is_a_json_object(run, argv, capsys):
    try:
        status, out, err = run(*argv)
    except SystemExit as e:  # argparse exits; the object is on stdout all the same
        status, out = e.code, capsys.readouterr().out
    obj = json.loads(out)
    assert status == 2 and obj["error"]["message"] and obj["error"]["kind"], obj


def test_the_bid_help_examples_run(run, capsys):
    with pytest.raises(SystemExit):
        main(["bid", "--help"])
    text = capsys.readouterr().out
    import re
    import shlex

    examples = [re.split(r"\s{2,}", line.strip())[0] for line in text.splitlines()
                if line.strip().startswith("canary-infer bid ")]
    examples = [e for e in examples if "--pbn" not in e and "--lin" not in e]  # those read a file of yours
    assert len(examples) >= 3
    for line in examples:
        argv = shlex.split(line)[1:]
        status, out, err = run(*argv)
        assert status == 0 and "error" not in err, (line, err)


def test_negative_deal_counts_are_refused(run):
    with pytest.raises(SystemExit) as e:
        run("selfcheck", "--deals", "-5")
    assert e.value.code == 2


# --------------------------------------------------------------------------- PBN auctions
PBN = '[Event "club night"]\n[Dealer "E"]\n[Auction "E"]\n1S Pass 2NT {relay} Pass\n3C =1= AP\n[Note "1:short"]'


def test_a_pbn_auction_on_the_command_line(run):
    status, out, _ = run("infer", "--json", PBN)
    obj = json.loads(out)
    want = Auction.from_pbn(PBN)
    assert status == 0 and obj["dealer"] == "E" == want.dealer
    assert obj["auction"] == [str(c) for c in want.calls] == ["1S", "P", "2N", "P", "3C", "P", "P", "P"]
    status, out, _ = run("infer", "--json", '[Auction "W"] 1S P', "--dealer", "N")  # a contradiction
    assert status == 2 and json.loads(out)["error"]["kind"] == "syntax"
    status, out, _ = run("infer", "--json", '[Auction "N"] 1S AP 2C')  # AP written out: 2C is call 5
    obj = json.loads(out)
    assert obj["error"]["kind"] == "illegal" and obj["auction"] == ["1S", "P", "P", "P", "2C"]
    assert obj["auction"][obj["error"]["position"]] == "2C"


def test_pbn_games_in_batch_input(run):
    stdin = ("% PBN 2.1\n\n" + PBN + "\n\n1S\n" + '[Auction "S"]\n2S Pass 2NT\n\n[Auction "N"]\n1S 1H\n').encode()
    status, out, _ = run("infer", "--json", stdin=stdin)
    objs = [json.loads(x) for x in out.splitlines()]
    assert status == 0 and len(objs) == 4
    assert objs[0]["dealer"] == "E" and objs[0]["auction"][:5] == ["1S", "P", "2N", "P", "3C"]
    assert objs[1]["auction"] == ["1S"] and objs[1]["dealer"] == "N"
    assert objs[2]["dealer"] == "S" and objs[2]["auction"] == ["2S", "P", "2N"]
    assert objs[3]["error"]["kind"] == "illegal" and objs[3]["error"]["position"] == 1


# --------------------------------------------------------------------------- the disk cache
BAD_ENTRIES = [
    '{"patterns": [], "hcp": null, "hands": 0}',  # made 540 of 613 batch lines say "no hand fits"
    '{"patterns": [[[5, 3, 1, 4], 1]], "hcp": "ab", "hands": 1}',  # printed ["a", "b"]
    '{"patterns": [[[5, 3], 10]], "hcp": [11, 16], "hands": 10}',  # IndexError
    '{"patterns": [[[5, 3, 1, 4], NaN]], "hcp": [11, 16], "hands": NaN}',  # ValueError
    '{"patterns": [[[5, 3, 1, 4], 1e400]], "hcp": [11, 16], "hands": 1e400}',  # OverflowError
    "{not json", "", "[]", "null", '"text"', "\udcff",
]


def test_a_bad_cache_entry_is_recomputed_never_believed(tmp_path, monkeypatch, capsys):
    """A command that solves through the disk cache (verify-relays: every leaf's patterns and share)
    with the cache off, then with a cache whose every entry is replaced by garbage."""
    import canary_infer.caches as cache

    monkeypatch.setattr(cache, "SLOW", 0.0)  # keep every result, however fast the engine is

    def relays(setting):
        monkeypatch.setenv("CANARY_INFER_CACHE", setting)
        assert main(["verify-relays", "2S P 2N", "--json"]) == 0  # a fresh verifier each time
        out, err = capsys.readouterr()
        return json.loads(out)

    truth = relays("off")
    folder = str(tmp_path / "c")
    assert relays(folder) == truth
    entries = sorted((tmp_path / "c").glob("*.json"))
    assert entries, "results were kept"
    rounds = -(-len(BAD_ENTRIES) // len(entries))  # every bad entry is tried at least once
    for r in range(rounds):
        for i, p in enumerate(entries):
            p.write_bytes(BAD_ENTRIES[(r * len(entries) + i) % len(BAD_ENTRIES)].encode("utf-8", "surrogateescape"))
        assert relays(folder) == truth, r


@pytest.fixture
def cached(tmp_path, monkeypatch):
    """A formula solved once with the disk cache on: (formula, its result, its entry's path)."""
    import canary_infer.caches as cache
    from canary_infer.language.expr import parse

    monkeypatch.setenv("CANARY_INFER_CACHE", str(tmp_path))
    monkeypatch.setattr(cache, "SLOW", 0.0)  # written whatever this machine's speed
    f = parse("hcp in 11..16 and losers <= 7 and qt >= 2")
    first = solve(f)
    path = tmp_path / f"{cache.key(f, Available(), None)}.json"
    assert path.exists()
    return f, first, path


def mutations(entry: dict):
    """Entries of the right format and key that are wrong all the same."""
    pats = entry["patterns"]
    yield {**entry, "key": "0" * 64}
    yield {**entry, "format": 1}
    yield {**entry, "hands": entry["hands"] + 1}  # the counts no longer add up
    yield {**entry, "hcp": entry["hcp"][::-1]}
    yield {**entry, "hcp": [entry["hcp"][0], 38]}
    yield {**entry, "hcp": None}
    yield {**entry, "patterns": [], "hands": 0}
    yield {**entry, "patterns": pats + pats[:1], "hands": entry["hands"] + pats[0][4]}  # a pattern twice
    yield {**entry, "patterns": [[*p[:4], 0] for p in pats]}
    yield {**entry, "patterns": [[*p[:4], p[4] + 0.5] for p in pats]}
    yield {**entry, "patterns": [[p[0] + 1, *p[1:]] for p in pats]}  # 14 cards
    yield {**entry, "patterns": [[True, *p[1:]] if p[0] == 1 else p for p in pats]}
    yield {**entry, "extra": 1}
    yield {k: v for k, v in entry.items() if k != "hcp"}


def test_every_wrong_entry_is_discarded(cached):
    f, first, path = cached
    entry = json.loads(path.read_text())
    assert entry["key"] == path.stem
    n = 0
    for bad in mutations(entry):
        path.write_text(json.dumps(bad))
        assert solve(f) == first, bad
        assert not path.exists() or json.loads(path.read_text()) == entry  # deleted, or written afresh
        n += 1
    assert n == 14
    path.write_text(json.dumps(entry))
    assert solve(f) == first


def test_an_entry_must_fit_the_question(cached, tmp_path):
    """An entry that is well formed but answers another question is refused too."""
    import canary_infer.caches as cache

    f, first, path = cached
    good = path.read_text()
    k = path.stem
    assert cache.decode(good, k) is not None
    assert cache.decode(good, "1" * 64) is None
    mine = Hand.from_pbn("AKQJT98765432...")  # no spade left: no pattern with a spade fits
    assert cache.decode(good, k, Available.excluding(mine)) is None
    asked = [p for p in first.patterns if p[0] >= 5]
    assert cache.decode(good, k, asked=asked) is None  # holds patterns that were not asked for


@pytest.mark.parametrize("value,where", [("none", None), ("disabled", None), ("OFF", None), ("0", None),
                                         ("./here", "here"), ("on", "default")])
def test_the_cache_setting_is_read_as_documented(tmp_path, monkeypatch, value, where):
    import canary_infer.caches as cache

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("CANARY_INFER_CACHE", value)
    got = cache.folder()
    if where is None:
        assert got is None
    elif where == "default":
        assert got == tmp_path / "xdg" / "canary-infer"
    else:
        assert got.resolve() == (tmp_path / where).resolve()


@pytest.mark.parametrize("value", [" ", "disable", "cache", " /tmp/x", "nope"])
def test_other_cache_settings_are_refused_with_a_message(tmp_path, value):
    import os

    env = {**os.environ, "CANARY_INFER_CACHE": value, "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-m", "canary_infer", "infer", "1S"], capture_output=True, text=True,
                       cwd=tmp_path, env=env, timeout=120)
    assert r.returncode == 2 and "CANARY_INFER_CACHE" in r.stderr and "off" in r.stderr
    assert list(tmp_path.iterdir()) == []  # no folder named after the value
    r = subprocess.run([sys.executable, "-m", "canary_infer", "infer", "1S", "--json"], capture_output=True,
                       text=True, cwd=tmp_path, env=env, timeout=120)
    assert r.returncode == 2 and json.loads(r.stdout)["error"]["kind"] == "usage"


# --------------------------------------------------------------------------- absurd numbers
def test_an_absurd_number_is_refused_when_the_constraint_is_read(tmp_path):
    from canary_infer.language.expr import ConstraintError, parse
    from canary_infer.system.model import SystemFileError, load_system

    with pytest.raises(ConstraintError, match="too large"):
        parse("hcp >= 99999999999999999999999999999")
    with pytest.raises(ConstraintError, match="too large"):
        parse("hcp * 1000000 * 1000000 * 1000 + S >= 1")  # a product, not one literal
    p = tmp_path / "huge.canary"
    p.write_text('tree opening\n  2N  "huge"  [A1]\n      = hcp >= 99999999999999999999999999999\n',
                 encoding="utf-8")
    with pytest.raises(SystemFileError) as e:
        load_system([p])
    assert e.value.line == 3 and "too large" in str(e.value)


def test_the_largest_numbers_allowed_are_counted_exactly():
    from canary_infer.language.expr import parse

    assert solve(parse("hcp >= 1000000")).hands == 0
    # 10^12 hcp - 10^6 S >= -10^6  <=>  hcp >= 1 or S <= 1: no 64-bit overflow on the way
    big = solve(parse("hcp * 1000000 * 1000000 - S * 1000000 >= -1000000"))
    assert big.hands == solve(parse("hcp >= 1 or S <= 1")).hands


def test_the_budget_reaches_the_inferencer(monkeypatch, capsys):
    """--budget is the Inferencer's budget (checked: positive, finite, at most 600)."""
    import canary_infer.deal.infer as infer_module

    seen = []
    real = infer_module.Inferencer

    def spy(*a, **k):
        seen.append(k.get("budget"))
        return real(*a, **k)

    monkeypatch.setattr(infer_module, "Inferencer", spy)
    assert main(["infer", "--json", "--budget", "0.25", "2S"]) == 0
    assert seen == [0.25]
    for bad in ("-1", "inf", "601", "soon"):
        with pytest.raises(SystemExit) as e:
            main(["infer", "--budget", bad, "2S"])
        assert e.value.code == 2
    capsys.readouterr()


@pytest.mark.parametrize("text,line", [
    ('tree opening\n  "a meaning with no call"\n', 2),
    ('tree opening\n  [A9]\n', 2),
    ('tree opening\n  1S  "one spade"  [A1]\n      = S >= 4\n    "a reply with no call"\n', 4),
    ('tree opening "1S"\n', 1),
])
def test_a_tree_line_without_a_call_is_refused_with_its_line(tmp_path, text, line):
    """Found by the fuzz run: a tree line starting with a quoted meaning or a reference
    raised AttributeError instead of saying which line lacks its call."""
    from canary_infer.system.model import SystemFileError, load_system

    p = tmp_path / "nocall.canary"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(SystemFileError) as e:
        load_system([p])
    assert e.value.line == line and "expected" in str(e.value)


def test_cp_sat_is_imported_without_pandas_and_pandas_still_imports_after():
    """OR-Tools' cp_model imports pandas (most of its import time) for helpers this package
    never uses: it is imported with a stand-in in pandas' place, which must not stay behind
    (a later ``import pandas`` gets the real module) and must not break the solver."""
    code = (
        "import sys\n"
        "from canary_infer.engine.cpsat import HandModel, cp_model\n"
        "from canary_infer.language.expr import parse\n"
        "assert 'pandas' not in sys.modules, 'pandas imported'\n"
        "m = HandModel()\n"
        "lit = m.add(parse('hcp >= 20 and S == 6'))\n"
        "print(m.feasible([lit], pattern=(6, 3, 2, 2)), m.feasible([lit], pattern=(5, 3, 3, 2)))\n"
        "import pandas\n"
        "print(int(pandas.Series([1, 2]).sum()), pandas.__name__ == 'pandas' and hasattr(pandas, 'read_csv'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "False", "3", "True"]
