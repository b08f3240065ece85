"""canary-infer: exact inference for the Canary Club bridge system.

What each player can hold after an auction, exactly, over the whole deal::

    >>> import canary_infer
    >>> answer = canary_infer.Inferencer().infer("2S P 2N P 3C", joint=True)
    >>> answer.hands["N"].hcp, answer.hands["N"].patterns
    ((11, 16), ['5-3-1-4', '5-4-0-4', '5-3-0-5', '6-3-0-4'])

and the call the system makes with a hand::

    >>> canary_infer.Bidder().bid("AQJ83.2.K4.QT932", "").calls
    ['2S']

The names below are the public API; everything else is the package's own and may change.
Each is imported when first used, so ``import canary_infer`` costs nothing.
"""

from __future__ import annotations

__all__ = [
    "Auction", "AuctionError", "Bidder", "Call", "Deal", "Hand", "HandError", "Inference", "Inferencer",
    "SystemFileError", "load_system",
]

_HOMES = {
    "Auction": "canary_infer.bridge.auction", "AuctionError": "canary_infer.bridge.auction",
    "Call": "canary_infer.bridge.auction", "Deal": "canary_infer.bridge.cards", "Hand": "canary_infer.bridge.cards",
    "HandError": "canary_infer.bridge.cards", "Inference": "canary_infer.deal.infer",
    "Inferencer": "canary_infer.deal.infer", "Bidder": "canary_infer.tools.bidding",
    "SystemFileError": "canary_infer.system.model", "load_system": "canary_infer.tools.loader",
}
_RENAMED = {"load_system": "load"}  # the public name of what its module calls otherwise


def __getattr__(name: str):
    """The public names, each imported from its home on first use (PEP 562)."""
    if name not in _HOMES:
        raise AttributeError(f"module 'canary_infer' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(_HOMES[name]), _RENAMED.get(name, name))
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
