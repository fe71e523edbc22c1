"""Generality: other environments, and a third-party plug-in found by its own entry point, are
Inspect tasks with no edit; their own scorers grade them.

Processes: the logs come from the suite's one shared Inspect process (support.inspect_logs), a
fresh interpreter that finds toy_sum only through its `agentmetrology.environments` entry point
and our tasks only through the `inspect_ai` one."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log

from agentmetrology.envs.registry import get_env
from agentmetrology.run.episode import run_one
from support.inspect_logs import BUILTIN_RUNS, TOY_AGENTS


def _scores(path: Path) -> dict[str, tuple[float, str | None]]:
    log = read_eval_log(str(path))
    assert log.status == "success", log.error
    assert log.samples is not None and len(log.samples) == 1
    scores = log.samples[0].scores or {}
    return {k: (float(v.value), v.answer) for k, v in scores.items()}  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def plugin_logs(inspect_logs: dict[str, Path]) -> dict[str, Path]:
    """Return the log of each BUILTIN_RUNS eval by environment and of each toy_sum agent (as
    `toy_sum:AGENT`), written with the suite's other Inspect logs in one process (each Inspect
    process start costs seconds; support.inspect_logs.EVALS)."""
    names = [env for env, _, _ in BUILTIN_RUNS] + [f"toy_sum:{a}" for a in TOY_AGENTS]
    return {name: inspect_logs[name] for name in names}


@pytest.mark.parametrize(("env", "task", "agent"), BUILTIN_RUNS)
def test_a_builtin_plugin_environment_as_an_inspect_task(plugin_logs: dict[str, Path], env: str,
                                                         task: str, agent: str) -> None:
    got = _scores(plugin_logs[env])
    ref = run_one(get_env(env), task, 0, agent, "L2")
    assert got == {f"{env}/{a.scorer}": (a.score, a.status) for a in ref.assessments}
    assert len({v for v, _ in got.values()}) == 2  # the two scorers disagree, side by side


def test_a_third_party_plugin_gets_a_task_with_no_edit(plugin_logs: dict[str, Path]) -> None:
    # toy_sum is installed only by its `agentmetrology.environments` entry point (conftest).
    assert _scores(plugin_logs["toy_sum:adder"]) == {"toy_sum/exact_sum": (1.0, "PASS")}
    assert _scores(plugin_logs["toy_sum:forgetful"]) == {"toy_sum/exact_sum": (0.0, "FAIL")}
