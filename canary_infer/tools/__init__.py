"""What players and designers run on top of inference: the bidder, the proofs and checks of a
system, the self-check, the comparison of two systems, the exports, and the files' boards."""
