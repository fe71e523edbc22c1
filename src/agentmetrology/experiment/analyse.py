"""Mechanical evaluation of a frozen plan on the stored episodes (experiment.json).

Values: ground truth is `coverage` (the recall component of ground_truth_f1) or `f1` (its
score), per level as the plan says; the designated scorer's own score sits beside it. A
measurement failure or a null score is never a value: it is counted and excluded, and every
shortfall against the plan (a seed without a value, an arm with none) is a disclosed deviation.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from agentmetrology.experiment.arms import agents_at, arm_table
from agentmetrology.experiment.dose import dose_response
from agentmetrology.experiment.plan import ALPHA, DOSE_RULE, GROUND_TRUTH, RULE
from agentmetrology.experiment.power import plan_power
from agentmetrology.experiment.registry import Registration
from agentmetrology.records.episode import EpisodeKey
from agentmetrology.records.numbers import finite_float
from agentmetrology.records.verdict import Verdict
from agentmetrology.stats import (
    bootstrap_ci,
    cliffs_delta_paired,
    eta_squared,
    excess_flip_rate,
    flips,
    holm,
    paired_bootstrap,
    sign_flip_test,
    sign_test,
)
from agentmetrology.store import EvidenceStore

SCHEMA = "agentmetrology.experiment/2"

Values = dict[str, dict[int, float]]  # arm -> seed -> value
Passes = dict[str, dict[int, int]]  # arm -> seed -> 1 if the scorer's status is PASS


def _value(row: dict[str, Any] | None, scorer: str,
           metric: str) -> tuple[float | None, str, int]:
    """Return (value, why it is missing, 1 if PASS) of one episode under one scorer."""
    if row is None:
        return None, "not recorded", 0
    if row["measurement_failure"]:
        return None, "measurement failure", 0
    a = next((a for a in row["assessments"] if a["scorer"] == scorer), None)
    score = None if a is None else finite_float(a["score"])  # NaN or inf is no score either
    if a is None or score is None:
        return None, f"no {scorer} score", 0
    passed = int(a["status"] == "PASS")
    if scorer == GROUND_TRUTH and metric == "coverage":
        recall = finite_float(((a["assessment"] or {}).get("components") or {}).get("recall"))
        return (None, "no recall component", 0) if recall is None else (recall, "", passed)
    return score, "", passed


def collect(store: EvidenceStore, reg: Registration, repeat: int = 0
            ) -> tuple[dict[str, Values], dict[str, Passes], list[dict[str, Any]]]:
    """Return values and PASS flags by `agent|level|scorer`, and the missing cells (what, why).

    Agents are the targets and the calibration rules at the levels they run.
    """
    p = reg.plan
    values: dict[str, Values] = {}
    passes: dict[str, Passes] = {}
    missing: list[dict[str, Any]] = []
    for level in p["levels"]:
        metric = p["metrics"][level]
        for target in agents_at(p, level):
            for arm in p["arms"]:
                for seed in range(p["n"]):
                    key = EpisodeKey(reg.campaign, target, p["task"], seed, arm, level, repeat)
                    row = store.episode(key)
                    for scorer in (GROUND_TRUTH, p["scorer"]):
                        v, why, ok = _value(row, scorer, metric)
                        name = f"{target}|{level}|{scorer}"
                        cell = values.setdefault(name, {})
                        flags = passes.setdefault(name, {})
                        if v is None:
                            missing.append({"target": target, "level": level, "arm": arm,
                                            "seed": seed, "scorer": scorer, "why": why,
                                            "repeat": repeat})
                        else:
                            cell.setdefault(arm, {})[seed] = v
                            flags.setdefault(arm, {})[seed] = ok
    return values, passes, missing


def _pairs(vals: Values, a: str, b: str) -> tuple[list[int], np.ndarray, np.ndarray]:
    seeds = sorted(set(vals.get(a, {})) & set(vals.get(b, {})))
    return (seeds, np.array([vals[a][s] for s in seeds]), np.array([vals[b][s] for s in seeds]))


def compare(vals: Values, a: str, b: str, seed: int) -> dict[str, Any]:
    """Return the paired comparison of arm b against arm a (delta = b - a) before Holm."""
    seeds, x, y = _pairs(vals, a, b)
    out: dict[str, Any] = {"baseline": a, "arm": b, "pairs": len(seeds), "seeds": seeds}
    if len(seeds) < 2:
        out.update(delta=None, sign_flip=None, cliffs_delta=None, sign_test=None,
                   why=f"{len(seeds)} complete pair(s): at least 2 are needed")
        return out
    d = y - x
    out["delta"] = paired_bootstrap(x, y, seed=seed).to_dict()
    out["sign_flip"] = sign_flip_test(x, y, seed=seed).to_dict()
    out["cliffs_delta"] = cliffs_delta_paired(x, y, seed=seed).to_dict()
    out["sign_test"] = sign_test(int(np.count_nonzero(d > 0)),
                                 int(np.count_nonzero(d < 0))).to_dict()
    out["per_seed_delta"] = [float(v) for v in d]
    return out


def flip_account(passes: Passes, rerun: Passes | None, a: str, b: str,
                 seed: int) -> dict[str, Any]:
    """Return PASS flips between arms a and b, and the excess over reruns of arm a if any."""
    seeds = sorted(set(passes.get(a, {})) & set(passes.get(b, {})))
    if not seeds:
        return {"flips": None, "excess": None, "why": "no complete pair"}
    x = [passes[a][s] for s in seeds]
    y = [passes[b][s] for s in seeds]
    out: dict[str, Any] = {"flips": flips(x, y).to_dict(), "excess": None, "why": ""}
    if rerun is None:
        out["why"] = "no reruns (repeats = 1): the excess flip rate needs repeats = 2"
        return out
    both = [s for s in seeds if s in rerun.get(a, {})]
    if not both:
        out["why"] = "no rerun of the baseline arm recorded"
        return out
    out["excess"] = excess_flip_rate([passes[a][s] for s in both], [passes[b][s] for s in both],
                                     [passes[a][s] for s in both],
                                     [rerun[a][s] for s in both], seed=seed).to_dict()
    return out


def _verdicts(family: list[dict[str, Any]]) -> None:
    """Holm-adjust a family in place and add each member's verdict.

    The family is the plan's (every arm and scorer of one target and level): a member without
    2 complete pairs counts as p = 1, never as a smaller family, so losing a scorer's values
    cannot make the other members easier to confirm than the frozen rule allows.
    """
    p_values = [1.0 if c["sign_flip"] is None else c["sign_flip"]["p_value"] for c in family]
    adjusted = holm(p_values, ALPHA).adjusted
    for c, p in zip(family, adjusted, strict=True):
        c["family_size"] = len(family)
        if c["sign_flip"] is None:
            c["p_holm"] = None
            c["verdict"] = "not evaluable"
        else:
            c["p_holm"] = p
            # No interval below 3 pairs (stats.bootstrap): the rule's CI above 0 is unmet.
            iv = c["delta"]["interval"]
            c["verdict"] = "confirmed" if iv and iv[0] > 0 and p < ALPHA else "not confirmed"
        c["rule"] = rule_verdict(c).to_dict()


def min_pairs(family_size: int, alpha: float = ALPHA) -> int:
    """Return the fewest paired seeds at which the rule can confirm at all.

    The exact two-sided sign-flip p is at least 2 / 2**n, and Holm multiplies the smallest p
    by the family size: below this n no data can confirm, so "not confirmed" says nothing.
    """
    n = 1
    while 2.0 / 2**n * max(family_size, 1) >= alpha:
        n += 1
    return n


def rule_verdict(c: dict[str, Any]) -> Verdict:
    """Return a comparison's confirmed / not confirmed rule as a Verdict with n and its CI."""
    iv = (c.get("delta") or {}).get("interval")
    return Verdict.judged(
        c["verdict"], int(c["pairs"]), "paired seeds", min_pairs(c["family_size"]),
        interval=None if not iv else (float(iv[0]), float(iv[1])),
        confidence=0.95 if iv else None, interval_of="delta (paired bootstrap)" if iv else "",
        why=f"Holm family of {c['family_size']}: an exact sign-flip p is at least 2/2^n")


