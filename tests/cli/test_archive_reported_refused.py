"""`agm archive audit --reported` on an archive that is not a tau2-bench results file is a usage
error: it was ignored, unread (a missing file too), and the audit exited 0 as if checked."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from agentmetrology.cli.archive_cmd import archive_app


def test_reported_with_a_jsonl_archive_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_text("".join(json.dumps({"task": f"t{i}", "model": "m", "trial": 0,
                                        "grade": {"score": 1.0}}) + "\n" for i in range(3)),
                    encoding="utf-8")
    res = CliRunner().invoke(archive_app, ["audit", str(path), "--out", str(tmp_path / "o"),
                                           "--reported", str(tmp_path / "missing.json")])
    assert res.exit_code == 2
    assert res.stderr == (f"error: --reported applies to tau2-bench results files only, and "
                          f"{path} is not one (format jsonl): drop --reported\n")
    assert not (tmp_path / "o" / "archive.json").exists()
