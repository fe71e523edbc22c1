"""`agm archive audit` on tau2 results files, end to end through typer's CliRunner.

The do-nothing evaluator is replaced by stated verdicts (the real one is exercised in
test_tau2_do_nothing.py), so these tests check the wiring, the files and the first screen.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentmetrology.cli.archive_cmd import archive_app
from archive.tau2_files import (
    GPT_AIRLINE,
    QWEN_AIRLINE,
    raw,
    shared,
    write,
)

pytestmark = pytest.mark.usefixtures("stated_tau2_verdicts")
runner = CliRunner()


def _audit(args: list[str]) -> Any:
    res = runner.invoke(archive_app, ["audit", *args])
    assert res.exit_code == 0, res.output
    return res


def test_qwen_audit_writes_reports_with_the_finding_first(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _audit([str(shared(QWEN_AIRLINE)), "--format", "tau2", "--out", str(out)])
    doc = json.loads((out / "archive.json").read_text())
    assert [h["code"] for h in doc["tau2"]["headlines"]] == [
        "all_passes_do_nothing_passable", "unpriced_cost"]
    assert doc["archive"]["format"] == "tau2" and doc["tau2"]["outcomes"]["pass"] == 9
    md = (out / "report.md").read_text()
    first_screen = md[:md.index("## Coverage")]
    assert "**All 9 passes fall on tasks a do-nothing agent also passes**" in first_screen
    assert "**unpriced**" in first_screen
    assert "| `agent_error` | harness, after an agent error |" in md
    assert (out / "report.html").read_text().startswith("<!DOCTYPE html>")


def test_gpt_airline_auto_detected_with_cost_apart(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _audit([str(shared(GPT_AIRLINE)), "--out", str(out)])
    md = (out / "report.md").read_text()
    assert "| agent | 20 | 0.7833 | 0.7833 | 0 |" in md
    assert "| user simulator | 20 | 0.2279 | 0.2279 | 0 |" in md
    assert "10 of 20 planned episodes pass" in md


def test_reported_file_is_checked_and_bound_by_digest(tmp_path: Path) -> None:
    claim = write(tmp_path, "claim.json", {"results": {"airline": {"pass_1": 55.0}}})
    out = tmp_path / "out"
    _audit([str(shared(GPT_AIRLINE)), "--reported", str(claim), "--out", str(out)])
    doc = json.loads((out / "archive.json").read_text())
    assert [i["role"] for i in doc["inputs"]] == ["archive", "reported"]
    row = doc["tau2"]["reported"]["rows"][0]
    assert (row["reported"], row["recomputed"]["planned"], row["finding"]) == (0.55, 0.5, True)
    assert "reported number(s) disagree" in (out / "report.md").read_text()


def test_submission_json_one_folder_up_is_found(tmp_path: Path) -> None:
    folder = tmp_path / "my-agent_org_2026-01-01"
    (folder / "trajectories").mkdir(parents=True)
    sims = raw(GPT_AIRLINE)["simulations"]
    path = write(folder / "trajectories", "my-agent_airline.json", sims)
    write(folder, "submission.json", {"results": {"airline": {"pass_1": 50.0}}})
    out = tmp_path / "out"
    _audit([str(path), "--out", str(out)])
    rep = json.loads((out / "archive.json").read_text())["tau2"]["reported"]
    assert rep["source"] == "my-agent_org_2026-01-01/submission.json" and rep["findings"] == 0


def test_tau2_user_errors_exit_2_in_one_line(tmp_path: Path) -> None:
    bad_claim = tmp_path / "claim.json"
    bad_claim.write_text("not json")
    for args in ([str(shared(GPT_AIRLINE)), "--reported", str(bad_claim)],
                 [str(write(tmp_path, "odd.json", {"simulations": [{"x": 1}]})), "--format",
                  "tau2"]):
        res = runner.invoke(archive_app, ["audit", *args, "--out", str(tmp_path / "o")])
        assert res.exit_code == 2, res.output
        assert "Traceback" not in res.output and len(res.output.strip().splitlines()) == 1


def test_regrade_of_a_missing_path_says_not_found(tmp_path: Path) -> None:
    # Before: "not an evidence store (a directory holding ledger.sqlite): ..." for a typo.
    missing = tmp_path / "gpt-airline.json"
    res = runner.invoke(archive_app, ["regrade", str(missing), "--out", str(tmp_path / "o")])
    assert res.exit_code == 2
    assert " ".join(res.output.split()) == (f"error: not found: {missing} (give an evidence "
                                            "store directory or a tau2 results file)")


def test_leaderboard_names_a_bad_file_by_its_path(tmp_path: Path) -> None:
    # Before: "error: airline.json: does not parse ..." with a folder per submission, each
    # holding an airline.json: which one was not said.
    for name, text in (("a", shared(GPT_AIRLINE).read_text()), ("b", '{"simulations": [')):
        (tmp_path / name).mkdir()
        (tmp_path / name / "airline.json").write_text(text)
    res = runner.invoke(archive_app, ["leaderboard", str(tmp_path), "--out",
                                      str(tmp_path / "o")])
    assert res.exit_code == 2
    assert " ".join(res.output.split()).startswith(
        f"error: {tmp_path / 'b' / 'airline.json'}: does not parse as JSON")
