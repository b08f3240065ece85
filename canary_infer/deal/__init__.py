"""The deal-level engine: every seat's answer given every seat's calls and the shared deck, the
proofs behind its ranges, the exact sampler, and the inferencer that reads an auction."""

DEFAULT_BUDGET = 0.8
"""Seconds of work (counted, not read off a clock) allowed per auction for a joint answer
with two or more constrained unseen seats: the seats' tables and the search for witnesses
and proofs together (:mod:`canary_infer.deal.bounds`)."""
