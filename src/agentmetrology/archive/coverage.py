"""Coverage: outcome categories, denominators, identification bounds, tie thresholds, pass^k.

With graded fraction f and stored score S_stored (ungraded counted as 0), the score over all
planned episodes is only partially identified: S_stored <= S_all <= S_stored + (1 − f). These
are worst-case bounds, not confidence intervals. All ratios are computed from integer counts with
exact fractions, so the reference values of docs/archive.md reproduce exactly.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from agentmetrology.archive.model import REASONS, Archive, ArchiveEpisode, cell_labels
from agentmetrology.archive.passk import pass_hat_k_curve

_LETTER = {"pass": "P", "fail": "F", "ungraded": "U", "invalid_replay": "I"}
MAX_LISTED = 1000  # longest episode list written into archive.json (counts are always complete)
MAX_K_ROWS = 100  # pass^k rows listed per cell; the omitted count is reported


@dataclass(frozen=True, slots=True)
class Bounds:
    """A worst-case identification interval [lower, upper]."""

    lower: float
    upper: float


@dataclass(frozen=True, slots=True)
class TieThreshold:
    """q_A*(q_B) = intercept + slope * q_B, its values at q_B = 0 and 1, and if a tie can occur."""

    intercept: float | None
    slope: float | None
    at_qb0: float | None
    at_qb1: float | None
    possible: bool


def identification_bounds(s_stored: float, graded_fraction: float) -> Bounds:
    """Return [S_stored, S_stored + (1 − f)] for a stored score and graded fraction f."""
    return Bounds(s_stored, s_stored + (1.0 - graded_fraction))


def bounds_from_counts(planned: int, passes: int, graded: int) -> Bounds:
    """Return the identification bounds computed exactly from integer counts."""
    if planned <= 0:
        raise ValueError("planned must be positive")
    s = Fraction(passes, planned)
    return Bounds(float(s), float(s + 1 - Fraction(graded, planned)))


def difference_bounds(delta_stored: float, f_a: float, f_b: float) -> Bounds:
    """Return [Δ_stored − (1 − f_B), Δ_stored + (1 − f_A)] for Δ = S_A − S_B."""
    return Bounds(delta_stored - (1.0 - f_b), delta_stored + (1.0 - f_a))


def tie_threshold(n_a: int, p_a: int, u_a: int, n_b: int, p_b: int, u_b: int) -> TieThreshold:
    """Return q_A*(q_B) = (N_A/U_A)(P_B/N_B − P_A/N_A + (U_B/N_B) q_B) from integer counts."""
    if u_a == 0:  # S_A is fixed: a tie needs it inside B's range
        s_a = Fraction(p_a, n_a)
        possible = Fraction(p_b, n_b) <= s_a <= Fraction(p_b + u_b, n_b)
        return TieThreshold(None, None, None, None, possible)
    scale = Fraction(n_a, u_a)
    intercept = scale * (Fraction(p_b, n_b) - Fraction(p_a, n_a))
    slope = scale * Fraction(u_b, n_b)
    lo, hi = intercept, intercept + slope
    return TieThreshold(float(intercept), float(slope), float(lo), float(hi),
                        possible=hi >= 0 and lo <= 1)


def _ratio(num: int, den: int) -> float | None:
    return float(Fraction(num, den)) if den else None


def exact_mean(values: Sequence[float]) -> float:
    """Return the mean of `values` computed exactly and rounded once (a Fraction per distinct
    value times its count: an archive's scores take few values, and a Fraction per episode
    was most of a 10,000-episode coverage section)."""
    total = sum((Fraction(v) * n for v, n in Counter(values).items()), Fraction(0))
    return float(total / len(values))


def cell_summary(episodes: Sequence[ArchiveEpisode]) -> dict[str, Any]:
    """Return counts, the three denominators, reasons, scores and bounds for one cell."""
    counts = Counter(e.outcome for e in episodes)
    planned = len(episodes)
    graded = counts["pass"] + counts["fail"]
    passes = counts["pass"]
    # A measurement failure is never a score: values an archive wrote for unresolved episodes
    # (tau-bench stores 0) are counted and excluded, never averaged in.
    stored = [e.stored_score for e in episodes
              if e.stored_score is not None and e.outcome in ("pass", "fail")]
    excluded = sum(1 for e in episodes if e.outcome in ("ungraded", "invalid_replay"))
    recovered = [e.recovered for e in episodes if e.grade is None and e.recovered is not None]
    out: dict[str, Any] = {
        "planned": planned, "graded": graded, "valid_recovered": graded + len(recovered),
        "recovered": len(recovered), "recovered_pass": sum(g.passed for g in recovered),
        "counts": {k: counts.get(k, 0) for k in ("pass", "fail", "ungraded", "invalid_replay")},
        "reasons": dict(sorted(Counter(e.reason for e in episodes
                                       if e.outcome in ("ungraded", "invalid_replay")
                                       and e.reason).items())),
        "graded_fraction": _ratio(graded, planned),
        "ungraded_share": _ratio(planned - graded, planned),
        "score_graded_only": _ratio(passes, graded),
        "score_stored": _ratio(passes, planned),
        "stored_values": {"count": len(stored),
                          "mean": exact_mean(stored) if stored else None,
                          "excluded_unresolved": excluded},
        "bounds": None,
    }
    if planned:
        b = bounds_from_counts(planned, passes, graded)
        out["bounds"] = {"lower": b.lower, "upper": b.upper, "width": _ratio(planned - graded,
                                                                             planned)}
    return out


def by_cell(episodes: Sequence[ArchiveEpisode]) -> dict[str, list[ArchiveEpisode]]:
    """Return episodes grouped by cell (model, scaffold), keyed by label, in sorted label order."""
    labels = cell_labels((ep.model, ep.scaffold) for ep in episodes)
    groups: dict[str, list[ArchiveEpisode]] = defaultdict(list)
    for ep in episodes:
        groups[labels[ep.model, ep.scaffold]].append(ep)
    return dict(sorted(groups.items()))


def _pairs(cells: dict[str, dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Return difference bounds and tie thresholds for every pair of cells."""
    diffs, ties = [], []
    names = sorted(cells)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            ca, cb = cells[a], cells[b]
            if not ca["planned"] or not cb["planned"]:
                continue
            na, nb = ca["planned"], cb["planned"]
            pa, pb = ca["counts"]["pass"], cb["counts"]["pass"]
            ua, ub = na - ca["graded"], nb - cb["graded"]
            delta = Fraction(pa, na) - Fraction(pb, nb)
            diffs.append({"a": a, "b": b, "delta_stored": float(delta),
                          "lower": float(delta - Fraction(ub, nb)),
                          "upper": float(delta + Fraction(ua, na)),
                          "sign_identified": delta - Fraction(ub, nb) > 0
                          or delta + Fraction(ua, na) < 0})
            lo, hi = (a, b) if Fraction(pa, na) <= Fraction(pb, nb) else (b, a)
            cl, ch = cells[lo], cells[hi]
            t = tie_threshold(cl["planned"], cl["counts"]["pass"], cl["planned"] - cl["graded"],
                              ch["planned"], ch["counts"]["pass"], ch["planned"] - ch["graded"])
            ties.append({"a": lo, "b": hi, "intercept": t.intercept, "slope": t.slope,
                         "at_qb0": t.at_qb0, "at_qb1": t.at_qb1, "possible": t.possible})
    return diffs, ties


