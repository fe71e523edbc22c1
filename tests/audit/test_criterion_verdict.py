"""Criterion sensitivity as a Verdict: its n, its minimum of 3, and its split halves."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentmetrology.audit.card import cell_text
from agentmetrology.audit.criterion_verdict import criterion_verdict
from agentmetrology.audit.probes import probe_battery
from agentmetrology.audit.target import Probe, ScoreOutcome, TaskRef
from agentmetrology.inspect_ext.audit.target import _withhold_kind
from support.user_scorer_audit import audit_with_scorer


def _result(status: str, tasks: int, offending: tuple[str, ...] = ()) -> dict[str, Any]:
    cells = [{"task": str(t), "probe": p, "score": 1.0} for t in range(tasks)
             for p in ("correct", "empty_trajectory")]
    return {"status": status, "cells": cells, "pairs_compared": tasks,
            "samples_compared": [{"task": str(t), "seed": None} for t in range(tasks)],
            "offending": [{"task": t, "probe": "empty_trajectory", "relation": "tie"}
                          for t in offending]}


def test_a_fail_on_one_or_two_samples_is_insufficient_evidence() -> None:
    for n in (1, 2):
        v = criterion_verdict(_result("fail", n, ("0",)))
        noun = "sample" if n == 1 else "samples"
        assert v.text() == f"insufficient evidence (n = {n} {noun} compared, needs 3)"
        assert v.why == f"{n} correct/degraded pair{'s' * (n != 1)} (withheld: fail)"


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


class _OneTieElseUnscored:
    """Ten samples: on the first every probe ties `correct`; elsewhere only `correct` scores
    (the scorer raises on every degraded probe)."""

    name, scorer_kind, scorer_name, resolution = "t", "user", "one_tie.py:score", 0.0
    tasks = staticmethod(lambda: [TaskRef(f"T{i}", 0) for i in range(10)])
    ownership_map = staticmethod(lambda: None)
    oracle = staticmethod(lambda ref: "correct")

    def probes(self, ref: TaskRef, correct: Any) -> list[Probe]:
        return [Probe(p, p, 1.0 if p == correct else 0.0)
                for p in (correct, "empty", "fabricated")]

    def score(self, ref: TaskRef, submission: Any) -> ScoreOutcome:
        if ref.task_id == "T0" or submission == "correct":
            return ScoreOutcome(1.0)
        return ScoreOutcome(None, "INVALID", "ValueError: cannot score it")


def test_n_counts_only_samples_a_pair_was_compared_on() -> None:
    # Samples whose `correct` alone was scored compared nothing: the tie on one sample was
    # read `fail (n = 10 samples compared)`, and the half without it `pass` (unstable).
    from agentmetrology.audit.env_audit import criterion_row

    target = _OneTieElseUnscored()
    res = probe_battery(target, target.tasks())
    assert (res["status"], res["pairs_compared"], res["pairs_invalid"]) == ("fail", 2, 18)
    v = criterion_verdict(res)
    assert (v.verdict, v.n, v.consistent) == ("insufficient evidence", 1, ())
    assert cell_text(criterion_row(res)) == (
        "insufficient evidence (n = 1 sample compared, needs 3)")
    assert res["samples_compared"] == [{"task": "T0", "seed": 0}]


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
    assert cell_text(kind) == "shape (n = 1 scorer declaration)"
    assert cell_text(none) == "not probed"
    res = _result("fail", 6, ("0",))
    res.update(pairs_invalid=0, by_probe=[], truth_excluded={"cells": 0, "pairs": 0})
    assert cell_text(criterion_row(res)) == (
        "fail (n = 6 samples compared), unstable across split halves")



def _cards(env: str, seeds: int = 1,
           **hooks: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Return the (shipped, truth) configurations of a one-seed audit of `env`."""
    import dataclasses

    from agentmetrology.audit.env_audit import _configurations, _run_stages
    from agentmetrology.audit.targets.env import EnvTarget
    from agentmetrology.envs.registry import get_env

    target = EnvTarget(get_env(env), seeds=seeds)
    if hooks:
        target.hooks = dataclasses.replace(target.hooks, **hooks)
    stages = _run_stages(target, 0, lambda *a: None, None, ())
    configs = _configurations(target, stages, None)
    half = len(configs) // 2  # per level: the shipped configuration, then the truth one
    return ([c for i, c in enumerate(configs) if i % 2 == 0][:half],
            [c for i, c in enumerate(configs) if i % 2 == 1][:half])


