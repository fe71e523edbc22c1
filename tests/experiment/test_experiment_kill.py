"""An experiment killed with kill -9 resumes like any campaign; its analysis is unchanged."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from agentmetrology.cli.main import app

PLAN = """[experiment]
name = "killed"
hypothesis = "escalation costs coverage at matched mean"
kind = "ab"
targets = ["scripted:careful", "rule"]
n = 3
"""
# Runs the experiment and SIGKILLs its own process once 5 episodes are recorded.
KILLER = """
import os, signal, sys
from agentmetrology.experiment import load_plan, run_experiment
from agentmetrology.store import EvidenceStore
def progress(p):
    if p.done >= 5:
        os.kill(os.getpid(), signal.SIGKILL)
with EvidenceStore.open(sys.argv[2]) as st:
    run_experiment(st, load_plan(sys.argv[1]), progress=progress)
"""


def _agm(*args: str) -> str:
    r = CliRunner().invoke(app, list(args))
    assert r.exit_code == 0, r.output
    return r.output


def test_kill_9_then_rerun_gives_the_uninterrupted_analysis(tmp_path: Path) -> None:
    plan = tmp_path / "plan.toml"
    plan.write_text(PLAN)
    killed, clean = tmp_path / "killed", tmp_path / "clean"
    proc = subprocess.run([sys.executable, "-c", KILLER, str(plan), str(killed)],
                          capture_output=True, timeout=120)
    assert proc.returncode == -9
    status = _agm("experiment", "status", str(plan), "--store", str(killed))
    assert "(incomplete)" in status
    # Reported before resuming: every missing episode is a disclosed deviation, never a value.
    _agm("experiment", "report", str(plan), "--store", str(killed), "--out",
         str(tmp_path / "partial"))
    doc = json.loads((tmp_path / "partial" / "experiment.json").read_text())
    devs = doc["deviations"]
    assert devs and {d["why"] for d in devs} == {"not recorded"}
    assert {d["kind"] for d in devs} <= {"changed n", "dropped arm"}
    assert all(d["analysed_n"] == 3 - len(d["seeds"]) for d in devs)
    md = (tmp_path / "partial" / "report.md").read_text()
    assert f"{len(devs)} deviation(s) from the plan" in md.split("## ")[0]
    assert "resumed exp.killed" in _agm("experiment", "run", str(plan), "--store", str(killed))
    _agm("experiment", "run", str(plan), "--store", str(clean))
    for store in (killed, clean):
        _agm("experiment", "report", str(plan), "--store", str(store), "--out",
             str(tmp_path / f"out-{store.name}"))
    a = (tmp_path / "out-killed" / "experiment.json").read_bytes()
    assert a == (tmp_path / "out-clean" / "experiment.json").read_bytes()
    assert b'"deviations": []' in a
