"""A dose plan of one target: its report is written and says what it cannot check.

Before, `agm experiment report` of such a plan was a traceback (`max() arg is an empty
sequence` in the shape sentence): decision invariance compares targets, a plan of one has none
to compare, and the shape claimed "not every choice is forced" without a check.
"""

from __future__ import annotations

from pathlib import Path

from support.experiment_runs import run_and_report

DOSE = Path(__file__).parents[2] / "examples" / "experiment_b2_dose.toml"


def test_a_one_target_dose_plan_reports_forcing_as_not_checked(tmp_path: Path) -> None:
    text = (DOSE.read_text()
            .replace('targets = ["l1:always-retry", "l1:always-skip", "l1:quota-aware"]',
                     'targets = ["l1:always-skip"]')
            .replace("slacks = [0, 1, 2, 4]", "slacks = [0, 4]").replace("n = 20", "n = 2")
            .replace('name = "b2-quota-dose"', 'name = "dose-one"'))
    assert 'targets = ["l1:always-skip"]' in text and "n = 2" in text
    plan = tmp_path / "dose.toml"
    plan.write_text(text)
    doc = run_and_report(plan, tmp_path)
    shape = doc["dose"]["shape"]["L1"]
    assert shape["forced"] == [None, None] and shape["forced_at_lowest"] is None
    assert shape["inverted_u"] is None and shape["binding_and_free_between"] == []
    assert [x["forced"] for x in doc["dose"]["invariance"]] == [None, None]
    md = (tmp_path / "o" / "report.md").read_text()
    # the shape names the n its deltas rest on (it named none)
    assert ("Shape, by these numbers (n = 2 paired seeds per delta): undetermined whether an "
            "inverted U of decision relevance. At slack 0 whether every choice is forced is "
            "not checked (decision invariance compares the targets' per-seed coverage, and "
            "this plan has one target); ") in md
    assert "| L1 | 0 | n/a | n/a | not checked |" in md
