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

from typing import Any

from agentmetrology.experiment.plan import ALPHA, smallest_holm_p
from agentmetrology.stats import paired_power

SIMULATIONS = 2000
DRAWS = 1000  # Monte-Carlo sign vectors shared by every simulated experiment
# Above this n the sign-flip simulation costs minutes; the paired t-test, which the sign-flip
# test approaches for large n, is simulated instead (and named in `method`).
SIGN_FLIP_MAX_N = 100


def comparisons(plan: dict[str, Any]) -> int:
    """Return the comparisons per target and level (ab: every later arm; dose: every slack;
    curve: one)."""
    if plan["kind"] == "dose":
        return len(plan["doses"])
    return len(plan["arms"]) - 1 if plan["kind"] == "ab" else 1


def plan_power(plan: dict[str, Any]) -> dict[str, Any]:
    """Return the rule's power at the planned n for the plan's stated effect, and its size."""
    m = 2 * comparisons(plan)
    floor = smallest_holm_p(plan["n"], comparisons(plan))
    test = "sign-flip" if plan["n"] <= SIGN_FLIP_MAX_N else "t"
    r = paired_power(plan["power_effect"], 1.0, plan["n"], alpha=ALPHA / m,
                     simulations=SIMULATIONS, test=test, draws=DRAWS,
                     seed=plan["analysis_seed"])
    return {"effect": plan["power_effect"], "effect_kind": "standardized (mean delta / sd)",
            "n": plan["n"], "family": m, "alpha": ALPHA, "alpha_per_test": ALPHA / m,
            "power": r.value, "interval": list(r.interval), "size": r.size,
            "size_interval": list(r.size_interval), "simulations": SIMULATIONS,
            "draws": DRAWS, "seed": plan["analysis_seed"],
            "smallest_holm_p": floor, "can_confirm": floor < ALPHA,
            "test": test,
            "method": f"seeded Monte-Carlo power of the {'paired t' if test == 't' else test}"
                      " test at alpha/m (Bonferroni, a lower bound for Holm); deltas "
                      "Normal(effect, 1)"}
