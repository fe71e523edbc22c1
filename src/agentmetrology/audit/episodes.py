"""Stages that run episodes: ownership, the 2x2 joint intervention, replay, reliability."""

from __future__ import annotations

from collections import defaultdict
from itertools import combinations
from statistics import fmean
from typing import Any

import numpy as np

from agentmetrology.audit.actions import episode_actions
from agentmetrology.audit.target import Ownership
from agentmetrology.audit.targets.comtrade import ComtradeTarget, EpisodeRun
from agentmetrology.stats import summarize_cell

# Scripted profiles that share one traversal and differ in decisions the harness owns at L0.
JOINT_TARGETS: tuple[str, ...] = (
    "scripted:careful", "scripted:no_dedup", "scripted:keeps_totals", "scripted:single_pass",
    "scripted:empty_submit", "scripted:fabricator", "scripted:never_submits",
)
SPECTRUM_TARGETS: tuple[str, ...] = (
    "scripted:careful", "scripted:off_by_one", "scripted:no_dedup", "scripted:keeps_totals",
    "scripted:single_pass", "scripted:empty_submit", "scripted:fabricator",
    "scripted:never_submits",
)
SPECTRUM_TASKS: tuple[str, ...] = ("T3_duplicates", "T4_rate_limit_429", "T5_server_error_500",
                                   "T6_page_drift", "T8_mixed_faults")
OWNERSHIP_TASKS: tuple[str, ...] = ("T3_duplicates", "T4_rate_limit_429", "T5_server_error_500",
                                    "T6_page_drift", "T7_totals_trap", "T8_mixed_faults")
L1_RULES: tuple[str, ...] = ("l1:always-retry", "l1:always-skip", "l1:quota-aware")
CALIBRATION_TASKS: tuple[str, ...] = ("T4_rate_limit_429", "T5_server_error_500",
                                      "T8_mixed_faults", "T9_adaptive_adversary")


def ownership_completeness(own: Ownership, level: str) -> dict[str, Any]:
    """Return whether every claimed decision is model-owned at `level`."""
    owned = sorted(d for d, who in own.levels[level].items() if who == "model")
    missing = sorted(set(own.claimed) - set(owned))
    return {"level": level, "status": "fail" if missing else "pass", "model_owned": owned,
            "claimed": list(own.claimed), "harness_owned_claims": missing}


def non_degeneracy(target: ComtradeTarget, own: Ownership, level: str, agents: list[str],
                   seeds: int) -> dict[str, Any]:
    """Check each model-owned decision at `level`: actions vary and outcomes differ by action."""
    actions: dict[str, list[tuple[int, float]]] = defaultdict(list)
    for agent in agents:
        for task in OWNERSHIP_TASKS:
            for seed in range(seeds):
                run = target.run_episode(agent, level, task, seed)
                for decision, acts in episode_actions(run.episode).items():
                    actions[decision] += [(a, run.truth) for a in acts]
    out = []
    for decision in sorted(d for d, who in own.levels[level].items() if who == "model"):
        obs = actions.get(decision, [])
        by_action: dict[int, list[float]] = defaultdict(list)
        for a, y in obs:
            by_action[a].append(y)
        means = {str(a): fmean(ys) for a, ys in sorted(by_action.items())}
        varies = len(by_action) > 1
        differs = varies and max(means.values()) - min(means.values()) > 0
        out.append({"decision": decision, "observations": len(obs),
                    "action_counts": {str(a): len(ys) for a, ys in sorted(by_action.items())},
                    "outcome_mean_by_action": means, "action_varies": varies,
                    "outcome_differs": differs,
                    "status": "pass" if differs else ("fail" if obs else "not probed")})
    statuses = {d["status"] for d in out}
    status = "not probed" if not out else ("fail" if "fail" in statuses else (
        "pass" if statuses == {"pass"} else "not probed"))
    return {"level": level, "status": status, "agents": agents, "tasks": list(OWNERSHIP_TASKS),
            "seeds": seeds, "decisions": out}


def rule_calibration(target: ComtradeTarget, seeds: int) -> dict[str, Any]:
    """Run the fixed L1 rules; identical per-seed vectors mean the design is decision-invariant."""
    vectors: dict[str, list[float]] = {}
    for rule in L1_RULES:
        vectors[rule] = [target.run_episode(rule, "L1", t, s).truth
                         for t in CALIBRATION_TASKS for s in range(seeds)]
    invariant = len({tuple(v) for v in vectors.values()}) == 1
    return {"level": "L1", "tasks": list(CALIBRATION_TASKS), "seeds": seeds,
            "rules": [{"rule": r, "truth_mean": fmean(v), "truth_worst": min(v), "n": len(v)}
                      for r, v in vectors.items()],
            "decision_invariant": invariant,
            "note": ("identical per-seed vectors across rules: the design cannot tell RETRY "
                     "from SKIP" if invariant else "rules differ: decisions move outcomes")}