def _curve(vals: Values, arms: list[str], doses: list[float], seed: int) -> dict[str, Any]:
    points: list[dict[str, Any]] = []
    for arm, dose in zip(arms, doses, strict=True):
        per = vals.get(arm, {})
        xs = [per[s] for s in sorted(per)]
        # Below 3 seeds the band has no interval and says why (stats.bootstrap).
        band = bootstrap_ci(xs, seed=seed).to_dict() if xs else None
        points.append({"dose": dose, "arm": arm, "n": len(xs),
                       "mean": float(np.mean(xs)) if xs else None, "band": band,
                       "points": [{"seed": s, "value": per[s]} for s in sorted(per)]})
    means = [float(p["mean"]) for p in points if p["mean"] is not None]
    monotone = all(b <= a for a, b in itertools.pairwise(means))
    return {"points": points, "monotone_non_increasing": monotone if len(means) >= 2 else None}


def invariance(p: dict[str, Any], values: dict[str, Values], agents: list[str], level: str,
               group: str) -> list[dict[str, Any]]:
    """Return, per arm, whether every agent gave the same per-seed ground truth at `level`.

    Identical vectors across deliberately different agents (e.g. always-retry and
    always-skip) mean the design cannot tell their decisions apart there (docs/experiments.md):
    at zero slack, retrying and skipping are outcome-equivalent by construction.
    """
    if len(agents) < 2:
        return []
    out = []
    for arm in p["arms"]:
        vectors = {t: values[f"{t}|{level}|{GROUND_TRUTH}"].get(arm, {}) for t in agents}
        complete = all(len(v) == p["n"] for v in vectors.values())
        distinct = len({tuple(sorted(v.items())) for v in vectors.values()})
        same = [[a, b] for a, b in itertools.combinations(agents, 2)
                if complete and vectors[a] == vectors[b]]
        out.append({"group": group, "level": level, "arm": arm, "targets": list(agents),
                    "complete": complete, "invariant": complete and distinct == 1,
                    "distinct_vectors": distinct, "indistinguishable": same})
    return out


