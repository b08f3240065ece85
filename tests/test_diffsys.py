"""``canary-infer diff-system OLD NEW``: calls added, removed, changed (with exact hand counts
from independent combinatorics), rewritten and reworded.

The two folders are copies of some of the built-in files (the hand words, the openings and the
2H/2S relays: about 950 calls, so that the comparison runs in seconds, not the minutes a copy of the
whole system takes) with one extra file each, so that the edits do not depend on the wording of the
built-in files: in it a 6C "opening" with a development, whose constraints differ between the two
versions.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from functools import cache
from itertools import combinations

import pytest

from canary_infer.bridge.cards import Hand
from canary_infer.language.expr import evaluate, parse
from canary_infer.system.folders import ENV
from canary_infer.system.model import builtin_dir
from canary_infer.tools.diff import diff_systems, render_text
from canary_infer.tools.loader import load
from canary_infer.ui.cli import main

OLD = """\
tree opening
  6C  "test: 11-16 HCP"  [T1]
      = hcp in 11..16
    6D  "test: five or more spades"  [T2]
        = S >= 5
      6H  "test: four or more hearts"  [T3]
          = H >= 4
      6S  "test: six or more spades, to be removed"  [T4]
          = S >= 6
    6H  "test: hearts"  [T7]
        = H >= 5
"""
NEW = """\
tree opening
  6C  "test: 11-17 HCP"  [T1]
      = hcp in 11..17
    6D  "test: five or more spades"  [T2]
        = not S <= 4
      6H  "test: five or more hearts"  [T3]
          = H >= 5
      6N  "test: an added call"  [T5]
          = C >= 5
        7C  "test: below the added call"  [T6]
    6H  "test: five or more hearts"  [T7]
        = H >= 5
