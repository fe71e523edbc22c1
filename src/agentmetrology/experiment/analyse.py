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

from agentmetrology.experiment.plan import GROUND_TRUTH, RULE
from agentmetrology.experiment.registry import Registration
from agentmetrology.records.episode import EpisodeKey
from agentmetrology.stats import (
    bootstrap_ci,
    cliffs_delta_paired,
    holm,
    paired_bootstrap,
    sign_flip_test,
)
from agentmetrology.store import EvidenceStore

ALPHA = 0.05
SCHEMA = "agentmetrology.experiment/1"

Values = dict[str, dict[int, float]]  # arm -> seed -> value


def _value(row: dict[str, Any] | None, scorer: str, metric: str) -> tuple[float | None, str]:
    """Return (value, why it is missing) of one episode under one scorer."""
    if row is None:
        return None, "not recorded"
    if row["measurement_failure"]:
        return None, "measurement failure"
    a = next((a for a in row["assessments"] if a["scorer"] == scorer), None)
    if a is None or a["score"] is None:
        return None, f"no {scorer} score"
    if scorer == GROUND_TRUTH and metric == "coverage":
        recall = ((a["assessment"] or {}).get("components") or {}).get("recall")
        return (None, "no recall component") if recall is None else (float(recall), "")
    return float(a["score"]), ""


def collect(store: EvidenceStore, reg: Registration) -> tuple[dict[str, Values],
                                                             list[dict[str, Any]]]:
    """Return values by `target|level|scorer` and the missing cells (what, why)."""
    p = reg.plan
    values: dict[str, Values] = {}
    missing: list[dict[str, Any]] = []
    for target in p["targets"]:
        for level in p["levels"]:
            metric = p["metrics"][level]
            for arm in p["arms"]:
                for seed in range(p["n"]):
                    key = EpisodeKey(reg.campaign, target, p["task"], seed, arm, level, 0)
                    row = store.episode(key)
                    for scorer in (GROUND_TRUTH, p["scorer"]):
                        v, why = _value(row, scorer, metric)
                        cell = values.setdefault(f"{target}|{level}|{scorer}", {})
                        if v is None:
                            missing.append({"target": target, "level": level, "arm": arm,
                                            "seed": seed, "scorer": scorer, "why": why})
                        else:
                            cell.setdefault(arm, {})[seed] = v
    return values, missing


def _pairs(vals: Values, a: str, b: str) -> tuple[list[int], np.ndarray, np.ndarray]:
    seeds = sorted(set(vals.get(a, {})) & set(vals.get(b, {})))
    return (seeds, np.array([vals[a][s] for s in seeds]), np.array([vals[b][s] for s in seeds]))


def compare(vals: Values, a: str, b: str, seed: int) -> dict[str, Any]:
    """Return the paired comparison of arm b against arm a (delta = b - a) before Holm."""
    seeds, x, y = _pairs(vals, a, b)
    out: dict[str, Any] = {"baseline": a, "arm": b, "pairs": len(seeds), "seeds": seeds}
    if len(seeds) < 2:
        out.update(delta=None, sign_flip=None, cliffs_delta=None,
                   why=f"{len(seeds)} complete pair(s): at least 2 are needed")
        return out
    out["delta"] = paired_bootstrap(x, y, seed=seed).to_dict()
    out["sign_flip"] = sign_flip_test(x, y, seed=seed).to_dict()
    out["cliffs_delta"] = cliffs_delta_paired(x, y, seed=seed).to_dict()
    out["per_seed_delta"] = [float(v) for v in y - x]
    return out


def _verdicts(family: list[dict[str, Any]]) -> None:
    """Holm-adjust a family in place and add each member's verdict."""
    tested = [c for c in family if c["sign_flip"] is not None]
    adjusted = holm([c["sign_flip"]["p_value"] for c in tested], ALPHA).adjusted if tested else ()
    for c, p in zip(tested, adjusted, strict=True):
        c["p_holm"] = p
        lo = c["delta"]["interval"][0]
        c["verdict"] = "confirmed" if lo > 0 and p < ALPHA else "not confirmed"
    for c in family:
        if c["sign_flip"] is None:
            c["p_holm"] = None
            c["verdict"] = "not evaluable"


