"""The designer's loop on the whole built-in system (issue 35): copy ``constraints/``, load the
copy through the same loader and check as the built-in files, and get the same answers.

These run the designer's commands at full size (some 300,000 calls), so that size cannot break
them silently again; each says what it costs.
"""

from __future__ import annotations

import shutil

import pytest

from canary_infer.system.model import SystemFileError, builtin_dir
from canary_infer.tools import lint
from canary_infer.tools.loader import load
from canary_infer.ui.cli import main

# a few auctions of every part of the tree: openings, relays, competition, defence, slam
AUCTIONS = ("2N", "1C P 1D P 1H", "1S P 2H P 2N P 3C", "1D X 1H 1S P 2S", "1H P 2N P 3H P 3S P 3N",
            "1N P 2C P 2D", "P P 1S", "2D P 2H P 2S P 2N")


@pytest.fixture(scope="module")
def copy(tmp_path_factory):
    """An unchanged copy of the built-in files in a folder of its own."""
    d = tmp_path_factory.mktemp("designer") / "mine"
    shutil.copytree(builtin_dir(), d, ignore=shutil.ignore_patterns("__pycache__", "*.py", "*.md"))
    return d


def _run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_an_unchanged_copy_is_accepted_and_the_builtin_files_pass_the_same_check(copy, monkeypatch, capsys):
    """About 20 s: the copy is parsed and the engine walks every call of it once (the built-in
    files then answer from what that walk kept: the same text under the same file names)."""
    monkeypatch.setenv("CANARY_SYSTEM_CHECK", "on")
    mine = load(copy)
    assert [p.rsplit("/", 1)[-1] for p in mine.files] == sorted(p.name for p in builtin_dir().glob("*.canary"))
    assert lint.check(load(None), _kept()) == []
    for auction in AUCTIONS:  # byte for byte the same answers
        a = _run(capsys, "infer", "--json", "--system", copy, *auction.split())
        b = _run(capsys, "infer", "--json", *auction.split())
        assert a[0] == b[0] == 0 and a[1] == b[1], auction


def _kept():
    from canary_infer.system.cache import folder

    return folder()


DEAD = 'tree opening\n  1S  "spades"  [A1]\n      = S >= 5\n    1N  "relay"  [A2]\n' \
       '      2C  "short spades"  [A3]\n          = S <= 2\n'


def test_a_message_names_the_files_read_not_those_an_earlier_run_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("CANARY_SYSTEM_CHECK", "on")
    monkeypatch.setenv("CANARY_INFER_SYSTEM_CACHE", str(tmp_path / "kept"))
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    (first / "a.canary").write_text(DEAD, encoding="utf-8")
    with pytest.raises(SystemFileError) as e:
        load(first)
    assert str(first) in str(e.value) and e.value.line == 5
    shutil.copytree(first, second)
    with pytest.raises(SystemFileError) as e:  # the same text: the kept answer, named by these files
        load(second)
    assert str(second / "a.canary") in str(e.value) and str(first) not in str(e.value)
    assert e.value.path == str(second / "a.canary") and e.value.line == 5


def test_a_line_that_is_unplayable_at_some_points_only_is_not_refused(tmp_path, monkeypatch):
    """A block's grand-slam ask that a cue bid made hopeless at one point [B33, B60] is the rule
    applied, not a mistake; a line that no hand can ever use is one."""
    monkeypatch.setenv("CANARY_SYSTEM_CHECK", "on")
    monkeypatch.setenv("CANARY_INFER_SYSTEM_CACHE", "off")
    d = tmp_path / "mine"
    d.mkdir()
    (d / "a.canary").write_text(
        'block ask(T)\n  4N  "ask"  [A1]\n    5C  "no ace"  [A2]\n        = aces == 0\n'
        'tree opening\n  1S  "spades"  [A3]\n      = S >= 5\n    2N  "aces"  [A4]\n'
        '      3C  "one ace"  [A5]\n          = aces == 1\n        include ask(S)\n'
        '      3D  "no ace"  [A6]\n          = aces == 0\n        include ask(S)\n', encoding="utf-8")
    s = load(d)
    assert [e.line for e in lint.unsatisfiable(s)] == [3]  # still reported by check-system
