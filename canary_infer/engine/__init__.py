"""The exact engine for one seat: per-suit holding tables and the programme over the suits (with
its compiled kernels), the card-level CP-SAT model, slam facts and typical hands."""