def _curve(vals: Values, arms: list[str], doses: list[float], seed: int) -> dict[str, Any]:
    points: list[dict[str, Any]] = []
    for arm, dose in zip(arms, doses, strict=True):
        per = vals.get(arm, {})
        xs = [per[s] for s in sorted(per)]
        band = bootstrap_ci(xs, seed=seed).to_dict() if len(xs) >= 2 else None
        points.append({"dose": dose, "arm": arm, "n": len(xs),
                       "mean": float(np.mean(xs)) if xs else None, "band": band,
                       "points": [{"seed": s, "value": per[s]} for s in sorted(per)]})
    means = [float(p["mean"]) for p in points if p["mean"] is not None]
    monotone = all(b <= a for a, b in itertools.pairwise(means))
    return {"points": points, "monotone_non_increasing": monotone if len(means) >= 2 else None}


def decision_invariance(p: dict[str, Any], values: dict[str, Values]) -> list[dict[str, Any]]:
    """Return, per level and arm, whether every target gave the same per-seed ground truth.

    Identical vectors across deliberately different targets (e.g. always-retry and
    always-skip) mean the design cannot tell their decisions apart there (specs/stress.md):
    at zero slack, retrying and skipping are outcome-equivalent by construction.
    """
    out: list[dict[str, Any]] = []
    if len(p["targets"]) < 2:
        return out
    for level in p["levels"]:
        for arm in p["arms"]:
            vectors = {t: values[f"{t}|{level}|{GROUND_TRUTH}"].get(arm, {})
                       for t in p["targets"]}
            complete = all(len(v) == p["n"] for v in vectors.values())
            same = complete and len({tuple(sorted(v.items())) for v in vectors.values()}) == 1
            out.append({"level": level, "arm": arm, "targets": list(p["targets"]),
                        "complete": complete, "invariant": same})
    return out


def analyse(store: EvidenceStore, reg: Registration) -> dict[str, Any]:
    """Return experiment.json: the frozen plan, every cell's comparison, verdicts, deviations."""
    p = reg.plan
    seed = p["analysis_seed"]
    values, missing = collect(store, reg)
    cells = []
    for target in p["targets"]:
        for level in p["levels"]:
            family = []
            for scorer in (GROUND_TRUTH, p["scorer"]):
                vals = values[f"{target}|{level}|{scorer}"]
                outcome = p["metrics"][level] if scorer == GROUND_TRUTH else f"{scorer} score"
                a, b = (p["arms"][0], p["arms"][1]) if p["kind"] == "ab" \
                    else (p["arms"][-1], p["arms"][0])
                c = {"target": target, "level": level, "scorer": scorer, "outcome": outcome,
                     **compare(vals, a, b, seed)}
                if p["kind"] == "curve":
                    c["curve"] = _curve(vals, p["arms"], p["doses"], seed)
                family.append(c)
            _verdicts(family)
            cells.extend(family)
    devs = deviations(p, missing)
    verdicts: dict[str, int] = {}
    for c in cells:
        verdicts[c["verdict"]] = verdicts.get(c["verdict"], 0) + 1
    return {"schema": SCHEMA, "experiment": p["name"], "registration": reg.campaign,
            "plan_digest": reg.digest, "plan": p, "decision_rule": RULE, "alpha": ALPHA,
            "cells": cells, "deviations": devs,
            "decision_invariance": decision_invariance(p, values),
            "summary": {"cells": len(cells), "deviations": len(devs),
                        "missing_values": len(missing), "verdicts": dict(sorted(verdicts.items()))}}


def deviations(p: dict[str, Any], missing: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return every shortfall against the plan, grouped by target, level, arm, scorer and why."""
    groups: dict[tuple[str, str, str, str, str], list[int]] = {}
    for m in missing:
        groups.setdefault((m["target"], m["level"], m["arm"], m["scorer"], m["why"]),
                          []).append(m["seed"])
    out = []
    for (target, level, arm, scorer, why), seeds in sorted(groups.items()):
        kind = "dropped arm" if len(seeds) == p["n"] else "changed n"
        out.append({"kind": kind, "target": target, "level": level, "arm": arm,
                    "scorer": scorer, "why": why, "planned_n": p["n"],
                    "analysed_n": p["n"] - len(seeds), "seeds": sorted(seeds)})
    return out
