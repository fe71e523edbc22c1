"""Experiment, diagnose and archive-compare reports carry their store's qualification.

A qualified store gives no banner; the same store with one ledger row edited in place gives the
UNQUALIFIED EVIDENCE banner at the top of report.md (and on stderr), and the JSON says why.
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

from typer.testing import CliRunner

from agentmetrology.cli.main import app

BANNER = "UNQUALIFIED EVIDENCE (invalid_binding)"
PLAN = """
[experiment]
name = "squeeze-banner"
hypothesis = "With no slack, retrying and skipping cannot be told apart."
kind = "ab"
task = "T9_clean_ab"
arms = ["stress:squeeze:slack=0", "stress:squeeze:slack=4"]
targets = ["l1:always-retry", "l1:always-skip"]
levels = ["L1"]
scorer = "shape_judge"
n = 2
"""
DIAGNOSE = """
[campaign]
name = "diag"
tasks = ["T3_duplicates"]
seeds = [0]
levels = ["L2"]
mutations = ["repeat"]

[[targets]]
name = "careful"
kind = "scripted"
agent = "scripted:careful"
"""
PERMISSION = """
[campaign]
name = "perm"
environment = "permission"
tasks = ["flag_overdue"]
seeds = [0]
levels = ["L2"]

[[targets]]
name = "within"
kind = "scripted"
agent = "scripted:within"
"""


def invoke(*args: str, code: int = 0) -> str:
    res = CliRunner().invoke(app, list(args))
    assert res.exit_code == code, (args, res.output)
    return res.stderr


def tamper(store: Path) -> None:
    """Edit one recorded cost in place, outside the ledger's API."""
    with closing(sqlite3.connect(store / "ledger.sqlite")) as c:
        c.execute("UPDATE episodes SET cost = 9.5 WHERE administration = "
                  "(SELECT min(administration) FROM episodes)")
        c.commit()


def campaign(root: Path, name: str, toml: str) -> Path:
    (root / f"{name}.toml").write_text(toml)
    invoke("campaign", "run", str(root / f"{name}.toml"), "--store", str(root / name),
           "--quiet")
    return root / name


def test_experiment_report_banner(tmp_path: Path) -> None:
    plan, store = tmp_path / "p.toml", tmp_path / "s"
    plan.write_text(PLAN)
    invoke("experiment", "run", str(plan), "--store", str(store))
    invoke("experiment", "report", str(plan), "--store", str(store), "--out", str(tmp_path / "a"))
    assert BANNER not in (tmp_path / "a" / "report.md").read_text()
    # a qualified analysis carries no qualification: it stays byte-identical across stores
    assert "evidence" not in json.loads((tmp_path / "a" / "experiment.json").read_text())
    tamper(store)
    err = invoke("experiment", "report", str(plan), "--store", str(store), "--out",
                 str(tmp_path / "b"))
    assert BANNER in err
    md = (tmp_path / "b" / "report.md").read_text()
    assert md.index(BANNER) < md.index("# Experiment")
    assert BANNER in (tmp_path / "b" / "report.html").read_text()
    doc = json.loads((tmp_path / "b" / "experiment.json").read_text())
    assert doc["evidence"]["result"] == "invalid_binding"
    assert doc["evidence"]["problem_kinds"] == {"row_changed": 1, "row_disagrees_with_evidence": 1}


def test_diagnose_report_banner(tmp_path: Path) -> None:
    store = campaign(tmp_path, "diag", DIAGNOSE)
    invoke("diagnose", str(store), "--out", str(tmp_path / "a"))
    assert BANNER not in (tmp_path / "a" / "report.md").read_text()
    assert "evidence" not in json.loads((tmp_path / "a" / "diagnose.json").read_text())
    tamper(store)
    err = invoke("diagnose", str(store), "--out", str(tmp_path / "b"))
    assert BANNER in err
    md = (tmp_path / "b" / "report.md").read_text()
    assert md.index(BANNER) < md.index("# Diagnose")
    doc = json.loads((tmp_path / "b" / "diagnose.json").read_text())
    assert doc["evidence"]["result"] == "invalid_binding"


def test_archive_compare_banner(tmp_path: Path) -> None:
    old = campaign(tmp_path, "old", PERMISSION)
    new = campaign(tmp_path, "new", PERMISSION)
    err = invoke("archive", "compare", str(old), str(new), "--out", str(tmp_path / "a"))
    assert "UNQUALIFIED" not in err
    doc = json.loads((tmp_path / "a" / "compare.json").read_text())
    assert {k: v["result"] for k, v in doc["evidence"].items()} == {
        "old": "qualified", "new": "qualified"}
    tamper(new)
    err = invoke("archive", "compare", str(old), str(new), "--out", str(tmp_path / "b"))
    assert f"NEW: {BANNER}" in err and "OLD: UNQUALIFIED" not in err
    doc = json.loads((tmp_path / "b" / "compare.json").read_text())
    assert {k: v["result"] for k, v in doc["evidence"].items()} == {
        "old": "qualified", "new": "invalid_binding"}