"""


# --------------------------------------------------------------------------- independent counts
WEIGHT = {"A": 4, "K": 3, "Q": 2, "J": 1}


def hands_by_hcp() -> Counter:
    """HCP -> number of 13-card hands: a DP over the 13 ranks, 0 to 4 cards of each."""
    acc: Counter = Counter({(0, 0): 1})  # (cards, hcp) -> ways
    for rank in "AKQJT98765432":
        nxt: Counter = Counter()
        for (n, h), k in acc.items():
            for j in range(5):
                if n + j <= 13:
                    nxt[n + j, h + j * WEIGHT.get(rank, 0)] += k * math.comb(4, j)
        acc = nxt
    return Counter({h: k for (n, h), k in acc.items() if n == 13})


@cache
def suit_hcp(n: int) -> Counter:
    out: Counter = Counter()
    for k in range(min(4, n) + 1):
        for hs in combinations(WEIGHT, k):
            out[sum(WEIGHT[h] for h in hs)] += math.comb(9, n - k)
    return out


@cache
def pattern_hcp(pattern) -> Counter:
    acc: Counter = Counter({0: 1})
    for n in pattern:
        nxt: Counter = Counter()
        for h, k in acc.items():
            for h2, k2 in suit_hcp(n).items():
                nxt[h + h2] += k * k2
        acc = nxt
    return acc


PATTERNS = [(s, h, d, 13 - s - h - d) for s in range(14) for h in range(14 - s) for d in range(14 - s - h)]


def region(lengths_ok, hcp_ok) -> dict:
    """pattern -> number of hands of the region (suits convolved)."""
    out = {}
    for p in PATTERNS:
        if lengths_ok(p):
            c = sum(k for h, k in pattern_hcp(p).items() if hcp_ok(h))
            if c:
                out[p] = c
    return out


def test_the_two_independent_counts_agree():
    by_rank = hands_by_hcp()
    assert sum(by_rank.values()) == math.comb(52, 13)
    by_suit = Counter()
    for p in PATTERNS:
        by_suit.update(pattern_hcp(p))
    assert by_suit == by_rank


# --------------------------------------------------------------------------- fixtures
COPIED = ("10-evaluation.canary", "20-openings.canary", "30-two-major-relays.canary")


def system_folder(path, extra: str | None):
    path.mkdir()
    for f in builtin_dir().iterdir():
        if f.name in COPIED:
            (path / f.name).write_text(f.read_text(encoding="utf-8"), encoding="utf-8")
    if extra is not None:
        (path / "99-difftest.canary").write_text(extra, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    base = tmp_path_factory.mktemp("diff")
    return system_folder(base / "old", OLD), system_folder(base / "new", NEW)


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    """A copy of the copied built-in files, nothing added."""
    return system_folder(tmp_path_factory.mktemp("plain") / "copy", None)


@pytest.fixture(scope="module")
def compared(folders):
    old, new = folders
    return diff_systems(load(old), load(new), str(old), str(new))


@pytest.fixture(scope="module")
def diff(compared):
    return compared.as_json()


def by_auction(items):
    return {x["auction"]: x for x in items}


# --------------------------------------------------------------------------- the report
def test_an_unchanged_copy_differs_in_nothing(plain):
    d = diff_systems(load(plain), load(system_folder(plain.parent / "again", None)))
    assert d.same and d.counts() == {"changed": 0, "rewritten": 0, "reworded": 0, "added": 0, "removed": 0}


def test_a_call_added_with_its_development_and_removed(tmp_path):
    base = 'tree opening\n  1S  "spades"  [T1]\n      = S >= 5\n'
    more = base + ('  2C  "clubs"  [T2]\n      = C >= 6\n    2D  "ask"\n      2H  "minimum"\n          = hcp <= 12\n'
                   '    2N  "natural"\n')
    for name, text in (("a", base), ("b", more)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "s.canary").write_text(text, encoding="utf-8")
    d = diff_systems(load(tmp_path / "a"), load(tmp_path / "b"))
    added, = d.added
    assert (added.auction, added.meaning, added.source, added.constraint) == ("2C", "clubs", "T2", "len(C) >= 6")
    assert added.below == ["2C P 2D", "2C P 2D P 2H", "2C P 2N"]
    assert not d.removed and not d.changes and not d.same
    d = diff_systems(load(tmp_path / "b"), load(tmp_path / "a"))
    assert [e.auction for e in d.removed] == ["2C"] and not d.added


def test_the_widened_opening_gains_exactly_the_17_hcp_hands(diff):
    by_hcp = hands_by_hcp()
    ch = by_auction(diff["changed"])["6C"]
    assert ch["meaning"] == {"old": "test: 11-16 HCP", "new": "test: 11-17 HCP"}
    d, = ch["differences"]
    assert d["chairs"] == [1, 2, 3, 4]
    assert d["hands"] == {"old": sum(by_hcp[h] for h in range(11, 17)), "new": sum(by_hcp[h] for h in range(11, 18)),
                          "gained": by_hcp[17], "lost": 0}
    assert d["hcp"] == {"old": [11, 16], "new": [11, 17]}
    old_pats = set(region(lambda p: True, lambda h: 11 <= h <= 16))
    new_pats = set(region(lambda p: True, lambda h: 11 <= h <= 17))
    assert {tuple(map(int, p.split("-"))) for p in d["patterns"]["gained"]} == new_pats - old_pats
    assert d["patterns"]["lost"] == []
    hand = Hand.from_pbn(d["examples"]["gained"])
    assert hand.hcp == 17
    assert d["examples"]["lost"] is None
    assert d["constraint"]["old"] == str(parse("hcp in 11..16"))


def test_a_rebid_is_compared_on_the_hands_that_make_it_at_that_point(diff):
    """6C-6D-6H: opener's hands are those of his 6C and his 6H, in each version."""
    ch = by_auction(diff["changed"])["6C P 6D P 6H"]
    d, = ch["differences"]
    old = region(lambda p: p[1] >= 4, lambda h: 11 <= h <= 16)
    new = region(lambda p: p[1] >= 5, lambda h: 11 <= h <= 17)
    gained = region(lambda p: p[1] >= 5, lambda h: h == 17)  # new and not old
    lost = region(lambda p: p[1] == 4, lambda h: 11 <= h <= 16)  # old and not new
    assert d["hands"] == {"old": sum(old.values()), "new": sum(new.values()), "gained": sum(gained.values()),
                          "lost": sum(lost.values())}
    hearts = {"old": [min(p[1] for p in old), max(p[1] for p in old)],
              "new": [min(p[1] for p in new), max(p[1] for p in new)]}
    assert d["lengths"]["old"]["H"] == hearts["old"] and d["lengths"]["new"]["H"] == hearts["new"]
    assert {tuple(map(int, p.split("-"))) for p in d["patterns"]["lost"]} == set(old) - set(new)
    assert {tuple(map(int, p.split("-"))) for p in d["patterns"]["gained"]} == set(new) - set(old)
    g, lo = Hand.from_pbn(d["examples"]["gained"]), Hand.from_pbn(d["examples"]["lost"])
    assert g.hcp == 17 and g.length("H") >= 5
    assert 11 <= lo.hcp <= 16 and lo.length("H") == 4
    # typical hands: the most frequent pattern of each region
    assert tuple(lo.length(s) for s in "SHDC") == max(lost, key=lambda p: (lost[p], tuple(-x for x in p)))


