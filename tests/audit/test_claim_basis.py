"""Every licensed claim says what it rests on and which check bearing on it was not probed.

The lattice licenses model capability on criterion sensitivity, ownership completeness and
replay (docs/audit.md, "The card"); non-degeneracy, the ownership audit's other half, is not
probed in an offline audit (no model targets) nor in the tool worlds (no AuditHooks.actions),
and the card said nothing of it beside the claim.
"""

from __future__ import annotations

from typing import Any

import pytest

from agentmetrology.audit.env_audit import NO_ACTIONS, audit_env, seal
from agentmetrology.audit.episodes import NO_MODEL_TARGETS
from agentmetrology.audit.targets.env import EnvTarget
from agentmetrology.envs.registry import get_env


def _card(env: str, seeds: int) -> dict[str, Any]:
    return seal(audit_env(EnvTarget(get_env(env), seeds=seeds)))["card"]


@pytest.mark.parametrize(("env", "n"), [("permission", 3), ("transaction", 6),
                                        ("clarification", 3)])
def test_a_tool_worlds_capability_claim_names_its_unprobed_non_degeneracy(env: str,
                                                                          n: int) -> None:
    card = _card(env, 3)
    for c in card["configurations"]:  # both columns are the goal scorer
        assert c["licensed_claim"] == "model capability"
        assert c["claim_basis"] == {
            "claim": "model capability",
            "rests_on": {"criterion_sensitivity": f"pass (n = {n} samples compared)",
                         "ownership_completeness": "pass", "replay": "pass"},
            "not_checked": {"non_degeneracy": NO_ACTIONS}}


def test_researchops_claims_rest_on_their_rows() -> None:
    shipped, truth = _card("researchops", 1)["configurations"]
    # the composite verifier fails its criterion: no claim, nothing rests on anything
    assert (shipped["licensed_claim"], shipped["claim_basis"]) == ("no claim licensed", None)
    assert truth["claim_basis"] == {
        "claim": "model capability",
        "rests_on": {"criterion_sensitivity": "pass (n = 25 samples compared)",
                     "ownership_completeness": "pass", "replay": "pass"},
        "not_checked": {"non_degeneracy": NO_MODEL_TARGETS}}
