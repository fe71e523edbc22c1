"""Bad plans and stores: one line, exit 2, every problem at once, nothing run."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentmetrology.cli.main import app
from agentmetrology.experiment import load_plan, register
from agentmetrology.experiment.plan import smallest_holm_p
from agentmetrology.run.campaign import toml_files
from agentmetrology.store import EvidenceStore


def agm(*args: str) -> tuple[int, str]:
    r = CliRunner().invoke(app, list(args))
    return r.exit_code, " ".join(r.output.split())


def test_every_calibration_arm_and_repeat_problem_is_listed_at_once(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[experiment]\nname = "x"\nhypothesis = "h"\nkind = "ab"\n'
                   'arms = ["stress:squeeze:slack=0", "stress:squeeze:slack=00"]\n'
                   'targets = ["l1:always-retry"]\nlevels = ["L1"]\n'
                   'calibration = ["l1:always-retry", "l1:sometimes", "rule"]\n'
                   "repeats = 3\npower_effect = 0\n")
    code, out = agm("experiment", "run", str(bad), "--store", str(tmp_path / "s"))
    assert code == 2
    for needle in (
            "experiment.arms: arm stress:squeeze:slack=0 is listed twice: the decision rule "
            "cannot compare an arm with itself",
            "'l1:always-retry' is a target already",
            "unknown rule agent 'l1:sometimes'",
            "experiment.repeats: must be at most 2, got 3",
            "experiment.power_effect: must be at least 0.01, got 0",
            "5 problems; nothing was run"):
        assert needle in out, out
    assert not (tmp_path / "s").exists()


def test_a_calibration_rule_needs_a_level_it_acts_at(tmp_path: Path) -> None:
    bad = tmp_path / "l2.toml"
    bad.write_text('[experiment]\nname = "x"\nhypothesis = "h"\nkind = "ab"\n'
                   'targets = ["rule"]\nlevels = ["L2"]\ncalibration = ["l1:quota-aware"]\n')
    code, out = agm("experiment", "run", str(bad), "--store", str(tmp_path / "s"))
    assert code == 2
    assert "rule 'l1:quota-aware' acts only at L1, which the plan does not run" in out


def test_smallest_holm_p_is_exact() -> None:
    assert smallest_holm_p(4, 1) == 0.25  # 2 scorers x 2/2^4
    assert smallest_holm_p(7, 3) == 0.09375  # 6 x 2/2^7
    assert smallest_holm_p(8, 3) == 0.046875
    assert smallest_holm_p(21, 1) == 2 / 100_001


def test_a_rule_that_can_never_confirm_is_a_warning(tmp_path: Path) -> None:
    p = tmp_path / "p.toml"
    p.write_text('[experiment]\nname = "x"\nhypothesis = "h"\nkind = "ab"\n'
                 'targets = ["rule"]\nn = 5\n')
    (w,) = load_plan(p).warnings
    assert w == ("p.toml:6: warning: experiment.n: with n = 5 the smallest Holm-adjusted "
                 "sign-flip p is 0.125 >= 0.05: the decision rule can never confirm "
                 "(n >= 7 can)")
    p.write_text(p.read_text().replace("n = 5", "n = 7"))
    assert load_plan(p).warnings == ()


def test_a_store_without_the_plans_episodes_is_refused(tmp_path: Path) -> None:
    p = tmp_path / "p.toml"
    p.write_text('[experiment]\nname = "x"\nhypothesis = "h"\nkind = "ab"\n'
                 'targets = ["rule"]\nn = 7\n')
    with EvidenceStore.open(tmp_path / "s") as st:
        register(st, load_plan(p))  # frozen, never run
    code, out = agm("experiment", "report", str(p), "--store", str(tmp_path / "s"), "--out",
                    str(tmp_path / "o"))
    assert code == 2
    assert out == (f"error: the store at {tmp_path / 's'} holds none of the episodes of exp.x; "
                   "run `agm experiment run` first")
    assert not (tmp_path / "o").exists()


def test_power_uses_the_paired_t_above_100_pairs_and_says_so() -> None:
    from agentmetrology.experiment.power import plan_power

    base = {"kind": "ab", "arms": ["a", "b"], "power_effect": 0.5, "analysis_seed": 0}
    small, large = plan_power({**base, "n": 20}), plan_power({**base, "n": 101})
    assert small["test"] == "sign-flip" and "sign-flip test" in small["method"]
    assert large["test"] == "t" and "paired t test" in large["method"]
    assert large["power"] > small["power"] and large["family"] == 2


def test_status_refuses_a_plan_over_the_limit(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(toml_files, "MAX_TOML_BYTES", 1000)
    plan = tmp_path / "plan.toml"
    plan.write_bytes(b"#" + b"x" * 5000)
    code, out = agm("experiment", "status", str(plan), "--store", str(tmp_path / "s"))
    assert code == 2 and "5,001 bytes is above the limit of 1,000 bytes" in out, out
