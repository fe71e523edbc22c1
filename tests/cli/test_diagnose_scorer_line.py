"""`agm diagnose` names the scorer S its table's gaps and MSR are computed with."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from agentmetrology.cli.main import app
from diagnose.test_unrescorable import _store


def test_the_summary_says_which_scorer_the_gaps_are_of(tmp_path: Path) -> None:
    """VRG and MSR are the shipped scorer's (the judge / 100 on comtrade), not ground truth's:
    the screen said neither, so a VRG of 0.943 next to a ground-truth gap of 0.826 (README's
    mutations campaign, rule under alias) could not be told apart without diagnose.json."""
    res = CliRunner().invoke(app, ["diagnose", str(_store(tmp_path / "s")), "--out",
                                   str(tmp_path / "o")], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    assert ("S: the shipped scorer on a 0-1 scale (comtrade: shape_judge / 100, ground truth "
            "ground_truth_f1 in diagnose.json)") in res.stdout.splitlines()
