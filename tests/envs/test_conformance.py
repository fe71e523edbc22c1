"""One conformance suite that every registered environment runs, through every path a user has.

Every environment `agm envs` lists — the built-ins and the toy_sum plug-in, installed by its
entry point as a third party installs one — goes through the same paths: listed by `agm envs`;
`agm run` of a model-free agent scoring every scorer, twice byte-identical; an unknown task
refused in one line; a campaign run, its status and its regrade (no score moves); the auditor's
card, every "not probed" with its reason; and `agm serve mcp` offering the environment's tools.
What is particular to one environment (its pinned numbers, its recipes, its defects) stays in
that environment's own tests.

Which processes: every command but `agm serve mcp` runs in ONE fresh interpreter with the
plug-in's dist-info on its path (`support.agm_runs.run_batch`), which finds the plug-in by entry
point only; each server is its own process (a stdio MCP server).
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest
from mcp import Client, StdioServerParameters

from agentmetrology.envs.registry import env_names, get_env
from agentmetrology.records.environment import EnvSpec
from support.agm_runs import AGM, Batch, run_batch
from support.inspect_logs import PLUGIN_DIR

BUILT_IN = tuple(env_names())
ENVIRONMENTS = (*BUILT_IN, "toy_sum")
CARD_STATUSES = {"pass", "fail", "not probed"}
STATUSES = {"PASS", "FAIL", "PARTIAL", "UNKNOWN", "INVALID"}


def _spec(name: str) -> EnvSpec:
    """Return a registered environment's spec (the plug-in imported from its folder)."""
    if name != "toy_sum":
        return get_env(name)
    sys.path.insert(0, str(PLUGIN_DIR))
    try:
        import toy_sum  # the plug-in's module, as its entry point names it
    finally:
        sys.path.remove(str(PLUGIN_DIR))
    spec: EnvSpec = toy_sum.SPEC
    return spec


class Plan(NamedTuple):
    """What the suite runs on one environment: a task, a model-free agent and a level."""

    task: str
    agent: str
    level: str


def plan_for(spec: EnvSpec) -> Plan:
    """Return the first task, the first scripted agent (the rule agent when the environment
    has no scripted one) and the first level that agent acts at."""
    agent = next((a for a in sorted(spec.agents) if a.startswith("scripted:")), "rule")
    levels = spec.agents[agent]().levels
    level = next(lv for lv in spec.levels if lv in levels)
    return Plan(sorted(spec.tasks)[0], agent, level)


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


def _argvs(root: Path, name: str, spec: EnvSpec) -> dict[str, list[str]]:
    task, agent, level = plan_for(spec)
    here = root / name
    here.mkdir()
    kind = "rule" if agent == "rule" else "scripted"
    (here / "c.toml").write_text(CAMPAIGN.format(env=name, task=task, level=level, kind=kind,
                                                 agent=agent))
    run = ["run", name, "--task", task, "--seeds", "0", "--agent", agent, "--level", level,
           "--json"]
    store = str(here / "store")
    return {f"{name}.run": run, f"{name}.again": run,
            f"{name}.bad_task": ["run", name, "--task", "no_such_task", "--agent", agent],
            f"{name}.campaign": ["campaign", "run", str(here / "c.toml"), "--store", store],
            f"{name}.status": ["campaign", "status", "--store", store, "--json"],
            f"{name}.regrade": ["archive", "regrade", store, "--out", str(here / "rg")],
            f"{name}.export": ["export", store],
            f"{name}.audit": ["audit", name, "--seeds", "0", "--out", str(here / "audit")]}


