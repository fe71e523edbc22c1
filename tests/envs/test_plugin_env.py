"""Acceptance of the environment interface: a second environment with no core edit.

`tests/plugin_env/toy_sum.py` is registered the way a third-party package registers one, by an
entry point in `agentmetrology.environments` (a dist-info folder on the path), and used through
every path a user has: `agm envs|run`, campaigns on every backend, `agm serve mcp`, `agm audit`
and `agm archive regrade`. Nothing is registered in the test process (but in the last test).

Which processes: the `envs`, `run`, `campaign` (inline, process and Ray backends), `audit` and
their `archive regrade` commands run in ONE fresh interpreter with the plug-in's dist-info on
its path (`support.agm_runs.run_batch`), each with its own argv, stdout, stderr and exit code:
that interpreter imports nothing before its first command, so it finds the plug-in only by the
entry point, as one process per command would (~0.5 s of imports each, 16 commands). `agm serve
mcp` runs as its own process (a stdio server), and so does the `agm archive regrade` of the
episode it recorded: a real `agm` process that finds the plug-in by entry point.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters, types

from support.agm_runs import AGM, Batch, run_batch

HERE = Path(__file__).resolve().parent
PLUGIN_DIR = HERE.parent / "plugin_env"
CAMPAIGN = """
[campaign]
name = "toy"
environment = "toy_sum"
tasks = "all"
seeds = "0-2"
levels = ["L2"]

[[targets]]
name = "adder"
kind = "scripted"
agent = "scripted:adder"

[[targets]]
name = "forgetful"
kind = "scripted"
agent = "scripted:forgetful"
"""
BACKENDS = ("inline", "process", "ray")


def agm(env: dict[str, str], *args: str,
        cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run `agm ARGS` with the plug-in installed."""
    return subprocess.run([*AGM, *args], env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=300, check=False)


def _campaign_argvs(root: Path, backend: str) -> dict[str, list[str]]:
    toml, store = str(root / "toy.toml"), str(root / "store")
    return {"run": ["campaign", "run", toml, "--store", store, "--backend", backend],
            "status": ["campaign", "status", "--store", store, "--json"],
            "again": ["campaign", "run", toml, "--store", store, "--backend", backend],
            "regrade": ["archive", "regrade", store, "--out", str(root / "rg")]}


