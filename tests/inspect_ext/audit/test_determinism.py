"""`agm audit inspect` scores every output twice: a scorer whose verdict changes between calls
is non-deterministic, and nothing the card read from it is a verdict (docs/inspect.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentmetrology.audit.target import ScoreOutcome
from agentmetrology.cli.audit_inspect_cmd import inspect_app
from agentmetrology.inspect_ext.audit.determinism import determinism_row
from agentmetrology.inspect_ext.audit.load import load_task
from agentmetrology.inspect_ext.audit.target import audit_inspect

RUNNER = CliRunner()
TASKS = Path(__file__).resolve().parent / "tasks" / "toy_tasks.py"
WITHHELD = "the scorer is non-deterministic: 1 of 18 outputs scored twice got different verdicts"


def _cli(name: str, out: Path) -> tuple[Any, dict[str, Any]]:
    res = RUNNER.invoke(inspect_app, ["inspect", f"{TASKS}@{name}", "--out", str(out)],
                        env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.output
    return res, json.loads((out / "audit.json").read_text())


@pytest.fixture(scope="module")
def flips(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, dict[str, Any], Path]:
    out = tmp_path_factory.mktemp("flips")
    res, doc = _cli("flips_once_task", out)
    return res, doc, out


def test_one_changed_verdict_makes_the_scorer_non_deterministic(flips) -> None:
    # 3 samples x (5 forged outputs + the do-nothing one), each scored twice; exactly one of
    # the 36 calls flips its verdict, so exactly one output disagrees with itself.
    _, doc, _ = flips
    config = doc["card"]["configurations"][0]
    row = config["rows"]["scorer_determinism"]
    assert row["status"] == "fail"
    ev = row["evidence"]
    assert (ev["outputs_scored_twice"], ev["disagreeing"], ev["not_compared"]) == (18, 1, 0)
    assert ev["verdict"]["text"] == "non-deterministic: 1 of 18 outputs scored twice disagreed"
    (d,) = ev["disagreements"]
    assert {d["first"], d["second"]} == {0.0, 1.0}


def test_the_rows_resting_on_its_verdicts_are_insufficient_evidence(flips) -> None:
    _, doc, _ = flips
    config = doc["card"]["configurations"][0]
    crit = config["rows"]["criterion_sensitivity"]
    # what the single draws judged (pass, or fail where the flip landed on a first call) is
    # withheld: never a verdict nor a licensed claim
    assert crit["status"] == "insufficient evidence"
    assert crit["evidence"]["withheld"] in ("pass", "fail")
    assert crit["evidence"]["reason"] == WITHHELD
    assert crit["evidence"]["verdict"]["text"] == "insufficient evidence (n = 3 samples " \
                                                  "compared)"
    kind = config["rows"]["scorer_kind"]
    assert (kind["status"], kind["evidence"]["withheld"]) == ("insufficient evidence",
                                                              "specification")
    assert config["licensed_claim"] == doc["card"]["licensed_claim"] == "no claim licensed"
    empty = doc["target"]["scorers"][0]["empty_trajectory"]
    assert empty["pass_rate"] is None and empty["unreliable"] == WITHHELD


def test_the_terminal_and_the_report_say_non_deterministic(flips) -> None:
    res, _, out = flips
    text = " ".join(res.output.split())
    assert "scorer determinism │ non-deterministic: 1 of 18 outputs scored twice" in text
    assert "criterion sensitivity │ insufficient evidence (n = 3 samples" in text
    assert "do-nothing passes 0 of 3 scored (unreliable: non-deterministic scorer)" in text
    report = (out / "report.md").read_text()
    assert "| scorer determinism | non-deterministic: 1 of 18 outputs scored twice " \
           "disagreed |" in report


def test_a_random_scorer_withholds_its_own_column_only(tmp_path: Path) -> None:
    _, doc = _cli("coin_task", tmp_path)
    coin, exact = doc["card"]["configurations"]
    assert coin["rows"]["scorer_determinism"]["status"] == "fail"
    assert coin["rows"]["criterion_sensitivity"]["status"] == "insufficient evidence"
    assert coin["scorer_kind"] == "insufficient evidence (non-deterministic scorer)"
    assert coin["licensed_claim"] == "no claim licensed"
    assert exact["rows"]["scorer_determinism"]["evidence"]["verdict"]["text"] == \
        "deterministic on 18 of 18 outputs scored twice"
    assert exact["rows"]["criterion_sensitivity"]["status"] == "pass"


def test_a_deterministic_scorer_says_so_with_its_n() -> None:
    # 3 samples x 5 forged outputs, and the do-nothing run of all 4 samples
    doc = audit_inspect(load_task(f"{TASKS}@gsm8k_style"))
    row = doc["card"]["configurations"][0]["rows"]["scorer_determinism"]
    assert row["status"] == "pass"
    assert row["evidence"]["verdict"]["text"] == "deterministic on 19 of 19 outputs scored twice"
    assert row["evidence"]["verdict"]["interval"][0] == 0.0


def test_the_second_call_sees_the_state_the_first_one_saw() -> None:
    # the scorer notes itself in the store; its own note must not change its second verdict
    doc = audit_inspect(load_task(f"{TASKS}@store_note_task"), empty_trajectory=False)
    config = doc["card"]["configurations"][0]
    assert config["rows"]["scorer_determinism"]["evidence"]["disagreeing"] == 0
    assert config["rows"]["criterion_sensitivity"]["status"] == "pass"


def test_no_number_twice_is_not_probed_and_a_failed_call_is_not_compared() -> None:
    bad = ScoreOutcome(None, "INVALID", "scorer raised RuntimeError: boom")
    row = determinism_row({("a", "correct"): bad}, {("a", "correct"): bad}, 1e-6)
    assert (row["status"], row["evidence"]["not_compared"]) == ("not probed", 1)
    # A raise or timeout on one call is a measurement failure (a judge's 429, a slow call),
    # not a verdict: it called a deterministic scorer non-deterministic and withheld its card.
    slow = ScoreOutcome(None, "INVALID", "timeout after 30 s")
    row = determinism_row({("a", "correct"): ScoreOutcome(1.0), ("a", "empty"): bad,
                           ("b", "correct"): ScoreOutcome(0.0)},
                          {("a", "correct"): slow, ("a", "empty"): bad,
                           ("b", "correct"): ScoreOutcome(0.0)}, 1e-6)
    assert (row["status"], row["evidence"]["disagreeing"]) == ("pass", 0)
    assert row["evidence"]["not_compared_failed_call"] == 1
    assert row["evidence"]["verdict"]["text"] == (
        "deterministic on 1 of 1 outputs scored twice (1 more not compared: a call timed out "
        "or raised)")
    row = determinism_row({("a", "correct"): ScoreOutcome(1.0)}, {("a", "correct"): bad}, 1e-6)
    assert row["status"] == "not probed" and "timed out or raised" in row["evidence"]["reason"]
    # a number against an INVALID verdict (not a failed call) is still a disagreement
    nan = ScoreOutcome(None, "INVALID", "scorer returned nan")
    row = determinism_row({("a", "correct"): ScoreOutcome(1.0)}, {("a", "correct"): nan}, 1e-6)
    assert (row["status"], row["evidence"]["disagreeing"]) == ("fail", 1)
    # scored once (a timeout, no judge): not compared, never counted as agreeing
    row = determinism_row({("a", "correct"): ScoreOutcome(1.0)}, {}, 1e-6)
    assert (row["status"], row["evidence"]["not_compared"]) == ("not probed", 1)


def test_the_census_row_of_a_non_deterministic_scorer_licenses_nothing() -> None:
    from agentmetrology.inspect_ext.audit.census import census_row, summarize
    from agentmetrology.report.census_report import render_census_report
    from agentmetrology.report.terminal.inspect_audit import census_reasons, census_rows

    row = census_row(f"{TASKS}@coin_task", None)
    coin, exact = row["scorers"]
    assert (coin["criterion"], coin["claim"]) == ("insufficient evidence", "no claim licensed")
    assert coin["criterion_reason"].startswith("the scorer is non-deterministic: ")
    assert coin["empty_unreliable"] == coin["criterion_reason"]
    assert "empty_unreliable" not in exact  # a deterministic scorer's row is as it was
    doc = {"rows": [row]}
    assert [r[3:5] for r in census_rows(doc)] == [
        ["insufficient evidence (n = 3 samples compared)", "-"],
        ["pass (n = 3 samples compared)", "0/3"]]
    assert any("non-deterministic" in line for line in census_reasons(doc))
    assert summarize([row])["by_criterion"] == {"insufficient evidence": 1, "pass": 1}
    full = {"census": "scorer census", "tool_version": "t", "limit": None,
            "scorer_timeout_s": 10.0, "rows": [row], "summary": summarize([row]), "tau2": []}
    markdown, *_ = render_census_report(full)
    assert "(unreliable: non-deterministic scorer)" in markdown


def test_a_change_below_the_audit_s_resolution_is_no_change_of_verdict() -> None:
    # float noise the criterion reads as a tie (eps = 1e-6) is the same verdict
    first = {("a", "correct"): ScoreOutcome(0.3), ("b", "correct"): ScoreOutcome(0.5)}
    second = {("a", "correct"): ScoreOutcome(0.1 + 0.2), ("b", "correct"): ScoreOutcome(0.5001)}
    row = determinism_row(first, second, 1e-6)
    assert (row["status"], row["evidence"]["disagreeing"]) == ("fail", 1)
    assert row["evidence"]["disagreements"] == [
        {"task": "b", "probe": "correct", "first": 0.5, "second": 0.5001}]
