"""`agm audit census`: one table over several benchmarks; what cannot run is listed, not dropped."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentmetrology.audit import census as census_mod
from agentmetrology.audit import census_worker
from agentmetrology.cli.audit_inspect_cmd import inspect_app

TASKS = Path(__file__).resolve().parent / "tasks" / "toy_tasks.py"
SPECS = [f"{TASKS}@shape_task", f"{TASKS}@gsm8k_style", f"{TASKS}@judged_task",
         "inspect_evals/gsm8k", "inspect_evals/agent_threat_bench_data_exfil",
         "inspect_evals/tau2_retail", "builtin:comtrade", "builtin:nothing"]
# Rows audited in a real worker process (census_worker, as `agm audit census` always does):
# one Inspect task and one built-in. The others run the worker's own `main` in this process,
# stdout captured: the same row, without a process that pays Inspect's import and the
# inspect_evals registry again (about 4 s of CPU each; eight of them were this module's cost).
# `test_a_worker_process_gives_the_in_process_row` checks that the two ways agree.
IN_WORKER = (f"{TASKS}@shape_task", "builtin:nothing")


def _in_this_process(spec: str, limit: int | None, timeout: float,
                     worker_timeout: float) -> dict[str, Any]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert census_worker.main([spec, str(limit or 0), str(timeout)]) == 0
    row: dict[str, Any] = json.loads(out.getvalue().splitlines()[-1])
    return row


@pytest.fixture(scope="module")
def census(tmp_path_factory) -> tuple[Any, Path, dict[str, tuple[Any, Any]]]:
    out = tmp_path_factory.mktemp("census")
    real_worker = census_mod._in_worker
    both: dict[str, tuple[Any, Any]] = {}

    def row(spec: str, limit: int | None, timeout: float, worker_timeout: float) -> Any:
        if spec not in IN_WORKER:
            return _in_this_process(spec, limit, timeout, worker_timeout)
        got = real_worker(spec, limit, timeout, worker_timeout)
        both[spec] = (got, _in_this_process(spec, limit, timeout, worker_timeout))
        return got

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(census_mod, "_in_worker", row)
        res = CliRunner().invoke(inspect_app, ["census", "--tasks", ",".join(SPECS),
                                               "--limit", "2", "--out", str(out)])
    return res, out, both


def test_a_worker_process_gives_the_in_process_row(census):
    res, _, both = census
    assert res.exit_code == 0, res.output
    assert set(both) == set(IN_WORKER)
    for spec, (worker, here) in both.items():
        assert worker == here, spec
    assert both[f"{TASKS}@shape_task"][0]["status"] == "probed"
    assert both["builtin:nothing"][0]["status"] == "not probed"


def _rows(out: Path) -> dict[str, dict]:
    doc = json.loads((out / "census.json").read_text())
    return {r["benchmark"].rsplit("@", 1)[-1]: r for r in doc["rows"]}


def test_census_table_pins_kinds_criteria_and_claims(census):
    res, out, _ = census
    assert res.exit_code == 0, res.output
    rows = _rows(out)
    shape = rows["shape_task"]["scorers"][0]
    assert (shape["kind"], shape["criterion"], shape["claim"]) == (
        "shape", "fail", "self-report compliance")
    assert (shape["empty_passed"], shape["empty_scored"]) == (2, 2)
    match = rows["gsm8k_style"]["scorers"][0]
    assert (match["kind"], match["criterion"]) == ("string-match", "pass")
    judged = rows["judged_task"]["scorers"][0]
    assert judged["criterion"] == "not probed" and "needs a judge" in judged["criterion_reason"]
    atb = {s["scorer"]: s for s in rows["inspect_evals/agent_threat_bench_data_exfil"]["scorers"]}
    sec = atb["inspect_evals/agent_threat_bench_scorer[security]"]
    assert (sec["kind"], sec["empty_passed"], sec["empty_scored"]) == ("shape", 2, 2)


def test_census_builtin_comtrade_judge_is_shape_and_tau2_has_no_answer_target(census):
    _, out, _ = census
    rows = _rows(out)
    judge = rows["builtin:comtrade"]["scorers"][0]
    assert (judge["kind"], judge["criterion"], judge["claim"]) == (
        "shape", "fail", "self-report compliance")
    assert "fabricated = correct" in judge["offending"]
    retail = rows["inspect_evals/tau2_retail"]
    assert retail["samples_without_target"] == 2
    sc = retail["scorers"][0]
    assert sc["kind"] == "outcome" and sc["criterion"] == "not probed"
    assert sc["criterion_reason"].startswith("no sample has a usable target (the target is "
                                             "the same rubric")
    assert (sc["empty_passed"], sc["empty_scored"]) == (0, 2)
    doc = json.loads((out / "census.json").read_text())
    tau2 = {t["domain"]: t for t in doc["tau2"]}
    assert tau2["retail"]["required_outputs"]["passed_tasks"] == ["0", "1"]


def test_census_lists_what_it_could_not_probe(census):
    res, out, _ = census
    rows = _rows(out)
    assert rows["inspect_evals/gsm8k"]["status"] == "not probed"
    assert rows["inspect_evals/gsm8k"]["needs"].startswith("a download")
    assert rows["builtin:nothing"]["status"] == "not probed"
    assert "not probed: inspect_evals/gsm8k needs a download" in res.output
    report = (out / "report.md").read_text()
    assert "## Not probed" in report and "`inspect_evals/gsm8k`: not probed: needs" in report


def test_census_writes_the_figure(census):
    _, out, _ = census
    svg = (out / "census.svg").read_text()
    assert svg.startswith("<svg") and "shape_task" in svg
    assert "<svg" in (out / "report.html").read_text()
