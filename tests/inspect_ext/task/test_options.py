"""The `-T` arguments of an environment's task: checked, refused with one line naming what is
known, and turned into task x seed samples.

Processes: one, the real `inspect eval` command line refusing a bad `-T` (its exit code and
one-line message are what a user sees); every other case calls the same functions in-process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agentmetrology.envs.registry import env_names, get_env
from agentmetrology.inspect_ext.task.options import TaskArgumentError, episode_plan, parse_task_list
from agentmetrology.records.errors import UserError


def test_task_lists() -> None:
    spec = get_env("comtrade")
    assert parse_task_list(spec, "all") == tuple(spec.tasks)
    assert parse_task_list(spec, "T3_duplicates") == ("T3_duplicates",)
    assert parse_task_list(spec, "T1_single_page, T3_duplicates") == \
        ("T1_single_page", "T3_duplicates")


@pytest.mark.parametrize(("env", "kw", "message"), [
    ("comtrade", {"task": "T99"}, "unknown task 'T99' of environment 'comtrade'; known: T1"),
    ("comtrade", {"task": "T1_single_page,"}, "give a task id, a comma list or 'all'"),
    ("comtrade", {"task": "T1_single_page,T1_single_page"}, "lists a task twice"),
    ("comtrade", {"seeds": "4-2"}, "-T seeds: bad seed range '4-2'"),
    ("comtrade", {"seeds": "0,0"}, "repeats seed(s) 0"),
    ("comtrade", {"level": "L3"}, "has no level 'L3'; known: L0, L1, L2"),
    ("permission", {"level": "L0"}, "has no level 'L0'; known: L2"),
    ("comtrade", {"profile": "nope"}, "unknown profile 'nope'"),
    ("comtrade", {"condition": "hurricane"}, "hurricane"),
    ("comtrade", {"max_steps": 0}, "-T max_steps=0: a positive integer"),
])
def test_bad_arguments_are_refused_with_what_is_known(env: str, kw: dict[str, object],
                                                      message: str) -> None:
    args = {"task": "all", "seeds": "0", "level": "L2", "condition": "clean", "profile": None,
            "max_steps": None, **kw}
    with pytest.raises(TaskArgumentError) as err:
        episode_plan(get_env(env), **args)  # type: ignore[arg-type]
    assert isinstance(err.value, UserError)  # `agm`'s one-line error, exit 2
    assert message in str(err.value) and "\n" not in str(err.value)


def test_a_plan_and_its_samples() -> None:
    from agentmetrology.inspect_ext.task.tasks import environment_task

    task = environment_task("comtrade", "T3_duplicates,T1_single_page", "0-1", "L1",
                            "clean", None, 12)
    assert [(s.id, s.metadata) for s in task.dataset] == [  # type: ignore[union-attr]
        (f"{t}:s{seed}", {"environment": "comtrade", "task": t, "seed": seed, "level": "L1",
                          "condition": "clean", "profile": "seeded", "max_steps": 12})
        for t in ("T3_duplicates", "T1_single_page") for seed in (0, 1)]
    assert task.metadata is not None
    assert task.metadata["agentmetrology"]["scorer_versions"] == \
        get_env("comtrade").scorer_versions()
    assert environment_task("permission").dataset[0].metadata["level"] == "L2"  # type: ignore[index]


def test_every_registered_environment_has_a_task() -> None:
    from inspect_ai._util.registry import registry_info

    from agentmetrology.inspect_ext.registry import TASKS

    assert list(TASKS) == env_names()
    assert [registry_info(f).name for f in TASKS.values()] == \
        [f"agentmetrology/{n}" for n in env_names()]


def test_inspect_eval_refuses_a_bad_argument_in_one_message(inspect_env: dict[str, str],
                                                            tmp_path: Path) -> None:
    inspect_cli = Path(sys.executable).with_name("inspect")
    res = subprocess.run([str(inspect_cli), "eval", "agentmetrology/comtrade", "-T", "task=T99",
                          "--model", "mockllm/model", "--log-dir", str(tmp_path)],
                         env={**inspect_env, "COLUMNS": "400"}, capture_output=True, text=True,
                         timeout=300, check=False)
    out = res.stdout + res.stderr
    assert res.returncode == 1
    assert "error: -T task: unknown task 'T99' of environment 'comtrade'; known: " in out
    assert "Traceback" not in out
    assert list(tmp_path.iterdir()) == []  # refused before anything ran or was written


def test_inspect_eval_takes_the_documented_comma_lists(inspect_env: dict[str, str],
                                                       tmp_path: Path) -> None:
    # Inspect's command line turns `a,b` into a list (`0,2` into [0, 2]) before the task sees it.
    from inspect_ai.log import read_eval_log

    inspect_cli = Path(sys.executable).with_name("inspect")
    res = subprocess.run([str(inspect_cli), "eval", "agentmetrology/comtrade",
                          "-T", "task=T3_duplicates,T6_page_drift", "-T", "seeds=0,2",
                          "--model", "mockllm/model", "--log-dir", str(tmp_path)],
                         env={**inspect_env, "COLUMNS": "400"}, capture_output=True, text=True,
                         timeout=300, check=False)
    assert res.returncode == 0, res.stdout + res.stderr
    (log_file,) = tmp_path.glob("*.eval")
    log = read_eval_log(str(log_file))
    assert log.samples is not None
    assert sorted((s.metadata["task"], s.metadata["seed"]) for s in log.samples) == [
        ("T3_duplicates", 0), ("T3_duplicates", 2), ("T6_page_drift", 0), ("T6_page_drift", 2)]


def test_a_list_value_is_read_as_the_comma_list_typed() -> None:
    spec = get_env("comtrade")
    plan = episode_plan(spec, ["T3_duplicates", "T6_page_drift"], [0, 2], "L2", "clean", None,
                        None)
    assert plan.tasks == ("T3_duplicates", "T6_page_drift") and plan.seeds == (0, 2)
    assert episode_plan(spec, "T3_duplicates", "0-2", "L2", "clean", None, None).seeds == (0, 1, 2)
