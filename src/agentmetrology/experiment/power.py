"""Power of the frozen decision rule at the planned n, by seeded simulation.

Per-seed deltas are simulated as Normal(power_effect, 1) (a standardized paired effect); the
rule's test is the sign-flip test, Holm-adjusted over a family of m = comparisons x 2 scorers.
The simulation tests each delta vector (with the paired t-test above n = 100, where the
sign-flip simulation would cost minutes) at alpha / m (Bonferroni): Holm rejects whenever
Bonferroni does, so the value is a lower bound on the rule's power for one comparison. The
rule's second condition (the bootstrap CI above 0) is not simulated; with a positive effect
a significant two-sided test and a CI above 0 nearly always coincide.
"""

from __future__ import annotations

import math
from typing import Any

from agentmetrology.experiment.plan import ALPHA, smallest_holm_p
from agentmetrology.stats import paired_power
from agentmetrology.stats.paired import EXACT_LIMIT

SIMULATIONS = 2000
# Monte-Carlo sign vectors shared by every simulated experiment, unless the family needs more
# (sign_vectors): a simulated p is (1 + extreme) / (draws + 1), never below 1 / 1001.
DRAWS = 1000
# Above this n the sign-flip simulation costs minutes; the paired t-test, which the sign-flip
# test approaches for large n, is simulated instead (and named in `method`).
SIGN_FLIP_MAX_N = 100


def comparisons(plan: dict[str, Any]) -> int:
    """Return the comparisons per target and level (ab: every later arm; dose: every slack;
    curve: one)."""
    if plan["kind"] == "dose":
        return len(plan["doses"])
    return len(plan["arms"]) - 1 if plan["kind"] == "ab" else 1


def sign_vectors(family: int, n: int, can_confirm: bool) -> int | None:
    """Return the random sign vectors of the sign-flip simulation, or None for all 2^n."""
    # With DRAWS vectors no simulated p is below 1 / 1001, so from a family of 52 (alpha / m
    # < 1 / 1001) no simulated experiment could reject: power 0 beside a rule that can
    # confirm. A family DRAWS serves keeps DRAWS (its power unchanged), and so does a rule
    # that cannot confirm (no p to reach). Otherwise, up to EXACT_LIMIT pairs, the rule's
    # test is exact and so is the simulation's: its smallest p, 2 / 2^n, is below alpha / m
    # exactly when the rule's is. (The ceil(m / alpha) random vectors it would take hold the
    # all-plus or all-minus vector with a fair chance, and then every simulated p is at least
    # 2 / (draws + 1): n = 12, m = 52 read 0 again.) Above EXACT_LIMIT pairs ceil(m / alpha)
    # random vectors make 1 / (draws + 1) < alpha / m, at most 100,001 (the rule's own).
    if not can_confirm or ALPHA / family >= 1.0 / (DRAWS + 1):
        return DRAWS
    return None if n <= EXACT_LIMIT else math.ceil(family / ALPHA)


def plan_power(plan: dict[str, Any]) -> dict[str, Any]:
    """Return the rule's power at the planned n for the plan's stated effect, and its size."""
    m = 2 * comparisons(plan)
    floor = smallest_holm_p(plan["n"], comparisons(plan))
    test = "sign-flip" if plan["n"] <= SIGN_FLIP_MAX_N else "t"
    vectors = sign_vectors(m, plan["n"], floor < ALPHA) if test == "sign-flip" else DRAWS
    exact = vectors is None
    r = paired_power(plan["power_effect"], 1.0, plan["n"], alpha=ALPHA / m,
                     simulations=SIMULATIONS, test=test, draws=vectors or DRAWS,
                     seed=plan["analysis_seed"], exact=exact)
    return {"effect": plan["power_effect"], "effect_kind": "standardized (mean delta / sd)",
            "n": plan["n"], "family": m, "alpha": ALPHA, "alpha_per_test": ALPHA / m,
            "power": r.value, "interval": list(r.interval), "size": r.size,
            "size_interval": list(r.size_interval), "simulations": SIMULATIONS,
            "draws": 2 ** plan["n"] if exact else vectors, "seed": plan["analysis_seed"],
            "smallest_holm_p": floor, "can_confirm": floor < ALPHA,
            "test": test,
            "method": f"seeded Monte-Carlo power of the {_test_name(test, exact)}"
                      " test at alpha/m (Bonferroni, a lower bound for Holm); deltas "
                      "Normal(effect, 1)"}


def _test_name(test: str, exact: bool) -> str:
    """Return the simulated test's name as the method states it."""
    if test == "t":
        return "paired t"
    return f"exact {test} (all 2^n sign vectors)" if exact else test
