"""`agm experiment`: plans checked up front, frozen before the first episode, judged by rule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentmetrology.cli.main import app
from agentmetrology.experiment import load_plan, registrations
from agentmetrology.store import EvidenceStore
from support.agm_runs import run_main

AB = """[experiment]
name = "ab"
hypothesis = "escalation costs coverage at matched mean"
kind = "ab"
targets = ["l1:always-retry", "l1:quota-aware", "l1:always-skip", "scripted:careful"]
levels = ["L1"]
n = 4
analysis_seed = 7
"""
CURVE = """[experiment]
name = "curve"
hypothesis = "outcomes degrade with dose"
kind = "curve"
targets = ["scripted:careful", "rule"]
n = 4
"""


def agm(*args: str) -> tuple[int, str]:
    """Run `agm ARGS` through main() (its one handler prints UserErrors); stdout + stderr."""
    r = run_main(args)
    return r.returncode, r.stdout + r.stderr


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("exp")
    (root / "ab.toml").write_text(AB)
    (root / "curve.toml").write_text(CURVE)
    for name in ("ab", "curve"):
        code, out = agm("experiment", "run", str(root / f"{name}.toml"), "--store",
                        str(root / "store"))
        assert code == 0, out
        code, out = agm("experiment", "report", str(root / f"{name}.toml"), "--store",
                        str(root / "store"), "--out", str(root / f"out-{name}"))
        assert code == 0, out
    return root


def _cells(root: Path, name: str) -> dict[tuple[str, str, str], dict]:
    doc = json.loads((root / f"out-{name}" / "experiment.json").read_text())
    return {(c["target"], c["level"], c["scorer"]): c for c in doc["cells"]}


def test_free_retry_ab_gives_zero_delta_for_retrying_agents(ran: Path) -> None:
    cells = _cells(ran, "ab")
    for agent in ("l1:always-retry", "l1:quota-aware", "scripted:careful"):
        c = cells[(agent, "L1", "ground_truth_f1")]
        assert c["per_seed_delta"] == [0.0, 0.0, 0.0, 0.0]
        assert c["delta"]["value"] == 0.0 and c["delta"]["interval"] == [0.0, 0.0]
        assert c["verdict"] == "not confirmed"
    skip = cells[("l1:always-skip", "L1", "ground_truth_f1")]
    assert skip["per_seed_delta"] == pytest.approx([-0.6, 0.4, -0.4, -0.2])
    assert {c["verdict"] for c in cells.values()} == {"not confirmed"}
    # the designated scorer sits beside ground truth, Holm over the pair of them
    judge = cells[("l1:always-retry", "L1", "shape_judge")]
    assert judge["outcome"] == "shape_judge score" and judge["pairs"] == 4
    assert judge["p_holm"] >= judge["sign_flip"]["p_value"]
    rule = judge["rule"]  # the rule's verdict with its n, CI and the minimum it needs
    assert (rule["verdict"], rule["n"], rule["counted"], rule["minimum"]) == (
        "insufficient evidence", 4, "paired seeds", 7)
    assert rule["interval"] == judge["delta"]["interval"]


def test_the_rule_needs_the_pairs_an_exact_sign_flip_can_confirm_with() -> None:
    from agentmetrology.experiment.analyse import min_pairs

    # 2/2^n x family < 0.05: n = 6 alone (0.031), 7 for 2 (0.031), 8 for 6 (0.047)
    assert [min_pairs(k) for k in (1, 2, 6, 7)] == [6, 7, 8, 9]


def test_careful_curve_is_flat_at_full_coverage_and_rule_degrades(ran: Path) -> None:
    cells = _cells(ran, "curve")
    for level in ("L1", "L2"):
        cv = cells[("scripted:careful", level, "ground_truth_f1")]["curve"]
        assert [p["dose"] for p in cv["points"]] == [0.0, 0.25, 0.5, 0.75, 1.0]
        assert [p["mean"] for p in cv["points"]] == [1.0] * 5
        assert cv["monotone_non_increasing"] is True
        assert all(len(p["points"]) == 4 and p["band"]["interval"] == [1.0, 1.0]
                   for p in cv["points"])
    rule = cells[("rule", "L1", "ground_truth_f1")]["curve"]["points"]
    assert rule[0]["mean"] == 1.0 and rule[-1]["mean"] < 1.0
    html = (ran / "out-curve" / "report.html").read_text()
    assert html.count("<svg") == 8 and "<polyline" in html and "<script" not in html


def test_verdict_first_and_same_analysis_is_byte_identical(ran: Path, tmp_path: Path) -> None:
    md = (ran / "out-ab" / "report.md").read_text()
    first = md.split("## ")[0]
    # 4 paired seeds in a Holm family of 2 can never confirm (2/2^4 x 2 = 0.25): said so
    withheld = "insufficient evidence (n = 4 paired seeds, needs 7)"
    assert (f"| `l1:always-retry` | L1 | coverage (ground truth) | {withheld} | {withheld} |"
            in first)
    code, out = agm("experiment", "report", str(ran / "ab.toml"), "--store",
                    str(ran / "store"), "--out", str(tmp_path))
    assert code == 0, out
    assert (tmp_path / "experiment.json").read_bytes() == \
        (ran / "out-ab" / "experiment.json").read_bytes()


def test_rerun_resumes_and_a_changed_plan_is_refused_naming_the_fields(ran: Path) -> None:
    code, out = agm("experiment", "run", str(ran / "ab.toml"), "--store", str(ran / "store"))
    assert code == 0 and "resumed exp.ab" in out and "0 episodes recorded" in out
    changed = ran / "ab_changed.toml"
    changed.write_text(AB.replace("n = 4", "n = 5").replace("analysis_seed = 7",
                                                            "analysis_seed = 8"))
    for cmd in ("run", "report"):
        extra = ["--out", str(ran / "x")] if cmd == "report" else []
        code, out = agm("experiment", cmd, str(changed), "--store", str(ran / "store"), *extra)
        assert code == 2
        assert "changes experiment.analysis_seed, experiment.n;" in " ".join(out.split())
    with EvidenceStore.open_readonly(ran / "store") as st:
        assert [r.campaign for r in registrations(st, "ab")] == ["exp.ab"]


def test_a_new_registration_is_frozen_beside_the_old(ran: Path) -> None:
    new = ran / "ab_new.toml"
    new.write_text(AB.replace("n = 4", "n = 2") + 'registration = "new"\n')
    code, out = agm("experiment", "run", str(new), "--store", str(ran / "store"))
    assert code == 0 and "registered exp.ab.r2" in out, out
    with EvidenceStore.open_readonly(ran / "store") as st:
        regs = registrations(st, "ab")
        assert [r.campaign for r in regs] == ["exp.ab", "exp.ab.r2"]
        assert regs[1].plan["n"] == 2 and regs[1].digest == load_plan(new).digest
    code, out = agm("experiment", "status", str(new), "--store", str(ran / "store"))
    assert code == 0 and "exp.ab.r2" in out and "planned 16, done 16" in out


def test_bad_plan_lists_every_problem_and_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[experiment]\nname = "x"\nhypothesis = "h"\nkind = "ab"\n'
                   'arms = ["stress:escalating", "stress:bogus"]\n'
                   'targets = ["rule", "nobody"]\nscorer = "judgy"\nn = 1\n'
                   'metrics = { L1 = "speed" }\n')
    code, out = agm("experiment", "run", str(bad), "--store", str(tmp_path / "s"))
    text = " ".join(out.split())
    assert code == 2
    for needle in ("bad.toml:5: experiment.arms: unknown condition 'stress:bogus'",
                   "unknown agent 'nobody'", "unknown designated scorer 'judgy'",
                   "experiment.n: must be at least 2, got 1", "unknown metric 'speed'",
                   "5 problems; nothing was run"):
        assert needle in text
    assert not (tmp_path / "s").exists()


def test_defaults_spelled_out_give_the_same_frozen_plan(tmp_path: Path) -> None:
    a, b = tmp_path / "a.toml", tmp_path / "b.toml"
    a.write_text(CURVE)
    b.write_text(CURVE + 'task = "T9_clean_ab"\nlevels = ["L1", "L2"]\nscorer = "shape_judge"\n'
                 "doses = [1.0, 0.75, 0.5, 0.25, 0]\n"
                 'metrics = { L1 = "coverage", L2 = "f1" }\nanalysis_seed = 0\n')
    assert load_plan(a).digest == load_plan(b).digest


def test_report_out_that_is_a_file_says_give_a_directory(ran: Path) -> None:
    # Before: "cannot write the report to afile: File exists", with no fix.
    afile = ran / "afile"
    afile.write_text("keep\n")
    code, out = agm("experiment", "report", str(ran / "ab.toml"), "--store", str(ran / "store"),
                    "--out", str(afile))
    assert code == 2  # after the plan's own warning (n = 4 can never confirm), one line
    assert out.splitlines()[-1] == f"error: --out {afile} is a file: give a directory"
    assert afile.read_text() == "keep\n"


def test_report_needs_a_registration(tmp_path: Path) -> None:
    p = tmp_path / "c.toml"
    p.write_text(CURVE)
    EvidenceStore.open(tmp_path / "s").close()
    code, out = agm("experiment", "report", str(p), "--store", str(tmp_path / "s"), "--out",
                    str(tmp_path / "o"))
    assert code == 2 and "is not registered" in out


def test_judge_confirms_careful_degradation_that_ground_truth_does_not(tmp_path: Path) -> None:
    plan = tmp_path / "judge.toml"
    plan.write_text(CURVE.replace('["scripted:careful", "rule"]', '["scripted:careful"]')
                    .replace("n = 4", "n = 20") + 'levels = ["L1"]\n')
    agm("experiment", "run", str(plan), "--store", str(tmp_path / "s"))
    code, out = agm("experiment", "report", str(plan), "--store", str(tmp_path / "s"), "--out",
                    str(tmp_path / "o"))
    assert code == 0, out
    doc = json.loads((tmp_path / "o" / "experiment.json").read_text())
    verdicts = {c["scorer"]: c["verdict"] for c in doc["cells"]}
    assert verdicts == {"ground_truth_f1": "not confirmed", "shape_judge": "confirmed"}
    first = (tmp_path / "o" / "report.md").read_text().split("## ")[0]
    assert "Confirmed under the designated scorer but not under ground truth: " \
           "`scripted:careful` at L1 (n = 20 paired seeds)." in first
    # every judge delta of one sign on 20 seeds: exact p 2/2^20, Holm p (of 2) twice that;
    # printed as they are, never as 0.000 beside "confirmed"
    judge = next(c for c in doc["cells"] if c["scorer"] == "shape_judge")
    assert (judge["sign_flip"]["p_value"], judge["p_holm"]) == (2 / 2**20, 4 / 2**20)
    md = (tmp_path / "o" / "report.md").read_text()
    assert "| 0.00000191 | 0.00000381 | 2 | 0.00000191 | confirmed" in md


def test_zero_slack_squeeze_is_reported_decision_invariant(tmp_path: Path) -> None:
    plan = tmp_path / "sq.toml"
    plan.write_text("""
