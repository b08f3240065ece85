"""Bridge basics: cards, hands and deals, calls and auctions, and the PBN and LIN files."""
