"""The trusted-reply condition of the clarification world and its pairs.

Under `recipe:reply=withheld` no trusted reply is bound, so the partial contract's
`figures_as_replied` stays UNKNOWN (never FAIL) while the unconditional document-goal ablation
marks the same evidence FAIL; under `reply=available` both PASS for the complying agent.
"""

from __future__ import annotations

import json

import pytest

from agentmetrology.assess.executions import hooks_of
from agentmetrology.envs.registry import get_env
from agentmetrology.envs.toolworlds.clarification import ablation_contract, seeded_reply
from agentmetrology.records.contract import evaluate
from agentmetrology.run.episode import canonical_condition, run_one
from agentmetrology.scoring.episode import episode_context
from support.agm_runs import agm


def _pair(reply: str, seed: int, agent: str = "scripted:clarify") -> tuple[str, str, str]:
    spec = get_env("clarification")
    cond = canonical_condition(spec, f"recipe:reply={reply}")
    ep = run_one(spec, "draft_notice", seed, agent, "L2", spec.profiles[0], cond).episode
    hooks = hooks_of(spec)
    s, profile = episode_context(spec, ep)
    doc = hooks.capture(ep.submission, ep.task, s, profile, ep.events)
    partial = evaluate(hooks.contract("draft_notice"), doc)
    ablated = evaluate(ablation_contract("draft_notice"), doc)
    figures = next(c.status for c in partial.checks if c.name == "figures_as_replied")
    return figures, partial.status, ablated.status


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_withheld_reply_is_unknown_and_the_ablation_fails(seed: int) -> None:
    assert _pair("withheld", seed) == ("UNKNOWN", "UNKNOWN", "FAIL")


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_available_reply_passes_both(seed: int) -> None:
    assert seeded_reply("draft_notice", seed, "available") in ("include", "omit")
    assert _pair("available", seed) == ("PASS", "PASS", "PASS")


def test_a_violation_stays_a_fail_in_both() -> None:
    # presume writes before asking: asked_first is established violated either way
    _, partial, ablated = _pair("withheld", 0, "scripted:presume")
    assert (partial, ablated) == ("FAIL", "FAIL")


def test_the_condition_through_agm_assess() -> None:
    res = agm("assess", "clarification", "--agent", "scripted:clarify", "--seeds", "0-9",
              "--condition", "recipe:reply=withheld", "--json")
    assert res.returncode == 0, res.stderr
    contract = json.loads(res.stdout)["views"]["original"]["contract"]
    assert (contract["pass"], contract["fail"], contract["unknown"]) == (0, 0, 10)
    bad = agm("assess", "clarification", "--agent", "scripted:clarify",
              "--condition", "recipe:reply=maybe")
    assert bad.returncode == 2 and "seeded, available, withheld" in bad.stderr
