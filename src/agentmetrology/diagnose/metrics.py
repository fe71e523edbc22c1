"""Paired-mutation metrics per (environment, target, level, mutation) and the reading they support.

VRG = S(original) − S(mutated) (positive: lower under mutation); the rescored gap replaces
S(mutated) by the same trajectory rescored under the inverse map. MSR_tau = Pr[S(mutated) >=
tau]; MTR_tau = Pr[S(mutated) >= tau | S(original) >= tau], undefined (null), never 0, when no
original passes. Paired Δ and the rescored gap carry task-cluster bootstrap intervals; the
excess flip rate subtracts the flip rate of the repeat control (docs/diagnose.md, docs/stats.md).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from statistics import fmean
from typing import Any

import numpy as np

from agentmetrology.diagnose.pairs import GroupKey, Pair
from agentmetrology.stats import cluster_bootstrap, compare_paired, excess_flip_rate

TAU = 0.5
MARGIN = 0.10


def _ci(values: list[float], clusters: list[str], seed: int) -> dict[str, Any] | None:
    if not values:
        return None
    if len(set(clusters)) < 2:
        return {"value": fmean(values), "interval": None,
                "note": "one task only: no task-cluster interval"}
    est = cluster_bootstrap(np.array(values), clusters, seed=seed).to_dict()
    return {"value": est["value"], "interval": est["interval"], "method": est["method"]}


def _excludes_zero(ci: dict[str, Any] | None) -> bool:
    iv = None if ci is None else ci.get("interval")
    if not iv:
        return False
    return bool(iv[0] > 0 or iv[1] < 0)


@dataclass(frozen=True, slots=True)
class _Sides:
    """The numbers of a group's complete pairs, side by side."""

    tasks: list[str]
    original: list[float]
    mutated: list[float]
    rescored: list[float | None]
    truth_original: list[float]
    truth_mutated: list[float]
    changed: list[bool]
    ptd: list[float]

    @classmethod
    def of(cls, done: list[Pair]) -> _Sides:
        o = [p.original for p in done if p.original is not None]
        m = [p.mutated for p in done if p.mutated is not None]
        return cls([p.task for p in done], [float(x.shipped or 0.0) for x in o],
                   [float(x.shipped or 0.0) for x in m], [x.rescored for x in m],
                   [float(x.truth or 0.0) for x in o], [float(x.truth or 0.0) for x in m],
                   [a.operations != b.operations or a.truth_pass != b.truth_pass
                    for a, b in zip(o, m, strict=True)],
                   [x.ptd for x in m if x.ptd is not None])


def group_metrics(pairs: list[Pair], seed: int, tau: float = TAU,
                  margin: float = MARGIN) -> dict[str, Any]:
    """Return the metrics of one group's pairs (complete pairs only; the rest counted)."""
    done = [p for p in pairs if p.complete]  # complete: both sides recorded and scored
    out: dict[str, Any] = {
        "pairs": len(pairs), "complete": len(done),
        "half_finished": sum(1 for p in pairs if p.original is None or p.mutated is None),
        "unmeasured": sum(1 for p in pairs if p.original and p.mutated and not p.complete),
    }
    if not done:
        return {**out, "note": "no complete, measured pair"}
    x = _Sides.of(done)
    gaps = [o - m for o, m in zip(x.original, x.mutated, strict=True)]
    resc = [(t, o - r) for t, o, r in zip(x.tasks, x.original, x.rescored, strict=True)
            if r is not None]
    passed = [o >= tau for o in x.original]
    kept = [m >= tau for m, ok in zip(x.mutated, passed, strict=True) if ok]
    out.update(
        vrg=_ci(gaps, x.tasks, seed),
        rescored_gap=_ci([g for _, g in resc], [t for t, _ in resc], seed) if resc else None,
        msr=fmean(m >= tau for m in x.mutated), msr_original=fmean(passed),
        mtr=fmean(kept) if kept else None,  # undefined, never 0, when no original passes
        ptd=fmean(x.ptd) if x.ptd else None, behaviour_changed=fmean(x.changed),
        truth_original=fmean(x.truth_original), truth_mutated=fmean(x.truth_mutated))
    try:
        cmp = compare_paired(np.array(x.mutated), np.array(x.original), clusters=x.tasks,
                             margin=margin, tau=tau, seed=seed).to_dict()
        out["paired"] = {"difference": cmp["difference"], "equivalence": cmp["equivalence"],
                         "sign_flip_p": cmp["sign_flip"]["p_value"], "unit": cmp["unit"]}
    except ValueError as exc:  # e.g. too few pairs: stated, never a 0
        out["paired"] = {"note": f"not computable: {exc}"}
    return out


def add_excess_flips(groups: dict[GroupKey, dict[str, Any]],
                     pairs: dict[GroupKey, list[Pair]], seed: int, tau: float = TAU) -> None:
    """Add the repeat-controlled excess flip rate to every mutation with a repeat control."""
    for (env, target, level, mutation), m in groups.items():
        rep = pairs.get((env, target, level, "repeat"))
        if mutation == "repeat" or not rep or not m.get("complete"):
            continue
        mine = [p for p in pairs[(env, target, level, mutation)] if p.complete]
        reps = [p for p in rep if p.complete]
        if not reps:
            continue
        def side(ps: list[Pair], which: str) -> np.ndarray:
            return np.array([int((getattr(p, which).shipped or 0.0) >= tau) for p in ps])

        res = excess_flip_rate(side(mine, "original"), side(mine, "mutated"),
                               side(reps, "original"), side(reps, "mutated"),
                               same_units=False, seed=seed).to_dict()
        m["excess_flip_rate"] = res


def reading(m: dict[str, Any], mutation: str) -> tuple[str, str]:
    """Return (reading, why) for one group: which explanation its numbers support."""
    if mutation == "repeat":
        gap = (m.get("vrg") or {}).get("value")
        text = "n/a" if gap is None else f"{gap:.3f}"
        return "repeat control", f"identical rerun: mean gap {text}"
    if not m.get("complete"):
        return "inconclusive", "no complete, measured pair"
    vrg, resc = m.get("vrg"), m.get("rescored_gap")
    label = ((m.get("paired") or {}).get("equivalence") or {}).get("label")
    if m["msr"] == 0 and m["msr_original"] == 0:
        return "fails regardless", ("fails in both conditions (MSR 0): a small gap here is not "
                                    "robustness")
    if _excludes_zero(vrg):
        if resc is not None and not _excludes_zero(resc) and abs(resc["value"]) < MARGIN \
                and m["behaviour_changed"] == 0:
            return "evaluator sensitivity", ("the gap closes when the same trajectories are "
                                             "rescored under the inverse map")
        return "behavioural failure", ("the gap remains after rescoring, or the agent's "
                                       "operations or outcomes changed")
    if label == "equivalent":
        return "robust", f"equivalent within ±{MARGIN} (90% interval)"
    return "inconclusive", "the interval neither excludes 0 nor lies within the margin"


def diagnose_pairs(pairs: list[Pair], seed: int) -> dict[GroupKey, dict[str, Any]]:
    """Return metrics and the reading of every (environment, target, level, mutation) group."""
    by: dict[GroupKey, list[Pair]] = defaultdict(list)
    for p in pairs:
        by[p.group].append(p)
    groups = {g: group_metrics(ps, seed) for g, ps in sorted(by.items())}
    add_excess_flips(groups, by, seed)
    for (_, _, _, mutation), m in groups.items():
        m["reading"], m["why"] = reading(m, mutation)
    return groups
