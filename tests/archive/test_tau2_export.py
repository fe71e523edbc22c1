"""`agm export` on a tau2 results file: one row per simulation, so `agm stats` runs on real runs."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from typer.testing import CliRunner

from agentmetrology.cli.main import app
from archive.tau2_files import GPT_AIRLINE, QWEN_AIRLINE, raw, shared, write

runner = CliRunner()


def _rows(path: Path, tmp: Path) -> tuple[list[dict], str]:
    out = tmp / f"{path.stem}.jsonl"
    res = runner.invoke(app, ["export", str(path), "--out", str(out)])
    assert res.exit_code == 0, res.output
    return [json.loads(line) for line in out.read_text().splitlines()], res.output


def test_export_rows_match_the_file_by_hand(tmp_path: Path) -> None:
    rows, _ = _rows(shared(GPT_AIRLINE), tmp_path)
    sims = raw(GPT_AIRLINE)["simulations"]
    assert len(rows) == len(sims) == 20
    assert sum(r["tau2.score"] for r in rows) == sum(s["reward_info"]["reward"] for s in sims)
    assert {r["target"] for r in rows} == {"gpt-4.1"}
    by_task = {r["task"]: r for r in rows}
    assert all(by_task[s["task_id"]]["cost"] == s["agent_cost"] for s in sims)
    assert {r["tau2.status"] for r in rows} == {"PASS", "FAIL"}


def test_unpriced_cost_is_null_and_ungraded_is_never_zero(tmp_path: Path) -> None:
    rows, _ = _rows(shared(QWEN_AIRLINE), tmp_path)
    assert {r["cost"] for r in rows} == {None}  # qwen's 0.0 is unpriced, not free
    data = copy.deepcopy(raw(GPT_AIRLINE))
    data["simulations"][0].update(termination_reason="infrastructure_error", reward_info=None)
    del data["simulations"][1]
    rows, output = _rows(write(tmp_path, "infra.json", data), tmp_path)
    first = next(r for r in rows if r["task"] == data["simulations"][0]["task_id"])
    assert first["tau2.score"] is None and first["tau2.status"] == "UNKNOWN"
    assert first["measurement_failure"] == "infra_error: infrastructure_error"
    assert len(rows) == 19
    assert ("1 of 20 planned (task, trial) pair(s) have no simulation and are not rows (1 of 20 "
            "task(s) have none at all;") in output


def test_absent_note_counts_pairs_apart_from_tasks(tmp_path: Path) -> None:
    # 20 tasks run as trials 0, 2 and 5 (6 planned trials each), one task with no simulation:
    # 19 x 3 + 6 = 63 of 120 pairs are absent, and 1 of 20 tasks never ran (once "63 task(s)")
    data = copy.deepcopy(raw(GPT_AIRLINE))
    sims = data["simulations"]
    data["simulations"] = [{**s, "trial": t, "id": f"{s['id']}-{t}"}
                           for s in sims[1:] for t in (0, 2, 5)]
    rows, output = _rows(write(tmp_path, "trials025.json", data), tmp_path)
    assert len(rows) == 57
    assert ("; 63 of 120 planned (task, trial) pair(s) have no simulation and are not rows "
            "(1 of 20 task(s) have none at all; agm archive audit trials025.json)") in output


def test_a_malformed_simulation_has_no_cost_and_no_counts(tmp_path: Path) -> None:
    # Its agent_cost is read before its reward_info fails; the audit counts the cost missing
    # (tau2_cost._read), so a row giving it would be summed by `agm stats` as a known cost.
    data = copy.deepcopy(raw(GPT_AIRLINE))
    data["simulations"][0]["reward_info"] = "broken"
    rows, _ = _rows(write(tmp_path, "malformed.json", data), tmp_path)
    by_task = {r["task"]: r for r in rows}
    first = by_task[data["simulations"][0]["task_id"]]
    assert first["cost"] is None and first["tau2.status"] == "UNKNOWN"
    assert first["tool_calls"] is None and first["requests"] is None
    assert by_task[data["simulations"][1]["task_id"]]["cost"] == data["simulations"][1][
        "agent_cost"]
