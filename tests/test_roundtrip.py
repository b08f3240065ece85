"""The round trip as a property: any deal, bid by the system, lies inside what inference
derives from its auction; and every hand that makes a call satisfies that call."""

from hypothesis import given, settings
from hypothesis import strategies as st

from canary_infer.bridge.auction import SEATS
from canary_infer.bridge.cards import Deal
from canary_infer.language.expr import evaluate
from canary_infer.tools.bidding import Bidder
from canary_infer.tools.selfcheck import check_deal


@settings(max_examples=60, deadline=None)
@given(st.randoms(use_true_random=False), st.sampled_from(SEATS))
def test_bid_then_infer_contains_every_hand(inferencer, rng, dealer):
    deal = Deal.random(rng)
    c = check_deal(deal, dealer, Bidder(inferencer.system), inferencer)
    assert c.violations == [], (deal.pbn(), str(c.auction), c.violations)
    # and each defined call's constraint holds on the hand that made it
    for reading in inferencer.read(c.auction):
        if reading.defined and reading.formula is not None:
            assert evaluate(reading.formula, deal[reading.seat]), (str(c.auction), reading.call)
