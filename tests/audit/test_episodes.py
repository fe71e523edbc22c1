"""The auditor's episode stages on hand-built runs and stores (audit/episodes.py, docs/audit.md).

Non-degeneracy: a model-owned decision passes for a target when its action varies and the
outcome differs between actions; fixed rules are reported per rule and never counted; an
undecided outcome is excluded and counted. The 2x2 cells: a mean per target, the spread over
the submitting targets, undecided truths and unscorable shipped scores excluded and counted,
never 0. The store's 2x2: only units a target has at both levels; byte-identical L0 payloads
counted among model targets, in all and per submission field. Every expected value is written
out.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

from agentmetrology.audit.episodes import (
    FIXED_NOTE,
    FIXED_RULE,
    NO_MODEL_TARGETS,
    Scored,
    _cell,
    _rule_row,
    _scored,
    _spectrum_row,
    combine,
    decision_rows,
    joint_intervention,
    non_degeneracy,
    ownership_completeness,
    reliability,
    rule_calibration,
    store_joint,
    target_non_degeneracy,
)
from agentmetrology.audit.replay import NO_RERUNS, replay
from agentmetrology.audit.store_read import StoredEpisode, StoreEpisodes, StoreTarget
from agentmetrology.audit.target import Ownership
from agentmetrology.records.environment import AuditHooks
from agentmetrology.stats import summarize_cell


def test_decision_rows_per_decision() -> None:
    obs = {"retry": [(1, 1.0), (0, 0.0), (1, 0.5)], "skip": [(0, 0.5), (0, 0.7)],
           "same": [(0, 1.0), (1, 1.0)]}
    rows = decision_rows(obs, ["retry", "skip", "same", "absent"])
    assert rows == [
        {"decision": "retry", "observations": 3, "action_counts": {"0": 1, "1": 2},
         "outcome_mean_by_action": {"0": 0.0, "1": 0.75}, "action_varies": True,
         "outcome_differs": True, "status": "pass"},
        {"decision": "skip", "observations": 2, "action_counts": {"0": 2},
         "outcome_mean_by_action": {"0": 0.6}, "action_varies": False,
         "outcome_differs": False, "status": "fail"},
        {"decision": "same", "observations": 2, "action_counts": {"0": 1, "1": 1},
         "outcome_mean_by_action": {"0": 1.0, "1": 1.0}, "action_varies": True,
         "outcome_differs": False, "status": "fail"},
        {"decision": "absent", "observations": 0, "action_counts": {},
         "outcome_mean_by_action": {}, "action_varies": False, "outcome_differs": False,
         "status": "not probed"}]
    # A lower outcome for the higher action still differs (the sign does not matter).
    assert decision_rows({"d": [(0, 0.4), (1, 0.1)]}, ["d"])[0]["status"] == "pass"


def test_combine_never_passes_by_default() -> None:
    assert combine([]) == "not probed"
    assert combine(["pass", "pass"]) == "pass"
    assert combine(["pass", "not probed"]) == "not probed"
    assert combine(["not probed", "fail", "pass"]) == "fail"


def test_one_targets_row_and_a_fixed_rule() -> None:
    obs = {"d": [(0, 0.0), (1, 1.0)]}
    row = target_non_degeneracy("m", "store", 4, obs, ["d"], False)
    assert row == {"target": "m", "source": "store", "episodes": 4,
                   "decisions": decision_rows(obs, ["d"]), "status": "pass"}
    assert target_non_degeneracy("r", "scripted", 4, obs, ["d"], True)["status"] == FIXED_RULE


def test_rule_rows_exclude_and_count_undecided_cells() -> None:
    assert _rule_row("retry", [0.5, None, 1.0]) == {
        "rule": "retry", "truth_mean": 0.75, "truth_worst": 0.5, "n": 2, "truth_excluded": 1}
    assert _rule_row("skip", [None, None]) == {
        "rule": "skip", "truth_mean": None, "truth_worst": None, "n": 0, "truth_excluded": 2}


RUNS = [Scored("a", True, 1.0, 90.0), Scored("a", True, None, 70.0),
        Scored("b", True, 0.0, 50.0), Scored("b", False, 0.5, None),
        Scored("c", False, 0.25, 10.0), Scored("c", False, None, None)]


def test_a_truth_cell() -> None:
    assert _cell(RUNS, 100.0, True) == {
        "mean": (1.0 + 0.25 + 0.25) / 3, "target_means": {"a": 1.0, "b": 0.25, "c": 0.25},
        "spread": 0.75, "distinct_target_means": 2, "submitting_targets": 2,
        "invalid_scores": 0, "truth_excluded": 2}


def test_a_shipped_cell() -> None:
    assert _cell(RUNS, 100.0, False) == {
        "mean": (0.8 + 0.5 + 0.1) / 3, "target_means": {"a": 0.8, "b": 0.5, "c": 0.1},
        "spread": 0.8 - 0.5, "distinct_target_means": 2, "submitting_targets": 2,
        "invalid_scores": 2}


def test_cells_with_no_submitting_target_or_no_score() -> None:
    silent = [Scored("a", False, 1.0, 10.0), Scored("b", False, 0.0, 90.0)]
    # only submitters spread; with none scored there is no spread (never 0.0: that reads as
    # a scorer giving every target the same score)
    assert _cell(silent, 100.0, False)["spread"] is None
    assert _cell(silent, 100.0, False)["distinct_target_means"] == 0
    empty = [Scored("a", True, None, None)]
    assert _cell(empty, 1.0, True) == {
        "mean": None, "target_means": {}, "spread": None, "distinct_target_means": 0,
        "submitting_targets": 1, "invalid_scores": 0, "truth_excluded": 1}
    assert _cell(empty, 1.0, False)["invalid_scores"] == 1


def test_scored_reads_an_episode_run() -> None:
    run = SimpleNamespace(agent="a", episode=SimpleNamespace(submission={"x": 1}), truth=0.5,
                          shipped=SimpleNamespace(value=40.0))
    none = SimpleNamespace(agent="b", episode=SimpleNamespace(submission=None), truth=None,
                           shipped=SimpleNamespace(value=None))
    assert _scored([run, none]) == [Scored("a", True, 0.5, 40.0), Scored("b", False, None, None)]


def _stored(level: str, task: str = "T", seed: int = 0, repeat: int = 0, *,
            submitted: bool = True, payload: str | None = "p", fields: dict[str, str] | None = None,
            truth: float = 1.0, shipped: float | None = 50.0,
            actions: dict[str, list[int]] | None = None) -> StoredEpisode:
    return StoredEpisode(level, task, seed, repeat, submitted, payload, fields or {}, truth,
                         shipped, actions)


def _target(label: str, kind: str, episodes: list[StoredEpisode]) -> StoreTarget:
    return StoreTarget(label, "c", label, kind, "m" if kind == "llm" else None, episodes)


def _own(level: str = "L2") -> Ownership:
    return Ownership({level: {"retry": "model", "skip": "model", "pagination": "harness"}},
                     ("retry",))


def _stub(actions: Any, truths: dict[tuple[str, str, int], float | None],
          tasks: tuple[str, ...] = ("T1", "T2")) -> tuple[Any, list[tuple[Any, ...]]]:
    calls: list[tuple[Any, ...]] = []

    def run_episode(agent: str, level: str, task: str, seed: int, **kw: Any) -> Any:
        calls.append((agent, level, task, seed, kw))
        return SimpleNamespace(truth=truths[(agent, task, seed)],
                               episode=SimpleNamespace(agent=agent, task=task, seed=seed))

    hooks = AuditHooks(probe_tasks=(), probes=None, shipped_scorer="s", truth_scorer="t",
                       actions=actions, ownership_tasks=tasks)
    return SimpleNamespace(hooks=hooks, run_episode=run_episode), calls


def _acts(ep: Any) -> dict[str, list[int]]:
    return {"retry": [ep.seed % 2], "skip": [1, 0] if ep.task == "T1" else []}


def test_non_degeneracy_runs_the_fixed_rules_and_counts_undecided_outcomes() -> None:
    undecided = {("rule", "T2", 1), ("careful", "T1", 0)}  # the second is not the last seed
    truths = {(a, t, s): (None if (a, t, s) in undecided else 0.5 * s)
              for a in ("rule", "careful") for t in ("T1", "T2") for s in (0, 1)}
    target, calls = _stub(_acts, truths)
    got = non_degeneracy(target, _own(), "L2", ["rule", "careful"], seeds=2)
    assert calls == [(a, "L2", t, s, {"shipped": False}) for a in ("rule", "careful")
                     for t in ("T1", "T2") for s in (0, 1)]
    rule_obs = {"retry": [(0, 0.0), (1, 0.5), (0, 0.0)], "skip": [(1, 0.0), (0, 0.0),
                                                                   (1, 0.5), (0, 0.5)]}
    careful_obs = {"retry": [(1, 0.5), (0, 0.0), (1, 0.5)], "skip": [(1, 0.5), (0, 0.5)]}
    assert got == {
        "level": "L2", "status": "not probed", "reason": NO_MODEL_TARGETS,
        "decisions": ["retry", "skip"], "tasks": ["T1", "T2"], "seeds": 2,
        "model_targets": [],
        "fixed_rules": [target_non_degeneracy("rule", "scripted", 4, rule_obs,
                                              ["retry", "skip"], True),
                        target_non_degeneracy("careful", "scripted", 4, careful_obs,
                                              ["retry", "skip"], True)],
        "note": FIXED_NOTE, "truth_excluded": 2}


def test_non_degeneracy_without_an_action_hook_runs_nothing() -> None:
    target, calls = _stub(None, {})
    got = non_degeneracy(target, _own(), "L2", ["rule"], seeds=3)
    assert calls == [] and got["tasks"] == [] and got["truth_excluded"] == 0
    assert got["fixed_rules"] == [target_non_degeneracy("rule", "scripted", 0, {},
                                                        ["retry", "skip"], True)]


def test_the_verdict_is_over_the_stores_model_targets() -> None:
    target, _ = _stub(None, {})
    varied = [_stored("L2", truth=1.0, actions={"retry": [1], "skip": [0]}),
              _stored("L2", seed=1, truth=0.0, actions={"retry": [0], "skip": [1]})]
    flat = [_stored("L2", truth=1.0, actions={"retry": [1]}), _stored("L2", seed=1, truth=1.0)]
    store = StoreEpisodes("comtrade", ["c"], [
        _target("llm-a", "llm", varied), _target("rule", "rule", flat),
        _target("llm-l0", "llm", [_stored("L0")])])
    got = non_degeneracy(target, _own(), "L2", [], seeds=1, store=store)
    decisions = ["retry", "skip"]
    assert got["model_targets"] == [target_non_degeneracy(
        "llm-a", "store", 2, {"retry": [(1, 1.0), (0, 0.0)], "skip": [(0, 1.0), (1, 0.0)]},
        decisions, False)]
    assert got["model_targets"][0]["status"] == "pass"
    assert got["fixed_rules"] == [target_non_degeneracy(
        "rule", "store", 2, {"retry": [(1, 1.0)]}, decisions, True)]
    assert (got["status"], got["reason"]) == ("pass", "")
    only_l0 = StoreEpisodes("comtrade", ["c"], [_target("llm-l0", "llm", [_stored("L0")])])
    got = non_degeneracy(target, _own(), "L2", [], seeds=1, store=only_l0)
    assert (got["status"], got["reason"]) == ("not probed", "no model-target episodes at L2")
    failing = StoreEpisodes("comtrade", ["c"], [_target("llm-b", "llm", flat)])
    assert non_degeneracy(target, _own(), "L2", [], seeds=1, store=failing)["status"] == "fail"


def test_the_stores_2x2_uses_units_at_both_levels() -> None:
    a = _target("a", "llm", [
        _stored("L0", "T", 0, payload="same", fields={"data": "h1", "notes": "n1"},
                shipped=40.0, truth=0.0),
        _stored("L0", "T", 1, payload="pa", fields={"data": "h2"}, shipped=60.0, truth=0.0),
        _stored("L2", "T", 0, shipped=90.0, truth=1.0),
        _stored("L2", "T", 1, shipped=None, truth=0.5)])
    b = _target("b", "llm", [
        _stored("L0", "T", 0, payload="same", fields={"data": "h1", "notes": "other"},
                shipped=40.0, truth=0.0),
        _stored("L0", "T", 1, payload="pb", fields={"data": "h2", "extra": "e"},
                shipped=50.0, truth=0.0)])  # no L2: not in the cells
    rule = _target("rule", "rule", [_stored("L0", "T", 0, submitted=False, shipped=10.0),
                                    _stored("L2", "T", 0, submitted=False, shipped=20.0),
                                    _stored("L2", "T", 5)])
    got = store_joint(StoreEpisodes("comtrade", ["c"], [a, b, rule]), 100.0, "shape_judge")
    assert got is not None
    assert got["targets"] == [
        {"target": "a", "condition": "clean", "model_target": True, "units": 2},
        {"target": "rule", "condition": "clean", "model_target": False, "units": 1}]
    runs = {"L0": [Scored("a", True, 0.0, 40.0), Scored("a", True, 0.0, 60.0),
                   Scored("rule", False, 1.0, 10.0)],
            "L2": [Scored("a", True, 1.0, 90.0), Scored("a", True, 0.5, None),
                   Scored("rule", False, 1.0, 20.0)]}
    assert got["cells"] == {f"{lv}|{sc}": _cell(runs[lv], 100.0, sc == "ground_truth")
                            for lv in ("L0", "L2") for sc in ("shipped", "ground_truth")}
    assert got["cells"]["L2|shipped"]["invalid_scores"] == 1
    assert (got["scorer"], got["scale"]) == ("shape_judge", 100.0)
    assert got["l0_model_targets"] == ["a", "b"]
    assert (got["l0_model_payload_pairs"], got["l0_model_identical_pairs"]) == (2, 1)
    assert got["l0_model_identical_pairs_by_field"] == {"data": 2, "extra": 0, "notes": 0}
    assert got["l0_model_all_identical"] is False


def test_the_stores_2x2_with_identical_payloads_or_nothing_to_compare() -> None:
    same = {"data": "h"}
    a = _target("a", "llm", [_stored("L0", payload="x", fields=same)])
    b = _target("b", "llm", [_stored("L0", payload="x", fields=same)])
    got = store_joint(StoreEpisodes("e", ["c"], [a, b]), 1.0, "s")
    assert got is not None and got["targets"] == [] and got["cells"] is None
    assert (got["l0_model_payload_pairs"], got["l0_model_all_identical"]) == (1, True)
    unknown = _target("u", "llm", [_stored("L0", payload=None)])
    unknown2 = _target("v", "llm", [_stored("L0", payload=None)])
    got = store_joint(StoreEpisodes("e", ["c"], [unknown, unknown2]), 1.0, "s")
    assert got is not None and got["l0_model_identical_pairs"] == 0  # no payload: not identical
    assert got["l0_model_all_identical"] is False
    alone = _target("a", "llm", [_stored("L0")])
    assert store_joint(StoreEpisodes("e", ["c"], [alone]), 1.0, "s") is None
    l2_only = _target("r", "rule", [_stored("L2")])
    assert store_joint(StoreEpisodes("e", ["c"], [l2_only]), 1.0, "s") is None
    both = _target("r", "rule", [_stored("L0"), _stored("L2")])
    got = store_joint(StoreEpisodes("e", ["c"], [both]), 1.0, "s")
    assert got is not None and got["l0_model_payload_pairs"] == 0
    assert got["l0_model_all_identical"] is False


def test_payloads_are_compared_within_one_condition_only() -> None:
    # Two conditions serve different pages: identical payloads across them are no finding,
    # and a target under two conditions is two targets.
    same = {"data": "h"}
    a = _target("a", "llm", [_stored("L0", payload="x", fields=same)])
    b = _target("b", "llm", [_stored("L0", payload="x", fields=same)])
    b.condition = "stress:x"
    got = store_joint(StoreEpisodes("e", ["c"], [a, b]), 1.0, "s")
    assert got is None  # no pair within one condition, no target at both levels


def test_ownership_completeness_names_the_claims_the_harness_owns() -> None:
    own = Ownership({"L0": {"retry": "harness", "skip": "harness", "pagination": "harness"},
                     "L2": {"retry": "model", "skip": "model", "pagination": "model"}},
                    ("skip", "retry"))
    assert ownership_completeness(own, "L0") == {
        "level": "L0", "status": "fail", "model_owned": [], "claimed": ["skip", "retry"],
        "harness_owned_claims": ["retry", "skip"]}
    assert ownership_completeness(own, "L2") == {
        "level": "L2", "status": "pass", "model_owned": ["pagination", "retry", "skip"],
        "claimed": ["skip", "retry"], "harness_owned_claims": []}


def _calibration_target(vectors: dict[str, list[float | None]], tasks: tuple[str, ...],
                        agents: tuple[str, ...]) -> tuple[Any, list[tuple[Any, ...]]]:
    calls: list[tuple[Any, ...]] = []
    seeds = len(next(iter(vectors.values()))) // max(len(tasks), 1) if vectors else 0

    def run_episode(agent: str, level: str, task: str, seed: int, **kw: Any) -> Any:
        calls.append((agent, level, task, seed, kw))
        return SimpleNamespace(truth=vectors[agent][tasks.index(task) * seeds + seed])

    hooks = AuditHooks(probe_tasks=(), probes=None, shipped_scorer="s", truth_scorer="t",
                       calibration_agents=agents, calibration_tasks=tasks,
                       calibration_level="L1")
    return SimpleNamespace(hooks=hooks, run_episode=run_episode), calls


def test_rule_calibration_compares_the_rules_per_seed() -> None:
    same = {"retry": [1.0, None, 0.5, 0.5], "skip": [1.0, None, 0.5, 0.5]}
    target, calls = _calibration_target(same, ("A", "B"), ("retry", "skip"))
    got = rule_calibration(target, seeds=2)
    assert calls == [(r, "L1", t, s, {"shipped": False}) for r in ("retry", "skip")
                     for t in ("A", "B") for s in (0, 1)]
    assert got == {"level": "L1", "tasks": ["A", "B"], "seeds": 2,
                   "rules": [_rule_row("retry", same["retry"]), _rule_row("skip", same["skip"])],
                   "decision_invariant": True,
                   "note": "identical per-seed vectors across rules: the design cannot tell "
                           "RETRY from SKIP"}
    differ = {"retry": [1.0, 0.0], "skip": [0.0, 1.0]}  # same mean, other seeds
    target, _ = _calibration_target(differ, ("A",), ("retry", "skip"))
    got = rule_calibration(target, seeds=2)
    assert got is not None and got["decision_invariant"] is False
    assert got["note"] == "rules differ: decisions move outcomes"


def test_rule_calibration_needs_rules_and_tasks() -> None:
    for agents, tasks in (((), ("A",)), (("retry",), ()), ((), ())):
        target, calls = _calibration_target({"retry": [1.0]}, tasks, agents)
        assert rule_calibration(target, seeds=1) is None and calls == []


def _run(agent: str, task: str, seed: int, truth: float | None, shipped: float | None,
         payload: str | None = "p", submitted: bool = True) -> Any:
    return SimpleNamespace(agent=agent, task=task, seed=seed, truth=truth,
                           shipped=SimpleNamespace(value=shipped), payload_sha256=payload,
                           episode=SimpleNamespace(submission={} if submitted else None))


def _joint_target(runs: dict[tuple[str, str, str, int], Any], agents: tuple[str, ...],
                  tasks: tuple[str, ...], levels: tuple[str, ...] = ("L0", "L1", "L2")) -> Any:
    hooks = AuditHooks(probe_tasks=(), probes=None, shipped_scorer="judge", truth_scorer="gt",
                       joint_agents=agents, spectrum_tasks=tasks, spectrum_agents=agents)
    calls: list[tuple[Any, ...]] = []

    def run_episode(agent: str, level: str, task: str, seed: int, **kw: Any) -> Any:
        calls.append((agent, level, task, seed, kw))
        return runs[(agent, level, task, seed)]

    return SimpleNamespace(hooks=hooks, run_episode=run_episode, calls=calls, scale=100.0,
                           scorer_name="judge", truth_label="gt-exact",
                           spec=SimpleNamespace(levels=levels))


def test_the_joint_intervention_cells_and_identical_l0_payloads() -> None:
    runs = {}
    for s in (0, 1):
        runs[("a", "L0", "T", s)] = _run("a", "T", s, 0.0, 60.0, payload="same")
        runs[("b", "L0", "T", s)] = _run("b", "T", s, 0.0, 60.0,
                                         payload="same" if s == 0 else None)
        runs[("a", "L2", "T", s)] = _run("a", "T", s, 1.0, 90.0)
        runs[("b", "L2", "T", s)] = _run("b", "T", s, None, 30.0, submitted=False)
    target = _joint_target(runs, ("a", "b"), ("T",))
    got = joint_intervention(target, seeds=2)
    assert target.calls == [(a, lv, "T", s, {}) for lv in ("L0", "L2") for a in ("a", "b")
                            for s in (0, 1)]
    scored = {lv: [Scored(a, runs[(a, lv, "T", s)].episode.submission is not None,
                          runs[(a, lv, "T", s)].truth, runs[(a, lv, "T", s)].shipped.value)
                   for a in ("a", "b") for s in (0, 1)] for lv in ("L0", "L2")}
    assert got == {
        "targets": ["a", "b"], "tasks": ["T"], "seeds": 2,
        "cells": {f"{lv}|{sc}": _cell(scored[lv], 100.0, sc == "ground_truth")
                  for lv in ("L0", "L2") for sc in ("shipped", "ground_truth")},
        "scorer": "judge", "scale": 100.0,
        "l0_payload_pairs": 2, "l0_identical_pairs": 1, "l0_all_identical": False}
    assert got["cells"]["L2|ground_truth"]["truth_excluded"] == 2
    for s in (0, 1):
        runs[("b", "L0", "T", s)] = _run("b", "T", s, 0.0, 60.0, payload="same")
    assert joint_intervention(_joint_target(runs, ("a", "b"), ("T",)), 2)[
        "l0_all_identical"] is True


def test_no_joint_intervention_without_agents_or_both_levels() -> None:
    assert joint_intervention(_joint_target({}, (), ("T",)), 1) is None
    assert joint_intervention(_joint_target({}, ("a",), ("T",), ("L1", "L2")), 1) is None
    assert joint_intervention(_joint_target({}, ("a",), ("T",), ("L0",)), 1) is None
    one = {("a", lv, "T", 0): _run("a", "T", 0, 1.0, 50.0) for lv in ("L0", "L2")}
    got = joint_intervention(_joint_target(one, ("a",), ("T",), ("L0", "L2")), 1)
    assert got is not None and (got["l0_payload_pairs"], got["l0_all_identical"]) == (0, False)


def test_the_reliability_spectrum_orders_by_mean_and_by_worst() -> None:
    truths = {"steady": [0.8, 0.8, 0.8, 0.8], "spiky": [1.0, 1.0, 1.0, 0.0],
              "blind": [None, None, None, None], "half": [None, 0.5, 0.5, 0.5]}
    runs = {(a, "L2", t, s): _run(a, t, s, truths[a][i * 2 + s], None)
            for a in truths for i, t in enumerate(("T1", "T2")) for s in (0, 1)}
    target = _joint_target(runs, tuple(truths), ("T1", "T2"))
    store = StoreEpisodes("e", ["c"], [
        _target("llm", "llm", [_stored("L2", truth=0.9), _stored("L2", seed=1, truth=0.7),
                               _stored("L0", truth=0.0)]),
        _target("none", "llm", [_stored("L0")])])
    got = reliability(target, seeds=2, seed=5, store=store)
    assert target.calls == [(a, "L2", t, s, {"shipped": False}) for a in truths
                            for t in ("T1", "T2") for s in (0, 1)]
    assert got is not None
    assert [(r["target"], r["source"], r["n"]) for r in got["rows"]] == [
        ("llm", "store", 2), ("steady", "scripted", 4), ("spiky", "scripted", 4),
        ("half", "scripted", 3)]
    values = np.array([1.0, 1.0, 1.0, 0.0])
    assert got["rows"][2] == {
        "target": "spiky", "source": "scripted", "n": 4,
        "summary": summarize_cell(values, tau=0.9, alpha=0.2, seed=5).to_dict(),
        "quartiles": [0.0, 0.75, 1.0, 1.0, 1.0], "values": [1.0, 1.0, 1.0, 0.0]}
    assert got["rows"][2] == _spectrum_row("spiky", "scripted", values, 5)
    assert got["order_by_mean"] == ["llm", "steady", "spiky", "half"]
    assert got["order_by_worst"] == ["steady", "llm", "half", "spiky"]  # worst 0.8, 0.7, ...
    assert got["worst_case_reorders"] is True
    assert got["truth_excluded"] == [{"target": "blind", "source": "scripted", "episodes": 4},
                                     {"target": "half", "source": "scripted", "episodes": 1}]
    assert {k: got[k] for k in ("level", "scorer", "tasks", "seeds", "analysis_seed", "alpha",
                                "tau")} == {"level": "L2", "scorer": "gt-exact",
                                            "tasks": ["T1", "T2"], "seeds": 2,
                                            "analysis_seed": 5, "alpha": 0.2, "tau": 0.9}


def test_no_spectrum_without_agents_rows_or_exclusions() -> None:
    assert reliability(_joint_target({}, (), ("T",)), seeds=2) is None
    blind = {("x", "L2", "T", 0): _run("x", "T", 0, None, None)}
    got = reliability(_joint_target(blind, ("x",), ("T",)), seeds=1)
    assert got is not None and got["rows"] == [] and got["truth_excluded"] == [
        {"target": "x", "source": "scripted", "episodes": 1}]
    assert got["worst_case_reorders"] is False


def test_one_identical_pair_is_all_identical() -> None:
    runs = {(a, lv, "T", 0): _run(a, "T", 0, 1.0, 50.0, payload="same")
            for a in ("a", "b") for lv in ("L0", "L2")}
    got = joint_intervention(_joint_target(runs, ("a", "b"), ("T",)), 1)
    assert got is not None
    assert (got["l0_payload_pairs"], got["l0_identical_pairs"], got["l0_all_identical"]) == \
        (1, 1, True)


def _replay_target(levels: tuple[str, ...], agents: tuple[str, ...],
                   differ: bool = False) -> Any:
    hooks = AuditHooks(probe_tasks=(), probes=None, shipped_scorer="s", truth_scorer="t",
                       replay_agents=agents, replay_tasks=("T1", "T2"))
    calls: list[tuple[Any, ...]] = []

    def run_episode(agent: str, level: str, task: str, seed: int, **kw: Any) -> Any:
        calls.append((agent, level, task, seed))
        n = len(calls)
        return SimpleNamespace(episode_sha256=str(n % 2) if differ else "e", truth=1.0,
                               shipped=SimpleNamespace(value=1.0))

    return SimpleNamespace(hooks=hooks, run_episode=run_episode, calls=calls,
                           spec=SimpleNamespace(levels=levels), scorer_name="s",
                           truth_label="t")


NONE_UNSCORED = {"shipped": 0, "ground_truth": 0}


def test_replay_runs_each_cell_twice_and_skips_l1() -> None:
    target = _replay_target(("L0", "L1", "L2"), ("rule",))
    assert replay(target, seeds=2) == {"status": "pass", "episodes": 8, "mismatches": 0,
                                       "mismatches_by_scorer": {"shipped": 0,
                                                                "ground_truth": 0},
                                       "unscored_by_scorer": NONE_UNSCORED}
    assert target.calls == [("rule", lv, t, s) for t in ("T1", "T2") for s in (0, 1)
                            for lv in ("L0", "L0", "L2", "L2")]  # each twice, L1 skipped
    flaky = _replay_target(("L1", "L2"), ("rule",), differ=True)
    assert replay(flaky, seeds=1) == {"status": "fail", "episodes": 2, "mismatches": 2,
                                      "mismatches_by_scorer": {"shipped": 2,
                                                               "ground_truth": 2},
                                      "unscored_by_scorer": NONE_UNSCORED}
    assert replay(_replay_target(("L0", "L2"), ()), seeds=3) == {
        "status": "not probed", "reason": NO_RERUNS, "episodes": 0, "mismatches": 0,
        "mismatches_by_scorer": {"shipped": 0, "ground_truth": 0},
        "unscored_by_scorer": NONE_UNSCORED}
    assert replay(_replay_target(("L1",), ("rule",)), seeds=3) == {
        "status": "not probed", "reason": NO_RERUNS, "episodes": 0, "mismatches": 0,
        "mismatches_by_scorer": {"shipped": 0, "ground_truth": 0},
        "unscored_by_scorer": NONE_UNSCORED}


def test_the_spectrum_defaults_and_its_tie_break_on_the_mean() -> None:
    truths = {"low": [0.5] * 10, "high": [1.0] * 9 + [0.5]}  # the same worst case, 0.5
    runs = {(a, "L2", "T", s): _run(a, "T", s, truths[a][s], None)
            for a in truths for s in range(10)}
    target = _joint_target(runs, tuple(truths), ("T",))
    got = reliability(target)  # ten seeds, analysis seed 0
    assert got is not None and (got["seeds"], got["analysis_seed"]) == (10, 0)
    assert len(target.calls) == 20
    assert got["order_by_mean"] == got["order_by_worst"] == ["high", "low"]
    assert got["worst_case_reorders"] is False
