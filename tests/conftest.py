import os

import pytest

# The tests compute everything afresh: no results from an earlier run's disk cache.
os.environ["CANARY_INFER_CACHE"] = "off"
# A loaded and checked system is kept once per version of the files (and of the loader); the tests
# keep theirs in a folder of this run's own, so that the many processes the tests start do not each
# parse the files and walk the whole system again, and nothing is written to the user's cache.
import tempfile  # noqa: E402

os.environ["CANARY_INFER_SYSTEM_CACHE"] = tempfile.mkdtemp(prefix="canary-systems-")
# ... and read the built-in system unless a test says otherwise, whatever the developer's shell says.
os.environ.pop("CANARY_SYSTEM", None)
# the engine's walk of a whole system of one's own at load (minutes for a copy of the built-in
# files) is tested on small systems where it is on (test_systemdir, test_format)
os.environ["CANARY_SYSTEM_CHECK"] = "off"

from canary_infer.deal.infer import Inferencer
from canary_infer.system.model import builtin_dir, load_system

# The hand words, the openings and the 2H/2S relays: about 950 calls, for the tests that walk
# every call of a system (exports, readers of other tools) and would take minutes on all of it.
SMALL_FILES = ("10-evaluation.canary", "20-openings.canary", "30-two-major-relays.canary")


@pytest.fixture(scope="session")
def system():
    return load_system()


@pytest.fixture(scope="session")
def small_system_dir(tmp_path_factory):
    """A folder with a copy of :data:`SMALL_FILES` of the built-in system."""
    folder = tmp_path_factory.mktemp("small") / "system"
    folder.mkdir()
    for name in SMALL_FILES:
        (folder / name).write_text((builtin_dir() / name).read_text(encoding="utf-8"), encoding="utf-8")
    return folder


@pytest.fixture(scope="session")
def small_system(small_system_dir):
    return load_system(sorted(small_system_dir.glob("*.canary")))


@pytest.fixture(scope="session")
def inferencer(system):
    return Inferencer(system)


@pytest.fixture
def run(inferencer, monkeypatch, capsys):
    """``canary-infer ARGS`` in-process with the session's inferencer; -> (status, stdout, stderr).
    ``stdin`` is text or bytes (read as UTF-8, as a terminal's would be)."""
    import io
    import sys

    from canary_infer.ui.cli import main

    monkeypatch.setattr("canary_infer.deal.infer.Inferencer", lambda *a, **k: inferencer)

    def _run(*argv, stdin=None):
        if isinstance(stdin, bytes):
            monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"))
        elif stdin is not None:
            monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        status = main([str(a) for a in argv])
        out, err = capsys.readouterr()
        return status, out, err
    return _run

