"""Stages that run episodes: ownership, the 2x2 joint intervention, reliability (replay:
`replay.py`).

Which agents, tasks and levels each stage uses is the environment's data (`AuditHooks`).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from itertools import combinations
from statistics import fmean
from typing import Any

import numpy as np

from agentmetrology.audit.score_mean import finite_mean
from agentmetrology.audit.store_read import StoreEpisodes
from agentmetrology.audit.target import Ownership
from agentmetrology.audit.targets.env import EnvTarget, EpisodeRun
from agentmetrology.stats import summarize_cell


def ownership_completeness(own: Ownership, level: str) -> dict[str, Any]:
    """Return whether every claimed decision is model-owned at `level`."""
    owned = sorted(d for d, who in own.levels[level].items() if who == "model")
    missing = sorted(set(own.claimed) - set(owned))
    return {"level": level, "status": "fail" if missing else "pass", "model_owned": owned,
            "claimed": list(own.claimed), "harness_owned_claims": missing}


FIXED_RULE = "fixed rule"
FIXED_NOTE = ("each fixed rule (a rule baseline or scripted profile) is degenerate by "
              "construction: its action is a fixed function of the episode's state, not a "
              "choice, so it is reported per rule and never counts; pooling different rules "
              "would make the check pass on the rules' differences, the opposite of what it "
              "is for")
NO_MODEL_TARGETS = "no model targets"

Observations = dict[str, list[tuple[int, float]]]  # decision -> (action, episode outcome)


def decided(values: list[float | None]) -> list[float]:
    """Return the values whose ground truth was decided (None: UNKNOWN/INVALID, excluded)."""
    return [v for v in values if v is not None]


def decision_rows(obs_by_decision: Observations, decisions: list[str]) -> list[dict[str, Any]]:
    """Return, per decision, whether one target's action varies and its outcome differs."""
    out = []
    for decision in decisions:
        obs = obs_by_decision.get(decision, [])
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
    return out


def combine(statuses: list[str]) -> str:
    """Return fail if any fails, pass if all pass, otherwise not probed (never a pass by gap)."""
    if "fail" in statuses:
        return "fail"
    return "pass" if statuses and set(statuses) == {"pass"} else "not probed"


def target_non_degeneracy(name: str, source: str, episodes: int, obs: Observations,
                          decisions: list[str], fixed: bool) -> dict[str, Any]:
    """Return one target's own non-degeneracy: its decision channel alone, never pooled."""
    rows = decision_rows(obs, decisions)
    return {"target": name, "source": source, "episodes": episodes, "decisions": rows,
            "status": FIXED_RULE if fixed else combine([d["status"] for d in rows])}


def model_owned(own: Ownership, level: str) -> list[str]:
    """Return the decisions the model owns at `level`, sorted."""
    return sorted(d for d, who in own.levels[level].items() if who == "model")


def non_degeneracy(target: EnvTarget, own: Ownership, level: str, agents: list[str],
                   seeds: int, store: StoreEpisodes | None = None) -> dict[str, Any]:
    """Check each model-owned decision at `level` per target: actions vary, outcomes differ.

    The verdict is over the model targets (the store's LLM targets) only; the scripted agents
    and the store's model-free targets are fixed rules, reported per rule and never counted.
    """
    hooks = target.hooks
    decisions = model_owned(own, level)
    tasks = hooks.ownership_tasks if hooks.actions else ()
    fixed_rules: list[dict[str, Any]] = []
    excluded = 0
    for agent in agents:
        obs: Observations = defaultdict(list)
        n = 0
        for task in tasks:
            for seed in range(seeds):
                run = target.run_episode(agent, level, task, seed, shipped=False)
                assert hooks.actions is not None
                n += 1
                if run.truth is None:
                    excluded += 1  # an undecided outcome cannot show that actions matter
                    continue
                for decision, acts in hooks.actions(run.episode).items():
                    obs[decision] += [(a, run.truth) for a in acts]
        fixed_rules.append(target_non_degeneracy(agent, "scripted", n, obs, decisions, True))
    models: list[dict[str, Any]] = []
    for st in store.targets if store is not None else []:
        eps = st.at(level)
        if not eps:
            continue
        obs = defaultdict(list)
        for e in eps:
            for decision, acts in (e.actions or {}).items():
                obs[decision] += [(a, e.truth) for a in acts]
        row = target_non_degeneracy(st.label, "store", len(eps), obs, decisions, not st.is_model)
        (models if st.is_model else fixed_rules).append(row)
    if models:
        status, reason = combine([m["status"] for m in models]), ""
    elif store is not None and store.models():
        status, reason = "not probed", f"no model-target episodes at {level}"
    else:
        status, reason = "not probed", NO_MODEL_TARGETS
    return {"level": level, "status": status, "reason": reason, "decisions": decisions,
            "tasks": list(tasks), "seeds": seeds, "model_targets": models,
            "fixed_rules": fixed_rules, "note": FIXED_NOTE, "truth_excluded": excluded}


