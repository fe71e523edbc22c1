"""Stages that run episodes: ownership, the 2x2 joint intervention, replay, reliability.

Which agents, tasks and levels each stage uses is the environment's data (`AuditHooks`).
"""

from __future__ import annotations

from collections import defaultdict
from itertools import combinations
from statistics import fmean
from typing import Any

import numpy as np

from agentmetrology.audit.target import Ownership
from agentmetrology.audit.targets.env import EnvTarget, EpisodeRun
from agentmetrology.stats import summarize_cell


def ownership_completeness(own: Ownership, level: str) -> dict[str, Any]:
    """Return whether every claimed decision is model-owned at `level`."""
    owned = sorted(d for d, who in own.levels[level].items() if who == "model")
    missing = sorted(set(own.claimed) - set(owned))
    return {"level": level, "status": "fail" if missing else "pass", "model_owned": owned,
            "claimed": list(own.claimed), "harness_owned_claims": missing}


def non_degeneracy(target: EnvTarget, own: Ownership, level: str, agents: list[str],
                   seeds: int) -> dict[str, Any]:
    """Check each model-owned decision at `level`: actions vary and outcomes differ by action."""
    hooks = target.hooks
    actions: dict[str, list[tuple[int, float]]] = defaultdict(list)
    tasks = hooks.ownership_tasks if hooks.actions else ()
    for agent in agents:
        for task in tasks:
            for seed in range(seeds):
                run = target.run_episode(agent, level, task, seed, shipped=False)
                assert hooks.actions is not None
                for decision, acts in hooks.actions(run.episode).items():
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
    return {"level": level, "status": status, "agents": agents, "tasks": list(tasks),
            "seeds": seeds, "decisions": out}


def rule_calibration(target: EnvTarget, seeds: int) -> dict[str, Any] | None:
    """Run the fixed half-scaffold rules; identical per-seed vectors mean decision-invariance.

    Returns None when the environment supplies no calibration rules.
    """
    hooks = target.hooks
    if not hooks.calibration_agents or not hooks.calibration_tasks:
        return None
    level = hooks.calibration_level
    vectors: dict[str, list[float]] = {}
    for rule in hooks.calibration_agents:
        vectors[rule] = [target.run_episode(rule, level, t, s, shipped=False).truth
                         for t in hooks.calibration_tasks for s in range(seeds)]
    invariant = len({tuple(v) for v in vectors.values()}) == 1
    return {"level": level, "tasks": list(hooks.calibration_tasks), "seeds": seeds,
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


def joint_intervention(target: EnvTarget, seeds: int) -> dict[str, Any] | None:
    """Run the same targets and seeds at L0 and L2, scored by the shipped scorer and truth.

    Returns None when the environment has no L0 and L2 or supplies no joint agents.
    """
    hooks = target.hooks
    if not hooks.joint_agents or not {"L0", "L2"} <= set(target.spec.levels):
        return None
    runs = {lv: [target.run_episode(a, lv, t, s) for a in hooks.joint_agents
                 for t in hooks.spectrum_tasks for s in range(seeds)] for lv in ("L0", "L2")}
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
    return {"targets": list(hooks.joint_agents), "tasks": list(hooks.spectrum_tasks),
            "seeds": seeds,
            "cells": cells, "scorer": target.scorer_name, "scale": target.scale,
            "l0_payload_pairs": pairs, "l0_identical_pairs": identical,
            "l0_all_identical": pairs > 0 and identical == pairs}


def replay(target: EnvTarget, seeds: int) -> dict[str, Any]:
    """Run each (task, seed, target) twice; pass iff episodes and scores are byte-identical."""
    checked = mismatches = 0
    hooks = target.hooks
    for agent in hooks.replay_agents:
        for task in hooks.replay_tasks:
            for seed in range(seeds):
                for level in target.spec.levels:
                    if level == "L1":
                        continue  # the replay agents propose tool calls; L1 asks questions
                    a = target.run_episode(agent, level, task, seed)
                    b = target.run_episode(agent, level, task, seed)
                    checked += 1
                    same = (a.episode_sha256 == b.episode_sha256 and a.truth == b.truth
                            and a.shipped == b.shipped)
                    mismatches += not same
    status = "not probed" if not checked else ("fail" if mismatches else "pass")
    return {"status": status, "episodes": checked, "mismatches": mismatches}


def reliability(target: EnvTarget, seeds: int = 10, seed: int = 0) -> dict[str, Any] | None:
    """Return the L2 ground-truth reliability spectrum per scripted agent, sorted by mean."""
    hooks = target.hooks
    if not hooks.spectrum_agents or not hooks.spectrum_tasks:
        return None
    rows = []
    for agent in hooks.spectrum_agents:
        values = np.array([target.run_episode(agent, "L2", t, s, shipped=False).truth
                           for t in hooks.spectrum_tasks for s in range(seeds)])
        cell = summarize_cell(values, tau=0.9, alpha=0.2, seed=seed).to_dict()
        q = np.quantile(values, [0.0, 0.25, 0.5, 0.75, 1.0])
        rows.append({"target": agent, "n": int(values.size), "summary": cell,
                     "quartiles": [float(x) for x in q], "values": values.tolist()})
    rows.sort(key=lambda r: (-r["summary"]["mean"]["value"], r["target"]))
    order_mean = [r["target"] for r in rows]
    order_worst = [r["target"] for r in sorted(
        rows, key=lambda r: (-r["summary"]["worst"]["value"], -r["summary"]["mean"]["value"],
                             r["target"]))]
    return {"level": "L2", "scorer": target.truth_label, "tasks": list(hooks.spectrum_tasks),
            "seeds": seeds, "analysis_seed": seed, "alpha": 0.2, "tau": 0.9, "rows": rows,
            "order_by_mean": order_mean, "order_by_worst": order_worst,
            "worst_case_reorders": order_mean != order_worst}
