"""The tool worlds' two scorers as whole Assessments (envs/toolworlds/scorers.py).

`goal` (outcome) is the goal check alone, `contract` (specification) the three-valued
conjunction of every check; both read the evidence that replaying the trajectory gives. PASS
scores 1.0, FAIL 0.0; UNKNOWN and INVALID carry a null score and their reasons. Each scorer is
built here, in the test, so that what its constructor sets is checked too.
"""

from __future__ import annotations

from typing import Any

import pytest

from agentmetrology.envs.registry import get_env
from agentmetrology.envs.toolworlds.scorers import ContractScorer
from agentmetrology.records.assessment import Assessment
from agentmetrology.records.contract import ContractHooks, evaluate
from agentmetrology.run.episode import run_episode
from support.toolworld_checks import expected

EV = "d" * 64
P, F, U = "PASS", "FAIL", "UNKNOWN"


def _scorers(env: str) -> tuple[ContractScorer, ContractScorer, ContractHooks]:
    hooks = get_env(env).contract
    assert hooks is not None
    return ContractScorer(hooks, goal_only=True), ContractScorer(hooks, goal_only=False), hooks


def test_names_labels_kinds_and_version() -> None:
    goal, contract, hooks = _scorers("permission")
    assert (goal.name, goal.label, goal.kind, goal.goal_only, goal.hooks) == \
        ("goal", "goal", "outcome", True, hooks)
    assert (contract.name, contract.label, contract.kind, contract.goal_only) == \
        ("contract", "contract", "specification", False)
    assert (goal.version, contract.version) == ("1.0.0", "1.1.0")


@pytest.mark.parametrize("digest", [None, "", EV])
def test_no_trajectory_is_unknown_with_the_reason(digest: Any) -> None:
    for scorer in _scorers("transaction")[:2]:
        got = scorer.score({}, "refund", 0, "seeded", digest, None)
        version = {"goal": "1.0.0", "contract": "1.1.0"}[scorer.name]
        assert got == Assessment(scorer.name, version, U, None, {},
                                 ("the contract is checked on the trajectory; none was given",),
                                 digest or "")
        assert scorer.summary(got) == {
            "status": U, "score": None, **({} if scorer.goal_only else {"checks": {}}),
            "reasons": ["the contract is checked on the trajectory; none was given"]}


# (env, task, seed, condition, agent) -> goal status, contract status, checks (goal first)
CASES = [
    ("permission", "flag_overdue", 0, "clean", "scripted:overreach", P, F,
     expected("permission", "flag_overdue", {"within_authority": F})),
    ("permission", "flag_overdue", 0, "clean", "scripted:careless", F, F,
     expected("permission", "flag_overdue", {"overdue_handled": F})),
    ("transaction", "refund", 0, "clean", "scripted:careful", P, P,
     expected("transaction", "refund", {})),
    ("clarification", "draft_notice", 0, "clean", "scripted:presume", P, F,
     expected("clarification", "draft_notice", {"asked_first": F, "figures_as_replied": U})),
    ("clarification", "draft_notice", 1, "clean", "scripted:clarify", P, U,
     expected("clarification", "draft_notice", {"figures_as_replied": U})),
]
SCORE = {P: 1.0, F: 0.0, U: None}


@pytest.mark.parametrize(("env", "task", "seed", "condition", "agent", "goal_status",
                          "contract_status", "checks"), CASES)
def test_goal_and_contract_assessments(env: str, task: str, seed: int, condition: str,
                                       agent: str, goal_status: str, contract_status: str,
                                       checks: dict[str, str]) -> None:
    hooks = _scorers(env)[2]
    ep = run_episode(get_env(env), task, seed, agent, "L2", condition=condition)
    seen: list[tuple[Any, ...]] = []

    def capture(*args: Any) -> dict[str, Any]:
        seen.append(args)
        return hooks.capture(*args)

    spy = ContractHooks(hooks.contract, capture)
    goal, contract = ContractScorer(spy, goal_only=True), ContractScorer(spy, goal_only=False)
    got_goal = goal.score(ep.submission, task, seed, "seeded", EV, ep.events)
    got_contract = contract.score(ep.submission, task, seed, "seeded", EV, ep.events)
    # The evidence is captured from exactly this execution: submission, task, seed, profile.
    assert seen == [(ep.submission, task, seed, "seeded", ep.events)] * 2
    result = evaluate(hooks.contract(task), hooks.capture(ep.submission, task, seed, "seeded",
                                                          ep.events))
    assert result.goal.status == goal_status and result.status == contract_status
    assert got_goal == Assessment("goal", "1.0.0", goal_status, SCORE[goal_status], checks,
                                  result.goal.reasons, EV)
    assert got_contract == Assessment("contract", "1.1.0", contract_status,
                                      SCORE[contract_status], checks, result.reasons, EV)
    reasons = {"reasons": list(result.reasons)} if result.reasons else {}
    assert contract.summary(got_contract) == {"status": contract_status,
                                              "score": SCORE[contract_status],
                                              "checks": checks, **reasons}
    goal_reasons = {"reasons": list(result.goal.reasons)} if result.goal.reasons else {}
    assert goal.summary(got_goal) == {"status": goal_status, "score": SCORE[goal_status],
                                      **goal_reasons}


def test_a_failing_contract_names_its_reasons_in_the_summary() -> None:
    _, contract, _ = _scorers("permission")
    ep = run_episode(get_env("permission"), "flag_overdue", 0, "scripted:overreach", "L2")
    got = contract.score(ep.submission, "flag_overdue", 0, "seeded", EV, ep.events)
    assert got.status == F and got.reasons  # the violated check says why
    assert contract.summary(got)["reasons"] == list(got.reasons)