def rule_calibration(target: EnvTarget, seeds: int) -> dict[str, Any] | None:
    """Run the fixed half-scaffold rules; identical per-seed vectors mean decision-invariance.

    Returns None when the environment supplies no calibration rules.
    """
    hooks = target.hooks
    if not hooks.calibration_agents or not hooks.calibration_tasks:
        return None
    level = hooks.calibration_level
    vectors: dict[str, list[float | None]] = {}
    for rule in hooks.calibration_agents:
        vectors[rule] = [target.run_episode(rule, level, t, s, shipped=False).truth
                         for t in hooks.calibration_tasks for s in range(seeds)]
    # Undecided cells stay in the vectors (as None) so that identity still compares per seed.
    invariant = len({tuple(v) for v in vectors.values()}) == 1
    return {"level": level, "tasks": list(hooks.calibration_tasks), "seeds": seeds,
            "rules": [_rule_row(r, v) for r, v in vectors.items()],
            "decision_invariant": invariant,
            "note": ("identical per-seed vectors across rules: the design cannot tell RETRY "
                     "from SKIP" if invariant else "rules differ: decisions move outcomes")}


def store_calibration(store: StoreEpisodes, target: EnvTarget) -> list[dict[str, Any]]:
    """Return rule calibration from the store: per campaign and condition, the recorded fixed
    rules' per-unit ground-truth vectors on the units every rule has; identical vectors mean
    the condition cannot tell the rules' decisions apart (decision-invariant)."""
    hooks = target.hooks
    level = hooks.calibration_level
    groups: dict[tuple[str, str], dict[str, dict[tuple[str, int, int], float]]] = {}
    for st in store.fixed():
        if (st.agent or st.target) in hooks.calibration_agents and st.at(level):
            groups.setdefault((st.campaign, st.condition), {})[st.label] = {
                (e.task, e.seed, e.repeat): e.truth for e in st.at(level)}
    out = []
    for (campaign, condition), rules in sorted(groups.items()):
        if len(rules) < 2:
            continue
        units = sorted(set.intersection(*(set(v) for v in rules.values())))
        vectors: dict[str, list[float | None]] = {
            r: [v[u] for u in units] for r, v in sorted(rules.items())}
        invariant = bool(units) and len({tuple(v) for v in vectors.values()}) == 1
        out.append({"campaign": campaign, "condition": condition, "level": level,
                    "units": len(units), "rules": [_rule_row(r, v) for r, v in vectors.items()],
                    "decision_invariant": invariant})
    return out


def _rule_row(rule: str, vector: list[float | None]) -> dict[str, Any]:
    v = decided(vector)
    return {"rule": rule, "truth_mean": fmean(v) if v else None,
            "truth_worst": min(v) if v else None, "n": len(v),
            "truth_excluded": len(vector) - len(v)}


@dataclass(frozen=True, slots=True)
class Scored:
    """One episode as a 2x2 cell reads it: who, whether it submitted, and both scores."""

    agent: str
    submitted: bool
    truth: float | None  # None = ground truth undecided: excluded from the truth cells
    shipped: float | None  # on the shipped scorer's own scale; None = it could not score


def _scored(runs: list[EpisodeRun]) -> list[Scored]:
    return [Scored(r.agent, r.episode.submission is not None, r.truth, r.shipped.value)
            for r in runs]


def _cell(runs: list[Scored], scale: float, use_truth: bool) -> dict[str, Any]:
    per_target: dict[str, list[float]] = defaultdict(list)
    submitting: set[str] = set()
    invalid = excluded = 0
    for r in runs:
        if r.submitted:
            submitting.add(r.agent)
        if use_truth:
            if r.truth is None:
                excluded += 1  # no ground truth: excluded, never a 0
            else:
                per_target[r.agent].append(r.truth)
        elif r.shipped is None:
            invalid += 1  # the shipped scorer could not score it: excluded, never a 0
        else:
            per_target[r.agent].append(r.shipped / scale)
    means = {a: finite_mean(v) for a, v in per_target.items()}
    sub_means = [m for a, m in means.items() if a in submitting]
    # No scored submitting target: nothing spread, and a 0.0 would read as a scorer that
    # gives every target the same score (a NaN-returning scorer's 2x2 printed 0.000).
    spread = (max(sub_means) - min(sub_means)) if sub_means else None
    distinct = len({round(m, 9) for a, m in means.items() if a in submitting})
    return {"mean": finite_mean(list(means.values())) if means else None, "target_means": means,
            "spread": spread, "distinct_target_means": distinct,
            "submitting_targets": len(submitting), "invalid_scores": invalid,
            **({"truth_excluded": excluded} if use_truth else {})}


