"""Issue 34, fourth sample, part 8: what the reading of its 30 entries fixed.

Expectations come from the notes' words ([A123] = canary-club-system.txt, [B12] =
slam-conventions.txt), driven through the command line as in test_fidelity.
"""
from __future__ import annotations

import pytest
from test_fidelity import _run, cards


def _miles_infer(auction: str, hand: str | None = None, seat: str = "S") -> dict:
    args = ["infer", auction, "--option", "miles"]
    if hand:
        assert cards(hand) == 13
        args += ["--hand", f"{seat}:{hand}"]
    return _run(*args)


@pytest.mark.parametrize("auction, hand, words", [
    # [A1765-1766] "4C/4D natural forcing suit of \Hxxxxx"
    ("2N P 4C", "52.32.J54.Q98765", "\\Hxxxxx"),
    ("2N P 4D", "52.32.Q98765.J54", "\\Hxxxxx"),
    # [A1767-1768] "4H/4S natural slam try suit of \H\Hxxxx (forcing to 4N)"
    ("2N P 4H", "52.KQ9876.J54.32", "HHxxxx"),
])
def test_miles_suit_quality_patterns_are_marked_as_read(auction, hand, words):
    # The notes' pattern itself (six cards, the named number of top honours) makes the call, and
    # the reading of the pattern (a minimum: more cards or honours do not bar it) is reported.
    h = _miles_infer(auction, hand)
    assert h["hands"]["S"]["consistent"] and not h["hands"]["S"]["breaks"]
    call = h["calls"][-1]
    assert call["defined"]
    assert words in (call.get("interpretation") or "")
