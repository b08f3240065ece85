"""Inputs at the edges get a clear error within a second: huge or foreign numbers, odd line ends,
arguments beyond what a machine can hold."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fuzz_targets import make_special

from canary_infer.bridge.auction import Auction, AuctionError

ROOT = Path(__file__).resolve().parent.parent


def _run(*args, stdin=None, timeout=60):
    return subprocess.run([sys.executable, "-m", "canary_infer", *args], input=stdin, capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT, env={**os.environ, "CANARY_INFER_CACHE": "off"})


@pytest.mark.parametrize("text, why", [
    ("1" * 4301, "level 111111111111... is not 1-7"),  # past Python's int() limit of 4,300 digits
    ("9" * 5000 + "S", "is not 1-7"),
    ("\u0661S", "'\u0661' is not one of the digits 1-7"),  # an Arabic-Indic one: \\d took it for a level
    ("\uff11S", "is not one of the digits 1-7"),  # a fullwidth one
])
def test_a_call_with_a_foreign_or_huge_number_is_a_syntax_error(text, why):
    with pytest.raises(AuctionError) as e:
        Auction.parse(text)
    assert e.value.kind == "syntax" and e.value.position == 0
    assert why in str(e.value) and len(str(e.value)) < 200


def test_a_huge_call_in_a_batch_is_one_line_s_error_and_the_batch_goes_on():
    r = _run("infer", "--json", stdin="1" * 4301 + "\n2S P 2N\n")
    assert r.returncode == 0 and "Traceback" not in r.stderr
    first, second = (json.loads(line) for line in r.stdout.splitlines())
    assert first["error"]["kind"] == "syntax"
    assert second["auction"] == ["2S", "P", "2N"] and second["error"] is None


@pytest.mark.parametrize("ends", ["\r", "\r\n", "\n"])
def test_batch_lines_may_end_in_cr_crlf_or_lf(ends):
    r = _run("infer", "--json", stdin=f"1S{ends}2S P 2N{ends}")
    assert [json.loads(line)["auction"] for line in r.stdout.splitlines()] == [["1S"], ["2S", "P", "2N"]]


@pytest.mark.parametrize("args, says", [
    (["deal", "1S", "-n", "1000000000"], "from 1 to 1,000,000"),
    (["deal", "1S", "--seed", "-1"], "from 0 to"),
    (["deal", "1S", "-n", "\u0662"], "is not a whole number"),
    (["infer", "1S", "--prob", "--samples", "0"], "from 1 to 200,000"),
    (["infer", "1S", "--prob", "--samples", "10000000"], "from 1 to 200,000"),
    (["infer", "1S", "--prob", "--samples", "-5"], "from 1 to 200,000"),
    (["serve", "--port", "70000"], "from 0 to 65,535"),
    (["serve", "--port", "-1"], "from 0 to 65,535"),
    (["selfcheck", "--deals", "1000000000"], "from 1 to 10,000,000"),
    (["selfcheck", "--deals", "1" * 5000], "give a whole number"),
])
def test_numbers_beyond_what_a_machine_holds_are_refused_at_once(args, says):
    r = _run(*args, timeout=20)
    assert r.returncode == 2
    assert says in r.stderr and "Traceback" not in r.stderr


def test_a_scheduler_that_does_not_answer_is_an_error_not_a_traceback():
    pytest.importorskip("distributed")
    r = _run("selfcheck", "--deals", "10", "--engine", "dask", "--scheduler", "tcp://127.0.0.1:9", timeout=60)
    assert r.returncode == 2
    assert "no Dask scheduler answers" in r.stderr and "Traceback" not in r.stderr


def _nested(levels: int) -> str:
    q = "hcp >= 0"
    for i in range(levels):
        q = f"all x{i} in suits: ({q})"
    return q


@pytest.mark.parametrize("text, says", [
    (_nested(8), "expands to more than 20,000 conditions"),  # 4^8 conditions: 23 s and 345 MB before
    ("not " * 1000 + "hcp >= 1", "nested too deeply"),  # a RecursionError before
])
def test_an_ask_that_would_explode_is_refused_at_once(text, says):
    import time

    t = time.perf_counter()
    r = _run("infer", "1S", "--ask", f"N: {text}", timeout=30)
    assert r.returncode == 2 and says in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr) < 400  # the text is quoted shortened
    assert time.perf_counter() - t < 15


@pytest.mark.parametrize("defines, use, line, says", [
    (["define d0 = hcp >= 1"] + [f"define d{i} = d{i - 1} and d{i - 1}" for i in range(1, 19)], "d18", None,
     "expands to more than 20,000 conditions"),  # sharing lost: 2^18 (31 s and more before)
    ([], "not " * 1000 + "hcp >= 1", 3, "nested too deeply"),
    ([], _nested(8), 3, "expands to more than 20,000 conditions"),
])
def test_a_system_file_that_would_explode_is_refused_with_its_line(defines, use, line, says):
    from canary_infer.system.model import SystemFileError, load_text

    text = "\n".join(defines + ["tree opening", '  1C "x" [A1]', f"      = {use}", ""])
    with pytest.raises(SystemFileError) as e:
        load_text(text, "mine.canary")
    assert says in str(e.value) and e.value.path == "mine.canary"
    if line is not None:
        assert e.value.line == line


@pytest.mark.parametrize("kind, says", [("folder", "a folder"), ("dangling", "a link to nothing"),
                                        ("loop", "a link that loops"), ("fifo", "a device, pipe or socket"),
                                        ("zero", "a device, pipe or socket")])
def test_a_canary_entry_that_is_no_file_is_named_not_skipped(tmp_path, kind, says):
    from canary_infer.system.folders import SystemDirError, system_files

    (tmp_path / "10-a.canary").write_text('tree opening\n  1C "x" [A1]\n      = hcp >= 12\n')
    bad = tmp_path / "20-b.canary"
    make_special(bad, kind)
    with pytest.raises(SystemDirError) as e:
        system_files(tmp_path)
    assert e.value.path == str(bad) and says in str(e.value)
    r = _run("infer", "1C", "--system", str(tmp_path), timeout=30)
    assert r.returncode == 2 and says in r.stderr and "Traceback" not in r.stderr


def test_a_long_chain_of_definitions_loads_in_linear_time():
    """Each definition using the one before (a RecursionError, and quadratic, before): built once
    each and shared, as the file shares them."""
    import time

    from canary_infer.language.expr import Or, parse
    from canary_infer.system.model import load_text

    lines = ["define c0 = hcp >= 1"] + [f"define c{i} = c{i - 1} or S >= {i % 13}" for i in range(1, 1000)]
    t = time.perf_counter()
    s = load_text("\n".join(lines + ["tree opening", '  1C "x" [A1]', "      = c999", ""]), "mine.canary")
    assert time.perf_counter() - t < 10
    formula = parse("c999", s.definitions)
    assert isinstance(formula, Or) and len(formula.items) == 1000



@pytest.mark.parametrize("text, line, says", [
    ('tree opening\n  1C "x" [A1]\n      = pattern 5-3-1-x1\n', 3, "each length is a number from 0 to 13"),
    ("tree opening\n" + "".join("  " * (d + 1) + ("1C" if d == 0 else "P") + f' "x" [A{d + 1}]\n' for d in range(1000)),
     122, "nested more than 120 deep"),  # a RecursionError before
    ('option o "x"\n  note "y"\ntree opening\n  1C "x" [A1]\n      = hcp >= 12\n', 2, "nothing is indented"),
    ('tree opening\n  1C "x" [A1]\n      = hcp >= 12\n    1D "y" [A2]\n        same as "text"\n', 5, "same as"),
])
def test_a_malformed_system_file_is_an_error_with_its_line(text, line, says):
    from canary_infer.system.model import SystemFileError, load_text

    with pytest.raises(SystemFileError) as e:
        load_text(text, "mine.canary")
    assert e.value.line == line and says in str(e.value)


@pytest.mark.parametrize("target, says", [("/dev/full", "not a regular file"), ("/nonexistent/x.bml", "does not exist"),
                                          ("/tmp", "is a folder")])
def test_export_refuses_an_unwritable_output_before_any_work(target, says):
    r = _run("export-system", "--format", "bml", "--depth", "1", "-o", target, timeout=60)
    assert r.returncode == 2 and says in r.stderr and "Traceback" not in r.stderr


def test_a_pbn_file_with_a_5_mb_note_is_read_in_little_memory(tmp_path):
    """A tag's value was matched with a backtracking point per character: 1.3 GB for one 5 MB
    note.  Read in a process of its own, whose peak memory is measured."""
    src = tmp_path / "big.pbn"
    src.write_text('[Board "1"]\n[Dealer "N"]\n[Vulnerable "None"]\n'
                   '[Deal "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"]\n'
                   '[Auction "N"]\n1S =1= Pass Pass Pass\n[Note "1:' + "x" * (5 << 20) + '"]\n')
    # the child's own peak (VmHWM is the process image's; ru_maxrss would carry the parent's over exec)
    code = ("import sys; from canary_infer.bridge.pbn import read_pbn; "
            "from canary_infer.bridge.auction import Auction; text = open(sys.argv[1]).read(); "
            "(b,) = read_pbn(text); Auction.from_pbn(text); "
            "print(next(int(x.split()[1]) for x in open('/proc/self/status') if x.startswith('VmHWM')) // 1024)")
    r = subprocess.run([sys.executable, "-c", code, str(src)], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert r.returncode == 0, r.stderr
    assert int(r.stdout) < 300  # MB: the file's text a few times over, not a thousand


@pytest.mark.parametrize("hi, says", [("40", "step 40 would be above 7N"), ("100000", "expected 'step N"),
                                      ("99999999999999", "expected 'step N"), ("\u0661\u0662", "expected 'step N")])
def test_steps_past_7n_or_huge_are_refused_at_once(hi, says):
    """`step k for k in 1..100000` made every step first (200 s); 1..99999999999999 filled memory."""
    import time

    from canary_infer.system.model import SystemFileError, load_text

    text = "\n".join(['schedule s(M) "x"  [A1]', f'  step k for k in 1..{hi}  "{{k}}"  = M >= 1',
                      "tree opening", '  1C "x" [A1]', "      = hcp >= 12", ""])
    t = time.perf_counter()
    with pytest.raises(SystemFileError) as e:
        load_text(text, "mine.canary")
    assert e.value.line == 2 and says in str(e.value)
    assert time.perf_counter() - t < 5
