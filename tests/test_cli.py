"""The ``infer`` command: the JSON contract, batch mode, --hand, text mode, help, entry points."""

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from canary_infer.bridge.auction import Auction
from canary_infer.ui.cli import COMMANDS, INFER_EPILOG, build_parser, main

SEATS = "NESW"
CALL = re.compile(r"^(?:[1-7][CDHSN]|P|X|XX)$")
PATTERN = re.compile(r"^(\d{1,2})-(\d{1,2})-(\d{1,2})-(\d{1,2})$")
CONTRACT = {"auction", "dealer", "calls", "hands", "trump", "deals", "error"}
KNOWN = "S:KQ2.A87.QJ54.962"  # 12 HCP, 3-3-4-3
POWERHOUSE = "S:AKQJT.AKQ.AKQ.AK"  # 35 HCP: the other three share 5




def infer_json(run, *argv):
    status, out, err = run("infer", "--json", *argv)
    assert status == 0, err
    assert out.endswith("\n") and out.count("\n") == 1  # one JSON object on one line
    return check_contract(json.loads(out))


def check_contract(obj: dict) -> dict:
    """The JSON contract of a successful inference, and its internal consistency."""
    assert CONTRACT <= set(obj)  # more keys may appear (README)
    assert obj["error"] is None
    assert obj["deals"] is None or (isinstance(obj["deals"], int) and obj["deals"] >= 0)
    assert obj["dealer"] in SEATS
    assert all(isinstance(c, str) and CALL.match(c) for c in obj["auction"])
    assert len(obj["calls"]) == len(obj["auction"])
    first = SEATS.index(obj["dealer"])
    for i, (c, call) in enumerate(zip(obj["calls"], obj["auction"], strict=True)):
        assert {"seat", "call", "defined", "meaning"} <= set(c)
        assert c["call"] == call
        assert c["seat"] == SEATS[(first + i) % 4]
        assert isinstance(c["defined"], bool)
        assert isinstance(c["meaning"], str) and c["meaning"]
    assert set(obj["hands"]) == set(SEATS)
    for seat, h in obj["hands"].items():
        assert {"consistent", "hcp", "lengths", "patterns"} <= set(h)
        assert isinstance(h["consistent"], bool)
        if not h["consistent"]:
            continue
        lo, hi = h["hcp"]
        assert isinstance(lo, int) and isinstance(hi, int) and 0 <= lo <= hi <= 37
        assert set(h["lengths"]) == set("SHDC")
        assert h["patterns"] and len(set(h["patterns"])) == len(h["patterns"])
        pats = []
        for p in h["patterns"]:
            m = PATTERN.match(p)
            assert m, p
            pats.append(tuple(int(x) for x in m.groups()))
            assert sum(pats[-1]) == 13, p
        for i, suit in enumerate("SHDC"):
            # the length ranges are exactly those of the patterns still possible
            assert h["lengths"][suit] == [min(p[i] for p in pats), max(p[i] for p in pats)], (seat, suit)
    return obj


# --------------------------------------------------------------------------- the JSON contract
def test_json_contract_after_two_relays(run):
    out = infer_json(run, "2S P 2N P 3C")
    assert out["auction"] == ["2S", "P", "2N", "P", "3C"] and out["dealer"] == "N"
    calls = out["calls"]
    assert [c["defined"] for c in calls] == [True, False, True, False, True]
    assert "spades" in calls[0]["meaning"] and calls[2]["meaning"] == "relay"
    north = out["hands"]["N"]
    assert north["consistent"] and north["hcp"] == [11, 16]
    assert north["lengths"] == {"S": [5, 6], "H": [3, 4], "D": [0, 1], "C": [4, 5]}
    assert set(north["patterns"]) == {"5-3-1-4", "5-4-0-4", "5-3-0-5", "6-3-0-4"}
    for seat in "ESW":  # the relayer and the silent defenders show nothing of their own, but share
        # the deck with North: at most 40 - 11 HCP, and what his lengths leave of each suit
        assert out["hands"][seat]["hcp"] == [0, 40 - 11]
        assert out["hands"][seat]["lengths"] == {"S": [0, 13 - 5], "H": [0, 13 - 3], "D": [0, 13],
                                                 "C": [0, 13 - 4]}


