"""`agm audit inspect`: toy Inspect tasks whose scorers' verdicts are known exactly."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from typer.testing import CliRunner

from agentmetrology.cli.audit_inspect_cmd import inspect_app
from agentmetrology.inspect_ext.audit.load import load_task
from agentmetrology.inspect_ext.audit.run import NEEDS_JUDGE, Judge
from agentmetrology.inspect_ext.audit.scorer_call import call_scorer, to_number
from agentmetrology.inspect_ext.audit.target import audit_inspect
from support.fake_openai import FakeOpenAI, text

RUNNER = CliRunner()
TASKS = Path(__file__).resolve().parent / "tasks" / "toy_tasks.py"


def toy(name: str) -> str:
    """Return the task spec of one of the toy tasks."""
    return f"{TASKS}@{name}"


def _audit(name: str, **kw: Any) -> dict[str, Any]:
    return audit_inspect(load_task(toy(name)), **kw)


def _config(doc: dict[str, Any], i: int = 0) -> dict[str, Any]:
    return doc["card"]["configurations"][i]


def _cell(doc: dict[str, Any], task: str, probe: str, key: str = "shipped") -> dict[str, Any]:
    cells = doc["stages"]["probes"][key]["cells"]
    return next(c for c in cells if c["task"] == task and c["probe"] == probe)


@pytest.fixture(scope="module")
def gsm8k_doc() -> dict[str, Any]:
    return _audit("gsm8k_style")


def test_string_match_separates_correct_from_every_forgery(gsm8k_doc):
    c = _config(gsm8k_doc)
    assert c["scorer"] == "inspect_ai/match" and c["scorer_kind"] == "string-match"
    assert c["rows"]["criterion_sensitivity"]["status"] == "pass"
    # a: 4 degraded probes (a one-character target has no prefix); b, c: 5 each
    assert c["rows"]["criterion_sensitivity"]["evidence"]["pairs_compared"] == 14
    assert _cell(gsm8k_doc, "b", "fabricated")["score"] == 0.0
    assert _cell(gsm8k_doc, "b", "correct")["score"] == 1.0
    assert c["licensed_claim"] == "no claim licensed"  # ownership not probed


def test_samples_without_target_are_counted_not_dropped(gsm8k_doc):
    t = gsm8k_doc["target"]
    assert (t["samples_audited"], t["samples_without_target"]) == (4, 1)
    assert t["samples_without_target_by_reason"] == {"no target": 1}
    assert t["without_oracle"] == {"d": "no target"}  # which sample, and why
    assert t["entries_without_oracle"] == 1
    # the do-nothing run still scores it: an empty answer matches an empty target
    e = t["scorers"][0]["empty_trajectory"]
    assert (e["passed"], e["scored"], e["passed_samples"]) == (1, 4, ["d"])


def test_includes_scorer_passes_a_fabricated_superstring():
    c = _config(_audit("includes_task"))
    assert c["rows"]["criterion_sensitivity"]["status"] == "fail"
    assert c["rows"]["criterion_sensitivity"]["evidence"]["offending"] == ["fabricated = correct"]


def test_a_scorer_blind_to_content_is_shape_and_licenses_self_report_only():
    doc = _audit("shape_task")
    c = _config(doc)
    assert c["scorer_kind"] == "shape"
    assert c["licensed_claim"] == "self-report compliance"
    verdict = doc["target"]["scorers"][0]["verdict"]
    assert (verdict["n"], verdict["minimum"], verdict["text"]) == (
        3, 3, "shape (n = 3 samples probed)")
    assert "empty = correct" in c["rows"]["criterion_sensitivity"]["evidence"]["offending"]
    assert doc["target"]["scorers"][0]["empty_trajectory"]["passed"] == 3


@pytest.mark.parametrize("limit", [1, 2])
def test_below_three_samples_a_kind_read_from_scores_is_withheld(limit: int) -> None:
    doc = audit_inspect(load_task(toy("shape_task"), limit=limit))
    c = _config(doc)
    text = f"insufficient evidence (n = {limit} sample{'s' * (limit != 1)} probed, needs 3)"
    assert c["scorer_kind"] == text and c["rows"]["scorer_kind"]["status"] == text
    assert c["licensed_claim"] == "no claim licensed"  # shape would license self-report
    k = doc["target"]["scorers"][0]
    assert k["basis"].startswith("withheld: shape (")  # n is said once, by the kind


def test_a_kind_from_the_code_needs_no_minimum() -> None:
    doc = audit_inspect(load_task(toy("gsm8k_style"), limit=1))
    assert _config(doc)["scorer_kind"] == "string-match"
    assert doc["target"]["scorers"][0]["verdict"]["minimum"] == 0


def test_tool_task_do_nothing_trajectory_passes_every_sample():
    doc = _audit("tool_task")
    c = _config(doc)
    assert "empty_trajectory = correct" in c["rows"]["criterion_sensitivity"]["evidence"][
        "offending"]
    assert _cell(doc, "a", "empty_trajectory")["score"] == 1.0


def test_judge_scorer_without_a_judge_is_not_probed():
    doc = _audit("judged_task")
    c = _config(doc)
    assert c["scorer_kind"] == "llm_judge"
    crit = c["rows"]["criterion_sensitivity"]
    assert crit["status"] == "not probed" and crit["evidence"]["reason"] == NEEDS_JUDGE
    assert {x["message"] for x in doc["stages"]["probes"]["shipped"]["cells"]} == {NEEDS_JUDGE}


def _grader(body: dict[str, Any]) -> dict[str, Any]:
    """A judge that grades C exactly when the submission equals the expert answer."""
    prompt = body["messages"][-1]["content"]
    prompt = prompt if isinstance(prompt, str) else " ".join(p["text"] for p in prompt)
    expert = re.search(r"\[Expert\]: (.*?)\n", prompt)
    sub = re.search(r"\[Submission\]: (.*?)\n", prompt)
    same = expert and sub and expert.group(1).strip() == sub.group(1).strip()
    return text("GRADE: C" if same else "GRADE: I")


def test_judge_scorer_with_a_fake_judge_is_probed():
    with FakeOpenAI([_grader] * 40) as srv:
        doc = _audit("judged_task", judge=Judge("fake-judge", srv.base_url, "agm-no-key"))
        requests = len(srv.requests)
    c = _config(doc)
    crit = c["rows"]["criterion_sensitivity"]
    # a pass on 2 samples, withheld: the status reads as the verdict does
    assert (crit["status"], crit["evidence"]["withheld"]) == ("insufficient evidence", "pass")
    # 2 samples x (5 forged outputs + the empty trajectory), each scored twice (determinism)
    assert requests == 24
    assert c["rows"]["scorer_determinism"]["evidence"]["verdict"]["text"] == \
        "deterministic on 12 of 12 outputs scored twice"
    assert doc["target"]["judge"]["model"] == "fake-judge"


@pytest.fixture(scope="module")
def faulty(tmp_path_factory) -> tuple[Any, Path]:
    out = tmp_path_factory.mktemp("faulty")
    res = RUNNER.invoke(inspect_app, ["inspect", toy("faulty_task"), "--scorer-timeout", "0.5",
                                      "--out", str(out)])
    return res, out


def test_faulty_scorers_are_invalid_with_their_reasons_on_screen(faulty):
    res, _ = faulty
    assert res.exit_code == 0, res.output
    for reason in ("scorer raised RuntimeError: scorer exploded on purpose",
                   "timeout after 0.5 s", "scorer returned nan, not a number",
                   "scorer returned the string 'excellent', not a number"):
        assert reason in res.output


def test_faulty_scorers_reasons_in_the_report_and_never_a_number(faulty):
    _, out = faulty
    report = (out / "report.md").read_text()
    assert "INVALID cells and why" in report
    assert "scorer exploded on purpose" in report and "timeout after 0.5 s" in report
    doc = json.loads((out / "audit.json").read_text())
    for key, res in doc["stages"]["probes"].items():
        assert res["status"] == "not probed", key
        assert all(c["score"] is None for c in res["cells"])
    assert [k["kind"] for k in doc["target"]["scorers"]] == ["unknown"] * 4


def test_unknown_task_spec_exits_2_with_one_line(tmp_path):
    res = RUNNER.invoke(inspect_app, ["inspect", "no_such_pkg_xyz/nothing", "--out",
                                      str(tmp_path)])
    assert res.exit_code == 2
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: no Inspect task found")


def test_task_that_fails_to_load_exits_2_with_one_line(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("from inspect_ai import task\n\n@task\ndef broken():\n"
                      "    raise RuntimeError('dataset missing')\n")
    res = RUNNER.invoke(inspect_app, ["inspect", f"{broken}@broken", "--out", str(tmp_path)])
    assert res.exit_code == 2
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and "cannot load Inspect task" in lines[0]
    assert "dataset missing" in lines[0]


def test_bad_task_argument_exits_2(tmp_path):
    res = RUNNER.invoke(inspect_app, ["inspect", toy("exact_task"), "-T", "novalue"])
    assert res.exit_code == 2 and "is not key=value" in res.output


@pytest.mark.parametrize("limit", [1, 2])
def test_below_three_samples_the_criterion_licenses_nothing(limit: int) -> None:
    doc = audit_inspect(load_task(toy("shape_task"), limit=limit))
    crit = _config(doc)["rows"]["criterion_sensitivity"]
    assert (crit["status"], crit["evidence"]["withheld"]) == ("insufficient evidence", "fail")
    assert crit["evidence"]["verdict"]["text"] == (
        f"insufficient evidence (n = {limit} sample{'s' * (limit != 1)} compared, needs 3)")
    assert "stability" not in _config(doc)  # withheld, not unstable: halves of 1 say nothing


def test_the_kind_and_criterion_carry_their_split_halves() -> None:
    doc = _audit("shape_task")  # 3 samples: halves of 2 and 1, each below the minimum
    kind = doc["target"]["scorers"][0]["verdict"]
    crit = _config(doc)["rows"]["criterion_sensitivity"]["evidence"]["verdict"]
    assert (kind["stable"], kind["consistent"]) == (True, [])
    assert crit["text"] == "fail (n = 3 samples compared)" and crit["stable"]
    assert "stability" not in _config(doc)


def test_json_output_is_only_json_even_when_inspect_prints_its_hooks_banner(
        tmp_path, monkeypatch):
    # Inspect prints "inspect_ai vX / hooks enabled: N" on stdout the first time a model is
    # made in a process (our own task-end hook is one); --json must stay parseable.
    import inspect_ai.hooks._startup as startup

    monkeypatch.setattr(startup, "_registry_hooks_loaded", False)
    monkeypatch.setattr(startup, "init_legacy_hooks", lambda: ["a hook banner"])
    res = RUNNER.invoke(inspect_app, ["inspect", toy("exact_task"), "--json",
                                      "--no-empty-trajectory", "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    card = json.loads(res.stdout)
    assert card["benchmark"] == toy("exact_task")


def test_a_scorer_that_breaks_its_sample_is_invalid_alone():
    doc = _audit("crashing_neighbours_task", empty_trajectory=False)
    huge, _, exact = doc["card"]["configurations"]
    assert exact["rows"]["criterion_sensitivity"]["status"] == "pass"
    assert _cell(doc, "b", "correct", "scorer 3")["score"] == 1.0
    assert _cell(doc, "b", "fabricated", "scorer 3")["score"] == 0.0
    for key, why in (("shipped", "scorer returned an int too large for a float, not a number"),
                     ("scorer 2", "scorer raised CancelledError: cancelled by the scorer "
                                  "itself")):
        cells = doc["stages"]["probes"][key]["cells"]
        assert {(c["score"], c["message"]) for c in cells} == {(None, why)}, key
    assert huge["rows"]["criterion_sensitivity"]["status"] == "not probed"
    # the card's not-probed line said "no reason recorded"
    assert huge["rows"]["criterion_sensitivity"]["evidence"]["reason"] == (
        "no correct/degraded pair compared: 15 of 15 probe cells INVALID (most common: scorer "
        "returned an int too large for a float, not a number)")


@pytest.mark.parametrize("exc", [SystemExit(3), KeyboardInterrupt(), GeneratorExit(),
                                 asyncio.CancelledError()])
def test_a_scorer_raising_a_base_exception_is_invalid(exc: BaseException) -> None:
    # Before, SystemExit and KeyboardInterrupt from a scorer hung the whole audit.
    async def scorer(state: Any, target: Any) -> Any:
        raise exc

    state = SimpleNamespace(target=None)
    try:
        out, parts = asyncio.run(call_scorer(scorer, state, 5.0))
    except BaseException as escaped:  # pytest itself would stop on a KeyboardInterrupt
        pytest.fail(f"{type(escaped).__name__} escaped the scorer call")
    assert (out.value, out.status, parts) == (None, "INVALID", None)
    assert out.message.startswith(f"scorer raised {type(exc).__name__}")


def test_a_cancelled_run_is_not_turned_into_a_cell() -> None:
    async def slow(state: Any, target: Any) -> Any:
        await asyncio.sleep(60)

    async def main() -> None:
        task = asyncio.ensure_future(call_scorer(slow, SimpleNamespace(target=None), 30.0))
        await asyncio.sleep(0.05)
        task.cancel()
        await task

    with pytest.raises(asyncio.CancelledError):
        asyncio.run(main())


def test_an_int_beyond_the_float_range_is_not_a_number() -> None:
    assert to_number(10**400) == (None, "returned an int too large for a float, not a number")
    assert to_number(2**53) == (float(2**53), "")


@pytest.mark.parametrize("where", ["import", "task"])
def test_a_task_file_calling_sys_exit_exits_2_with_one_line(tmp_path, where: str) -> None:
    # Before, agm exited silently with the task's own exit code (4).
    body = ("from inspect_ai import task\nimport sys\n"
            + ("sys.exit(4)\n" if where == "import" else "")
            + "\n@task\ndef quits():\n    sys.exit(4)\n")
    (tmp_path / "quits.py").write_text(body)
    res = RUNNER.invoke(inspect_app, ["inspect", f"{tmp_path / 'quits.py'}@quits", "--out",
                                      str(tmp_path / "out")])
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and "cannot load Inspect task" in lines[0]
    assert lines[0].endswith("its code called sys.exit(4)")


def test_a_task_solver_raising_system_exit_ends_its_run_not_the_audit():
    # The do-nothing run drives the task's own solver; its SystemExit left the event loop and
    # hung the audit, as a scorer's did. Each sample's cell is INVALID with the reason.
    doc = _audit("exiting_solver_task")
    e = doc["target"]["scorers"][0]["empty_trajectory"]
    assert (e["samples"], e["scored"], e["invalid"], e["pass_rate"]) == (3, 0, 3, None)
    assert e["invalid_reasons"] == [{"reason": "the task's solver failed with a model that "
                                               "answers nothing: SystemExit: 5", "cells": 3}]
    # the forged outputs are scored as ever; the do-nothing pairs are INVALID, so the
    # criterion is not probed (a missing measurement never passes), with the reason counted
    crit = _config(doc)["rows"]["criterion_sensitivity"]
    assert crit["status"] == "not probed" and crit["evidence"]["pairs_invalid"] == 3
    assert crit["evidence"]["score_mean_by_probe"]["correct"] == 1.0