@pytest.fixture(scope="module")
def batch(plugin_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Batch:
    """Every command of the tests below, in order, in one fresh interpreter (see above)."""
    root = tmp_path_factory.mktemp("plugin-batch")
    argvs: dict[str, list[str]] = {
        "envs": ["envs", "--json"],
        "run_adder": ["run", "toy_sum", "--task", "all", "--seeds", "0-2", "--agent",
                      "scripted:adder", "--json"],
        "run_forgetful": ["run", "toy_sum", "--task", "sum3", "--agent", "scripted:forgetful",
                          "--json"],
        "run_l0": ["run", "toy_sum", "--task", "sum3", "--level", "L0"],
    }
    for backend in BACKENDS:
        (root / backend).mkdir()
        (root / backend / "toy.toml").write_text(CAMPAIGN)
        for step, argv in _campaign_argvs(root / backend, backend).items():
            argvs[f"{backend}.{step}"] = argv
    argvs["audit"] = ["audit", "toy_sum", "--seeds", "0-1", "--out", str(root / "audit"),
                      "--json"]
    results = run_batch(list(argvs.values()), env=plugin_env, cwd=root)
    return Batch(dict(zip(argvs, results, strict=True)), root)


def test_envs_lists_the_plugin(batch: Batch) -> None:
    res = batch.results["envs"]
    assert res.returncode == 0, res.stderr
    rows = {r["name"]: r for r in map(json.loads, res.stdout.splitlines())}
    assert set(rows) == {"comtrade", "researchops", "permission", "transaction",
                         "clarification", "toy_sum"}
    assert rows["toy_sum"]["tasks"] == 2 and rows["toy_sum"]["levels"] == ["L2"]
    assert rows["toy_sum"]["scorers"] == ["exact_sum 1.0.0 (outcome)"]


def test_run_scores_with_the_plugins_scorer(batch: Batch) -> None:
    res = batch.results["run_adder"]
    assert res.returncode == 0, res.stderr
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    assert len(rows) == 6 and {r["environment"] for r in rows} == {"toy_sum"}
    assert all(r["exact"] == {"status": "PASS", "score": 1.0} for r in rows)
    res = batch.results["run_forgetful"]
    assert json.loads(res.stdout)["exact"] == {"status": "FAIL", "score": 0.0}
    res = batch.results["run_l0"]
    assert res.returncode == 2 and "has: L2" in res.stderr


@pytest.mark.parametrize("backend", BACKENDS)
def test_campaign_and_regrade(batch: Batch, backend: str) -> None:
    res = batch.results[f"{backend}.run"]
    assert res.returncode == 0, res.stderr
    status = json.loads(batch.results[f"{backend}.status"].stdout)
    doc = status["campaigns"][0]
    # 2 targets x 2 tasks x 3 seeds, all recorded
    assert doc["total"]["planned"] == doc["total"]["done"] == 12, doc
    again = batch.results[f"{backend}.again"]
    assert again.returncode == 0, again.stderr
    res = batch.results[f"{backend}.regrade"]
    assert res.returncode == 0, res.stderr
    regrade = json.loads((batch.root / backend / "rg" / "regrade.json").read_text())
    assert regrade["store"]["recorded"] == 12 and regrade["store"]["planned"] == 12
    section = regrade["scorers"]["exact_sum"]
    assert section["episodes"] == 12 and section["score_changed"] == 0
    assert section["current_version"] == "1.0.0" and not section["version_changed"]


def test_audit_uses_the_plugins_probes(batch: Batch) -> None:
    res = batch.results["audit"]
    assert res.returncode == 0, res.stderr
    doc = json.loads((batch.root / "audit" / "audit.json").read_text())
    probes = doc["stages"]["probes"]["shipped"]
    assert {p["probe"] for p in probes["by_probe"]} == {"correct", "off_by_one", "zero"}
    assert probes["status"] == "pass"  # an exact scorer separates correct from forged
    rows = doc["card"]["configurations"][0]["rows"]
    assert rows["criterion_sensitivity"]["status"] == "pass"
    assert rows["replay"]["status"] == "pass"
    # Hooks the plug-in does not supply are not probed, never passed.
    assert doc["stages"]["joint"]["status"] == "not probed"
    assert doc["stages"]["ownership"]["rule_calibration"]["status"] == "not probed"
    spectrum = {r["target"]: r["summary"]["mean"]["value"]
                for r in doc["stages"]["reliability"]["rows"]}
    assert spectrum == {"scripted:adder": 1.0, "scripted:forgetful": 0.0}


def test_serve_mcp_records_the_plugins_episode(plugin_env: dict[str, str],
                                               tmp_path: Path) -> None:
    store = tmp_path / "store"
    params = StdioServerParameters(command=AGM[0], args=[
        *AGM[1:], "serve", "mcp", "toy_sum", "--task", "sum3", "--seed", "1", "--store",
        str(store)], env=plugin_env, cwd=str(tmp_path))

    async def go() -> tuple[list[str], dict[str, Any]]:
        async with Client(params) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            total = 0
            for i in range(3):
                res = await client.call_tool("read_number", {"index": i})
                block = res.content[0]
                assert isinstance(block, types.TextContent)
                total += json.loads(block.text)["value"]
            res = await client.call_tool("submit_total", {"total": total})
            block = res.content[0]
            assert isinstance(block, types.TextContent)
            return names, json.loads(block.text)

    names, ack = asyncio.run(asyncio.wait_for(go(), 60))
    assert names == ["read_number", "submit_total"] and ack == {"status": "accepted"}
    res = agm(plugin_env, "archive", "regrade", str(store), "--out", str(tmp_path / "rg"))
    assert res.returncode == 0, res.stderr
    regrade = json.loads((tmp_path / "rg" / "regrade.json").read_text())
    assert regrade["store"]["recorded"] == 1
    assert regrade["scorers"]["exact_sum"]["transitions"]["n11"] == 1  # PASS, stored and now


def test_a_store_written_before_plugins_resumes_unchanged(tmp_path: Path) -> None:
    """The fixture store was recorded by commit 4523709; resuming it records nothing twice."""
    from agentmetrology.run.campaign import load_campaign, plan_campaign, run_campaign
    from agentmetrology.store import EvidenceStore

    store_dir = tmp_path / "store"
    shutil.copytree(HERE.parent / "fixtures" / "pre_plugin_store", store_dir)
    config = load_campaign(HERE.parent / "fixtures" / "pre_plugin_campaign.toml")
    assert config.environment == "comtrade"
    store = EvidenceStore.open(store_dir)
    try:
        before = store.status("pre-plugin")
        result = run_campaign(config, store)  # a changed plan digest would raise here
        after = store.status("pre-plugin")
        assert plan_campaign(config).digest == \
            "7fc049e75a67446f34aca2e7d5a850a66d5317dbff5af2ab710d2dab22d48e48"
    finally:
        store.close()
    assert result.launched == 0 and result.recorded == 0
    assert before.to_json() == after.to_json() and after.complete
    assert after.total.done == after.total.planned == 12


def test_in_process_registration(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(PLUGIN_DIR))
    import toy_sum

    from agentmetrology.envs.registry import env_names, get_env, register, unregister
    from agentmetrology.run.episode import run_one

    register(toy_sum.SPEC)
    try:
        assert "toy_sum" in env_names() and get_env("toy_sum") is toy_sum.SPEC
        r = run_one(get_env("toy_sum"), "sum3", 0, "scripted:adder", "L2")
        assert r.assessment("exact").status == "PASS"
    finally:
        unregister("toy_sum")
    with pytest.raises(ValueError, match="unknown environment 'toy_sum'"):
        get_env("toy_sum")
