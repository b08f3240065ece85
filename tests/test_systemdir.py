"""Your own system files: ``--system DIR`` on every command, ``CANARY_SYSTEM``, and clear errors
for a folder that cannot be read."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import canary_infer
from canary_infer.system.folders import ENV, SystemDirError, choose, system_files
from canary_infer.system.model import builtin_dir
from canary_infer.tools.loader import load
from canary_infer.ui.cli import main

# A tiny system: 1S with a relay whose answers leave a gap, 1N, and Pass.
TINY = """\
define balanced = shape 4333 | 4432 | 5332

tree opening
  covers hcp >= 11
  P   "no opening"  [T1]
      = denies siblings
  1S  "11-16, five or more spades"  [T2]
      = hcp in 11..16 and S >= 5
    2N  "relay"  [T3]
      3C  "short clubs"  [T4]
          = C <= 1
      3D  "four or more hearts"  [T5]
          = H >= 4
  1N  "12-14 balanced"  [T6]
      = hcp in 12..14 and balanced
"""


@pytest.fixture
def tiny(tmp_path):
    d = tmp_path / "tiny"
    d.mkdir()
    (d / "10-tiny.canary").write_text(TINY, encoding="utf-8")
    return d


@pytest.fixture
def cli(monkeypatch, capsys):
    def _run(*argv, env=None):
        monkeypatch.delenv(ENV, raising=False)
        if env is not None:
            monkeypatch.setenv(ENV, str(env))
        status = main([str(a) for a in argv])
        out, err = capsys.readouterr()
        return status, out, err
    return _run


# --------------------------------------------------------------------------- the folder
def test_files_are_the_canary_files_in_name_order(tmp_path):
    for name in ("20-b.canary", "10-a.canary", "notes.txt", ".#10-a.canary", "30-c.canary~"):
        (tmp_path / name).write_text("", encoding="utf-8")
    assert [p.name for p in system_files(tmp_path)] == ["10-a.canary", "20-b.canary"]


def _a_file(d):
    (d / "f.canary").write_text("tree opening\n", encoding="utf-8")
    return d / "f.canary"


@pytest.mark.parametrize("make,words", [
    (lambda d: d / "missing", "no such folder"),
    (_a_file, "not a folder"),
    (lambda d: d, "no .canary files"),
])
def test_a_folder_that_cannot_be_a_system_is_a_clear_error(tmp_path, make, words):
    where = make(tmp_path)
    with pytest.raises(SystemDirError) as e:
        system_files(where)
    assert words in str(e.value) and str(where) in str(e.value)


def test_the_option_wins_over_the_variable_and_builtin_names_the_shipped_files(tiny):
    env = {ENV: "/elsewhere"}
    assert choose(str(tiny), environ=env).directory == tiny
    assert choose(None, environ=env).directory.as_posix() == "/elsewhere"
    assert choose(None, environ=env).origin == ENV
    assert choose(None, environ={}).directory is None
    assert choose(None, environ={ENV: "  "}).directory is None  # an empty variable is no variable
    assert choose("builtin", environ=env).directory is None
    assert choose(None, environ={ENV: "builtin"}).directory is None


def test_load_reads_a_folder_and_the_builtin(tiny):
    s = load(tiny)
    assert set(s.root("opening").children) == {"P", "1S", "1N"}
    assert "2N" in load(None).root("opening").children


def test_a_file_that_is_not_text_is_a_clear_error(tiny):
    (tiny / "20-bad.canary").write_bytes(b"tree opening\n  1C \xff\xfe\n")
    with pytest.raises(SystemDirError) as e:
        load(tiny)
    assert "20-bad.canary" in str(e.value) and "UTF-8" in str(e.value)


# --------------------------------------------------------------------------- every command reads the folder
def test_infer_reads_the_given_system(cli, tiny):
    status, out, err = cli("infer", "1N", "--json", "--system", tiny)
    assert status == 0, err
    obj = json.loads(out)
    assert obj["hands"]["N"]["hcp"] == [12, 14]
    assert obj["calls"][0]["source"] == "T6"
    status, out, _ = cli("infer", "1N", "--json")  # the built-in system: 13-16
    assert json.loads(out)["hands"]["N"]["hcp"] == [13, 16]


def test_infer_in_batch_mode_reads_the_given_system(cli, tiny, monkeypatch):
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO("1N\n1S P 2N P 3C\n"))
    status, out, err = cli("infer", "--json", "--system", tiny)
    assert status == 0, err
    first, second = (json.loads(x) for x in out.splitlines())
    assert first["hands"]["N"]["hcp"] == [12, 14]
    assert second["hands"]["N"]["lengths"]["C"] == [0, 1]


def test_the_variable_is_read_and_the_option_wins(cli, tiny):
    status, out, _ = cli("infer", "1N", "--json", env=tiny)
    assert json.loads(out)["hands"]["N"]["hcp"] == [12, 14]
    status, out, _ = cli("infer", "1N", "--json", "--system", "builtin", env=tiny)
    assert json.loads(out)["hands"]["N"]["hcp"] == [13, 16]


def test_bid_reads_the_given_system(cli, tiny):
    hand = "KJ2.QJ3.KJ32.A32"  # 15 HCP 4333-ish: 1N in the built-in system, none in the tiny one
    status, out, _ = cli("bid", hand, "--json")
    assert json.loads(out)["calls"] == ["1N"]
    status, out, err = cli("bid", hand, "--json", "--system", tiny)
    assert status == 0, err
    obj = json.loads(out)
    assert obj["calls"] == ["P"] and {c["call"] for c in obj["considered"]} == {"P", "1S", "1N"}


def test_verify_relays_and_check_system_read_the_given_system(cli, tiny):
    status, out, err = cli("verify-relays", "--json", "--system", tiny)
    assert status == 0, err
    tree, = json.loads(out)["trees"]
    assert tree["start"] == "1S P 2N" and len(tree["gaps"]) == 1 and len(tree["overlaps"]) == 1
    status, out, err = cli("check-system", "--json", "--system", tiny)
    assert status == 0, err
    obj = json.loads(out)
    assert {g["auction"] for g in obj["gaps"]} == {"", "P P", "1S P 2N"}


def test_selfcheck_reads_the_given_system(cli, tiny):
    status, out, err = cli("selfcheck", "--deals", "40", "--seed", "2", "--json", "--system", tiny)
    assert status == 0, err
    obj = json.loads(out)
    assert obj["deals"] == 40 and obj["violations"] == 0
    # the tiny system has no answer for a 1S opener with 2+ clubs and 3- hearts after the relay
    for e in obj["examples"]:
        assert e["kind"] != "violation"


# --------------------------------------------------------------------------- errors: exit 2, a message, a JSON object
COMMANDS = [["infer", "1S"], ["bid", "KJ2.QJ3.KJ32.A32"], ["verify-relays"], ["check-system"],
            ["selfcheck", "--deals", "1"]]


@pytest.mark.parametrize("argv", COMMANDS)
def test_every_command_reports_a_missing_folder(cli, tmp_path, argv):
    status, out, err = cli(*argv, "--system", tmp_path / "nowhere")
    assert status == 2 and out == ""
    assert err.startswith("error:") and "no such folder" in err and "nowhere" in err
    status, out, err = cli(*argv, "--json", "--system", tmp_path / "nowhere")
    assert status == 2
    obj = json.loads(out)
    assert obj["error"]["kind"] == "system" and "no such folder" in obj["error"]["message"]


@pytest.mark.parametrize("argv", COMMANDS)
def test_every_command_reports_an_empty_folder_and_a_bad_file(cli, tmp_path, argv):
    status, out, err = cli(*argv, "--system", tmp_path)
    assert status == 2 and "no .canary files" in err
    (tmp_path / "10-x.canary").write_text("tree opening\n  1S  \"spades\"\n      = S >= \n", encoding="utf-8")
    status, out, err = cli(*argv, "--json", "--system", tmp_path)
    assert status == 2
    e = json.loads(out)["error"]
    assert e["kind"] == "system" and e["path"].endswith("10-x.canary") and e["line"] == 3


def test_the_variable_names_itself_in_the_error(cli, tmp_path):
    status, _, err = cli("infer", "1S", env=tmp_path / "gone")
    assert status == 2 and "gone" in err and ENV in err


def test_the_json_error_of_infer_keeps_the_contract(cli, tmp_path):
    status, out, _ = cli("infer", "1S P 2N", "--json", "--system", tmp_path / "nowhere")
    obj = json.loads(out)
    assert set(obj) == {"auction", "dealer", "calls", "hands", "error"}
    assert obj["auction"] == ["1S", "P", "2N"] and obj["dealer"] == "N"


@pytest.mark.parametrize("command", ["infer", "explain", "bid", "verify-relays", "check-system", "selfcheck",
                                     "diff-system", "export-system", "serve"])
def test_every_command_documents_the_option(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    out = capsys.readouterr().out
    assert "--system DIR" in out and "CANARY_SYSTEM" in out


def test_the_command_line_reads_an_edited_copy_of_the_builtin_system(tmp_path):
    """The designer's workflow: copy the built-in folder, edit it, run the tool on the copy."""
    d = tmp_path / "mine"
    d.mkdir()
    edited = 0
    for f in builtin_dir().iterdir():
        if f.name.endswith(".canary"):
            text = f.read_text(encoding="utf-8")
            edited += text.count("= hcp in 23..24 and balanced")
            (d / f.name).write_text(text.replace("= hcp in 23..24 and balanced", "= hcp in 22..24 and balanced"),
                                    encoding="utf-8")
    assert edited == 1
    r = subprocess.run([sys.executable, "-m", "canary_infer", "infer", "--json", "2N"],
                       capture_output=True, text=True, timeout=120, cwd=tmp_path,
                       env={**_env(), ENV: str(d)})
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["hands"]["N"]["hcp"] == [22, 24]