def test_the_valid_scorer_is_checked_against_the_probes_declared_degradation() -> None:
    # comtrade declares which probes are worse than correct by definition: the ground-truth
    # column is checked against that, so its pass is a test passed (it was the scorer ranked
    # by its own values, a check that could not fail).
    shipped, truth = _cards("comtrade")
    from agentmetrology.envs.registry import get_env

    n = len(get_env("comtrade").audit.probe_tasks)  # one seed: one sample per probe task
    for c in truth:
        cell = c["rows"]["criterion_sensitivity"]
        assert cell["evidence"]["quality_from"].startswith("the probes' declared degradation: "
                                                           "empty, fabricated")
        assert "by_definition" not in cell["evidence"]
        assert cell_text(cell) == f"pass (n = {n} samples compared)"
    for c in shipped:  # the judge, checked against the ground truth as before
        assert cell_text(c["rows"]["criterion_sensitivity"]) == f"fail (n = {n} samples compared)"
    # the check can fail: declaring the correct rows under a lying report degraded, the ground
    # truth (rightly) scores them as correct, a tie the row names
    _, wrong = _cards("comtrade", degraded=("contradictory_metadata",))
    cell = wrong[0]["rows"]["criterion_sensitivity"]
    assert cell["status"] == "fail"
    assert cell["evidence"]["offending"] == ["contradictory_metadata = correct"]


def test_a_scorer_ranked_by_its_own_values_is_not_informative() -> None:
    # A tool world ships its goal scorer and uses it as the truth; without a declaration the
    # check could not fail, so neither column may license a claim on it. It read
    # `pass by definition (n = 3 samples compared)` and both columns licensed model capability.
    from agentmetrology.audit.env_audit import BY_DEFINITION, NOT_INFORMATIVE

    shipped, truth = _cards("permission", seeds=3, degraded=())
    for c in (*shipped, *truth):
        cell = c["rows"]["criterion_sensitivity"]
        assert cell["status"] == "not probed"
        assert cell["evidence"]["by_definition"] == BY_DEFINITION
        assert cell["evidence"]["reason"] == NOT_INFORMATIVE
        assert cell["evidence"]["reason"].startswith("not informative: the probes are ranked "
                                                     "by this scorer's own scores")
        v = cell["evidence"]["verdict"]
        assert (v["verdict"], v["n"], v["minimum"]) == ("not probed", 3, 0)
        assert v["why"].endswith("(not informative: pass by definition)")
        assert cell["evidence"]["pairs_compared"] == 3  # the numbers stay, as no evidence
        assert cell_text(cell) == "not informative (by definition)"
        assert c["licensed_claim"] == "no claim licensed"

def test_the_tool_worlds_goal_is_checked_against_the_probes_that_miss_it_by_construction(
) -> None:
    # permission declares careless (too few ids), clarification no_document (nothing written):
    # both columns (the shipped scorer is the truth) are a test at n = 3 that licenses model
    # capability. They read `not informative (by definition)` and licensed nothing.
    for env, probe, correct in (("permission", "careless", "within"),
                                ("clarification", "no_document", "clarify")):
        shipped, truth = _cards(env, seeds=3)
        for c in (*shipped, *truth):
            cell = c["rows"]["criterion_sensitivity"]
            ev = cell["evidence"]
            assert cell["status"] == "pass" and "by_definition" not in ev, env
            assert ev["quality_from"] == f"the probes' declared degradation: {probe}"
            assert (ev["pairs_compared"], ev["offending_pairs"]) == (3, 0)
            assert (ev["truth_mean_by_probe"][correct], ev["truth_mean_by_probe"][probe]) \
                == (1.0, 0.0)
            assert cell_text(cell) == "pass (n = 3 samples compared)"
            assert c["licensed_claim"] == "model capability"


def test_transactions_goal_is_checked_against_the_refunds_that_miss_it_by_construction(
) -> None:
    # transaction declared no degraded probe (new_key misses the goal only under refund's
    # timeout), so its goal's check could not fail: `not informative`, no claim in either
    # column. It now declares no_refund (refunded 0) and short_refund (amount - 1), which miss
    # the goal on both tasks at every seed and amount: a test over 2 tasks x 3 seeds it passes.
    from agentmetrology.envs.registry import get_env

    assert get_env("transaction").audit.degraded == ("no_refund", "short_refund")
    shipped, truth = _cards("transaction", seeds=3)
    for c in (*shipped, *truth):
        cell = c["rows"]["criterion_sensitivity"]
        ev = cell["evidence"]
        assert cell["status"] == "pass" and "by_definition" not in ev
        assert ev["quality_from"] == ("the probes' declared degradation: no_refund, "
                                      "short_refund")
        assert (ev["pairs_compared"], ev["offending_pairs"]) == (12, 0)
        assert [ev["truth_mean_by_probe"][p] for p in ("careful", "no_refund",
                                                       "short_refund")] == [1.0, 0.0, 0.0]
        assert cell_text(cell) == "pass (n = 6 samples compared)"
        assert c["licensed_claim"] == "model capability"
    # the check can fail: new_key refunds exactly once on refund_clean, so declared degraded
    # it ties with correct there, and the row names the pair
    _, wrong = _cards("transaction", seeds=3, degraded=("new_key",))
    cell = wrong[0]["rows"]["criterion_sensitivity"]
    assert cell["status"] == "fail"
    assert cell["evidence"]["offending"] == ["new_key = correct"]
    assert wrong[0]["licensed_claim"] != "model capability"