@pytest.mark.parametrize("argv,auction", [
    (["1nt pass 2c"], ["1N", "P", "2C"]),
    (["1s", "Dbl", "Rdbl"], ["1S", "X", "XX"]),
    (["1S, Pass - 2n"], ["1S", "P", "2N"]),
    (["2s", "p", "2N", "PASS", "3c"], ["2S", "P", "2N", "P", "3C"]),
])
def test_calls_are_canonicalised(run, argv, auction):
    out = infer_json(run, *argv)
    assert out["auction"] == auction
    assert [c["call"] for c in out["calls"]] == auction


def test_calls_off_the_tree_are_reported_undefined(run):
    out = infer_json(run, "1nt pass 2c")
    assert [c["seat"] for c in out["calls"]] == ["N", "E", "S"]
    assert out["calls"][0]["defined"] is True
    assert out["calls"][2]["defined"] is False
    assert out["hands"]["S"]["hcp"] == [0, 40 - 13]  # an undefined call adds nothing; 1N has 13+
    assert out["hands"]["N"]["hcp"] == [13, 16]


@pytest.mark.parametrize("dealer", ["E", "w"])
def test_dealer_changes_the_seats(run, dealer):
    out = infer_json(run, "1S", "--dealer", dealer)
    d = dealer.upper()
    assert out["dealer"] == d and out["calls"][0]["seat"] == d
    assert out["hands"][d]["hcp"] == [11, 16]
    assert out["hands"]["N"]["hcp"] == [0, 40 - 11]
    assert out["hands"][d]["lengths"]["S"][0] == 4


def test_an_unknown_dealer_is_a_usage_error(run):
    with pytest.raises(SystemExit) as e:
        run("infer", "1S", "--dealer", "Q")
    assert e.value.code == 2


# --------------------------------------------------------------------------- errors
@pytest.mark.parametrize("auction,kind,position", [
    ("1S 1D", "illegal", 1),
    ("1S 2Z", "syntax", 1),
    ("1S P foo", "syntax", 2),
    ("P P P P 1S", "illegal", 4),
    ("1S X X", "illegal", 2),
    ("1S P XX", "illegal", 2),
    ("8C", "syntax", 0),
])
def test_a_bad_auction_exits_2_with_an_error_object(run, auction, kind, position):
    status, out, err = run("infer", "--json", auction)
    assert status == 2
    obj = json.loads(out)
    assert set(obj) == CONTRACT
    assert obj["deals"] is None
    assert obj["error"]["kind"] == kind
    assert obj["error"]["position"] == position
    assert isinstance(obj["error"]["message"], str) and obj["error"]["message"]
    assert obj["dealer"] == "N"


def test_a_bad_auction_in_text_mode_goes_to_stderr(run):
    status, out, err = run("infer", "1S 1D")
    assert status == 2 and out == ""
    assert "illegal" in err and "1D" in err


# --------------------------------------------------------------------------- batch mode
def test_batch_mode_prints_one_object_per_line_in_order(run):
    lines = ["1nt pass 2c", "1S 1D", "2S P 2N P 3C", "1S 2Z", "1S"]
    status, out, err = run("infer", "--json", stdin="".join(line + "\n" for line in lines))
    assert status == 0, err
    objs = [json.loads(x) for x in out.splitlines()]
    assert len(objs) == len(lines)
    assert objs[0]["auction"] == ["1N", "P", "2C"] and check_contract(objs[0])
    assert objs[1]["error"]["kind"] == "illegal" and objs[1]["error"]["position"] == 1
    assert set(objs[1]) == CONTRACT
    assert check_contract(objs[2])["hands"]["N"]["hcp"] == [11, 16]
    assert objs[3]["error"]["kind"] == "syntax" and objs[3]["error"]["position"] == 1
    assert check_contract(objs[4])["auction"] == ["1S"]


def test_batch_mode_uses_the_dealer(run):
    status, out, _ = run("infer", "--json", "--dealer", "S", stdin="1S\n")
    obj = check_contract(json.loads(out))
    assert obj["dealer"] == "S" and obj["calls"][0]["seat"] == "S"


# --------------------------------------------------------------------------- --hand
def test_own_hand_is_reported_exactly_and_others_exclude_its_cards(run):
    plain = infer_json(run, "1S")
    out = infer_json(run, "1S", "--hand", KNOWN)
    me = out["hands"]["S"]
    assert me["consistent"] is True
    assert me["hcp"] == [12, 12]
    assert me["lengths"] == {"S": [3, 3], "H": [3, 3], "D": [4, 4], "C": [3, 3]}
    assert me["patterns"] == ["3-3-4-3"]
    # with three spades gone, North (4+ spades) holds at most 10 of the other 10
    assert plain["hands"]["N"]["lengths"]["S"] == [4, 12]
    assert out["hands"]["N"]["lengths"]["S"] == [4, 10]
    assert out["hands"]["N"]["hcp"] == [11, 16]
    for seat in "EW":  # 40 - 12 HCP left, of which North holds 11+; 9 diamonds left
        assert out["hands"][seat]["hcp"] == [0, 40 - 12 - 11]
        assert out["hands"][seat]["lengths"]["D"] == [0, 9]


