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
from agentmetrology.stats.paired import DEFAULT_DRAWS, EXACT_LIMIT

SIMULATIONS = 2000
# Monte-Carlo sign vectors shared by every simulated experiment when they resolve the family's
# threshold (sign_vectors): a simulated p is (1 + extreme) / (draws + 1).
DRAWS = 1000
# Vectors a Monte-Carlo simulation needs under the threshold alpha / m. With fewer the simulated
# p, (1 + extreme) / (draws + 1), is a coarse and conservative stand-in for the rule's p and the
# power reads low: with 1000 vectors at m = 50 only experiments with no vector as extreme could
# reject (power 0.367 at effect 0.8 and n = 20, exactly 0.404); with 20 of them the estimate
# lies within 0.003 of the rule's own 100,000 vectors (m = 52, n = 30: 0.941 against 0.9435;
# 1040 vectors gave 0.885).
RESOLVE = 20
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
    # A rule that cannot confirm has no p to reach: DRAWS (its power is 0 at any count). DRAWS
    # also serves a family whose threshold alpha / m holds RESOLVE of them (m = 2: 25). Beyond,
    # up to EXACT_LIMIT pairs, the rule's test is exact and so is the simulation's (every one of
    # the 2^n vectors: no Monte-Carlo error at all; ceil(RESOLVE m / alpha) random vectors could
    # miss the all-plus vector the smallest p rests on). Above EXACT_LIMIT the rule's test is
    # Monte-Carlo with DEFAULT_DRAWS vectors: RESOLVE under the threshold, at most the rule's.
    need = math.ceil(RESOLVE * family / ALPHA)
    if not can_confirm or need <= DRAWS:
        return DRAWS
    return None if n <= EXACT_LIMIT else min(need, DEFAULT_DRAWS)


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