def _cell(runs: list[EpisodeRun], scale: float, use_truth: bool) -> dict[str, Any]:
    per_target: dict[str, list[float]] = defaultdict(list)
    submitting: set[str] = set()
    invalid = 0
    for r in runs:
        if r.episode.submission is not None:
            submitting.add(r.agent)
        if use_truth:
            per_target[r.agent].append(r.truth)
        elif r.shipped.value is None:
            invalid += 1  # the shipped scorer could not score it: excluded, never a 0
        else:
            per_target[r.agent].append(r.shipped.value / scale)
    means = {a: fmean(v) for a, v in per_target.items()}
    sub_means = [m for a, m in means.items() if a in submitting]
    spread = (max(sub_means) - min(sub_means)) if sub_means else 0.0
    distinct = len({round(m, 9) for a, m in means.items() if a in submitting})
    return {"mean": fmean(means.values()) if means else None, "target_means": means,
            "spread": spread, "distinct_target_means": distinct,
            "submitting_targets": len(submitting), "invalid_scores": invalid}


def joint_intervention(target: ComtradeTarget, seeds: int) -> dict[str, Any]:
    """Run the same targets and seeds at L0 and L2, scored by the shipped scorer and truth."""
    runs = {lv: [target.run_episode(a, lv, t, s) for a in JOINT_TARGETS
                 for t in SPECTRUM_TASKS for s in range(seeds)] for lv in ("L0", "L2")}
    cells = {f"{lv}|{sc}": _cell(runs[lv], target.scale, sc == "ground_truth")
             for lv in ("L0", "L2") for sc in ("shipped", "ground_truth")}
    by_key: dict[tuple[str, int], dict[str, str | None]] = defaultdict(dict)
    for r in runs["L0"]:
        by_key[(r.task, r.seed)][r.agent] = r.payload_sha256
    pairs = identical = 0
    for payloads in by_key.values():
        for a, b in combinations(sorted(payloads), 2):
            pairs += 1
            identical += payloads[a] is not None and payloads[a] == payloads[b]
    return {"targets": list(JOINT_TARGETS), "tasks": list(SPECTRUM_TASKS), "seeds": seeds,
            "cells": cells, "scorer": target.scorer_name, "scale": target.scale,
            "l0_payload_pairs": pairs, "l0_identical_pairs": identical,
            "l0_all_identical": pairs > 0 and identical == pairs}


def replay(target: ComtradeTarget, seeds: int) -> dict[str, Any]:
    """Run each (task, seed, target) twice; pass iff episodes and scores are byte-identical."""
    checked = mismatches = 0
    for agent in ("rule", "scripted:careful", "scripted:off_by_one"):
        for task in (*SPECTRUM_TASKS, "T9_adaptive_adversary"):
            for seed in range(seeds):
                for level in ("L0", "L2"):
                    a = target.run_episode(agent, level, task, seed)
                    b = target.run_episode(agent, level, task, seed)
                    checked += 1
                    same = (a.episode_sha256 == b.episode_sha256 and a.truth == b.truth
                            and a.shipped == b.shipped)
                    mismatches += not same
    return {"status": "pass" if checked and not mismatches else "fail", "episodes": checked,
            "mismatches": mismatches}


def reliability(target: ComtradeTarget, seeds: int = 10, seed: int = 0) -> dict[str, Any]:
    """Return the L2 ground-truth reliability spectrum per scripted profile, sorted by mean."""
    rows = []
    for agent in SPECTRUM_TARGETS:
        values = np.array([target.run_episode(agent, "L2", t, s).truth
                           for t in SPECTRUM_TASKS for s in range(seeds)])
        cell = summarize_cell(values, tau=0.9, alpha=0.2, seed=seed).to_dict()
        q = np.quantile(values, [0.0, 0.25, 0.5, 0.75, 1.0])
        rows.append({"target": agent, "n": int(values.size), "summary": cell,
                     "quartiles": [float(x) for x in q], "values": values.tolist()})
    rows.sort(key=lambda r: (-r["summary"]["mean"]["value"], r["target"]))
    order_mean = [r["target"] for r in rows]
    order_worst = [r["target"] for r in sorted(
        rows, key=lambda r: (-r["summary"]["worst"]["value"], -r["summary"]["mean"]["value"],
                             r["target"]))]
    return {"level": "L2", "scorer": "ground_truth_f1_exact", "tasks": list(SPECTRUM_TASKS),
            "seeds": seeds, "analysis_seed": seed, "alpha": 0.2, "tau": 0.9, "rows": rows,
            "order_by_mean": order_mean, "order_by_worst": order_worst,
            "worst_case_reorders": order_mean != order_worst}
