"""The shipped B2 plan (examples/experiment_b2.toml) runs and reports the pinned calibration."""

from __future__ import annotations

from pathlib import Path

from support.experiment_runs import run_and_report

PLAN = Path(__file__).resolve().parents[2] / "examples" / "experiment_b2.toml"
ESC, CON = "stress:b2:escalating:slack=0", "stress:b2:constant:slack=0"


def test_b2_example_reports_delta_deaths_and_skips(tmp_path: Path) -> None:
    doc = run_and_report(PLAN, tmp_path)
    arms = {(a["agent"], a["arm"]): (round(a["coverage"], 4), a["quota_deaths"], a["skips"])
            for a in doc["arms"]}
    # (coverage, quota deaths, SKIPs) per rule and arm: the values tests/envs/comtrade/test_b2.py
    # pins, now read back from the stored episodes.
    assert arms == {
        ("l1:always-retry", ESC): (0.6873, 17, 0), ("l1:always-retry", CON): (0.778, 5, 0),
        ("l1:always-skip", ESC): (0.6793, 9, 24), ("l1:always-skip", CON): (0.546, 0, 40),
        ("l1:quota-aware", ESC): (0.6873, 17, 6), ("l1:quota-aware", CON): (0.778, 2, 6),
    }
    gt = {c["target"]: (round(c["delta"]["value"], 4), c["verdict"]) for c in doc["cells"]
          if c["scorer"] == "ground_truth_f1"}
    # always-retry's delta is the paper's +0.096 within 0.01 (ours +0.0907).
    assert gt == {"l1:always-retry": (0.0907, "confirmed"),
                  "l1:always-skip": (-0.1333, "not confirmed"),
                  "l1:quota-aware": (0.0907, "confirmed")}
    # Retrying and quota-aware skipping give the same coverage on every seed in both arms.
    assert {tuple(map(tuple, d["indistinguishable"])) for d in doc["decision_invariance"]} == \
        {(("l1:always-retry", "l1:quota-aware"),)}


def test_b2_slack2_example_is_not_confirmed_as_in_the_paper(tmp_path: Path) -> None:
    doc = run_and_report(PLAN.with_name("experiment_b2_slack2.toml"), tmp_path)
    gt = {c["target"]: (round(c["delta"]["value"], 4), c["verdict"]) for c in doc["cells"]
          if c["scorer"] == "ground_truth_f1"}
    # Paper: always-retry +0.015, p = .30 at slack 2 (ours +0.016, sign-flip p = .27).
    assert gt["l1:always-retry"] == (0.016, "not confirmed")
    assert gt["l1:quota-aware"] == (0.016, "not confirmed")