@pytest.fixture(scope="module")
def batch(plugin_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Batch:
    root = tmp_path_factory.mktemp("conformance")
    argvs: dict[str, list[str]] = {"envs": ["envs", "--json"]}
    for name in ENVIRONMENTS:
        argvs.update(_argvs(root, name, _spec(name)))
    results = run_batch(list(argvs.values()), env=plugin_env, cwd=root, timeout=900)
    return Batch(dict(zip(argvs, results, strict=True)), root)


def test_envs_lists_every_environment(batch: Batch) -> None:
    res = batch.results["envs"]
    assert res.returncode == 0, res.stderr
    rows = {r["name"]: r for r in map(json.loads, res.stdout.splitlines())}
    assert set(rows) == set(ENVIRONMENTS)
    for name in ENVIRONMENTS:
        spec = _spec(name)
        assert rows[name]["tasks"] == len(spec.tasks)
        assert rows[name]["levels"] == list(spec.levels)


@pytest.mark.parametrize("name", ENVIRONMENTS)
def test_run_scores_every_scorer_and_replays_byte_identical(batch: Batch, name: str) -> None:
    res = batch.results[f"{name}.run"]
    assert res.returncode == 0, res.stderr
    assert res.stdout == batch.results[f"{name}.again"].stdout  # same seeds, same bytes
    (row,) = [json.loads(line) for line in res.stdout.splitlines()]
    spec = _spec(name)
    assert row["environment"] == name
    for scorer in spec.scorers:
        assert row[scorer.label]["status"] in STATUSES


@pytest.mark.parametrize("name", ENVIRONMENTS)
def test_an_unknown_task_is_one_line_naming_the_tasks(batch: Batch, name: str) -> None:
    res = batch.results[f"{name}.bad_task"]
    assert res.returncode == 2 and res.stdout == ""
    (line,) = res.stderr.strip().splitlines()
    assert "no_such_task" in line and sorted(_spec(name).tasks)[0] in line


@pytest.mark.parametrize("name", ENVIRONMENTS)
def test_campaign_status_and_regrade(batch: Batch, name: str) -> None:
    assert batch.results[f"{name}.campaign"].returncode == 0, \
        batch.results[f"{name}.campaign"].stderr
    doc = json.loads(batch.results[f"{name}.status"].stdout)["campaigns"][0]
    assert doc["total"]["planned"] == doc["total"]["done"] == 2
    res = batch.results[f"{name}.regrade"]
    assert res.returncode == 0, res.stderr
    regrade = json.loads((batch.root / name / "rg" / "regrade.json").read_text())
    assert regrade["store"]["recorded"] == 2
    rows = [json.loads(line) for line in batch.results[f"{name}.export"].stdout.splitlines()]
    assert len(rows) == 2
    for scorer in _spec(name).scorers:
        section = regrade["scorers"][scorer.name]
        assert section["episodes"] == 2 and section["score_changed"] == 0
        for row in rows:  # a score is null exactly when it was not measured
            status = row[f"{scorer.name}.status"]
            assert status in STATUSES
            assert (row[f"{scorer.name}.score"] is None) == (status in {"UNKNOWN", "INVALID"})


@pytest.mark.parametrize("name", ENVIRONMENTS)
def test_audit_card_says_why_for_every_not_probed(batch: Batch, name: str) -> None:
    res = batch.results[f"{name}.audit"]
    assert res.returncode == 0, res.stderr
    doc = json.loads((batch.root / name / "audit" / "audit.json").read_text())
    for config in doc["card"]["configurations"]:
        for row_name, row in config["rows"].items():
            if row_name == "scorer_kind":  # its status is the kind itself
                continue
            assert row["status"] in CARD_STATUSES, (row_name, row)
            if row["status"] == "not probed":
                assert row["evidence"].get("reason"), (row_name, row)


def _served_tools(name: str, task: str, env: dict[str, str], cwd: Path) -> list[str]:
    params = StdioServerParameters(command=AGM[0], args=[
        *AGM[1:], "serve", "mcp", name, "--task", task, "--seed", "0", "--store",
        str(cwd / "store")], env=env, cwd=str(cwd))

    async def go() -> list[str]:
        async with Client(params) as client:
            return [t.name for t in (await client.list_tools()).tools]

    return asyncio.run(asyncio.wait_for(go(), 60))


@pytest.mark.parametrize("name", ENVIRONMENTS)
def test_serve_mcp_offers_the_environments_tools(plugin_env: dict[str, str], tmp_path: Path,
                                                  name: str) -> None:
    spec = _spec(name)
    task = sorted(spec.tasks)[0]
    tools = list(spec.make(task, 0, spec.profiles[0], "clean").tools)
    assert _served_tools(name, task, plugin_env, tmp_path) == tools
    # The served administration is sealed in the store before any call.
    status = subprocess.run([*AGM, "campaign", "status", "--store", str(tmp_path / "store"),
                             "--json"], env=plugin_env, capture_output=True, text=True,
                            timeout=120, check=False)
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)["campaigns"][0]["total"]["planned"] == 1