def _env():
    import os

    env = {k: v for k, v in os.environ.items() if k != ENV}
    env["CANARY_INFER_CACHE"] = "off"
    env["CANARY_SYSTEM_CHECK"] = "off"  # the engine's walk of a whole system has its own tests (test_format)
    root = str(Path(canary_infer.__file__).resolve().parent.parent)  # this checkout's code, not another copy
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def test_a_source_checkout_reads_its_own_builtin_files():
    """Even where another copy of the package is installed (say, editable, from another checkout)."""
    here = Path(canary_infer.__file__).resolve().parent.parent / "constraints"
    assert Path(str(builtin_dir())).resolve() == here.resolve()
    ours = sorted(p.name for p in here.iterdir() if p.name.endswith(".canary"))
    assert ours and sorted(Path(f).name for f in load(None).files) == ours


def test_explain_export_and_the_file_modes_read_the_given_system(cli, tiny, tmp_path):
    status, out, err = cli("explain", "1N", "--json", "--system", tiny)
    assert status == 0, err
    assert "12-14 balanced" in out and "T6" in out
    status, out, err = cli("export-system", "--format", "bml", env=tiny)
    assert status == 0, err
    assert "12-14 balanced" in out and "five or more spades" in out
    status, out, err = cli("infer", "1N", "--to", "pbn", "--system", tiny)
    assert status == 0, err
    assert "12-14 balanced" in out
    status, out, err = cli("explain", "1N", "--system", tmp_path / "nowhere")
    assert status == 2 and "no such folder" in err
    status, out, err = cli("export-system", "--format", "bml", "--system", tmp_path / "nowhere")
    assert status == 2 and "no such folder" in err


def test_a_system_of_ones_own_with_a_call_no_hand_can_make_is_refused_at_load(tmp_path, monkeypatch):
    from canary_infer.system.model import SystemFileError
    from canary_infer.tools.loader import load

    monkeypatch.setenv("CANARY_SYSTEM_CHECK", "on")
    d = tmp_path / "mine"
    d.mkdir()
    (d / "a.canary").write_text('tree opening\n  1S  "spades"  [A1]\n      = S >= 5\n'
                                '    1N  "relay"  [A2]\n      2C  "short spades"  [A3]\n          = S <= 2\n',
                                encoding="utf-8")
    with pytest.raises(SystemFileError) as e:
        load(d)
    assert e.value.line == 5 and "no hand can make 1S P 1N P 2C" in e.value.reason
    (d / "a.canary").write_text('tree opening\n  1S  "spades"  [A1]\n      = S >= 5\n', encoding="utf-8")
    assert "1S" in load(d).root().children
