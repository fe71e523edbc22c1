"""Pre-registration as an outside checker attacks it: an edited store, an unregistered new plan."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.agm_runs import run_main

PLAN = """[experiment]
name = "reg"
hypothesis = "escalation costs coverage at matched mean"
kind = "ab"
targets = ["rule"]
levels = ["L1"]
n = 2
"""


def agm(*args: str) -> tuple[int, str]:
    """Run `agm ARGS` in this process; exit code and stdout + stderr on one line."""
    r = run_main(args)
    return r.returncode, " ".join((r.stdout + r.stderr).split())


@pytest.fixture()
def ran(tmp_path: Path) -> Path:
    (tmp_path / "plan.toml").write_text(PLAN)
    code, out = agm("experiment", "run", str(tmp_path / "plan.toml"), "--store",
                    str(tmp_path / "store"))
    assert code == 0, out
    return tmp_path


def test_a_new_plan_not_yet_run_is_told_to_run_not_to_declare_itself_new(ran: Path) -> None:
    new = ran / "new.toml"
    new.write_text(PLAN.replace("n = 2", "n = 3") + 'registration = "new"\n')
    for cmd, extra in (("status", []), ("report", ["--out", str(ran / "out")])):
        code, out = agm("experiment", cmd, str(new), "--store", str(ran / "store"), *extra)
        assert code == 2, out
        # It declares registration = "new" already: the fix is to run it.
        assert "declare registration" not in out
        assert (f"error: experiment 'reg': this plan (registration = \"new\") is not registered "
                f"in {ran / 'store'} yet; `agm experiment run` registers it") in out
    assert not (ran / "out").exists()


def test_the_report_evaluates_the_frozen_plan(ran: Path) -> None:
    code, out = agm("experiment", "report", str(ran / "plan.toml"), "--store",
                    str(ran / "store"), "--out", str(ran / "out"))
    assert code == 0, out
    doc = json.loads((ran / "out" / "experiment.json").read_text())
    assert doc["plan"]["analysis_seed"] == 0 and doc["registration"] == "exp.reg"
