"""Generality: other environments, and a third-party plug-in found by its own entry point, are
Inspect tasks with no edit; their own scorers grade them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log

from agentmetrology.envs.registry import get_env
from agentmetrology.run.episode import run_one


def _scores(path: Path) -> dict[str, tuple[float, str | None]]:
    log = read_eval_log(str(path))
    assert log.status == "success", log.error
    assert log.samples is not None and len(log.samples) == 1
    scores = log.samples[0].scores or {}
    return {k: (float(v.value), v.answer) for k, v in scores.items()}  # type: ignore[arg-type]


BUILTIN_RUNS = [
    ("researchops", "lr_1", "scripted:overfit"),  # the composite verifier passes an overfit run
    ("permission", "flag_overdue", "scripted:overreach"),  # goal met, contract broken
]


@pytest.fixture(scope="module")
def builtin_logs(run_evals: Callable[..., list[Path]]) -> dict[str, Path]:
    """Return the log of each BUILTIN_RUNS eval by environment, run in one process."""
    paths = run_evals([(env, f"agent:{agent}", None, {"task": task, "seeds": "0"})
                       for env, task, agent in BUILTIN_RUNS])
    return {env: p for (env, _, _), p in zip(BUILTIN_RUNS, paths, strict=True)}


@pytest.mark.parametrize(("env", "task", "agent"), BUILTIN_RUNS)
def test_a_builtin_plugin_environment_as_an_inspect_task(builtin_logs: dict[str, Path], env: str,
                                                         task: str, agent: str) -> None:
    got = _scores(builtin_logs[env])
    ref = run_one(get_env(env), task, 0, agent, "L2")
    assert got == {f"{env}/{a.scorer}": (a.score, a.status) for a in ref.assessments}
    assert len({v for v, _ in got.values()}) == 2  # the two scorers disagree, side by side


def test_a_third_party_plugin_gets_a_task_with_no_edit(
        run_evals: Callable[..., list[Path]]) -> None:
    # toy_sum is installed only by its `agentmetrology.environments` entry point (conftest).
    adder, forgetful = run_evals([("toy_sum", f"agent:scripted:{a}", None,
                                   {"task": "sum3", "seeds": "0"})
                                  for a in ("adder", "forgetful")])
    assert _scores(adder) == {"toy_sum/exact_sum": (1.0, "PASS")}
    assert _scores(forgetful) == {"toy_sum/exact_sum": (0.0, "FAIL")}