def variance_shares(p: dict[str, Any], values: dict[str, Values], agents: list[str],
                    level: str, scorer: str, group: str) -> dict[str, Any]:
    """Return eta squared of arm, agent and their interaction, seeds as blocks (complete seeds)."""
    out: dict[str, Any] = {"group": group, "level": level, "scorer": scorer,
                           "factors": {"a": "arm", "b": "agent", "block": "seed"}}
    cells = [values[f"{t}|{level}|{scorer}"] for t in agents]
    seeds = [s for s in range(p["n"]) if all(s in c.get(arm, {}) for c in cells
                                              for arm in p["arms"])]
    if len(agents) < 2 or len(p["arms"]) < 2 or len(seeds) < 2:
        out.update(shares=None, seeds=len(seeds),
                   why="needs at least 2 agents, 2 arms and 2 seeds complete in every cell")
        return out
    table = [[[c[arm][s] for c in cells] for arm in p["arms"]] for s in seeds]
    r = eta_squared(table).to_dict()
    out.update(shares=r["shares"], seeds=len(seeds), why="")
    return out


def comparisons(p: dict[str, Any]) -> list[tuple[str, str, int | None]]:
    """Return (baseline arm, compared arm, slack or None) of every comparison of a plan."""
    arms = p["arms"]
    if p["kind"] == "dose":
        return [(arms[2 * i], arms[2 * i + 1], k) for i, k in enumerate(p["doses"])]
    if p["kind"] == "ab":
        return [(arms[0], arm, None) for arm in arms[1:]]
    return [(arms[-1], arms[0], None)]