def coverage(archive: Archive) -> dict[str, Any]:
    """Return the coverage section of archive.json: cells, overall, ungraded list, pairs."""
    groups = by_cell(archive.episodes)
    cells = {name: cell_summary(eps) for name, eps in groups.items()}
    diffs, ties = _pairs(cells)
    unresolved = [e for e in archive.episodes if e.outcome in ("ungraded", "invalid_replay")]
    # the labels of `cells` (by_cell's), not the plain label two coinciding cells share
    labels = cell_labels((e.model, e.scaffold) for e in archive.episodes)
    return {
        "overall": cell_summary(archive.episodes),
        "cells": [{"cell": name, **summary} for name, summary in cells.items()],
        "unresolved_episodes": [
            {"episode_id": e.episode_id, "cell": labels[e.model, e.scaffold], "task": e.task,
             "trial": e.trial,
             "outcome": e.outcome, "score": None, "reason": e.reason,
             "detail": e.reason_detail,
             "stored_score": e.stored_score, "termination": e.termination}
            for e in unresolved[:MAX_LISTED]],
        "unresolved_listed": min(len(unresolved), MAX_LISTED),
        "reason_codes": {code: REASONS.get(code, code) for code in
                         sorted({e.reason for e in unresolved if e.reason})},
        "differences": diffs,
        "ties": ties,
        "recovery": archive.recovery or {
            "available": False,
            "reason": "grade recovery by replay applies to our own evidence store (format "
                      "agm) only; valid_recovered equals graded"},
    }


