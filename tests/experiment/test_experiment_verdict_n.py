"""Every verdict sentence of an experiment report names the n it rests on.

Before: the terminal's last line listed the distinct verdicts without how many comparisons
each was (`6 verdicts: confirmed (n = 20 paired seeds), not confirmed (...)`); the first
screen's "Decision-invariant design" note and "Confirmed under the designated scorer but not
under ground truth" named no n, nor did a curve's "Means monotone non-increasing in dose: yes",
which held over 3 seeds as it would over 20 and read `yes` past a dose without values.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentmetrology.report.experiment_dose import ci_end, p_side
from agentmetrology.report.experiment_report import render_experiment_report
from agentmetrology.report.numberguard import p_text
from support.experiment_runs import run_and_report_text

EXAMPLES = Path(__file__).parents[2] / "examples"


def _run(plan: Path, tmp_path: Path) -> tuple[str, dict[str, Any], str]:
    """Return the report's terminal output, experiment.json and report.md, spaces joined."""
    said, doc, md = run_and_report_text(plan, tmp_path)
    return " ".join(said.split()), doc, " ".join(md.split())


def test_the_terminal_counts_each_verdict(tmp_path: Path) -> None:
    said, doc, _ = _run(EXAMPLES / "experiment_b2.toml", tmp_path)
    assert doc["summary"]["verdicts"] == {"confirmed": 2, "not confirmed": 4}
    assert ("(6 verdicts: 2 confirmed (n = 20 paired seeds), 4 not confirmed (n = 20 paired "
            "seeds); 0 deviations)") in said
    # a split between the designated scorer and ground truth names its n
    for c in doc["cells"]:
        if c["target"] == "l1:always-retry":
            c["verdict"] = "confirmed" if c["scorer"] == "shape_judge" else "not confirmed"
    md = " ".join(render_experiment_report(doc)[0].split())
    assert ("Confirmed under the designated scorer but not under ground truth: "
            "`l1:always-retry` at L1 (n = 20 paired seeds).") in md


def test_a_small_curve_names_its_seeds(tmp_path: Path) -> None:
    plan = tmp_path / "curve.toml"
    plan.write_text((EXAMPLES / "experiment_curve.toml").read_text()
                    .replace("n = 20", "n = 3").replace('"dose-curve"', '"curve-3"'))
    said, doc, md = _run(plan, tmp_path)
    assert "(8 verdicts: 8 insufficient evidence (n = 3 paired seeds, needs 7); " in said
    assert any(x["invariant"] for x in doc["decision_invariance"])
    assert ("(L2), on each of the n = 3 seeds planned. There the design cannot tell the "
            "targets' decisions apart") in md
    assert "Means monotone non-increasing in dose: yes (n = 3 seeds at every dose)." in md
    # a dose without values is named, never passed over silently
    for c in doc["cells"]:
        c["curve"]["points"][2].update(n=0, mean=None, band=None, points=[])
    md = " ".join(render_experiment_report(doc)[0].split())
    assert ("Means monotone non-increasing in dose: yes (n = 3, 3, 0, 3, 3 seeds by dose; "
            "dose 0.5 without values left out).") in md


def test_the_dose_table_shows_what_its_verdicts_rest_on(tmp_path: Path) -> None:
    """At 80 columns the dose table dropped the Holm p, so `+0.055 [0.009, 0.103] not
    confirmed` stood without the number that decides it; no row said its n."""
    said, _, md = _run(EXAMPLES / "experiment_b2_dose.toml", tmp_path)
    assert "l1:always-retry 1 +0.055 [0.009, 0.103] 0.188 not confirmed" in said
    assert "not shown at this width: p, deaths b/a, SKIPs b/a" in said
    assert ("rule: confirmed iff the paired bootstrap 95% CI of delta lies above 0 and the "
            "Holm-adjusted sign-flip p < 0.05 verdicts over n = 20 paired seeds each") in said
    assert ("Shape, by these numbers (n = 20 paired seeds per delta): not an inverted U of "
            "decision relevance.") in said
    assert ("| `l1:always-retry` | L1 | 1 | +0.055 [0.009, 0.103] | 0.047 | 0.188 | "
            "not confirmed (n = 20 paired seeds) |") in md


def test_a_ci_end_that_rounds_to_zero_keeps_its_sign() -> None:
    f = _fmt
    assert [ci_end(f, x) for x in (0.0004123, -0.0004123, 0.00001234, -0.00001234, 0.0,
                                   0.037, -0.5)] == [
        "0.0004123", "-0.0004123", "0.0000123", "-0.000", "0.000", "0.037", "-0.500"]


def test_confirmed_and_not_confirmed_never_print_the_same_interval(tmp_path: Path) -> None:
    """A CI of [0.0004, 0.145] (confirmed: above 0) and one of [-0.0004, 0.145] (not
    confirmed) both printed `[0.000, 0.145]`."""
    plan = tmp_path / "b2.toml"
    plan.write_text((EXAMPLES / "experiment_b2.toml").read_text().replace("n = 20", "n = 8")
                    .replace('"b2-quota-ab"', '"b2-8"'))
    _, doc, _ = _run(plan, tmp_path)
    gt = [c for c in doc["cells"] if c["scorer"] == "ground_truth_f1"]
    gt[0]["delta"]["interval"] = [0.0004123, 0.145]
    gt[0]["verdict"] = "confirmed"
    gt[1]["delta"]["interval"] = [-0.0004123, 0.145]
    gt[1]["verdict"] = "not confirmed"
    gt[0]["p_holm"] = 0.04999996  # 0.050 at 3 decimals, beside "confirmed"
    md = render_experiment_report(doc)[0]
    assert "| 0.04999996 |" in md
    assert "[0.0004123, 0.145] | " in md and "[-0.0004123, 0.145] | " in md
    assert "[0.000, 0.145]" not in md


def _fmt(x: float) -> str:
    return f"{x:.3f}"


def test_a_p_below_alpha_never_prints_as_alpha() -> None:
    """A Holm p of 0.0499 printed `0.050` beside "confirmed" (3 decimals)."""
    assert [p_side(p_text, p) for p in (0.0499, 0.04999996, 0.05, 0.031, None)] == [
        "0.0499", "0.04999996", "0.050", "0.031", "n/a"]
