"""Acceptance: `agm archive regrade` on the shared tau2 files reproduces every stored reward.

Counts are derived by hand from the files themselves (their README states the passes and the
terminations): gpt-4.1 airline 10 of 20 pass, every basis DB + COMMUNICATE, all end by
user_stop; qwen2.5:7b airline 9 of 50 pass, 9 agent_error + 1 too_many_errors (reward 0 by the
runner's rule, kept); gpt-4.1 telecom 18 of 40 pass (its whole-file replay is pinned in
test_tau2_regrade_telecom). The airline replays take 0.5 to 1 s a simulation.
"""

from __future__ import annotations

from typing import Any

import pytest

from agentmetrology.archive import load_archive
from agentmetrology.archive.tau2_regrade import regrade_tau2
from archive.tau2_files import GPT_AIRLINE, QWEN_AIRLINE, raw, shared

pytest.importorskip("inspect_evals", reason="needs the `inspect` extra (inspect-evals)")


@pytest.fixture(scope="module")
def gpt() -> dict[str, Any]:
    return regrade_tau2(load_archive(shared(GPT_AIRLINE)))


@pytest.fixture(scope="module")
def qwen() -> dict[str, Any]:
    return regrade_tau2(load_archive(shared(QWEN_AIRLINE)))


def _gold_actions_checked(name: str) -> int:
    return sum(len(s["reward_info"]["action_checks"] or []) for s in raw(name)["simulations"])


def test_gpt_airline_reproduces_all_20(gpt: dict[str, Any]) -> None:
    t = gpt["transitions"]
    assert (gpt["simulations"], gpt["regraded"], gpt["reproduced"]) == (20, 20, 20)
    assert (t["n11"], t["n00"], t["n01"], t["n10"]) == (10, 10, 0, 0)
    assert gpt["problems"] == {} and gpt["changed_by"] == {}
    # two components (DB, COMMUNICATE) per simulation, each equal to the stored breakdown
    assert gpt["component_checks"] == {"compared": 40, "agree": 40}
    assert _gold_actions_checked(GPT_AIRLINE) == 61
    assert (gpt["action_checks"]["compared"], gpt["action_checks"]["disagree"]) == (61, 0)


def test_qwen_airline_reproduces_all_50_with_the_runner_zeros_kept(qwen: dict[str, Any]) -> None:
    sims = raw(QWEN_AIRLINE)["simulations"]
    premature = sum(s["termination_reason"] in ("agent_error", "too_many_errors") for s in sims)
    assert premature == 10
    t = qwen["transitions"]
    assert (qwen["simulations"], qwen["regraded"], qwen["reproduced"]) == (50, 50, 50)
    assert (t["n11"], t["n00"], t["n01"], t["n10"]) == (9, 41, 0, 0)
    assert sum(r.get("note") == "reward 0 by the runner's rule, kept" for r in qwen["rows"]) == 10
    assert qwen["component_checks"] == {"compared": 80, "agree": 80}  # 40 replays x 2


def test_qwen_one_stored_action_check_differs_and_says_why(qwen: dict[str, Any]) -> None:
    # by hand: task 13's gold transfer_to_human_agents carries a summary the agent's call did
    # not repeat word for word; tau2-bench's stored check compared it, inspect-evals does not
    sim = next(s for s in raw(QWEN_AIRLINE)["simulations"] if s["task_id"] == "13")
    calls = [c for m in sim["messages"] for c in m.get("tool_calls") or []
             if c["name"] == "transfer_to_human_agents"]
    (check,) = [c for c in sim["reward_info"]["action_checks"]
                if c["action"]["name"] == "transfer_to_human_agents"]
    assert calls and check["action_match"] is False
    assert calls[0]["arguments"] != check["action"]["arguments"]
    a = qwen["action_checks"]
    assert _gold_actions_checked(QWEN_AIRLINE) == a["compared"] == 124
    assert (a["agree"], a["disagree"]) == (123, 1)
    (d,) = a["disagreements"]
    assert (d["episode_id"], d["action"], d["stored"], d["replayed"]) == (
        "qwen2.5-7b-airline-1trial/13/0", "transfer_to_human_agents", False, True)
    assert "by name only" in d["cause"]
