"""Reading of a fourth random sample of inventory entries (issue 34, part 7: seed 20261210).

The expectations come from the notes' words: [A123] is line 123 of canary-club-system.txt,
[B12] line 12 of slam-conventions.txt.  The helpers drive the command line (test_fidelity).
"""
from __future__ import annotations

import pytest
from test_fidelity import _run


# ------------------------------------------------------------ 2D relays: 'maximum' [A1025, A1039, A1050]
@pytest.mark.parametrize("auction", ["2D P 2H P 2N P 3C P 3S", "2D P 2H P 2N P 3C P 3N",
                                     "2D P 2H P 3C P 3D P 3N", "2D P 2H P 3C P 3D P 4C",
                                     "2D P 2H P 2S P 2N P 3H",
                                     "2D P 2H P 2S P 2N P 3C P 3H P 3N"])
def test_a_maximum_after_2d_says_how_it_is_read(auction):
    # [A1039] "Step 1 & 2 = min, Step 3 & 4 = max", [A1025] "Short S and a maximum": the notes
    # give no figure, so the HCP range chosen must be reported with the answer, as it is with
    # the minimum ones.
    step = _run("explain", auction)["steps"][-1]
    assert "max" in step["meaning"]
    assert "14-16" in step["interpretation"]


def test_the_unnamed_strength_steps_are_reported_with_the_ask():
    # [A1022] "Now 3H gets two step answer showing strength": the steps are not named, so
    # the order chosen (minimum first) is an interpretation, reported with the ask.
    step = _run("explain", "2D P 2H P 2S P 2N P 3C P 3H")["steps"][-1]
    assert "two step" in step["interpretation"]