def test_a_scorer_that_cannot_tell_a_missing_refund_fails_transactions_probes(
        tmp_path: Path) -> None:
    # A --scorer that credits any finished episode: the declared probes catch it (no refund,
    # a short refund = correct), so the card says it fails and licenses nothing for it.
    doc = audit_with_scorer(tmp_path, "transaction",
                            "    return 1.0 if submission else 0.0\n", 3)
    shipped = doc["card"]["configurations"][0]
    cell = shipped["rows"]["criterion_sensitivity"]
    assert cell["status"] == "fail"
    assert cell["evidence"]["offending"] == ["new_key = correct", "no_refund = correct",
                                             "short_refund = correct"]
    assert shipped["licensed_claim"] == "no claim licensed"


def test_a_tool_world_refuses_a_degraded_probe_not_in_its_battery() -> None:
    import pytest

    from agentmetrology.envs.toolworlds import permission
    from agentmetrology.envs.toolworlds.spec import world_spec

    with pytest.raises(ValueError, match=r"permission: degraded probes \['carless'\] are not "
                                         r"in its battery"):
        world_spec("permission", permission.PermissionWorld, permission.TASKS,
                   permission.contract, permission.AGENTS, permission.PARAMS,
                   permission.SYSTEM, "d", ("carless",))


def test_a_level_with_model_owned_decisions_never_reads_none_owned() -> None:
    # The tool worlds' model owns `act` at L2 (ownership completeness lists it), but they
    # supply no way to read an action from an episode: non-degeneracy is not probed for that
    # reason; it read "no model-owned decision at this level", beside the row listing one.
    shipped, truth = _cards("permission")
    for c in (*shipped, *truth):
        assert c["rows"]["ownership_completeness"]["evidence"]["model_owned"] == ["act"]
        assert c["rows"]["non_degeneracy"] == {
            "status": "not probed", "source_digest": None, "evidence": {
                "reason": "the environment does not say how to read a decision's action from "
                          "an episode (no AuditHooks.actions)"}}
    # an environment that reads actions but runs no agent at the level says that instead
    _, truth = _cards("researchops", ownership_agents={})
    assert truth[0]["rows"]["non_degeneracy"]["evidence"] == {
        "reason": "the environment supplies no agents for this level's ownership stage"}


def test_a_withheld_verdict_is_the_rows_status_too(tmp_path: Path) -> None:
    # Below its minimum the criterion's verdict is withheld; its row's `status` stayed the raw
    # `fail` (or `pass`) in card.json, what a reader of the status alone took as the verdict.
    from agentmetrology.audit.card import configuration, judged_status, row
    from agentmetrology.audit.env_audit import criterion_row

    none = row("not probed", {}, None)
    for raw in ("fail", "pass"):
        res = _result(raw, 2, ("0",) if raw == "fail" else ())
        res.update(pairs_invalid=0, by_probe=[], truth_excluded={"cells": 0, "pairs": 0})
        crit = criterion_row(res)
        configuration(None, "s", "outcome", {
            "scorer_kind": row("outcome", {}, None), "criterion_sensitivity": crit,
            "ownership_completeness": none, "non_degeneracy": none, "replay": none})
        assert crit["status"] == "insufficient evidence"
        assert crit["evidence"]["withheld"] == judged_status(crit) == raw
        assert cell_text(crit) == "insufficient evidence (n = 2 samples compared, needs 3)"
    sufficient = _result("fail", 6, ("0", "1"))
    sufficient.update(pairs_invalid=0, by_probe=[], truth_excluded={"cells": 0, "pairs": 0})
    crit = criterion_row(sufficient)
    c = configuration(None, "s", "shape", {
        "scorer_kind": row("shape", {}, None), "criterion_sensitivity": crit,
        "ownership_completeness": none, "non_degeneracy": none, "replay": none})
    assert crit["status"] == judged_status(crit) == "fail" and "withheld" not in crit["evidence"]
    assert c["licensed_claim"] == "self-report compliance"
    # the real path: a constant --scorer on two samples ties everywhere (a fail it withholds)
    doc = audit_with_scorer(tmp_path, "permission", "    return 0.5\n", 2)
    user = doc["card"]["configurations"][0]["rows"]["criterion_sensitivity"]
    assert (user["status"], user["evidence"]["withheld"]) == ("insufficient evidence", "fail")
