"""The one switch between the compiled kernels and their numpy twins.

The kernels (``_kernels.pyx``, built by the install with Cython and the machine's C compiler)
compute exactly what the numpy code beside each call site computes, to the last count and draw.
Every caller reads :data:`compiled` at the moment it runs, so setting it to ``None`` (as
:func:`numpy_only` does, and as a machine that could not build them has it) runs the numpy
programme everywhere at once; the tests compare the two that way.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

compiled: ModuleType | None
try:
    from canary_infer.engine import _kernels as compiled
except ImportError:  # pragma: no cover - a machine that could not compile them
    compiled = None


@contextmanager
def numpy_only() -> Iterator[None]:
    """Run the numpy twins of every kernel inside the ``with`` block."""
    global compiled
    kept, compiled = compiled, None
    try:
        yield
    finally:
        compiled = kept
