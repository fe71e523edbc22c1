"""The analysis's accounting: deviations and Holm families count what the plan planned."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from agentmetrology.experiment.analyse import _verdicts, compare, deviations
from agentmetrology.report.blocks import Doc, to_markdown
from agentmetrology.report.experiment_report import _arms
from agentmetrology.report.numberguard import NumberGuard
from agentmetrology.report.terminal.experiment_tables import print_arms


def _missing(seeds_why: list[tuple[int, str]], arm: str = "A") -> list[dict[str, Any]]:
    return [{"target": "rule", "level": "L1", "arm": arm, "seed": s, "scorer": "ground_truth_f1",
             "why": why, "repeat": 0} for s, why in seeds_why]


def test_a_deviation_counts_seeds_missing_for_every_reason() -> None:
    # 2 seeds not recorded and 2 measurement failures of n = 4: no value is left in the arm.
    # Each reason had been counted alone: two rows 'changed n', analysed n 2 each.
    devs = deviations({"n": 4}, _missing([(0, "not recorded"), (1, "not recorded"),
                                          (2, "measurement failure"),
                                          (3, "measurement failure")]))
    assert [(d["kind"], d["why"], d["analysed_n"], d["seeds"]) for d in devs] == [
        ("dropped arm", "measurement failure", 0, [2, 3]),
        ("dropped arm", "not recorded", 0, [0, 1])]


def test_a_deviation_of_one_reason_and_other_arms_are_counted_apart() -> None:
    devs = deviations({"n": 5}, _missing([(0, "not recorded"), (3, "measurement failure")])
                      + _missing([(1, "not recorded")], arm="B"))
    assert [(d["arm"], d["kind"], d["why"], d["analysed_n"]) for d in devs] == [
        ("A", "changed n", "measurement failure", 3), ("A", "changed n", "not recorded", 3),
        ("B", "changed n", "not recorded", 4)]


def test_a_member_without_pairs_stays_in_the_holm_family() -> None:
    # Ground truth: 6 paired seeds, every delta +0.1: exact sign-flip p = 2/2^6 = 0.03125.
    # The designated scorer has one complete pair only: not evaluable. The plan's family is 2
    # (both scorers); Holm over the 1 testable member had read 0.03125 and 'confirmed'.
    truth = {"A": {s: 0.5 for s in range(6)}, "B": {s: 0.6 for s in range(6)}}
    judge = {"A": {0: 50.0}, "B": {0: 60.0, 1: 70.0}}
    family = [compare(truth, "A", "B", 0), compare(judge, "A", "B", 0)]
    _verdicts(family)
    assert family[0]["sign_flip"]["p_value"] == 0.03125
    assert [(c["family_size"], c["p_holm"], c["verdict"]) for c in family] == [
        (2, 0.0625, "not confirmed"), (2, None, "not evaluable")]
    assert family[0]["rule"]["minimum"] == 7  # 2/2^7 x 2 < 0.05


ARM = {"level": "L1", "agent": "rule", "role": "target", "arm": "stress:constant",
       "planned": 8, "recorded": 8, "coverage_n": 7, "coverage": 0.925, "quota_deaths": 1,
       "skips": 2, "episodes_with_skip": 2, "decisions": 11}


def test_per_arm_coverage_says_over_how_many_episodes() -> None:
    # One recorded episode without a value (a measurement failure): the mean is over 7, and
    # the per-arm table had shown only "8 of 8" recorded beside it.
    doc = {"arms": [ARM]}
    d = Doc(NumberGuard(doc))
    _arms(d, doc)
    md = to_markdown(d.blocks)
    assert "| L1 | `rule` | target | `stress:constant` | 8 of 8 | 0.925 | 7 | 1 | 2 | 2 | 11 |" \
        in md
    console = Console(record=True, width=200)
    print_arms(console, [ARM, {**ARM, "arm": "stress:escalating", "coverage_n": 8}])
    notes = [ln for ln in console.export_text().splitlines() if ln.startswith("coverage of")]
    assert notes == ["coverage of rule at L1 in stress:constant: over 7 of 8 recorded episodes "
                     "(1 without a value, left out)"]