def test_own_hand_can_leave_no_room_for_the_bidding(run):
    out = infer_json(run, "1S", "--hand", POWERHOUSE)
    assert out["hands"]["N"]["consistent"] is False  # 5 HCP left cannot open 1S (11-16)
    assert out["deals"] == 0  # so no deal fits, and no other seat holds anything either
    for seat in "EW":
        assert out["hands"][seat]["consistent"] is False and out["hands"][seat]["no_deal_because"] == ["N"]
        assert out["hands"][seat]["hcp"] is None
    assert out["hands"]["S"]["hcp"] == [35, 35]


def test_own_hand_that_contradicts_own_calls_is_inconsistent(run):
    out = infer_json(run, "1S", "--hand", "n:" + KNOWN[2:])  # a flat 12-count cannot open 1S
    assert out["hands"]["N"]["consistent"] is False
    assert out["hands"]["N"]["hcp"] is None and out["hands"]["N"]["breaks"] == [0]


@pytest.mark.parametrize("hand,words", [
    ("S:KQ2.A87.QJ54.96", "13"),
    ("KQ2.A87.QJ54.962", "SEAT:PBN"),
    ("Q:KQ2.A87.QJ54.962", "seat"),
    ("S:KQ2.A87.QJ54.96Z", "Z"),
    ("S:KQ2.A87.QJ54", "4 suits"),
    ("S:KQ2.A87.QJ54.9622", "twice"),
])
def test_a_malformed_hand_exits_2_with_a_message(run, hand, words):
    status, out, err = run("infer", "1S", "--hand", hand)
    assert status == 2 and out == ""
    assert err.startswith("error:") and words in err
    status, out, err = run("infer", "--json", "1S", "--hand", hand)  # with --json: an error object
    obj = json.loads(out)
    assert status == 2 and set(obj) == CONTRACT and err == ""
    assert obj["error"]["kind"] == "hand" and words in obj["error"]["message"]


# --------------------------------------------------------------------------- text mode
def seat_rows(text):
    return [line for line in text.splitlines() if re.match(r"^ [NESW] {5}", line)]


def test_text_mode_prints_the_calls_and_a_row_per_seat(run):
    status, out, err = run("infer", "2S P 2N P 3C")
    assert status == 0 and err == ""
    assert out.splitlines()[0].startswith("Auction: 2S P 2N P 3C") and "dealer N" in out.splitlines()[0]
    assert any("2S" in line and "[A36" in line for line in out.splitlines())
    assert any(line.startswith(" seat") and "HCP" in line for line in out.splitlines())
    rows = seat_rows(out)
    assert [r[1] for r in rows] == list(SEATS)
    north = rows[0].split()
    assert north[1:6] == ["11-16", "5-6", "3-4", "0-1", "4-5"]
    assert set(north[6:]) == {"5-3-1-4", "5-4-0-4", "5-3-0-5", "6-3-0-4"}


def test_text_mode_marks_undefined_calls_own_hand_and_impossible_seats(run):
    status, out, _ = run("infer", "1N P 2C", "--hand", POWERHOUSE)
    assert status == 0
    assert any(line.startswith(" ? S  2C") for line in out.splitlines())
    assert "? = " in out  # the legend
    rows = {r[1]: r for r in seat_rows(out)}
    assert set(rows) == set(SEATS)
    assert "no hand fits" in rows["N"]
    assert "(your hand)" in rows["S"] and "35" in rows["S"].split()


