"""Float-rounding tolerance for verdicts: a decision never turns on the last bits of a sum.

Values come from decimal text, so `0.4 - 0.3` is 0.10000000000000003 while `0.7 - 0.6` is
0.09999999999999998: both are a difference of 0.1, and a verdict at a margin of 0.1 (ends
inclusive) must be the same for both. Likewise a cluster's differences of +0.1 and -0.1
average to about 3e-17, not 0, which would otherwise "exclude 0" and flip every sign.
The tolerance is relative, as in the sign-flip test's tie rule.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .validate import FloatArray

REL_TOL = 1e-9


def widened(bound: float) -> float:
    """Return `bound` moved outward by REL_TOL of its size: what `<= bound` compares against."""
    return bound + REL_TOL * abs(bound)


def at_least(values: FloatArray, bound: float) -> npt.NDArray[np.bool_]:
    """Return `values >= bound`, counting a value below it by at most REL_TOL of its size."""
    # A run exactly at tau passes (Reliability@tau, pass/fail flips). On a declared range the
    # value becomes a fraction first, and (9.1 - 1) / 9 is 0.8999999999999999, not 0.9.
    return values >= bound - REL_TOL * abs(bound)


def cancel_to_zero(means: FloatArray, magnitudes: FloatArray) -> FloatArray:
    """Return `means` with entries below REL_TOL of their terms' mean magnitude set to 0."""
    return np.where(np.abs(means) <= REL_TOL * magnitudes, 0.0, means)
