"""`agm score researchops DIR` reads a submission directory (no trajectory: the verifier is
UNKNOWN) and refuses a directory without one in a line."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from agentmetrology.cli.main import app
from agentmetrology.envs.registry import get_env
from agentmetrology.run.episode import run_one


def test_score_reads_a_submission_directory(tmp_path: Path) -> None:
    ep = run_one(get_env("researchops"), "seed_4", 0, "scripted:careful", "L2").episode
    (tmp_path / "submission.json").write_text(json.dumps(ep.submission))
    res = CliRunner().invoke(app, ["score", "researchops", str(tmp_path), "--task", "seed_4",
                                   "--json"])
    assert res.exit_code == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["task_quality"]["H"] == 1.0 and doc["task_quality"]["status"] == "PASS"
    assert doc["composite_verifier"]["status"] == "UNKNOWN"  # no trajectory in a directory
    missing = CliRunner().invoke(app, ["score", "researchops", str(tmp_path / "none"),
                                       "--task", "seed_4"])
    assert missing.exit_code == 2 and "holds no submission.json" in missing.stderr
