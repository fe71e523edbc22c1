"""`agm score researchops DIR` reads a submission directory (no trajectory: the verifier is
UNKNOWN), binds its scores to the digest the episode's submission has, and refuses a directory
without one, or with a hostile file, in a line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
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
    # The scores are bound to the episode's own submission digest (it was null).
    assert doc["submission_sha256"] == ep.digests["submission"]
    assert doc["task_quality"]["version"] == "1.0.0"
    missing = CliRunner().invoke(app, ["score", "researchops", str(tmp_path / "none"),
                                       "--task", "seed_4"])
    assert missing.exit_code == 2 and "holds no submission.json" in missing.stderr


@pytest.mark.parametrize("data, said", [
    (b"[" * 100_000 + b"]" * 100_000, "nests JSON deeper than this reader can follow"),
    (b"\xff{}", "is not UTF-8 text (byte 0xff at offset 0)"),
    (b"{", "is not JSON"),
])
def test_a_hostile_submission_file_is_refused_in_a_line(tmp_path: Path, data: bytes,
                                                       said: str) -> None:
    (tmp_path / "submission.json").write_bytes(data)
    res = CliRunner().invoke(app, ["score", "researchops", str(tmp_path), "--task", "seed_4"])
    assert res.exit_code == 2 and said in res.stderr and "Traceback" not in res.stderr
