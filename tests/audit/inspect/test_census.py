"""`agm audit census`: one table over several benchmarks; what cannot run is listed, not dropped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentmetrology.cli.audit_inspect_cmd import inspect_app

TASKS = Path(__file__).resolve().parent / "tasks" / "toy_tasks.py"


@pytest.fixture(scope="module")
def census(tmp_path_factory) -> tuple[object, Path]:
    out = tmp_path_factory.mktemp("census")
    tasks = ",".join([f"{TASKS}@shape_task", f"{TASKS}@gsm8k_style", f"{TASKS}@judged_task",
                      "inspect_evals/gsm8k", "inspect_evals/agent_threat_bench_data_exfil",
                      "inspect_evals/tau2_retail", "builtin:comtrade", "builtin:nothing"])
    res = CliRunner().invoke(inspect_app, ["census", "--tasks", tasks, "--limit", "2",
                                           "--out", str(out)])
    return res, out


def _rows(out: Path) -> dict[str, dict]:
    doc = json.loads((out / "census.json").read_text())
    return {r["benchmark"].rsplit("@", 1)[-1]: r for r in doc["rows"]}


def test_census_table_pins_kinds_criteria_and_claims(census):
    res, out = census
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
    _, out = census
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
    res, out = census
    rows = _rows(out)
    assert rows["inspect_evals/gsm8k"]["status"] == "not probed"
    assert rows["inspect_evals/gsm8k"]["needs"].startswith("a download")
    assert rows["builtin:nothing"]["status"] == "not probed"
    assert "not probed: inspect_evals/gsm8k needs a download" in res.output
    report = (out / "report.md").read_text()
    assert "## Not probed" in report and "`inspect_evals/gsm8k`: not probed: needs" in report


def test_census_writes_the_figure(census):
    _, out = census
    svg = (out / "census.svg").read_text()
    assert svg.startswith("<svg") and "shape_task" in svg
    assert "<svg" in (out / "report.html").read_text()