def test_added_removed_rewritten_and_reworded_calls(diff):
    assert [e["auction"] for e in diff["added"]] == ["6C P 6D P 6N"]
    added, = diff["added"]
    assert added["below"] == ["6C P 6D P 6N P 7C"] and added["meaning"] == "test: an added call"
    assert added["constraint"] == str(parse("C >= 5")) and added["calls"] == ["6C", "6D", "6N"]
    assert [e["auction"] for e in diff["removed"]] == ["6C P 6D P 6S"]
    assert diff["removed"][0]["below"] == []
    # 6D is written "not S <= 4" instead of "S >= 5": the same hands
    rewritten = by_auction(diff["rewritten"])
    assert rewritten["6C P 6D"]["rewritten_chairs"] == [1, 2, 3, 4]
    assert "6C P 6D" not in by_auction(diff["changed"])
    # Pass denies every opening, 6C included: its constraint reads differently in every chair
    assert "P" in rewritten or "P" in by_auction(diff["changed"])
    assert set(by_auction(diff["changed"])) - {"P"} == {"6C", "6C P 6D P 6H"}
    assert set(rewritten) - {"P"} == {"6C P 6D"}
    reworded, = diff["reworded"]
    assert reworded["auction"] == "6C P 6H"
    assert reworded["meaning"] == {"old": "test: hearts", "new": "test: five or more hearts"}
    assert diff["counts"]["added"] == 1 and diff["counts"]["removed"] == 1 and diff["same"] is False


def test_every_example_hand_lies_in_its_region(diff):
    for ch in diff["changed"]:
        for d in ch["differences"]:
            for kind in ("gained", "lost"):
                if d["hands"][kind]:
                    hand = Hand.from_pbn(d["examples"][kind])
                    lo, hi = d["hcp"]["new" if kind == "gained" else "old"]
                    assert lo <= hand.hcp <= hi, (ch["auction"], kind)


def test_a_change_in_some_chairs_only(tmp_path):
    for name, values in (("old", "hcp >= 12"), ("new", "hcp >= 11")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "s.canary").write_text(
            'tree opening\n  1S  "spades"  [T1]\n      = S >= 5\n'
            f'      = when chair 1..2: {values}\n    2N  "relay"  [T2]\n', encoding="utf-8")
    d = diff_systems(load(tmp_path / "old"), load(tmp_path / "new"))
    ch, = d.of_kind("changed")
    diff, = ch.differences
    assert ch.auction == "1S" and diff.chairs == [1, 2]
    assert diff.gained == sum(region(lambda p: p[0] >= 5, lambda h: h == 11).values()) and diff.lost == 0
    assert evaluate(parse("S >= 5 and hcp == 11"), Hand.from_pbn(diff.example_gained))
    assert ch.rewritten_chairs == []
    text = render_text(d)
    assert "in chairs 1-2:" in text and "hcp >= 12" in text and "hcp >= 11" in text


def test_a_passed_hand_is_compared_on_its_own_hands(tmp_path):
    """A response changes for every responder, but a passed hand (the opening in 3rd or 4th
    chair) also denied the opening: the counts are those of the hands that make the call there."""
    text = ('tree opening\n  P  "no opening"  [T0]\n      = denies siblings\n'
            '  1S  "spades"  [T1]\n      = S >= 5 and hcp >= 12\n    2C  "clubs"  [T2]\n      = C >= {n}\n')
    for name, n in (("old", 5), ("new", 6)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "s.canary").write_text(text.replace("{n}", str(n)), encoding="utf-8")
    d = diff_systems(load(tmp_path / "old"), load(tmp_path / "new"))
    ch, = d.of_kind("changed")
    assert ch.auction == "1S P 2C"
    groups = {tuple(x.chairs): x for x in ch.differences}
    assert set(groups) == {(1, 2), (3, 4)}
    five_clubs = math.comb(13, 5) * math.comb(39, 8)
    assert groups[3, 4].auction == "1S P 2C" and groups[3, 4].lost == five_clubs and groups[3, 4].gained == 0
    opening = sum(region(lambda p: p[3] == 5 and p[0] >= 5, lambda h: h >= 12).values())
    assert groups[1, 2].auction == "P P 1S P 2C" and groups[1, 2].lost == five_clubs - opening
    hand = Hand.from_pbn(groups[1, 2].example_lost)
    assert hand.length("C") == 5 and not (hand.length("S") >= 5 and hand.hcp >= 12)


