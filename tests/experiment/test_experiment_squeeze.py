"""The squeeze dose-response: per-arm quota deaths and skips, rule calibration, multiplicity."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentmetrology.cli.main import app
from agentmetrology.envs.comtrade.service import BUDGET_ERROR
from agentmetrology.experiment import load_plan
from agentmetrology.experiment.arms import QUOTA_REFUSAL
from agentmetrology.stats import eta_squared, holm, sign_test

ROOT = Path(__file__).resolve().parents[2]
PLAN = """[experiment]
name = "squeeze"
hypothesis = "slack buys coverage for retrying"
kind = "ab"
arms = ["stress:squeeze:slack=0", "stress:squeeze:slack=2", "stress:squeeze:slack=4"]
targets = ["scripted:careful"]
calibration = ["l1:always-retry", "l1:always-skip", "l1:quota-aware"]
levels = ["L1"]
n = 4
"""


def agm(*args: str) -> tuple[int, str]:
    r = CliRunner().invoke(app, list(args))
    return r.exit_code, r.output


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    root = tmp_path_factory.mktemp("squeeze")
    (root / "p.toml").write_text(PLAN)
    code, out = agm("experiment", "run", str(root / "p.toml"), "--store", str(root / "s"))
    assert code == 0, out
    # n = 4 with 2 comparisons x 2 scorers can never confirm: said when the plan is read
    assert "the decision rule can never confirm (n >= 8 can)" in " ".join(out.split())
    code, out = agm("experiment", "report", str(root / "p.toml"), "--store", str(root / "s"),
                    "--out", str(root / "o"))
    assert code == 0, out
    return root, json.loads((root / "o" / "experiment.json").read_text())


def _arm(doc: dict, agent: str, arm: str) -> dict:
    return next(r for r in doc["arms"] if r["agent"] == agent and r["arm"] == arm)


def test_zero_slack_separates_always_retry_from_quota_aware_by_decisions(ran) -> None:
    _, doc = ran
    z = "stress:squeeze:slack=0"
    got = {a: {k: _arm(doc, a, z)[k] for k in ("recorded", "coverage", "quota_deaths", "skips",
                                                "episodes_with_skip", "decisions")}
           for a in ("l1:always-retry", "l1:quota-aware", "l1:always-skip")}
    # Seeds 0..3 cover 0.6, 0.6, 0.6, 0.8 of the rows whatever the rule: outcome-invariant.
    assert got == {
        "l1:always-retry": {"recorded": 4, "coverage": pytest.approx(0.65), "quota_deaths": 4,
                            "skips": 0, "episodes_with_skip": 0, "decisions": 7},
        "l1:quota-aware": {"recorded": 4, "coverage": pytest.approx(0.65), "quota_deaths": 4,
                           "skips": 5, "episodes_with_skip": 4, "decisions": 7},
        "l1:always-skip": {"recorded": 4, "coverage": pytest.approx(0.65), "quota_deaths": 4,
                           "skips": 7, "episodes_with_skip": 4, "decisions": 7},
    }
    inv = {x["arm"]: x for x in doc["calibration"]["invariance"]}
    assert inv[z]["invariant"] is True
    four = inv["stress:squeeze:slack=4"]
    assert four["invariant"] is False
    assert four["indistinguishable"] == [["l1:always-retry", "l1:quota-aware"]]
    retry4 = _arm(doc, "l1:always-retry", "stress:squeeze:slack=4")
    assert (retry4["quota_deaths"], retry4["coverage"]) == (1, 0.95)


def test_calibration_section_and_verdict_first(ran) -> None:
    root, doc = ran
    md = (root / "o" / "report.md").read_text()
    first = md.split("## ")[0]
    assert "every calibration rule gives the same per-seed ground truth at " \
           "`stress:squeeze:slack=0` (L1)" in " ".join(first.split())
    assert "Power of the rule at the planned n = 4" in first
    assert "## Rule calibration" in md and "## Per arm: coverage, quota deaths, skips" in md
    # calibration rules are reported, never judged: only the target has verdict cells
    assert {c["target"] for c in doc["cells"]} == {"scripted:careful"}
    outcomes = {(o["rule"], o["arm"]): o["per_seed"] for o in doc["calibration"]["outcomes"]}
    assert outcomes[("l1:always-skip", "stress:squeeze:slack=0")] == [0.6, 0.6, 0.6, 0.8]


def test_holm_runs_over_arms_and_scorers_and_the_sign_test_is_exact(ran) -> None:
    _, doc = ran
    family = [c for c in doc["cells"] if c["level"] == "L1"]
    assert len(family) == 4 and {c["family_size"] for c in family} == {4}
    assert [c["p_holm"] for c in family] == \
        list(holm([c["sign_flip"]["p_value"] for c in family]).adjusted)
    for c in family:
        d = c["per_seed_delta"]
        up, down = sum(x > 0 for x in d), sum(x < 0 for x in d)
        assert c["sign_test"]["p_value"] == sign_test(up, down).p_value
    gt4 = next(c for c in family if c["scorer"] == "ground_truth_f1"
               and c["arm"] == "stress:squeeze:slack=4")
    # careful: 0.6, 0.6, 0.6, 0.8 at slack 0 vs 1, 1, 0.8, 1 at slack 4 -> 4 up, 0 down
    assert gt4["per_seed_delta"] == pytest.approx([0.4, 0.4, 0.2, 0.2])
    assert gt4["sign_test"]["p_value"] == 0.125  # exact: 2 / 2^4
    assert gt4["sign_flip"]["p_value"] == 0.125
    assert gt4["p_holm"] == 0.5 and gt4["verdict"] == "not confirmed"


def test_rule_eta_squared_is_computed_on_the_reported_per_seed_values(ran) -> None:
    _, doc = ran
    (v,) = doc["calibration"]["variance"]
    rules = doc["calibration"]["rules"]
    per = {(o["rule"], o["arm"]): o["per_seed"] for o in doc["calibration"]["outcomes"]}
    arms = doc["plan"]["arms"]
    table = [[[per[(r, a)][s] for r in rules] for a in arms] for s in range(4)]
    assert v["shares"] == eta_squared(table).to_dict()["shares"]
    assert v["seeds"] == 4


def test_status_shows_per_arm_counts_and_power(ran) -> None:
    root, _ = ran
    code, out = agm("experiment", "status", str(root / "p.toml"), "--store", str(root / "s"))
    assert code == 0, out
    assert "quota deaths" in out and "power of the rule at n = 4" in out
    assert "the rule can never confirm at this n" in " ".join(out.split())


def test_quota_refusal_is_comtrades_budget_error() -> None:
    assert QUOTA_REFUSAL == BUDGET_ERROR


def test_example_squeeze_plan_is_a_slack_dose_response() -> None:
    plan = load_plan(ROOT / "examples" / "experiment_squeeze.toml")
    assert plan.arms == tuple(f"stress:squeeze:slack={k}" for k in (0, 1, 2, 4))
    assert set(plan.calibration) == {"l1:always-retry", "l1:always-skip", "l1:quota-aware"}
    assert plan.calibration["l1:always-retry"] == ("L1",) and plan.levels == ("L1", "L2")
    assert plan.warnings == ()


def test_reruns_give_the_excess_flip_rate(tmp_path: Path) -> None:
    p = tmp_path / "r.toml"
    p.write_text(PLAN.replace('calibration = ["l1:always-retry", "l1:always-skip", '
                              '"l1:quota-aware"]\n', "")
                 .replace('"stress:squeeze:slack=2", ', "") + "repeats = 2\n")
    assert agm("experiment", "run", str(p), "--store", str(tmp_path / "s"))[0] == 0
    code, out = agm("experiment", "report", str(p), "--store", str(tmp_path / "s"), "--out",
                    str(tmp_path / "o"))
    assert code == 0, out
    doc = json.loads((tmp_path / "o" / "experiment.json").read_text())
    gt = next(c for c in doc["cells"] if c["scorer"] == "ground_truth_f1")
    # careful passes nowhere at slack 0 and on 3 of 4 seeds at slack 4; reruns are identical
    fl = gt["flips"]["flips"]
    assert (fl["n01"], fl["n10"], fl["n"], fl["value"]) == (3, 0, 4, 0.75)
    ex = gt["flips"]["excess"]
    assert (ex["value"], ex["condition_rate"], ex["rerun_rate"]) == (0.75, 0.75, 0.0)


def test_report_opens_in_headless_chromium_with_the_verdict_first(ran, tmp_path: Path) -> None:
    import os
    import re
    import shutil
    import subprocess

    chromium = next((p for n in ("chromium", "chromium-browser", "google-chrome")
                     if (p := shutil.which(n))), None)
    if chromium is None:
        pytest.skip("headless Chromium is not installed (apt-get install chromium)")
    root, _ = ran
    proc = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--enable-logging=stderr", "--v=0", f"--user-data-dir={tmp_path / 'profile'}",
         "--virtual-time-budget=2000", "--dump-dom", (root / "o" / "report.html").as_uri()],
        capture_output=True, text=True, timeout=120, env={**os.environ, "HOME": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr[-2000:]
    dom = proc.stdout
    assert [ln for ln in proc.stderr.splitlines()
            if re.search(r"CONSOLE|Uncaught|console\.error", ln)] == []
    # the verdict table comes before every later section
    assert dom.index("Verdict per target") < dom.index("Paired comparisons") \
        < dom.index("Rule calibration") < dom.index("Power for the planned n")
