"""`agm assess`'s option checks in the library: --store clashes and the executions to run."""

from __future__ import annotations

import pytest

from agentmetrology.assess.options import check_recorded, executions, task_list
from agentmetrology.envs.registry import get_env
from agentmetrology.records.errors import UserError

PERMISSION = get_env("permission")
NO_RUN = {"--seeds": None, "--level": None, "--profile": None, "--condition": None}


def test_a_store_refuses_the_options_of_a_run() -> None:
    check_recorded(None, None, NO_RUN)
    with pytest.raises(UserError, match=r"^--sweep runs executions"):
        check_recorded(None, 3, NO_RUN)
    with pytest.raises(UserError, match=r"^--agent runs executions"):
        check_recorded("scripted:within", None, NO_RUN)
    with pytest.raises(UserError) as err:
        check_recorded(None, None, {**NO_RUN, "--seeds": "0-2", "--level": "L1"})
    assert str(err.value) == (
        "--seeds, --level choose the executions --agent runs; --store assesses the recorded "
        "episodes as they were run: drop them (select with --campaign or --task)")


def test_the_executions_default_to_seeds_0_9_at_l2_clean() -> None:
    agent = next(iter(PERMISSION.agents))
    run = executions(PERMISSION, agent, None, None, None, None, campaign=None,
                     sweep_seed=None, masks=[])
    assert (run.seeds, run.agent, run.level, run.profile, run.condition) == (
        list(range(10)), agent, "L2", PERMISSION.profiles[0], "clean")


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"campaign": "c"}, "--campaign needs --store"),
    ({"sweep_seed": 1}, "--sweep masks trajectories"),
    ({"agent": None}, "give --agent"),
    ({"agent": "nobody"}, "unknown agent 'nobody'; permission has:"),
])
def test_bad_execution_options_are_refused(kwargs: dict, message: str) -> None:
    given = {"agent": next(iter(PERMISSION.agents)), "campaign": None, "sweep_seed": None,
             **kwargs}
    with pytest.raises(UserError, match=message):
        executions(PERMISSION, given["agent"], None, None, None, None,
                   campaign=given["campaign"], sweep_seed=given["sweep_seed"], masks=[])


def test_tasks_all_or_each_checked() -> None:
    assert task_list(PERMISSION, "all") == list(PERMISSION.tasks)
    with pytest.raises(UserError, match="unknown task 'T99'"):
        task_list(PERMISSION, "T99")
    # was: the task assessed twice (PASS=2 from one seed), or nothing assessed and exit 0
    with pytest.raises(UserError, match="lists flag_overdue more than once; list each task"):
        task_list(PERMISSION, "flag_overdue,flag_overdue")
    with pytest.raises(UserError, match="--task needs a task id"):
        task_list(PERMISSION, ",")


@pytest.mark.parametrize(("option", "message"), [
    ("seeds", "bad seed list '': empty item"),
    ("profile", "unknown profile '' of environment 'permission'; use one of: seeded"),
    ("condition", "unknown condition '' of permission; use clean or recipe:level=..."),
])
def test_an_option_given_empty_is_refused_not_read_as_its_default(option: str,
                                                                    message: str) -> None:
    # was: `--seeds ""` (an unset shell variable) assessed the default seeds 0-9, exit 0
    given: dict[str, str | None] = {"seeds": None, "level": None, "profile": None,
                                    "condition": None, option: ""}
    with pytest.raises(UserError) as err:
        executions(PERMISSION, "scripted:within", given["seeds"], given["level"],
                   given["profile"], given["condition"], campaign=None, sweep_seed=None,
                   masks=[])
    assert str(err.value) == message


def test_an_empty_level_is_kept_for_the_runner_to_refuse() -> None:
    run = executions(PERMISSION, "scripted:within", None, "", None, None, campaign=None,
                     sweep_seed=None, masks=[])
    assert run.level == ""  # was: read as L2