# --------------------------------------------------------------------------- the command line
@pytest.fixture
def cli(monkeypatch, capsys):
    """``canary-infer ARGS`` in-process, with ``CANARY_SYSTEM`` unset or set to ``env``."""

    def _run(*argv, env=None):
        monkeypatch.delenv(ENV, raising=False)
        if env is not None:
            monkeypatch.setenv(ENV, str(env))
        status = main([str(a) for a in argv])
        out, err = capsys.readouterr()
        return status, out, err
    return _run


def test_the_text_report(compared, folders):
    old, new = folders
    lines = render_text(compared).splitlines()
    assert lines[0] == f"From {old}" and lines[1] == f"  to {new}:"
    assert "added    6C P 6D P 6N  \"test: an added call\"  [T5]" in lines
    assert "removed  6C P 6D P 6S  \"test: six or more spades, to be removed\"  [T4]" in lines
    at = lines.index('changed  6C  "test: 11-17 HCP"  [T1]')
    block = "\n".join(lines[at:at + 12])
    assert f"{hands_by_hcp()[17]:,} gained, 0 lost" in block
    assert "HCP         11-16 -> 11-17" in block and "gained e.g." in block and "(17 HCP," in block
    assert "  6C P 6D  (every chair)" in lines
    assert '  6C P 6H  "test: hearts" -> "test: five or more hearts"' in lines


def test_cli_json_and_exit_status(cli, folders, diff):
    old, new = folders
    status, out, _ = cli("diff-system", old, new, "--json")
    assert status == 1  # as diff: 1 when some call is made with other hands
    obj = json.loads(out)
    assert set(obj) == {"old", "new", "same", "counts", "changed", "rewritten", "reworded", "added", "removed",
                        "error"}
    assert obj["old"] == str(old) and obj["error"] is None
    assert obj["counts"] == diff["counts"] and obj["added"] == diff["added"] and obj["removed"] == diff["removed"]
    d = by_auction(obj["changed"])["6C"]["differences"][0]
    assert set(d) == {"chairs", "auction", "constraint", "hands", "hcp", "lengths", "patterns", "examples"}
    assert d["hands"] == by_auction(diff["changed"])["6C"]["differences"][0]["hands"]


def test_cli_text_and_an_unchanged_system(cli, plain):
    status, out, err = cli("diff-system", plain, plain)
    assert status == 0, err
    assert out.splitlines()[:2] == [f"From {plain}", f"  to {plain}:"]
    assert "The two systems make every call with the same hands." in out
    # 'builtin' names the built-in system: the copy lacks the files after the 2H/2S relays
    status, out, err = cli("diff-system", "builtin", plain)
    assert status == 1, err
    assert out.splitlines()[:2] == ["From the built-in system", f"  to {plain}:"]
    assert "removed  1D P 1H  " in out


def test_cli_one_folder_is_compared_with_the_system_in_use(cli, plain, tmp_path):
    tiny = tmp_path / "tiny"
    tiny.mkdir()
    (tiny / "s.canary").write_text('tree opening\n  1S  "spades"  [T1]\n      = S >= 5\n', encoding="utf-8")
    status, out, _ = cli("diff-system", plain, "--json", "--system", tiny)
    assert status == 1 and json.loads(out)["old"] == str(tiny)
    assert "1N" in {e["auction"] for e in json.loads(out)["added"]}
    status, out, _ = cli("diff-system", plain, "--json", env=tiny)
    assert json.loads(out)["old"] == f"{tiny} (from {ENV})"
    status, out, _ = cli("diff-system", plain, "--json")  # against the built-in system
    assert status == 1 and json.loads(out)["old"] == "the built-in system"
    assert "1D P 1H" in {e["auction"] for e in json.loads(out)["removed"]}
    status, out, _ = cli("diff-system", tiny, tiny)
    assert status == 0 and "same hands" in out


def test_cli_errors(cli, tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "s.canary").write_text('tree opening\n  1S  "spades"\n', encoding="utf-8")
    old = tmp_path / "a"
    status, out, err = cli("diff-system", old, tmp_path / "nowhere")
    assert status == 2 and out == "" and "no such folder" in err
    status, out, _ = cli("diff-system", old, tmp_path / "nowhere", "--json")
    assert status == 2 and json.loads(out)["error"]["kind"] == "system"
    status, out, err = cli("diff-system", old, old, "--system", old)
    assert status == 2 and "not both" in err
    status, out, err = cli("diff-system", old, old, old)
    assert status == 2 and "two system folders" in err
    with pytest.raises(SystemExit) as e:
        main(["diff-system"])
    assert e.value.code == 2
