"""The store audit reads every condition: an experiment store audits, one row per condition.

Before, only `clean` episodes were read and a store of stress arms was refused ("no usable clean
episodes"). Now a target recorded under two conditions is two store targets, each naming its
condition; payloads are compared within one condition only; the recorded fixed rules are
calibrated per condition from the store.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentmetrology.audit.env_audit import audit_env
from agentmetrology.audit.store_read import read_store
from agentmetrology.audit.targets.env import EnvTarget
from agentmetrology.envs.registry import get_env
from support.agm_runs import agm

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
COMTRADE = get_env("comtrade")
B2_ARMS = ("stress:b2:constant:slack=0", "stress:b2:escalating:slack=0")
RULES = ("l1:always-retry", "l1:always-skip", "l1:quota-aware")
# Two rules on a task without faults, clean and under a stress arm: at L1 the model is asked
# nothing on a clean page, so clean is decision-invariant by construction.
MIXED = """
[campaign]
name = "mixed"
tasks = ["T9_clean_ab"]
seeds = "0-2"
levels = ["L1"]
conditions = ["clean", "stress:b2:constant:slack=0"]

[[targets]]
name = "retry"
kind = "rule"
agent = "l1:always-retry"

[[targets]]
name = "skip"
kind = "rule"
agent = "l1:always-skip"
"""


@pytest.fixture(scope="module")
def b2_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    store = tmp_path_factory.mktemp("b2") / "store"
    res = agm("experiment", "run", str(EXAMPLES / "experiment_b2.toml"), "--store", str(store))
    assert res.returncode == 0, res.stderr
    return store


@pytest.fixture(scope="module")
def b2_doc(b2_store: Path) -> dict[str, Any]:
    target = EnvTarget(COMTRADE, seeds=1)
    return audit_env(target, store=read_store(b2_store, COMTRADE))


def test_an_experiment_store_audits_with_one_target_per_condition(b2_doc: dict) -> None:
    summary = b2_doc["card"]["store"]
    assert summary["conditions"] == sorted(B2_ARMS)
    labels = {(t["target"], t["condition"], t["episodes"]) for t in summary["targets"]}
    assert labels == {(f"{r} @{c}", c, 20) for r in RULES for c in B2_ARMS}
    fixed = b2_doc["stages"]["ownership"]["non_degeneracy"]["L1"]["fixed_rules"]
    assert {r["target"] for r in fixed if r["source"] == "store"} == \
        {f"{r} @{c}" for r in RULES for c in B2_ARMS}


def test_rules_are_calibrated_per_condition_from_the_store(b2_doc: dict) -> None:
    groups = b2_doc["stages"]["store"]["calibration"]
    assert [(g["condition"], g["units"], g["decision_invariant"]) for g in groups] == \
        [(c, 20, False) for c in sorted(B2_ARMS)]
    assert all(len(g["rules"]) == 3 for g in groups)


def test_clean_and_stress_are_never_pooled(tmp_path: Path) -> None:
    plan = tmp_path / "mixed.toml"
    plan.write_text(MIXED)
    store = tmp_path / "store"
    assert agm("campaign", "run", str(plan), "--store", str(store)).returncode == 0
    doc = audit_env(EnvTarget(COMTRADE, seeds=1), store=read_store(store, COMTRADE))
    rows = {(t["target"], t["condition"]): t["episodes"] for t in doc["card"]["store"]["targets"]}
    assert rows == {("retry", "clean"): 3, ("skip", "clean"): 3,
                    ("retry @stress:b2:constant:slack=0", "stress:b2:constant:slack=0"): 3,
                    ("skip @stress:b2:constant:slack=0", "stress:b2:constant:slack=0"): 3}
    calib = {g["condition"]: (g["units"], g["decision_invariant"])
             for g in doc["stages"]["store"]["calibration"]}
    # Rules are found by the agent they run, whatever the target is called. Clean pages ask
    # the model nothing at L1: the two rules cannot differ there (decision-invariant).
    assert calib == {"clean": (3, True), "stress:b2:constant:slack=0": (3, False)}


def test_the_cli_audits_an_experiment_store(b2_store: Path, tmp_path: Path) -> None:
    res = agm("audit", "comtrade", "--store", str(b2_store), "--seeds", "0-1",
              "--out", str(tmp_path / "a"))
    assert res.returncode == 0, res.stderr
    assert "rule calibration at L1 under stress:b2:constant:slack=0" in " ".join(
        res.stdout.split())
    report = (tmp_path / "a" / "report.md").read_text()
    assert "## Rule calibration of the store targets" in report
    assert "| `exp.b2-quota-ab` | `stress:b2:escalating:slack=0` | `L1` | 20 |" in report