def pass_k_section(archive: Archive) -> list[dict[str, Any]]:
    """Return pass^k per cell: as stored (unresolved = failure) and the upper bound."""
    out = []
    for name, eps in by_cell(archive.episodes).items():
        tasks: dict[str, Counter[str]] = defaultdict(Counter)
        for ep in eps:
            tasks[ep.task][ep.outcome] += 1
        stored = [(sum(c.values()), c["pass"]) for c in tasks.values()]
        upper = [(n, n - c["fail"]) for (n, _), c in zip(stored, tasks.values(), strict=True)]
        trials = sorted({n for n, _ in stored})
        k_all = trials[0] if trials else 0
        k_rows = min(k_all, MAX_K_ROWS)
        lo, hi = pass_hat_k_curve(stored, k_rows), pass_hat_k_curve(upper, k_rows)
        rows = [{"k": k, "stored": lo[k - 1], "upper": hi[k - 1]} for k in range(1, k_rows + 1)]
        out.append({"cell": name, "tasks": len(tasks), "trials_per_task": trials,
                    "tasks_with_unresolved": sum(1 for c in tasks.values()
                                                 if c["ungraded"] + c["invalid_replay"]),
                    "unresolved_episodes": sum(c["ungraded"] + c["invalid_replay"]
                                               for c in tasks.values()),
                    "rows": rows, "k_defined": k_all, "k_rows_omitted": k_all - k_rows})
    return out


def task_view(archive: Archive) -> dict[str, Any]:
    """Return per-task outcome strings, listing tasks whose outcomes differ across trials."""
    mixed, counts = [], Counter[str]()
    for name, eps in by_cell(archive.episodes).items():
        tasks: dict[str, list[ArchiveEpisode]] = defaultdict(list)
        for ep in eps:
            tasks[ep.task].append(ep)
        for task in sorted(tasks, key=lambda t: (len(t), t)):
            trials = sorted(tasks[task], key=lambda e: e.trial)
            c = Counter(e.outcome for e in trials)
            counts["tasks"] += 1
            counts["always_pass"] += int(set(c) == {"pass"})
            counts["always_fail"] += int(set(c) == {"fail"})
            counts["with_unresolved"] += int(bool(c["ungraded"] + c["invalid_replay"]))
            counts["pass_and_fail"] += int(c["pass"] > 0 and c["fail"] > 0)
            if len(c) > 1:
                counts["mixed"] += 1
                mixed.append({"cell": name, "task": task, "trials": len(trials),
                              "pass": c["pass"], "fail": c["fail"], "ungraded": c["ungraded"],
                              "invalid_replay": c["invalid_replay"],
                              "outcomes": "".join(_LETTER[e.outcome] for e in trials)})
    keys = ("tasks", "mixed", "pass_and_fail", "always_pass", "always_fail", "with_unresolved")
    return {"counts": {k: counts.get(k, 0) for k in keys}, "mixed": mixed}