def joint_intervention(target: EnvTarget, seeds: int) -> dict[str, Any] | None:
    """Run the same targets and seeds at L0 and L2, scored by the shipped scorer and truth.

    Returns None when the environment has no L0 and L2 or supplies no joint agents.
    """
    hooks = target.hooks
    if not hooks.joint_agents or not {"L0", "L2"} <= set(target.spec.levels):
        return None
    runs = {lv: [target.run_episode(a, lv, t, s) for a in hooks.joint_agents
                 for t in hooks.spectrum_tasks for s in range(seeds)] for lv in ("L0", "L2")}
    cells = {f"{lv}|{sc}": _cell(_scored(runs[lv]), target.scale, sc == "ground_truth")
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


def store_joint(store: StoreEpisodes, scale: float, scorer: str) -> dict[str, Any] | None:
    """Return the 2x2 of the store's targets from their recorded episodes (never rerun).

    A target enters with the (task, seed, repeat) units it has at both L0 and L2; byte-identical
    L0 payloads are counted among the model targets (and per submission field).
    Returns None when no store target has episodes at both levels and no pair of model targets
    shares an L0 unit.
    """
    runs: dict[str, list[Scored]] = {"L0": [], "L2": []}
    targets = []
    for st in store.targets:
        by_level = {lv: {(e.task, e.seed, e.repeat): e for e in st.at(lv)} for lv in runs}
        units = sorted(set(by_level["L0"]) & set(by_level["L2"]))
        if not units:
            continue
        targets.append({"target": st.label, "condition": st.condition,
                        "model_target": st.is_model, "units": len(units)})
        for lv in runs:
            runs[lv] += [Scored(st.label, by_level[lv][u].submitted, by_level[lv][u].truth,
                                by_level[lv][u].shipped) for u in units]
    # Payloads are compared within one condition: two conditions serve different pages.
    by_unit: dict[tuple[str, str, int, int], dict[str, Any]] = defaultdict(dict)
    models = [st for st in store.models() if st.at("L0")]
    for st in models:
        for e in st.at("L0"):
            by_unit[(st.condition, e.task, e.seed, e.repeat)][st.label] = e
    pairs = identical = 0
    by_field: dict[str, int] = defaultdict(int)
    for eps in by_unit.values():
        for a, b in combinations(sorted(eps), 2):
            pairs += 1
            x, y = eps[a], eps[b]
            identical += x.payload_sha256 is not None and x.payload_sha256 == y.payload_sha256
            for name in sorted(set(x.payload_fields) | set(y.payload_fields)):
                by_field[name] += (name in x.payload_fields
                                   and x.payload_fields[name] == y.payload_fields.get(name))
    if not targets and not pairs:
        return None
    cells = {f"{lv}|{sc}": _cell(runs[lv], scale, sc == "ground_truth")
             for lv in ("L0", "L2") for sc in ("shipped", "ground_truth")} if targets else None
    return {"targets": targets, "cells": cells, "scorer": scorer, "scale": scale,
            "l0_model_targets": [st.label for st in models],
            "l0_model_payload_pairs": pairs, "l0_model_identical_pairs": identical,
            "l0_model_identical_pairs_by_field": dict(sorted(by_field.items())),
            "l0_model_all_identical": pairs > 0 and identical == pairs}


def _spectrum_row(name: str, source: str, values: np.ndarray, seed: int) -> dict[str, Any]:
    cell = summarize_cell(values, tau=0.9, alpha=0.2, seed=seed).to_dict()
    q = np.quantile(values, [0.0, 0.25, 0.5, 0.75, 1.0])
    return {"target": name, "source": source, "n": int(values.size), "summary": cell,
            "quartiles": [float(x) for x in q], "values": values.tolist()}


def reliability(target: EnvTarget, seeds: int = 10, seed: int = 0,
                store: StoreEpisodes | None = None) -> dict[str, Any] | None:
    """Return the L2 ground-truth reliability spectrum per target, sorted by mean.

    The scripted agents run; the store's targets enter with their recorded L2 episodes.
    """
    hooks = target.hooks
    rows = []
    excluded: list[dict[str, Any]] = []
    if hooks.spectrum_agents and hooks.spectrum_tasks:
        for agent in hooks.spectrum_agents:
            truths = [target.run_episode(agent, "L2", t, s, shipped=False).truth
                      for t in hooks.spectrum_tasks for s in range(seeds)]
            values = np.array(decided(truths))
            if len(truths) > values.size:
                excluded.append({"target": agent, "source": "scripted",
                                 "episodes": len(truths) - values.size})
            if values.size:
                rows.append(_spectrum_row(agent, "scripted", values, seed))
    for st in store.targets if store is not None else []:
        eps = st.at("L2")
        if eps:
            rows.append(_spectrum_row(st.label, "store", np.array([e.truth for e in eps]),
                                      seed))
    if not rows and not excluded:
        return None
    rows.sort(key=lambda r: (-r["summary"]["mean"]["value"], r["target"], r["source"]))
    order_mean = [r["target"] for r in rows]
    order_worst = [r["target"] for r in sorted(
        rows, key=lambda r: (-r["summary"]["worst"]["value"], -r["summary"]["mean"]["value"],
                             r["target"], r["source"]))]
    return {"level": "L2", "scorer": target.truth_label, "tasks": list(hooks.spectrum_tasks),
            "seeds": seeds, "analysis_seed": seed, "alpha": 0.2, "tau": 0.9, "rows": rows,
            "order_by_mean": order_mean, "order_by_worst": order_worst,
            "worst_case_reorders": order_mean != order_worst,
            "truth_excluded": excluded}
