"""Mutants that cannot change behaviour, each with the reason (read by run.py, listed in docs).

A name here leaves its module's denominator. Add one only with a reason a reviewer can check
against the code; a mutant that a test could notice belongs in a test, not here.
"""

from __future__ import annotations

EQUIVALENT: dict[str, str] = {
    "agentmetrology.archive.passk.x_pass_hat_k_fraction__mutmut_13":
        "drops sum()'s start Fraction(0): 0 + Fraction is the same Fraction, counts never empty",
    "agentmetrology.stats.intervals.x_wilson__mutmut_78":
        "min(2.0, upper) for min(1.0, upper): k < n keeps the Wilson upper bound below 1, "
        "k = n takes the exact branch",
}
