"""Conformance, campaigns: a campaign of a model-free agent on every environment runs, its
status counts every planned administration done, `agm archive regrade` moves no score and
`agm export` prints a null score exactly where it was not measured; then each environment's own
campaign pins (`support.env_pins`: backends, recipes, resumes). Processes: see
`support.conformance`."""

from __future__ import annotations

import json

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

CASES = pin_cases({env: pins.campaign for env, pins in PINS.items()})
CAMPAIGN = """[campaign]
name = "conf"
environment = "{env}"
tasks = ["{task}"]
seeds = "0-1"
levels = ["{level}"]

[[targets]]
name = "a"
kind = "{kind}"
agent = "{agent}"
"""


def _generic(name: str) -> Pin:
    task, agent, level = plan_for(spec_of(name))
    kind = "rule" if agent == "rule" else "scripted"
    toml = CAMPAIGN.format(env=name, task=task, level=level, kind=kind, agent=agent)
    return Pin(check=lambda _: None, files={"c.toml": toml}, commands={
        "campaign": ["campaign", "run", "{root}/c.toml", "--store", "{root}/store"],
        "status": ["campaign", "status", "--store", "{root}/store", "--json"],
        "regrade": ["archive", "regrade", "{root}/store", "--out", "{root}/rg"],
        "export": ["export", "{root}/store"]})


@pytest.fixture(scope="module")
def results(plugin_env: dict[str, str],
            tmp_path_factory: pytest.TempPathFactory) -> dict[str, Results]:
    pins = {f"{name}/generic": _generic(name) for name in ENVIRONMENTS}
    pins.update({f"{env}/{pin}": PINS[env].campaign[pin] for env, pin in CASES})
    return run_pins(pins, tmp_path_factory.mktemp("conformance-campaign"), plugin_env)


@pytest.mark.parametrize("name", ENVIRONMENTS)
def test_campaign_status_and_regrade(results: dict[str, Results], name: str) -> None:
    res = results[f"{name}/generic"]
    assert res["campaign"].returncode == 0, res["campaign"].stderr
    doc = json.loads(res["status"].stdout)["campaigns"][0]
    assert doc["total"]["planned"] == doc["total"]["done"] == 2
    assert res["regrade"].returncode == 0, res["regrade"].stderr
    regrade = json.loads((res.root / "rg" / "regrade.json").read_text())
    assert regrade["store"]["recorded"] == 2
    rows = [json.loads(line) for line in res["export"].stdout.splitlines()]
    assert len(rows) == 2
    for scorer in spec_of(name).scorers:
        section = regrade["scorers"][scorer.name]
        assert section["episodes"] == 2 and section["score_changed"] == 0
        for row in rows:  # a score is null exactly when it was not measured
            status = row[f"{scorer.name}.status"]
            assert status in STATUSES
            assert (row[f"{scorer.name}.score"] is None) == (status in {"UNKNOWN", "INVALID"})


@pytest.mark.parametrize(("env", "pin"), CASES)
def test_environment_pins(results: dict[str, Results], plugin_env: dict[str, str], env: str,
                          pin: str) -> None:
    check_pin(PINS[env].campaign[pin], results[f"{env}/{pin}"], plugin_env)
