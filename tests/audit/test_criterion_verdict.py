"""Criterion sensitivity as a Verdict: its n, its minimum of 3, and its split halves."""

from __future__ import annotations

from typing import Any

from agentmetrology.audit.card import cell_text
from agentmetrology.audit.criterion_verdict import criterion_verdict
from agentmetrology.inspect_ext.audit.target import _withhold_kind


def _result(status: str, tasks: int, offending: tuple[str, ...] = ()) -> dict[str, Any]:
    cells = [{"task": str(t), "probe": p, "score": 1.0} for t in range(tasks)
             for p in ("correct", "empty_trajectory")]
    return {"status": status, "cells": cells, "pairs_compared": tasks,
            "offending": [{"task": t, "probe": "empty_trajectory", "relation": "tie"}
                          for t in offending]}


def test_a_fail_on_one_or_two_samples_is_insufficient_evidence() -> None:
    for n in (1, 2):
        v = criterion_verdict(_result("fail", n, ("0",)))
        assert v.text() == f"insufficient evidence (n = {n} samples compared, needs 3)"
        assert v.why == f"{n} correct/degraded pairs (withheld: fail)"


def test_a_fail_both_halves_show_is_stable() -> None:
    v = criterion_verdict(_result("fail", 6, ("0", "1")))
    assert v.text() == "fail (n = 6 samples compared)" and v.stable


def test_a_fail_only_one_half_shows_is_unstable() -> None:
    v = criterion_verdict(_result("fail", 6, ("0",)))  # halves: 0,2,4 fail; 1,3,5 pass
    assert (v.verdict, v.consistent, v.stable) == ("fail", ("pass",), False)


def test_halves_below_the_minimum_add_nothing() -> None:
    v = criterion_verdict(_result("fail", 4, ("0",)))  # halves of 2: insufficient each
    assert v.sufficient and v.stable


def test_not_probed_is_no_verdict_to_withhold() -> None:
    v = criterion_verdict(_result("not probed", 0))
    assert v.text() == "not probed (n = 0 samples compared)" and v.minimum == 0


def _config(criterion: str, claim: str) -> dict[str, Any]:
    return {"scorer_kind": "shape", "licensed_claim": claim,
            "rows": {"scorer_kind": {"status": "shape", "evidence": {}},
                     "criterion_sensitivity": {"status": criterion, "evidence": {}}}}


def _kind(stable: bool = True) -> dict[str, Any]:
    return {"kind": "shape", "verdict": {"sufficient": True, "stable": stable,
                                         "consistent": [] if stable else ["outcome"],
                                         "text": "shape (n = 6 samples probed)"}}


def test_an_unstable_verdict_licenses_no_claim() -> None:
    c = _config("fail", "self-report compliance")
    _withhold_kind(c, _kind(), _result("fail", 6, ("0",)))
    assert c["licensed_claim"] == "no claim licensed"
    assert c["stability"] == "criterion unstable across split halves (pass)"
    c = _config("fail", "self-report compliance")
    _withhold_kind(c, _kind(stable=False), _result("fail", 6, ("0", "1")))
    assert c["stability"] == "scorer kind unstable across split halves (outcome)"
    assert c["licensed_claim"] == "no claim licensed"


def test_a_stable_sufficient_verdict_keeps_its_claim() -> None:
    c = _config("fail", "self-report compliance")
    _withhold_kind(c, _kind(), _result("fail", 6, ("0", "1")))
    assert c["licensed_claim"] == "self-report compliance" and "stability" not in c
    assert c["rows"]["criterion_sensitivity"]["evidence"]["verdict"]["text"] == (
        "fail (n = 6 samples compared)")


def test_too_few_compared_samples_license_no_claim() -> None:
    c = _config("fail", "self-report compliance")
    _withhold_kind(c, _kind(), _result("fail", 2, ("0",)))
    assert c["licensed_claim"] == "no claim licensed"


def test_a_card_cell_prints_its_verdict_with_n() -> None:
    from agentmetrology.audit.card import cell_text, configuration, row
    from agentmetrology.audit.env_audit import criterion_row

    res = _result("fail", 2, ("0",))
    res.update(pairs_invalid=0, by_probe=[], truth_excluded={"cells": 0, "pairs": 0})
    crit = criterion_row(res)
    assert cell_text(crit) == "insufficient evidence (n = 2 samples compared, needs 3)"
    none = row("not probed", {}, None)
    kind = row("shape", {}, None)
    c = configuration(None, "s", "shape", {"scorer_kind": kind, "criterion_sensitivity": crit,
                                           "ownership_completeness": none,
                                           "non_degeneracy": none, "replay": none})
    assert c["licensed_claim"] == "no claim licensed"  # shape + fail, but on 2 samples
    assert cell_text(kind) == "shape (n = 1 scorer declarations)"
    assert cell_text(none) == "not probed"
    res = _result("fail", 6, ("0",))
    res.update(pairs_invalid=0, by_probe=[], truth_excluded={"cells": 0, "pairs": 0})
    assert cell_text(criterion_row(res)) == (
        "fail (n = 6 samples compared), unstable across split halves")


def test_the_valid_scorer_ranked_by_itself_reads_pass_by_definition() -> None:
    # The truth column's probes are ranked by that scorer's own values: a pass there is a
    # definition holding, not a test passed, and the card says so (never 'pass (n = 30 ...)').
    from agentmetrology.audit.env_audit import _configurations, _run_stages
    from agentmetrology.audit.targets.env import EnvTarget
    from agentmetrology.envs.registry import get_env

    target = EnvTarget(get_env("comtrade"), seeds=1)
    stages = _run_stages(target, 0, lambda *a: None, None, ())
    configs = _configurations(target, stages, None)
    truth = [c for c in configs if c["scorer"] == stages.truth["scorer"]]
    shipped = [c for c in configs if c["scorer"] == stages.shipped["scorer"]]
    assert truth and shipped
    for c in truth:
        cell = c["rows"]["criterion_sensitivity"]
        assert cell["evidence"]["by_definition"] == ("the valid scorer is the ground truth the "
                                                     "probes are ranked by")
        assert cell_text(cell) == "pass by definition (n = 10 samples compared)"
    for c in shipped:  # the shipped judge was tested against that truth: no such label
        cell = c["rows"]["criterion_sensitivity"]
        assert "by_definition" not in cell["evidence"]
        assert cell_text(cell) == "fail (n = 10 samples compared)"