# --------------------------------------------------------------------------- help
def test_top_level_help(run, capsys):
    with pytest.raises(SystemExit) as e:
        main(["--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert "infer" in out and 'canary-infer infer "2S P 2N P 3C"' in out


def test_no_command_prints_help(run):
    status, out, _ = run()
    assert status == 0 and "usage:" in out and "infer" in out


def test_infer_help_shows_examples(run, capsys):
    with pytest.raises(SystemExit) as e:
        main(["infer", "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert "examples:" in out
    for option in ("--dealer", "--hand", "--json"):
        assert option in out
    assert "canary-infer infer" in out and "batch" in out


def _subcommands(parser):
    return next(a for a in parser._actions if a.dest == "command").choices


def test_a_parser_for_one_command_lists_them_all_and_parses_that_one_alike():
    full = build_parser()
    assert tuple(_subcommands(full)) == COMMANDS  # the list main() picks from is the parser's own
    for name in COMMANDS:
        one = build_parser(name)
        assert tuple(_subcommands(one)) == COMMANDS
        assert _subcommands(one)[name].format_help() == _subcommands(full)[name].format_help()
        others = [n for n in COMMANDS if n != name]
        assert all(len(_subcommands(one)[n]._actions) == 1 for n in others)  # -h alone
    argv = ["infer", "--json", "--hand", "S:KQ2.A87.QJ54.962", "--ask", "N: H >= 4", "1S", "P", "2S"]
    assert vars(build_parser("infer").parse_args(argv)) == vars(full.parse_args(argv))


def example_commands():
    """The ``canary-infer infer ...`` examples of ``infer --help`` (those that read no standard input)."""
    out = []
    for line in INFER_EPILOG.splitlines():
        command = re.split(r"\s{2,}", line.strip())[0]  # the description follows after a run of spaces
        if command.startswith("canary-infer infer "):
            out.append(shlex.split(command)[2:])
    return out


def test_every_help_example_runs(run):
    examples = example_commands()
    assert len(examples) >= 3
    for argv in examples:
        status, out, err = run("infer", *argv)
        assert status == 0, (argv, err)
        if "--json" in argv:
            check_contract(json.loads(out))
        else:
            assert len(seat_rows(out)) == 4


def test_help_example_names_the_seat_that_passed_first():
    line = next(line for line in INFER_EPILOG.splitlines() if '"P P 1S"' in line and "--dealer E" in line)
    first = Auction.parse("P P 1S", dealer="E").seat_of(0)
    m = re.search(r"(North|East|South|West) passed first", line)
    if m:
        assert m.group(1)[0] == first


# --------------------------------------------------------------------------- entry points
def checkout_env() -> dict:
    """The environment for a subprocess that must run this checkout's code, even where another
    copy of the package is installed (in CI the installed copy is this checkout)."""
    import os

    root = str(Path(__file__).resolve().parent.parent)
    env = {k: v for k, v in os.environ.items() if k != "CANARY_SYSTEM"}
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def test_python_dash_m(tmp_path):
    r = subprocess.run([sys.executable, "-m", "canary_infer", "infer", "--json", "2S P 2N P 3C"],
                       capture_output=True, text=True, timeout=120, cwd=tmp_path, env=checkout_env())
    assert r.returncode == 0, r.stderr
    obj = check_contract(json.loads(r.stdout))
    assert set(obj["hands"]["N"]["patterns"]) == {"5-3-1-4", "5-4-0-4", "5-3-0-5", "6-3-0-4"}


def test_console_script_in_batch_mode(tmp_path):
    script = Path(sys.executable).parent / "canary-infer"
    assert script.exists(), "the canary-infer console script is not installed beside the interpreter"
    r = subprocess.run([str(script), "infer", "--json"], input="2S P 2N P 3C\n1S 1D\n",
                       capture_output=True, text=True, timeout=120, cwd=tmp_path, env=checkout_env())
    assert r.returncode == 0, r.stderr
    first, second = (json.loads(x) for x in r.stdout.splitlines())
    assert check_contract(first)["auction"] == ["2S", "P", "2N", "P", "3C"]
    assert second["error"]["kind"] == "illegal" and second["error"]["position"] == 1


def test_a_process_of_its_own_freezes_the_system_for_the_collector(monkeypatch, capsys):
    """main() as the process's command (no arguments given) moves the loaded system out of the
    collector's sight (gc.freeze: it lives as long as the process); called with arguments, as
    a library or these tests call it, it leaves the collector alone."""
    import gc

    from canary_infer.ui import cli

    gc.unfreeze()
    assert cli.main(["infer", "--json", "2S"]) == 0
    assert gc.get_freeze_count() == 0
    monkeypatch.setattr(sys, "argv", ["canary-infer", "infer", "--json", "2S"])
    try:
        assert cli.main() == 0
        assert gc.get_freeze_count() > 10_000
    finally:
        gc.unfreeze()
    capsys.readouterr()
