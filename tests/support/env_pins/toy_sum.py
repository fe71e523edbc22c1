"""The toy_sum plug-in's own pins on every path (tests/plugin_env/toy_sum.py, installed by its
entry point): its scorer's rows, campaigns on every backend with a resume, the probes it
supplies and the hooks it does not, and an MCP client's episode."""

from __future__ import annotations

import json
from typing import Any

from support.conformance import EnvPins, McpScript, Observation, Pin, Results, rows

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


def _runs(res: Results) -> None:
    got = rows(res["adder"])
    assert len(got) == 6 and {r["environment"] for r in got} == {"toy_sum"}
    # each score names the version of the scorer that made it
    assert all(r["exact"] == {"version": "1.0.0", "status": "PASS", "score": 1.0} for r in got)
    assert json.loads(res["forgetful"].stdout)["exact"] == {"version": "1.0.0", "status": "FAIL",
                                                            "score": 0.0}
    assert res["l0"].returncode == 2 and "has: L2" in res["l0"].stderr


def _campaign(res: Results) -> None:
    assert res["run"].returncode == 0, res["run"].stderr
    doc = json.loads(res["status"].stdout)["campaigns"][0]
    # 2 targets x 2 tasks x 3 seeds, all recorded
    assert doc["total"]["planned"] == doc["total"]["done"] == 12, doc
    assert res["resume"].returncode == 0, res["resume"].stderr
    assert res["regrade"].returncode == 0, res["regrade"].stderr
    regrade = json.loads((res.root / "rg" / "regrade.json").read_text())
    assert regrade["store"]["recorded"] == 12 and regrade["store"]["planned"] == 12
    section = regrade["scorers"]["exact_sum"]
    assert section["episodes"] == 12 and section["score_changed"] == 0
    assert section["current_version"] == "1.0.0" and not section["version_changed"]


def _campaign_pin(backend: str) -> Pin:
    run = ["campaign", "run", "{root}/toy.toml", "--store", "{root}/store", "--backend",
           backend]
    return Pin(files={"toy.toml": CAMPAIGN}, check=_campaign,
               commands={"run": run,
                         "status": ["campaign", "status", "--store", "{root}/store", "--json"],
                         "resume": run,
                         "regrade": ["archive", "regrade", "{root}/store", "--out",
                                     "{root}/rg"]})


def _audit(doc: dict[str, Any]) -> None:
    probes = doc["stages"]["probes"]["shipped"]
    assert {p["probe"] for p in probes["by_probe"]} == {"correct", "off_by_one", "zero"}
    assert probes["status"] == "pass"  # an exact scorer separates correct from forged
    card = doc["card"]["configurations"][0]["rows"]
    # but on the card: its scorer is its own truth and no probe is declared degraded, so the
    # check could not fail and licenses nothing (not informative)
    assert card["criterion_sensitivity"]["status"] == "not probed"
    assert card["criterion_sensitivity"]["evidence"]["reason"].startswith("not informative: ")
    assert card["replay"]["status"] == "pass"
    # Hooks the plug-in does not supply are not probed, never passed.
    assert doc["stages"]["joint"]["status"] == "not probed"
    assert doc["stages"]["ownership"]["rule_calibration"]["status"] == "not probed"
    spectrum = {r["target"]: r["summary"]["mean"]["value"]
                for r in doc["stages"]["reliability"]["rows"]}
    assert spectrum == {"scripted:adder": 1.0, "scripted:forgetful": 0.0}


def _mcp(names: list[str], obs: list[Observation]) -> None:
    assert names == ["read_number", "submit_total"] and obs[-1] == {"status": "accepted"}


def _mcp_regrade(regrade: dict[str, Any]) -> None:
    assert regrade["store"]["recorded"] == 1
    assert regrade["scorers"]["exact_sum"]["transitions"]["n11"] == 1  # PASS, stored and now


def _total(obs: list[Observation]) -> dict[str, Any]:
    return {"total": sum(o["value"] for o in obs)}


PINS = EnvPins(
    listed={"tasks": 2, "levels": ["L2"], "scorers": ["exact_sum 1.0.0 (outcome)"]},
    run={"scorer": Pin(check=_runs, commands={
        "adder": ["run", "toy_sum", "--task", "all", "--seeds", "0-2", "--agent",
                  "scripted:adder", "--json"],
        "forgetful": ["run", "toy_sum", "--task", "sum3", "--agent", "scripted:forgetful",
                      "--json"],
        "l0": ["run", "toy_sum", "--task", "sum3", "--level", "L0"]})},
    campaign={b: _campaign_pin(b) for b in BACKENDS},
    audit_seeds="0-1",
    audit=_audit,
    mcp=McpScript(task="sum3", seed=1, check=_mcp, regrade=_mcp_regrade, calls=[
        ("read_number", {"index": 0}), ("read_number", {"index": 1}),
        ("read_number", {"index": 2}), ("submit_total", _total)]),
)
