"""Multiplicity control: Holm over the family of diagnosed (policy, mutation) groups.

Reading many groups one by one at 0.05 each would find a "real" gap or an "equivalence" by
chance somewhere in a large grid, so the difference and the equivalence p-values of every
diagnosed group are adjusted together (Holm step-down, each test kind over the same family).
The repeat control and evaluator changes are not diagnosed, so they are not in the family; nor
is a group of fewer than MIN_TASKS tasks, whose reading is withheld (its bootstrap p is no test).
A group's difference p is the larger of its bootstrap p and its exact sign-flip p
(`metrics.difference_p`): Holm over bootstrap p-values alone rejected at 6 tasks in a family of
3 (3 x 2/2001), where no exact test could (3 x 2/64).
"""

from __future__ import annotations

from typing import Any

from agentmetrology.diagnose.pairs import GroupKey
from agentmetrology.diagnose.readings import ALPHA, MIN_TASKS, kind_of, testable
from agentmetrology.stats import holm

FAMILY = ("every diagnosed (environment, policy, level, mutation) group: all groups except "
          f"the repeat control and evaluator changes, with at least {MIN_TASKS} tasks and a "
          "computable paired comparison")


def adjust_family(groups: dict[GroupKey, dict[str, Any]]) -> None:
    """Holm-adjust the family's difference and equivalence p-values in place."""
    members = [k for k, m in groups.items() if testable(m, kind_of(k[3]))]
    for test in ("difference", "equivalence"):
        if not members:
            break
        res = holm([groups[k]["paired"]["p_values"][test] for k in members], ALPHA)
        for k, adjusted in zip(members, res.adjusted, strict=True):
            groups[k]["paired"].setdefault("holm", {"family_size": len(members)})[test] = adjusted


def describe_family(groups: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Return the family that was adjusted: what it is, its size and its members."""
    members = [k for k, m in groups.items() if (m.get("paired") or {}).get("holm")]
    return {"family": FAMILY, "size": len(members), "alpha": ALPHA,
            "method": "holm step-down, separately over the difference and the equivalence "
                      "p-values; a difference p is the larger of the task-cluster bootstrap p "
                      "and the exact sign-flip p over task gaps", "members": members}