def analyse(store: EvidenceStore, reg: Registration) -> dict[str, Any]:
    """Return experiment.json: the frozen plan, every cell's comparison, verdicts, deviations."""
    p = reg.plan
    seed = p["analysis_seed"]
    values, passes, missing = collect(store, reg)
    rerun: dict[str, Passes] | None = None
    if p["repeats"] == 2:
        _, rerun, missing_rerun = collect(store, reg, repeat=1)
        missing += missing_rerun
    cells = []
    for target in p["targets"]:
        for level in p["levels"]:
            family = []
            for scorer in (GROUND_TRUTH, p["scorer"]):
                name = f"{target}|{level}|{scorer}"
                vals = values[name]
                outcome = p["metrics"][level] if scorer == GROUND_TRUTH else f"{scorer} score"
                for a, b, slack in comparisons(p):
                    c = {"target": target, "level": level, "scorer": scorer, "outcome": outcome,
                         **compare(vals, a, b, seed),
                         "flips": flip_account(passes[name],
                                               rerun[name] if rerun else None, a, b, seed)}
                    if slack is not None:
                        c["slack"] = slack
                    if p["kind"] == "curve":
                        c["curve"] = _curve(vals, p["arms"], p["doses"], seed)
                    family.append(c)
            _verdicts(family)
            cells.extend(family)
    devs = deviations(p, missing)
    verdicts: dict[str, int] = {}
    for c in cells:
        verdicts[c["verdict"]] = verdicts.get(c["verdict"], 0) + 1
    inv = [x for lv in p["levels"] for x in invariance(p, values, list(p["targets"]), lv,
                                                       "targets")]
    arms = arm_table(store, reg.campaign, p)
    doc = {"schema": SCHEMA, "experiment": p["name"], "registration": reg.campaign,
           "plan_digest": reg.digest, "plan": p,
           "decision_rule": DOSE_RULE if p["kind"] == "dose" else RULE, "alpha": ALPHA,
           "cells": cells, "deviations": devs, "decision_invariance": inv,
           "variance": [variance_shares(p, values, list(p["targets"]), lv, sc, "targets")
                        for lv in p["levels"] for sc in (GROUND_TRUTH, p["scorer"])],
           "arms": arms, "calibration": calibration(p, values), "power": plan_power(p),
           "summary": {"cells": len(cells), "deviations": len(devs),
                       "missing_values": len(missing), "verdicts": dict(sorted(verdicts.items()))}}
    if p["kind"] == "dose":
        doc["dose"] = dose_response(p, cells, arms, inv)
    return doc


def calibration(p: dict[str, Any], values: dict[str, Values]) -> dict[str, Any]:
    """Return each calibration rule's per-arm outcome and whether the design separates them."""
    rules = list(p.get("calibration", {}))
    out: dict[str, Any] = {"rules": rules, "outcomes": [], "invariance": [], "variance": []}
    for level in p["levels"]:
        here = [r for r in rules if level in p["calibration"][r]]
        for rule in here:
            vals = values[f"{rule}|{level}|{GROUND_TRUTH}"]
            for arm in p["arms"]:
                per = vals.get(arm, {})
                out["outcomes"].append({
                    "rule": rule, "level": level, "arm": arm, "outcome": p["metrics"][level],
                    "n": len(per), "mean": float(np.mean(list(per.values()))) if per else None,
                    "per_seed": [per[s] for s in sorted(per)]})
        out["invariance"] += invariance(p, values, here, level, "calibration")
        if len(here) >= 2:
            out["variance"].append(variance_shares(p, values, here, level, GROUND_TRUTH,
                                                   "calibration"))
    return out


def deviations(p: dict[str, Any], missing: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return every shortfall against the plan, grouped by target, level, arm, scorer and why.

    The analysed n and the kind are those of the whole target, level, arm, scorer and repeat:
    seeds missing for another reason are missing from the analysis too (2 seeds not recorded
    and 2 measurement failures of n = 4 leave no value: a dropped arm, analysed n 0).
    """
    groups: dict[tuple[str, str, str, str, str, int], list[int]] = {}
    lost: dict[tuple[str, str, str, str, int], set[int]] = {}
    for m in missing:
        groups.setdefault((m["target"], m["level"], m["arm"], m["scorer"], m["why"],
                           m["repeat"]), []).append(m["seed"])
        lost.setdefault((m["target"], m["level"], m["arm"], m["scorer"], m["repeat"]),
                        set()).add(m["seed"])
    out = []
    for (target, level, arm, scorer, why, repeat), seeds in sorted(groups.items()):
        analysed = p["n"] - len(lost[(target, level, arm, scorer, repeat)])
        out.append({"kind": "dropped arm" if analysed == 0 else "changed n", "target": target,
                    "level": level, "arm": arm, "scorer": scorer, "why": why,
                    "repeat": repeat, "planned_n": p["n"], "analysed_n": analysed,
                    "seeds": sorted(seeds)})
    return out
