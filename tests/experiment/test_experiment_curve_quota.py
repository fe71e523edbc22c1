"""The quota-enforced degradation curve (examples/experiment_curve_quota.toml) runs and reports."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from agentmetrology.cli.main import app
from support.experiment_runs import run_and_report

PLAN = Path(__file__).resolve().parents[2] / "examples" / "experiment_curve_quota.toml"


def test_quota_curve_example_reports_coverage_and_deaths_per_dose(tmp_path: Path) -> None:
    doc = run_and_report(PLAN, tmp_path)
    got = {(a["agent"], a["arm"].rsplit("=", 1)[1]): (round(a["coverage"], 4), a["quota_deaths"])
           for a in doc["arms"] if a["agent"] == "l1:always-retry"}
    # The arms are B2's instrument (quota 8, no squeeze); the values tests/envs/comtrade/
    # test_b2.py pins per episode, read back through the plan. Dose 0: coverage 1 on every
    # seed, so the mean-worst gap is 0 (as in the paper); the quota now kills (no-quota: 0).
    assert got == {("l1:always-retry", "0"): (1.0, 0), ("l1:always-retry", "0.25"): (0.9147, 1),
                   ("l1:always-retry", "0.5"): (0.8, 1), ("l1:always-retry", "0.75"): (0.6933, 3),
                   ("l1:always-retry", "1"): (0.6173, 5)}
    assert all(a["arm"].startswith("stress:quota:dose=") for a in doc["arms"])


def test_quota_must_be_a_boolean(tmp_path: Path) -> None:
    bad = tmp_path / "p.toml"
    bad.write_text(PLAN.read_text().replace("quota = true", 'quota = "yes"'))
    r = CliRunner().invoke(app, ["experiment", "run", str(bad), "--store", str(tmp_path / "s")])
    assert r.exit_code != 0 and "quota" in r.output and "Traceback" not in r.output
