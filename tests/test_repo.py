"""The repository's promises: the README's two commands, CI running the second, ruff clean."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def readme_commands():
    lines = (ROOT / "README.md").read_text().splitlines()
    start = lines.index("```sh")
    end = lines.index("```", start + 1)
    return lines[start + 1:end]


def test_readme_opens_with_two_commands():
    head = (ROOT / "README.md").read_text().splitlines()
    assert head[0].startswith("# ") and head[2] == "```sh"
    install_run, install_test = readme_commands()
    assert install_run.startswith("pip install . && ") and " infer " in install_run
    # -e: the tests import the source tree, which must hold the compiled kernels (see test_kernels)
    assert install_test.startswith("pip install -e '.[test]' && ") and "pytest" in install_test


def test_ci_runs_the_readme_test_command():
    script = (ROOT / ".ci" / "run").read_text()
    assert "sed -n 2p" in script and "README.md" in script and "python3 -m venv" in script
    out = subprocess.run(
        ["bash", "-c", "awk '/^```sh$/{inblock=1; next} inblock && /^```/{exit} inblock{print}' README.md | sed -n 2p"],
        cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    assert out == readme_commands()[1]


@pytest.mark.skipif(shutil.which("ruff") is None and not (Path(sys.executable).parent / "ruff").exists(),
                    reason="ruff is in the test extras")
def test_ruff_is_clean():
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    r = subprocess.run([ruff, "check", "."], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
