"""Generality: other environments, and a third-party plug-in found by its own entry point, are
Inspect tasks with no edit; their own scorers grade them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log

from agentmetrology.envs.registry import get_env
from agentmetrology.run.episode import run_one

RunEval = Callable[..., Path]  # the conftest fixture


def _scores(path: Path) -> dict[str, tuple[float, str | None]]:
    log = read_eval_log(str(path))
    assert log.status == "success", log.error
    assert log.samples is not None and len(log.samples) == 1
    scores = log.samples[0].scores or {}
    return {k: (float(v.value), v.answer) for k, v in scores.items()}  # type: ignore[arg-type]


@pytest.mark.parametrize(("env", "task", "agent"), [
    ("researchops", "lr_1", "scripted:overfit"),  # the composite verifier passes an overfit run
    ("permission", "flag_overdue", "scripted:overreach"),  # goal met, contract broken
])
def test_a_builtin_plugin_environment_as_an_inspect_task(run_eval: RunEval, env: str, task: str,
                                                         agent: str) -> None:
    got = _scores(run_eval(env, f"agent:{agent}", task=task, seeds="0"))
    ref = run_one(get_env(env), task, 0, agent, "L2")
    assert got == {f"{env}/{a.scorer}": (a.score, a.status) for a in ref.assessments}
    assert len({v for v, _ in got.values()}) == 2  # the two scorers disagree, side by side


def test_a_third_party_plugin_gets_a_task_with_no_edit(run_eval: RunEval) -> None:
    # toy_sum is installed only by its `agentmetrology.environments` entry point (conftest).
    assert _scores(run_eval("toy_sum", "agent:scripted:adder", task="sum3", seeds="0")) == \
        {"toy_sum/exact_sum": (1.0, "PASS")}
    assert _scores(run_eval("toy_sum", "agent:scripted:forgetful", task="sum3", seeds="0")) == \
        {"toy_sum/exact_sum": (0.0, "FAIL")}
