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


def _reports(tmp_path: Path) -> tuple[str, str]:
    """Run a small grid and diagnose it (into dg), the squeeze experiment and its report
    (into er); return the two stores."""
    (tmp_path / "grid.toml").write_text(GRID)
    grid, exp = str(tmp_path / "grid"), str(tmp_path / "exp")
    _ok("campaign", "run", str(tmp_path / "grid.toml"), "--store", grid)
    _ok("diagnose", grid, "--out", str(tmp_path / "dg"))
    _ok("experiment", "run", str(SQUEEZE), "--store", exp)
    _ok("experiment", "report", str(SQUEEZE), "--store", exp, "--out", str(tmp_path / "er"))
    return grid, exp


def test_diagnose_and_experiment_reports_qualify_against_their_store_only(
        tmp_path: Path) -> None:
    grid, exp = _reports(tmp_path)
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


def test_view_opens_diagnose_and_experiment_output(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from agentmetrology.view import create_app, detect_source

    _reports(tmp_path)
    dg = TestClient(create_app(detect_source(tmp_path / "dg")), base_url="http://127.0.0.1")
    page = dg.get("/")
    assert page.status_code == 200
    for link in ("/files/diagnose.json", "/files/report.html", "/files/evidence.json"):
        assert f'href="{link}"' in page.text
        assert dg.get(link).status_code == 200
    assert "<td>careful</td><td>alias</td><td>25</td>" in page.text
    assert "evaluator sensitivity" in page.text
    er = TestClient(create_app(detect_source(tmp_path / "er")), base_url="http://127.0.0.1")
    page = er.get("/")
    assert page.status_code == 200 and 'href="/files/experiment.json"' in page.text
    doc = json.loads((tmp_path / "er" / "experiment.json").read_text())
    assert page.text.count("<td>confirmed</td>") == sum(
        c["verdict"] == "confirmed" for c in doc["cells"]) > 0
    assert er.get("/files/ledger.sqlite").status_code == 404
