"""The loaded-system cache (canary_infer.system.cache): a kept system is the system the files give,
and an entry that is damaged, stale or not ours is never believed."""

import gc
import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from canary_infer.bridge.auction import Auction
from canary_infer.deal.infer import Inferencer
from canary_infer.system import cache as syscache
from canary_infer.system.model import System, SystemFileError, load_system

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def kept(tmp_path, monkeypatch):
    """A folder of this test's own for kept systems."""
    where = tmp_path / "systems"
    monkeypatch.setenv(syscache.ENV, str(where))
    return where


def files_of(folder):
    return sorted(folder.glob("*.canary"))


def entries(where):
    return sorted(where.glob("system-*.pickle")) if where.exists() else []


def no_parsing(monkeypatch):
    """Make reading a file's lines fail: a load that succeeds came from the cache."""
    from canary_infer.system import model as system_module

    def refuse(self, text, path):
        raise AssertionError("the files were parsed again")

    monkeypatch.setattr(system_module._Loader, "load_text", refuse)


def answers(system, auctions=("2S", "2S P 2N P 3C", "2H P 2S P 2N", "P", "1S")):
    inf = Inferencer(system)
    return [inf.infer(Auction.parse(a), joint=True).as_json() for a in auctions]


def test_a_loaded_system_is_kept_and_read_back_without_parsing(kept, small_system_dir, monkeypatch):
    fresh = load_system(files_of(small_system_dir))
    assert len(entries(kept)) == 1
    with monkeypatch.context() as m:
        no_parsing(m)
        again = load_system(files_of(small_system_dir))
    assert again == fresh and again is not fresh
    assert again.files == fresh.files
    assert answers(again) == answers(load_system(files_of(small_system_dir)))


def test_the_kept_built_in_system_answers_as_the_files_do(kept, monkeypatch):
    monkeypatch.setenv(syscache.ENV, "off")
    fresh = load_system()
    monkeypatch.setenv(syscache.ENV, str(kept))
    load_system()  # keeps it
    with monkeypatch.context() as m:
        no_parsing(m)
        again = load_system()
    assert again == fresh
    auctions = ("1S", "P", "2S P 2N P 3C", "1H X P 1S", "P P P 2H P 2S P 2N P 3C P 3D")
    assert answers(again, auctions) == answers(fresh, auctions)


def test_an_edited_file_makes_a_new_entry(kept, small_system_dir, tmp_path):
    copy = tmp_path / "copy"
    copy.mkdir()
    for p in files_of(small_system_dir):
        (copy / p.name).write_text(p.read_text(encoding="utf-8"), encoding="utf-8")
    before = load_system(files_of(copy))
    target = copy / "20-openings.canary"
    target.write_text(target.read_text(encoding="utf-8") + "\n# a comment\n", encoding="utf-8")
    after = load_system(files_of(copy))
    assert len(entries(kept)) == 2
    assert after == before  # a comment changes nothing, but the entry is the new text's


def _strings_unshared(obj) -> bytes:
    """A pickle that writes every string where it stands: equal for objects of equal contents,
    whichever of their equal strings are one object."""
    import io

    class Pickler(pickle._Pickler):
        def memoize(self, o):
            if not isinstance(o, str):
                super().memoize(o)

    out = io.BytesIO()
    Pickler(out, 4).dump(obj)
    return out.getvalue()


def test_a_copy_elsewhere_is_read_from_the_originals_entry_under_its_own_names(kept, small_system_dir, tmp_path,
                                                                               monkeypatch):
    load_system(files_of(small_system_dir))
    copy = tmp_path / "elsewhere" / "mine"
    copy.mkdir(parents=True)
    for p in files_of(small_system_dir):
        (copy / p.name).write_text(p.read_text(encoding="utf-8"), encoding="utf-8")
    with monkeypatch.context() as m:
        no_parsing(m)
        again = load_system(files_of(copy))
    assert again.files == [str(p) for p in files_of(copy)] and len(entries(kept)) == 1
    kept_bytes = pickle.dumps(again)
    assert str(copy).encode() in kept_bytes and str(small_system_dir).encode() not in kept_bytes
    monkeypatch.setenv(syscache.ENV, "off")
    assert _strings_unshared(again) == _strings_unshared(load_system(files_of(copy)))  # as if parsed there


def test_the_key_covers_the_files_names_and_the_loaders_code(monkeypatch):
    files = [("a.canary", "tree opening\n")]
    k = syscache.key(files)
    assert syscache.key([("elsewhere/a.canary", "tree opening\n")]) == k  # not the folder
    assert syscache.key([("b.canary", "tree opening\n")]) != k
    assert syscache.key([("a.canary", "tree opening\n\n")]) != k
    assert syscache.key(files) == k
    assert "system/model.py" in syscache.CODE and "language/expr.py" in syscache.CODE


def _key(entry: Path) -> bytes:
    """The entry's folder's secret key (what its digest is made with)."""
    return syscache.secret(entry.parent)


