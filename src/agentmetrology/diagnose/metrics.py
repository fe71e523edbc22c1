"""Paired-mutation metrics per (environment, target, level, mutation) and the reading they support.

VRG = S(original) − S(mutated) (positive: lower under mutation); the rescored gap replaces
S(mutated) by the same trajectory rescored under the inverse map. MSR_tau = Pr[S(mutated) >=
tau]; MTR_tau = Pr[S(mutated) >= tau | S(original) >= tau], undefined (null), never 0, when no
original passes; both are also given at every threshold of the sweep. Paired Δ and the rescored
gap carry task-cluster bootstrap intervals; the difference p a family Holm-adjusts is the larger
of the bootstrap's and the exact sign-flip test's over task gaps (`difference_p`);
the excess flip rate subtracts the flip rate of the repeat control (docs/diagnose.md,
docs/stats.md). Readings come from named predicates (`diagnose.readings`).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from statistics import fmean
from typing import Any

import numpy as np

from agentmetrology.diagnose.family import adjust_family
from agentmetrology.diagnose.pairs import GroupKey, Pair
from agentmetrology.diagnose.readings import (
    kind_of,
    predicates,
    read,
    rescoring_unread,
    untested,
    verdict_of,
    withheld,
)
from agentmetrology.stats import (
    bootstrap_p_values,
    cluster_bootstrap,
    compare_paired,
    excess_flip_rate,
)

TAU = 0.65  # the pass threshold of MSR/MTR (the TRACE paper's)
MARGIN = 0.10
SWEEP = (0.5, 0.65, 0.8)  # thresholds every reading is also given at


def _ci(values: list[float], clusters: list[str], seed: int) -> dict[str, Any] | None:
    """Return the task-cluster mean with its interval, or with `interval_note` saying why there
    is none (fewer than 3 tasks: the statistics' rule, stats.cluster)."""
    if not values:
        return None
    est = cluster_bootstrap(np.array(values), clusters, seed=seed).to_dict()
    return {k: est[k] for k in ("value", "interval", "method", "interval_note") if k in est}


def pass_rates(original: list[float], mutated: list[float], tau: float) -> dict[str, Any]:
    """Return MSR, MSR of the originals and MTR at threshold `tau` (MTR null if none passes)."""
    passed = [o >= tau for o in original]
    kept = [m >= tau for m, ok in zip(mutated, passed, strict=True) if ok]
    return {"msr": fmean(m >= tau for m in mutated), "msr_original": fmean(passed),
            "mtr": fmean(kept) if kept else None}  # undefined, never 0, when none passes


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


def pooled(done: list[Pair]) -> dict[str, dict[str, int]]:
    """Return the complete pairs a group pools, per base condition and per campaign."""
    return {"bases": dict(sorted(Counter(p.base for p in done).items())),
            "campaigns": dict(sorted(Counter(p.campaign for p in done).items()))}


def group_metrics(pairs: list[Pair], seed: int, tau: float = TAU,
                  margin: float = MARGIN) -> dict[str, Any]:
    """Return the metrics of one group's pairs (complete pairs only; the rest counted)."""
    done = [p for p in pairs if p.complete]  # complete: both sides recorded and scored
    out: dict[str, Any] = {
        "pairs": len(pairs), "complete": len(done),
        "half_finished": sum(1 for p in pairs if p.original is None or p.mutated is None),
        "unmeasured": sum(p.unmeasured for p in pairs),
    }
    if not done:
        return {**out, "note": "no complete, measured pair"}
    out["pooled"] = pooled(done)
    x = _Sides.of(done)
    gaps = [o - m for o, m in zip(x.original, x.mutated, strict=True)]
    resc = [(t, o - r) for t, o, r in zip(x.tasks, x.original, x.rescored, strict=True)
            if r is not None]
    out.update(
        tasks=len(set(x.tasks)), vrg=_ci(gaps, x.tasks, seed),
        rescored_gap=_ci([g for _, g in resc], [t for t, _ in resc], seed) if resc else None,
        # complete pairs the rescored gap leaves out: rescoring was not measurable (UNKNOWN or
        # INVALID) or there is no inverse map; and the pairs PTD averages (those reporting it)
        rescored_excluded=len(done) - len(resc), ptd_pairs=len(x.ptd),
        **pass_rates(x.original, x.mutated, tau),
        ptd=fmean(x.ptd) if x.ptd else None, behaviour_changed=fmean(x.changed),
        truth_original=fmean(x.truth_original), truth_mutated=fmean(x.truth_mutated),
        sweep={repr(t): pass_rates(x.original, x.mutated, t) for t in SWEEP})
    try:
        a, b = np.array(x.mutated), np.array(x.original)
        res = compare_paired(a, b, clusters=x.tasks, margin=margin, tau=tau, seed=seed)
        p_boot, p_eq = bootstrap_p_values(a, b, res.equivalence, clusters=x.tasks)
        cmp = res.to_dict()
        p_flip = cmp["sign_flip"]["p_value"]
        out["paired"] = {"difference": cmp["difference"], "equivalence": cmp["equivalence"],
                         "sign_flip_p": p_flip, "unit": cmp["unit"],
                         "bootstrap_difference_p": p_boot,
                         "p_values": {"difference": difference_p(p_boot, p_flip),
                                      "equivalence": p_eq}}
    except ValueError as exc:  # e.g. too few pairs: stated, never a 0
        out["paired"] = {"note": f"not computable: {exc}"}
    return out


def difference_p(bootstrap: float | None, sign_flip: float) -> float | None:
    """Return the difference test's p: the larger of the bootstrap's and the exact sign-flip's.

    The bootstrap p alone reaches its floor (2 / (B + 1)) whenever every task's gap has one
    sign, at any number of tasks; the exact sign-flip test over task gaps cannot go below
    2 / 2**n (0.03125 at 6 tasks). A gap is read as real only when both say so: the exact test
    (the spec's paired test, the one `agm stats compare` Holm-adjusts) and the interval printed
    beside the reading. The larger of two valid p-values is a valid p-value, so Holm over it
    still holds the family's error rate, and it never rejects where `stats compare` could not.
    """
    return None if bootstrap is None else max(bootstrap, sign_flip)


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

        # whole tasks resampled on each side, as every other interval here is task-clustered;
        # below 3 tasks on a side there is no interval and `interval_note` says why
        m["excess_flip_rate"] = excess_flip_rate(
            side(mine, "original"), side(mine, "mutated"), side(reps, "original"),
            side(reps, "mutated"), same_units=False, seed=seed,
            clusters=([p.task for p in mine], [p.task for p in reps])).to_dict()


def reading(m: dict[str, Any], mutation: str, margin: float = MARGIN) -> tuple[str, str]:
    """Return (reading, why) for one group, from the named predicates over its numbers."""
    v = verdict_of(m, mutation, margin, {t: r["reading"] for t, r in m.get("sweep", {}).items()
                                         if "reading" in r})
    if v.verdict == "repeat control":
        gap = (m.get("vrg") or {}).get("value")
        return v.verdict, "identical rerun: mean gap " + ("n/a" if gap is None else f"{gap:.3f}")
    return v.verdict, v.why


def read_group(m: dict[str, Any], mutation: str, margin: float) -> None:
    """Add to a group its predicates, readings per threshold, reading, verdict and stability."""
    kind = kind_of(mutation)
    for rates in (m.get("sweep") or {}).values():
        rates["reading"] = withheld(read(predicates(m, margin, rates, kind), kind,
                                         rescoring_unread(m)), m, kind)
    m["predicates"] = predicates(m, margin, kind=kind)
    m["untested"] = untested(m, kind)  # why a different/equivalent/rescoring predicate is None
    m["reading"], m["why"] = reading(m, mutation, margin)
    m["verdict"] = verdict_of(m, mutation, margin, {t: r["reading"] for t, r in
                                                     (m.get("sweep") or {}).items()}).to_dict()
    m["stability"] = ("stable across thresholds" if m["verdict"]["stable"]
                      else "unstable across thresholds")


def diagnose_pairs(pairs: list[Pair], seed: int, tau: float = TAU,
                   margin: float = MARGIN) -> dict[GroupKey, dict[str, Any]]:
    """Return metrics and the reading of every (environment, target, level, mutation) group.

    Difference and equivalence p-values are Holm-adjusted over the family of every group
    that is diagnosed (not the repeat control, not an evaluator change) before it is read.
    """
    by: dict[GroupKey, list[Pair]] = defaultdict(list)
    for p in pairs:
        by[p.group].append(p)
    groups = {g: group_metrics(ps, seed, tau, margin) for g, ps in sorted(by.items())}
    add_excess_flips(groups, by, seed, tau)
    adjust_family(groups)
    for (_, _, _, mutation), m in groups.items():
        read_group(m, mutation, margin)
    return groups