[experiment]
name = "squeeze-invariance"
hypothesis = "With no slack, retrying and skipping cannot be told apart."
kind = "ab"
task = "T9_clean_ab"
arms = ["stress:squeeze:slack=0", "stress:squeeze:slack=4"]
targets = ["l1:always-retry", "l1:always-skip", "l1:quota-aware"]
levels = ["L1"]
scorer = "shape_judge"
n = 4
""")
    store, out = tmp_path / "s", tmp_path / "o"
    ran = CliRunner().invoke(app, ["experiment", "run", str(plan), "--store", str(store)])
    assert ran.exit_code == 0, ran.stderr
    res = CliRunner().invoke(app, ["experiment", "report", str(plan), "--store", str(store),
                                   "--out", str(out)])
    assert res.exit_code == 0, res.stderr
    doc = json.loads((out / "experiment.json").read_text())
    by_arm = {x["arm"]: x["invariant"] for x in doc["decision_invariance"]}
    assert by_arm == {"stress:squeeze:slack=0": True, "stress:squeeze:slack=4": False}
    assert "Decision-invariant design" in (out / "report.md").read_text()


def test_a_target_with_nothing_measured_fails_the_run(ran: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    # Model-free experiment episodes cannot fail to be measured on their own; the campaign's
    # finding is injected, so what is tested is what `experiment run` does with it.
    import dataclasses

    from agentmetrology.cli import experiment_cmd

    real = experiment_cmd.run_experiment

    def unmeasured(*args, **kwargs):  # type: ignore[no-untyped-def]
        reg, new, result = real(*args, **kwargs)
        return reg, new, dataclasses.replace(result, unmeasured={"rule": [("scorer crashed", 4)]})

    monkeypatch.setattr(experiment_cmd, "run_experiment", unmeasured)
    code, out = agm("experiment", "run", str(ran / "curve.toml"), "--store", str(ran / "store"))
    assert code == 1, out
    assert "error: target rule: none of its" in out
    assert "(measurement failures: 4 episodes: scorer crashed); the analysis has no episode " \
           "of it" in " ".join(out.split())
