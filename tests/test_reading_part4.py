"""Issue 34, second sample, part 4: what the reading of its 30 entries fixed.

Expectations come from the notes' words ([A123] = canary-club-system.txt, [B12] =
slam-conventions.txt), driven through the command line as in test_fidelity.
"""
from __future__ import annotations

import pytest
from test_fidelity import last_call


@pytest.mark.parametrize("auction", [
    "2D P 3C P 3D P 5N",              # 2D-3C-3D: opener's short suit, a fit for clubs [A1011]
    "2D P 3H P 4C P 5N",              # 2D-3H-4C: the same over hearts [A1011]
    "2C P 2D P 2S P 5N",              # 2C-2D-2S: 'the new suit shows a singleton' [A917]
    "2C P 2S P 2N P 3D P 3H P 5N",    # stopper bids after 2C-2S-2N [A925-938]
    "2C P 2S P 3C P 3H P 3S P 5N",    # the repeat D stopper after 2C-2S-3C [A931, A940-943]
])
def test_the_grand_slam_force_does_not_accept_a_short_suit_or_a_stopper_bid(auction):
    # [A9] "there is no bid in the system of a suit less than 4 cards in length unless the bid is
    # pre-defined as artificial": a bid naming a singleton or a stopper is such a bid, and
    # [B68] "5NT implicitly accepts the last bid suit" has no suit held to accept.
    c = last_call(auction)
    assert c["call"] == "5N" and not c["defined"]


def test_the_short_suit_and_stopper_bids_keep_their_meaning():
    # [A1011] "Opener bids his short suit with a fit"; [A936] "3H (shows H stopper, no S stopper)".
    assert last_call("2D P 3C P 3D")["meaning"] == "a fit for clubs; his short suit is diamonds"
    assert last_call("2C P 2S P 2N P 3D P 3H")["meaning"] == "shows his H stopper, no S stopper"
