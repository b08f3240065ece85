"""canary-infer: exact inference for the Canary Club bridge system."""

DEFAULT_BUDGET = 0.8
"""Seconds of work (counted, not read off a clock) allowed per auction for a joint answer
with two or more constrained unseen seats: the seats' tables and the search for witnesses
and proofs together (:mod:`canary_infer.bounds`)."""
