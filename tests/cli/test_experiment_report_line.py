"""`agm experiment report`'s last line counts each verdict it lists."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from agentmetrology.cli.main import app
from support.experiment_runs import run_and_report

PLAN = Path(__file__).resolve().parents[2] / "examples" / "experiment_curve.toml"


def test_the_report_line_says_how_many_cells_give_each_verdict(tmp_path: Path) -> None:
    """It listed the kinds only ('8 verdicts: confirmed (...), not confirmed (...)'), so how
    many cells of the shipped dose curve were confirmed (6 of 8) was not on screen."""
    run_and_report(PLAN, tmp_path)  # the store s and a first report in o
    out = tmp_path / "o"
    res = CliRunner().invoke(app, ["experiment", "report", str(PLAN), "--store",
                                   str(tmp_path / "s"), "--out", str(out)],
                             env={"COLUMNS": "300"})
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines()[-1] == (
        f"wrote {out}/experiment.json, report.md, report.html (8 verdicts: 6 confirmed (n = 20 "
        "paired seeds), 2 not confirmed (n = 20 paired seeds); 0 deviations)")
