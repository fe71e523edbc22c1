"""`agm evidence qualify` accepts `agm diagnose` and `agm experiment report` output directories
(issue 39 item 14), run as a user runs them: real `agm` processes. The binding (evidence.json,
the store's evidence digest and chain length) is written beside the report."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from support.agm_runs import AGM
from support.small_campaigns import RESEARCHOPS_GRID as GRID

SQUEEZE = Path(__file__).parents[2] / "examples" / "experiment_squeeze.toml"


def _agm(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*AGM, *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "NO_COLOR": "1"}, check=False)


def _ok(*args: str) -> str:
    proc = _agm(*args)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_diagnose_and_experiment_reports_qualify_against_their_store_only(
        tmp_path: Path) -> None:
    (tmp_path / "grid.toml").write_text(GRID)
    grid, exp = str(tmp_path / "grid"), str(tmp_path / "exp")
    _ok("campaign", "run", str(tmp_path / "grid.toml"), "--store", grid)
    _ok("diagnose", grid, "--out", str(tmp_path / "dg"))
    _ok("experiment", "run", str(SQUEEZE), "--store", exp)
    _ok("experiment", "report", str(SQUEEZE), "--store", exp, "--out", str(tmp_path / "er"))
    binding = json.loads((tmp_path / "dg" / "evidence.json").read_text())
    head = json.loads(_ok("evidence", "head", grid, "--json"))
    assert binding["result"] == "qualified" and len(binding["evidence_digest"]) == 64
    assert binding["evidence_digest"] in json.dumps(head)
    assert "dg/diagnose.json: qualified" in _ok("evidence", "qualify", str(tmp_path / "dg"),
                                                 "--store", grid)
    assert "er/experiment.json: qualified" in _ok("evidence", "qualify", str(tmp_path / "er"),
                                                  "--store", exp)
    wrong = _agm("evidence", "qualify", str(tmp_path / "er"), "--store", grid)
    assert wrong.returncode == 1
    assert "invalid_binding" in wrong.stdout and "evidence_digest_mismatch" in wrong.stdout
