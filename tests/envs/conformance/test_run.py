"""Conformance, listing and running: `agm envs` lists every environment, `agm run` of a
model-free agent scores every scorer and prints the same bytes in another interpreter, an
unknown task is refused in one line; then each environment's own pins of these paths
(`support.env_pins`). Processes: see `support.conformance`."""

from __future__ import annotations

import json
from typing import Any

import pytest

from support.conformance import (
    ENVIRONMENTS,
    STATUSES,
    Pin,
    Results,
    check_pin,
    pin_cases,
    plan_for,
    run_pins,
    spec_of,
)
from support.env_pins import PINS

CASES = pin_cases({env: pins.run for env, pins in PINS.items()})
LISTED = [env for env in ENVIRONMENTS if PINS[env].listed]


def _generic(name: str) -> Pin:
    task, agent, level = plan_for(spec_of(name))
    return Pin(check=lambda _: None, again=("run",), commands={
        "run": ["run", name, "--task", task, "--seeds", "0", "--agent", agent, "--level", level,
                "--json"],
        "bad_task": ["run", name, "--task", "no_such_task", "--agent", agent]})


@pytest.fixture(scope="module")
def results(plugin_env: dict[str, str],
            tmp_path_factory: pytest.TempPathFactory) -> dict[str, Results]:
    pins = {"envs": Pin(check=lambda _: None, commands={"envs": ["envs", "--json"]})}
    pins.update({f"{name}/generic": _generic(name) for name in ENVIRONMENTS})
    pins.update({f"{env}/{pin}": PINS[env].run[pin] for env, pin in CASES})
    return run_pins(pins, tmp_path_factory.mktemp("conformance-run"), plugin_env)


def _listed(results: dict[str, Results]) -> dict[str, dict[str, Any]]:
    res = results["envs"]["envs"]
    assert res.returncode == 0, res.stderr
    return {r["name"]: r for r in map(json.loads, res.stdout.splitlines())}


def test_envs_lists_every_environment(results: dict[str, Results]) -> None:
    rows = _listed(results)
    assert set(rows) == set(ENVIRONMENTS) == set(PINS)  # a new environment gets its pins entry
    for name in ENVIRONMENTS:
        spec = spec_of(name)
        assert rows[name]["tasks"] == len(spec.tasks)
        assert rows[name]["levels"] == list(spec.levels)


@pytest.mark.parametrize("name", LISTED)
def test_envs_row_pins(results: dict[str, Results], name: str) -> None:
    row = _listed(results)[name]
    for key, value in PINS[name].listed.items():
        assert row[key] == value, key


@pytest.mark.parametrize("name", ENVIRONMENTS)
def test_run_scores_every_scorer_and_replays_byte_identical(results: dict[str, Results],
                                                            name: str) -> None:
    res = results[f"{name}/generic"]["run"]
    assert res.returncode == 0, res.stderr
    # same seeds, same bytes, in another interpreter
    assert res.stdout == results[f"{name}/generic"].again("run").stdout
    (row,) = [json.loads(line) for line in res.stdout.splitlines()]
    assert row["environment"] == name
    for scorer in spec_of(name).scorers:
        assert row[scorer.label]["status"] in STATUSES


@pytest.mark.parametrize("name", ENVIRONMENTS)
def test_an_unknown_task_is_one_line_naming_the_tasks(results: dict[str, Results],
                                                      name: str) -> None:
    res = results[f"{name}/generic"]["bad_task"]
    assert res.returncode == 2 and res.stdout == ""
    (line,) = res.stderr.strip().splitlines()
    assert "no_such_task" in line and sorted(spec_of(name).tasks)[0] in line


@pytest.mark.parametrize(("env", "pin"), CASES)
def test_environment_pins(results: dict[str, Results], plugin_env: dict[str, str], env: str,
                          pin: str) -> None:
    check_pin(PINS[env].run[pin], results[f"{env}/{pin}"], plugin_env)
