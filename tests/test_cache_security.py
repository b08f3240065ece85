"""The caches on disk cannot be used against their user: an entry planted by someone else is
never unpickled, a folder another user owns or can write is refused, and an entry that is not a
regular file (a FIFO, a device, a link) is never opened."""

import hashlib
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from canary_infer.system import cache as syscache
from canary_infer.system.model import load_system

ROOT = Path(__file__).resolve().parent.parent
SMALL = 'tree opening\n  1C "clubs" [A1]\n      = hcp >= 12\n'


class _Payload:
    """What a planted pickle runs when it is loaded: it writes a marker file."""

    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):
        return (Path.write_text, (Path(self.marker), "ran"))


def _run(*args, env, timeout=60):
    return subprocess.run([sys.executable, "-m", "canary_infer", *args], capture_output=True, text=True,
                          env={**os.environ, "CANARY_INFER_CACHE": "off", **env}, cwd=ROOT, timeout=timeout)


@pytest.fixture
def small(tmp_path):
    d = tmp_path / "system"
    d.mkdir()
    (d / "a.canary").write_text(SMALL)
    return sorted(d.glob("*.canary"))


@pytest.mark.parametrize("digest", ["sha256", "other key"])
def test_a_planted_entry_is_never_unpickled(tmp_path, monkeypatch, small, digest):
    where = tmp_path / "systems"
    monkeypatch.setenv(syscache.ENV, str(where))
    fresh = load_system(small)
    entry, = where.glob("system-*.pickle")
    k = entry.read_bytes()[len(syscache.MAGIC):].split(b"\n", 1)[0].decode()
    marker = tmp_path / "ran"
    payload = pickle.dumps(_Payload(str(marker)))
    # what an attacker can compute: a plain digest, or a keyed one with a key of his own
    sign = hashlib.sha256(payload).hexdigest().encode() if digest == "sha256" \
        else syscache._digest(os.urandom(32), payload)
    entry.write_bytes(syscache.MAGIC + k.encode() + b"\n" + sign + b"\n" + payload)
    again = load_system(small)
    assert not marker.exists(), "the planted entry's code ran"
    assert again == fresh
    assert syscache._digest(syscache.secret(where), pickle.dumps(again, protocol=pickle.HIGHEST_PROTOCOL)) \
        in entry.read_bytes(), "the planted entry was replaced by a true one"


def test_the_key_is_readable_by_its_owner_only(tmp_path, monkeypatch, small):
    where = tmp_path / "systems"
    monkeypatch.setenv(syscache.ENV, str(where))
    load_system(small)
    assert (where / "key").stat().st_mode & 0o777 == 0o600
    assert where.stat().st_mode & 0o077 == 0
    (where / "key").chmod(0o644)  # a key others could read is no key: nothing is kept or believed
    assert syscache.secret(where) is None


@pytest.mark.skipif(os.getuid() != 0, reason="giving a folder to another user needs root")
def test_a_folder_another_user_owns_is_refused(tmp_path):
    where = tmp_path / "theirs"
    where.mkdir(mode=0o755)
    os.chown(where, 12345, 12345)
    r = _run("infer", "1S", env={syscache.ENV: str(where)})
    assert r.returncode == 2
    assert "belongs to another user" in r.stderr and str(where) in r.stderr
    assert not any(where.iterdir())


def test_a_folder_others_can_write_is_refused(tmp_path):
    where = tmp_path / "shared"
    where.mkdir()
    where.chmod(0o777)
    r = _run("infer", "1S", "--json", env={syscache.ENV: str(where)})
    assert r.returncode == 2
    assert "can be written by other users" in r.stdout
    assert not any(where.iterdir())


@pytest.mark.parametrize("kind", ["fifo", "device", "link"])
def test_an_entry_that_is_not_a_regular_file_is_never_opened(tmp_path, monkeypatch, small, kind):
    where = tmp_path / "systems"
    monkeypatch.setenv(syscache.ENV, str(where))
    fresh = load_system(small)
    entry, = where.glob("system-*.pickle")
    good = entry.read_bytes()
    entry.unlink()
    if kind == "fifo":
        os.mkfifo(entry)
    elif kind == "device":
        entry.symlink_to("/dev/zero")
    else:
        (tmp_path / "elsewhere").write_bytes(good)
        entry.symlink_to(tmp_path / "elsewhere")
    assert load_system(small) == fresh  # loaded from the files (the read would hang on a FIFO)
    assert entry.is_file() and not entry.is_symlink()  # and kept anew, as a file of its own


DEAD = '''
tree opening
  1S  "spades"  [A1]
      = S >= 5
    1N  "relay"  [A2]
      2C  "short spades"  [A3]
          = S <= 1
'''


@pytest.mark.parametrize("planted", ["[]", '{"found": [], "digest": "0"}', '[["p", 1e999, "r"]]',
                                     '{"found": [[0, 1e999, "r"]], "digest": "0"}', "\x00not json"])
def test_a_planted_check_stamp_neither_skips_the_check_nor_breaks_it(tmp_path, planted):
    from canary_infer.system.model import load_text
    from canary_infer.tools.lint import check

    system = load_text(DEAD, "mine.canary")
    found = check(system, tmp_path)
    assert [e.line for e in found] == [6]
    stamp, = tmp_path.glob("checked-*.json")
    assert [e.line for e in check(system, tmp_path)] == [6]  # read back from the stamp
    stamp.write_text(planted)
    assert [(e.path, e.line) for e in check(system, tmp_path)] == [("mine.canary", 6)]


def test_a_check_stamp_names_the_files_read_now_not_those_of_the_first_run(tmp_path):
    from canary_infer.system.model import load_system
    from canary_infer.tools.lint import check

    paths = []
    for name in ("first", "second"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "a.canary").write_text(DEAD)
        paths.append(tmp_path / name / "a.canary")
    cache = tmp_path / "cache"
    assert [e.path for e in check(load_system([paths[0]]), cache)] == [str(paths[0])]
    (tmp_path / "first" / "a.canary").unlink()
    assert [e.path for e in check(load_system([paths[1]]), cache)] == [str(paths[1])]