def _damage(path: Path, how: str, k: str):
    data = path.read_bytes()
    if how == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif how == "flipped":
        i = len(data) - 100
        path.write_bytes(data[:i] + bytes([data[i] ^ 0xFF]) + data[i + 1:])
    elif how == "garbage":
        path.write_bytes(b"\x00\x01 not a system")
    elif how == "empty":
        path.write_bytes(b"")
    elif how == "other key":
        path.write_bytes(data.replace(k.encode(), b"0" * len(k), 1))
    elif how == "not a system":  # a well-formed entry whose contents are something else
        path.write_bytes(syscache.encode(k, {"files": []}, syscache.secret(path.parent)))
    elif how == "other files":
        from canary_infer.system.model import load_text

        path.write_bytes(syscache.encode(k, load_text("tree opening\n  1C \"x\" [A1]\n      = hcp >= 12\n"),
                                          syscache.secret(path.parent)))
    elif how == "folder":
        path.unlink()
        path.mkdir()


@pytest.mark.parametrize("how", ["truncated", "flipped", "garbage", "empty", "other key", "not a system",
                                 "other files", "folder"])
def test_a_bad_entry_is_discarded_and_the_files_are_loaded_again(kept, small_system_dir, how):
    fresh = load_system(files_of(small_system_dir))
    entry, = entries(kept)
    k = syscache.key([(str(p), p.read_text(encoding="utf-8")) for p in files_of(small_system_dir)])
    assert syscache.decode(entry.read_bytes(), k, fresh.files, System, _key(entry)) is not None
    _damage(entry, how, k)
    assert syscache.decode(entry.read_bytes(), k, fresh.files, System, _key(entry)) is None if entry.is_file() else True
    again = load_system(files_of(small_system_dir))
    assert again == fresh
    if how != "folder":
        assert syscache.decode(entry.read_bytes(), k, fresh.files, System, _key(entry)) is not None  # written afresh


def test_a_system_that_does_not_load_is_never_kept(kept, tmp_path):
    p = tmp_path / "bad.canary"
    # found by the walk of the tree at load, which a kept system skips
    p.write_text('tree opening\n  1S "x" [A1]\n      = hcp >= 12\n    1C "y" [A1]\n        = hcp >= 5\n',
                 encoding="utf-8")
    for _ in range(2):
        with pytest.raises(SystemFileError, match="can never be made here"):
            load_system([p])
    assert entries(kept) == []


def test_off_keeps_nothing_and_the_results_cache_setting_does_not_matter(tmp_path, monkeypatch, small_system_dir):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv(syscache.ENV, "off")
    monkeypatch.setenv("CANARY_INFER_CACHE", "on")
    load_system(files_of(small_system_dir))
    assert not (tmp_path / "xdg").exists()
    monkeypatch.delenv(syscache.ENV)
    monkeypatch.setenv("CANARY_INFER_CACHE", "off")
    load_system(files_of(small_system_dir))
    assert len(entries(tmp_path / "xdg" / "canary-infer" / "systems")) == 1


@pytest.mark.parametrize("value,where", [("none", None), ("OFF", None), ("0", None), ("./here", "here"),
                                         ("on", "default"), ("", "default")])
def test_the_setting_is_read_as_documented(tmp_path, monkeypatch, value, where):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv(syscache.ENV, value)
    got = syscache.folder()
    if where is None:
        assert got is None
    elif where == "default":
        assert got == tmp_path / "xdg" / "canary-infer" / "systems"
    else:
        assert got.resolve() == (tmp_path / where).resolve()


@pytest.mark.parametrize("value", ["disable", " /tmp/x", "nope"])
def test_other_settings_are_refused_with_a_message(tmp_path, value):
    env = {**os.environ, syscache.ENV: value, "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-m", "canary_infer", "infer", "1S", "--json"], capture_output=True,
                       text=True, cwd=tmp_path, env=env, timeout=300)
    assert r.returncode == 2 and json.loads(r.stdout)["error"]["kind"] == "usage"
    assert syscache.ENV in json.loads(r.stdout)["error"]["message"]
    assert list(tmp_path.iterdir()) == []


def test_a_pickled_system_leaves_out_the_inference_layers_state(small_system):
    inf = Inferencer(small_system)
    inf.infer(Auction.parse("2S P 2N"))
    assert small_system.oracle is not None and small_system._roots
    copy = pickle.loads(pickle.dumps(small_system))
    assert copy.oracle is None and not copy._roots and copy == small_system
    assert copy._kept_formulas and not copy._formulas  # read back one by one, when asked for


@pytest.mark.parametrize("collecting", [True, False])
def test_an_entry_is_unpickled_without_collections_and_the_collector_is_left_as_found(
        kept, small_system_dir, monkeypatch, collecting):
    fresh = load_system(files_of(small_system_dir))
    entry, = entries(kept)
    k = syscache.key([(str(p), p.read_text(encoding="utf-8")) for p in files_of(small_system_dir)])
    during = []
    real_loads = pickle.loads

    def loads(data):
        during.append(gc.isenabled())
        return real_loads(data)

    monkeypatch.setattr(syscache.pickle, "loads", loads)
    was = gc.isenabled()
    try:
        (gc.enable if collecting else gc.disable)()
        assert syscache.decode(entry.read_bytes(), k, fresh.files, System, _key(entry)) == fresh
        assert gc.isenabled() is collecting
        # a payload whose digest holds but which does not unpickle: refused, the collector as found
        payload = b"not a pickle"
        key = syscache.secret(entry.parent)
        bad = syscache.MAGIC + k.encode() + b"\n" + syscache._digest(key, payload) + b"\n" + payload
        assert syscache.decode(bad, k, fresh.files, System, key) is None
        assert gc.isenabled() is collecting
    finally:
        (gc.enable if was else gc.disable)()
    assert during == [False, False]
