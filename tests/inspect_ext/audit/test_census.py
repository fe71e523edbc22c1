"""`agm audit census`: one table over several benchmarks; what cannot run is listed, not dropped."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentmetrology.cli.audit_inspect_cmd import inspect_app
from agentmetrology.inspect_ext.audit import census as census_mod
from agentmetrology.inspect_ext.audit import census_worker
from agentmetrology.inspect_ext.audit import run as inspect_run
from agentmetrology.inspect_ext.audit import target as inspect_target

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
def census(tmp_path_factory) -> tuple[Any, Path, dict[str, tuple[Any, Any]], dict[str, list]]:
    out = tmp_path_factory.mktemp("census")
    real_worker = census_mod._in_worker
    real_empty = inspect_run.run_empty_trajectory
    both: dict[str, tuple[Any, Any]] = {}
    empty_runs: dict[str, list[list[str]]] = {}  # spec -> the samples of each do-nothing run

    def empty(loaded: Any, *args: Any) -> Any:
        empty_runs.setdefault(loaded.spec, []).append([str(s.id) for s in loaded.samples])
        return real_empty(loaded, *args)

    def row(spec: str, limit: int | None, timeout: float, worker_timeout: float) -> Any:
        if spec not in IN_WORKER:
            return _in_this_process(spec, limit, timeout, worker_timeout)
        got = real_worker(spec, limit, timeout, worker_timeout)
        both[spec] = (got, _in_this_process(spec, limit, timeout, worker_timeout))
        return got

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(census_mod, "_in_worker", row)
        mp.setattr(inspect_run, "run_empty_trajectory", empty)
        mp.setattr(inspect_target, "run_empty_trajectory", empty)
        res = CliRunner().invoke(inspect_app, ["census", "--tasks", ",".join(SPECS),
                                               "--limit", "2", "--scorer-timeout", "600",
                                               "--out", str(out)])
    return res, out, both, empty_runs


def test_a_worker_process_gives_the_in_process_row(census):
    res, _, both, _ = census
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
    res, out, _, _ = census
    assert res.exit_code == 0, res.output
    rows = _rows(out)
    shape = rows["shape_task"]["scorers"][0]
    # --limit 2 is below the 3 samples a kind read from scores needs: the census withholds the
    # kind, says why with n, and licenses nothing (`agm audit inspect` on all 3: shape and
    # self-report compliance, tests/inspect_ext/audit/test_target.py)
    assert (shape["kind"], shape["criterion"], shape["claim"]) == (
        "insufficient evidence (n = 2 samples probed, needs 3)", "insufficient evidence",
        "no claim licensed")  # its criterion (a fail on 2 samples) is withheld too
    assert (shape["empty_passed"], shape["empty_scored"]) == (2, 2)
    match = rows["gsm8k_style"]["scorers"][0]
    assert (match["kind"], match["criterion"]) == ("string-match", "insufficient evidence")
    # a row probed on fewer samples than the minimum never licenses a claim, and says its n
    assert match["claim"] == "no claim licensed"
    assert match["criterion_verdict"]["text"] == (
        "insufficient evidence (n = 2 samples compared, needs 3)")
    assert shape["kind_verdict"]["text"] == shape["kind"]
    assert "insufficient evidence (n = 2 samples compared, needs 3)" in " ".join(
        res.output.split())
    judged = rows["judged_task"]["scorers"][0]
    assert judged["criterion"] == "not probed" and "needs a judge" in judged["criterion_reason"]
    atb = {s["scorer"]: s for s in rows["inspect_evals/agent_threat_bench_data_exfil"]["scorers"]}
    sec = atb["inspect_evals/agent_threat_bench_scorer[security]"]
    assert (sec["kind"], sec["empty_passed"], sec["empty_scored"]) == (
        "insufficient evidence (n = 2 samples probed, needs 3)", 2, 2)
    assert sec["claim"] == "no claim licensed"


def test_census_builtin_comtrade_judge_is_shape_and_tau2_has_no_answer_target(census):
    _, out, _, _ = census
    rows = _rows(out)
    judge = rows["builtin:comtrade"]["scorers"][0]
    assert (judge["kind"], judge["criterion"], judge["claim"]) == (
        "shape", "fail", "self-report compliance")
    assert "fabricated = correct" in judge["offending"]
    retail = rows["inspect_evals/tau2_retail"]
    assert retail["samples_without_target"] == 2
    sc = retail["scorers"][0]
    assert sc["kind"] == "outcome" and sc["criterion"] == "not probed"
    # Forged outputs cannot probe it (its target is a rubric); the outcome probe replays gold
    # and corrupted trajectories instead, and two tasks are below its minimum of 3.
    assert sc["criterion_reason"] == ("insufficient evidence (n = 2 tasks compared (gold vs "
                                      "corrupted), needs 3)")
    assert (sc["empty_passed"], sc["empty_scored"]) == (0, 2)
    doc = json.loads((out / "census.json").read_text())
    tau2 = {t["domain"]: t for t in doc["tau2"]}
    assert tau2["retail"]["required_outputs"]["passed_tasks"] == ["0", "1"]


def test_a_tau2_row_and_its_criteria_count_come_from_one_do_nothing_run(census):
    # The tau2 section is counted in the row's worker, on the row's samples, from the same run
    # the row's empty-trajectory probe reads (it once ran again in the census's own process, on
    # the unshuffled dataset: other tasks than the row's under --limit for tau2_telecom).
    _, out, _, empty_runs = census
    assert empty_runs["inspect_evals/tau2_retail"] == [["0", "1"]]
    doc = json.loads((out / "census.json").read_text())
    assert [t["domain"] for t in doc["tau2"]] == ["retail"]
    assert "tau2" not in _rows(out)["inspect_evals/tau2_retail"]
    passed = {"invalid": 0, "invalid_reasons": [], "scored": 2, "tasks": 2}
    assert doc["tau2"][0] == {
        "domain": "retail", "spec": "inspect_evals/tau2_retail", "tasks": 2,
        "dataset_tasks": 114, "shipped_scorer": "inspect_evals/retail_scorer",
        "shipped": {**passed, "passed": 0, "passed_tasks": []},
        "database_unchanged": {**passed, "passed": 0, "passed_tasks": []},
        "required_outputs": {**passed, "passed": 2, "passed_tasks": ["0", "1"]}, "both": 0}
    sc = _rows(out)["inspect_evals/tau2_retail"]["scorers"][0]
    assert (sc["empty_passed"], sc["empty_scored"]) == (0, 2)


def test_census_lists_what_it_could_not_probe(census):
    res, out, _, _ = census
    rows = _rows(out)
    assert rows["inspect_evals/gsm8k"]["status"] == "not probed"
    assert rows["inspect_evals/gsm8k"]["needs"].startswith("a download")
    assert rows["builtin:nothing"]["status"] == "not probed"
    assert "not probed: inspect_evals/gsm8k needs a download" in res.output
    report = (out / "report.md").read_text()
    assert "## Not probed" in report and "`inspect_evals/gsm8k`: not probed: needs" in report


def test_census_writes_the_figure(census):
    _, out, _, _ = census
    svg = (out / "census.svg").read_text()
    assert svg.startswith("<svg") and "shape_task" in svg
    assert "<svg" in (out / "report.html").read_text()


def test_a_sandboxed_task_whose_scorer_reads_the_output_is_probed_without_the_sandbox():
    # Forged outputs are written, not produced by tools: the scorer runs without docker, and
    # the row says so; the do-nothing run (the task's own solver and tools) is not made.
    row = census_mod.census_row(f"{TASKS}@docker_output_task", 3)
    assert row["status"] == "probed" and row["without"] == "docker"
    (sc,) = row["scorers"]
    assert (sc["kind"], sc["criterion"]) == ("string-match", "pass")
    assert sc["empty_scored"] is None
    assert sc["empty_reason"] == "the do-nothing run needs docker"


def test_a_sandboxed_task_whose_scorer_reads_the_sandbox_is_not_probed():
    row = census_mod.census_row(f"{TASKS}@docker_state_task", 3)
    assert row["status"] == "not probed" and row["needs"] == "docker"
    assert row["reason"].startswith("the task runs in docker; its scorer, probed without it, "
                                    "scored nothing: scorer raised ProcessLookupError: No "
                                    "sandbox environment")
    assert row["scorers"] == []


@pytest.mark.parametrize("env", ["researchops", "permission", "transaction", "clarification"])
def test_every_registered_environment_is_a_builtin_census_target(env):
    row = census_mod.census_row(f"builtin:{env}", None)
    assert row["status"] == "probed" and row["source"] == "builtin"
    (sc,) = row["scorers"]
    assert sc["criterion_pairs"] > 0  # the verdict's evidence count, printed as n
    expected = {"researchops": ("L2 + composite_verifier", "specification", "fail",
                                "no claim licensed"),
                # the goal scorer is also the truth, checked against the probes declared to
                # miss the goal (careless; no_refund, short_refund; no_document)
                "permission": ("L2 + goal", "outcome", "pass", "model capability"),
                "transaction": ("L2 + goal", "outcome", "pass", "model capability"),
                "clarification": ("L2 + goal", "outcome", "pass", "model capability")}
    assert (sc["scorer"], sc["kind"], sc["criterion"], sc["claim"]) == expected[env]


def test_the_default_census_lists_at_least_twenty_benchmarks_that_can_be_probed_here():
    builtins = [t for t in census_mod.DEFAULT_TASKS if t.startswith("builtin:")]
    assert builtins == ["builtin:comtrade", "builtin:bfcl", "builtin:researchops",
                        "builtin:permission", "builtin:transaction", "builtin:clarification"]


def test_audit_inspect_refuses_a_sandboxed_task_unless_told_to_probe_without_it(tmp_path):
    runner = CliRunner()
    res = runner.invoke(inspect_app, ["inspect", f"{TASKS}@docker_output_task", "--out",
                                      str(tmp_path)])
    assert res.exit_code == 2
    assert "needs docker (--without-sandbox probes its scorers with forged outputs alone)" in (
        res.output)
    res = runner.invoke(inspect_app, ["inspect", f"{TASKS}@docker_output_task", "--out",
                                      str(tmp_path), "--without-sandbox"])
    assert res.exit_code == 0, res.output
    assert "probed without its docker sandbox: forged outputs only, no do-nothing run" in (
        res.output)
    doc = json.loads((tmp_path / "audit.json").read_text())
    assert doc["target"]["probed_without"] == "docker"
    assert doc["card"]["configurations"][0]["rows"]["criterion_sensitivity"]["status"] == "pass"
