"""The README's examples run as written and print what the README shows.

Every code block that starts with ``$ canary-infer ...`` is run (as ``python -m canary_infer``,
from this checkout) and its output compared with the block, line by line in order: a line shown
is a line printed (a line ending in ``...`` or ``…`` only up to there; a line of ``...`` alone
stands for any lines left out).  Every ``python`` block is run as a script.
"""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"^```(\w*)\n(.*?)^```", README, flags=re.M | re.S)
COMMANDS = [body for lang, body in BLOCKS if body.startswith("$ canary-infer ")]
SCRIPTS = [body for lang, body in BLOCKS if lang == "python"]


def _shown(line: str) -> str | None:
    """What of a shown line must be printed: the text before an ellipsis, or None for a gap."""
    s = line.rstrip()
    if s.strip() in ("...", "…"):
        return None
    for mark in (" ...", "…", "..."):
        if s.endswith(mark):
            return s[: -len(mark)].rstrip()
    return s


def test_the_readme_has_examples_to_run():
    assert len(COMMANDS) >= 3 and SCRIPTS


@pytest.mark.parametrize("block", COMMANDS, ids=[b.splitlines()[0][2:60] for b in COMMANDS])
def test_a_command_of_the_readme_prints_what_it_shows(block):
    first, *shown = block.rstrip("\n").split("\n")
    argv = shlex.split(first[len("$ canary-infer "):])
    r = subprocess.run([sys.executable, "-m", "canary_infer", *argv], capture_output=True, text=True, cwd=ROOT,
                       env={**os.environ, "CANARY_INFER_CACHE": "off", "COLUMNS": "200"}, timeout=300)
    assert r.returncode == 0, r.stderr
    printed = [line.rstrip() for line in r.stdout.splitlines()]
    at = 0
    for line in shown:
        want = _shown(line)
        if want is None or not want.strip():
            continue
        while at < len(printed) and not printed[at].startswith(want):
            at += 1
        assert at < len(printed), f"the README shows a line that is not printed (in this order):\n{line}\n" \
                                  f"printed:\n{r.stdout}"
        at += 1


@pytest.mark.parametrize("script", SCRIPTS)
def test_a_python_example_of_the_readme_runs(script):
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT,
                       env={**os.environ, "CANARY_INFER_CACHE": "off"}, timeout=300)
    assert r.returncode == 0, r.stderr
