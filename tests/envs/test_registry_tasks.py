"""A built-in's task table read without its environment, and the lazy ComtradeBench package."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest

from agentmetrology.envs.registry import (
    BUILTIN_OUTCOME_SCORERS,
    BUILTIN_TASKS,
    BUILTINS,
    env_tasks,
    get_env,
    outcome_scorers,
    register,
    task_spec_digest,
    unregister,
)
from agentmetrology.records.canonical import digest, to_plain


@pytest.mark.parametrize("name", sorted(BUILTIN_TASKS))
def test_builtin_task_table_is_the_specs_own(name: str) -> None:
    assert name in BUILTINS
    assert env_tasks(name) is get_env(name).tasks


def test_task_spec_digest_is_the_digest_of_the_specs_task() -> None:
    spec = get_env("comtrade")
    want = digest({"environment": "comtrade", "profile": "default",
                   "task": to_plain(spec.tasks["T3_duplicates"])})
    assert task_spec_digest("T3_duplicates", "default", "comtrade") == want
    with pytest.raises(KeyError):
        task_spec_digest("T99_missing", "default", "comtrade")


def test_a_registration_replacing_a_builtin_gives_its_own_tasks() -> None:
    spec = get_env("researchops")
    first = next(iter(spec.tasks))
    replaced = register(dataclasses.replace(spec, tasks={first: spec.tasks[first]}))
    try:
        assert env_tasks("researchops") is replaced.tasks
        assert list(env_tasks("researchops")) == [first]
    finally:
        unregister("researchops")
    assert env_tasks("researchops") is get_env("researchops").tasks


def _run_without_numpy(body: str) -> None:
    """Run `body` in a fresh interpreter and fail if numpy was imported by the end of it."""
    code = f"import sys\n{body}assert 'numpy' not in sys.modules, 'numpy imported'\n"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_specification_digests_need_no_numpy() -> None:
    # `agm campaign status` re-opens every bound task specification: the task tables alone
    _run_without_numpy("from agentmetrology.envs.registry import task_spec_digest\n"
                       "task_spec_digest('T3_duplicates', 'default', 'comtrade')\n"
                       "import agentmetrology.envs.comtrade as c\n"
                       "c.TASKS, c.get_task\n")
    # the control: the environment itself does load numpy
    code = "import sys, agentmetrology.envs.comtrade as c\nc.ComtradeEnv\n" \
           "assert 'numpy' in sys.modules\n"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_lazy_package_names_what_it_exports() -> None:
    import agentmetrology.envs.comtrade as c
    from agentmetrology.envs.comtrade.environment import ComtradeEnv
    from agentmetrology.envs.comtrade.generator import generate_rows

    assert c.ComtradeEnv is ComtradeEnv and c.generate_rows is generate_rows
    assert set(c.__all__) <= set(dir(c))
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        c.nothing  # noqa: B018


def test_every_exported_name_has_a_home() -> None:
    import agentmetrology.envs.comtrade as c

    assert sorted(c.__all__) == sorted(c._HOME)


@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_declared_outcome_scorers_are_the_specs(name: str) -> None:
    assert name in BUILTIN_OUTCOME_SCORERS
    spec = get_env(name)
    assert outcome_scorers(name) == {s.name for s in spec.scorers if s.kind == "outcome"}


def test_a_registration_replacing_a_builtin_gives_its_own_outcome_scorers() -> None:
    spec = get_env("comtrade")
    shape = [s for s in spec.scorers if s.kind != "outcome"]
    register(dataclasses.replace(spec, scorers=tuple(shape)))
    try:
        assert outcome_scorers("comtrade") == frozenset()
    finally:
        unregister("comtrade")
    assert outcome_scorers("comtrade") == {"ground_truth_f1"}


def test_status_tables_order_scorers_without_numpy() -> None:
    _run_without_numpy("from agentmetrology.report.terminal.scorer_order import outcome_first\n"
                       "assert outcome_first(['shape_judge', 'ground_truth_f1']) == "
                       "['ground_truth_f1', 'shape_judge']\n")


def test_a_builtin_replaced_and_restored_keeps_its_place() -> None:
    from agentmetrology.envs.registry import env_names

    before = env_names()
    spec = get_env("researchops")
    register(dataclasses.replace(spec, tasks=dict(spec.tasks)))
    try:
        assert env_names() == before
    finally:
        unregister("researchops")
    assert env_names() == before
