"""Re-grading across instrument versions: crossed decomposition, transitions, rank reversals.

For evaluator build v and task-data revision g: S(v1,g1) − S(v0,g0) = [S(v1,g0) − S(v0,g0)] +
[S(v1,g1) − S(v1,g0)], with interaction I = S(v1,g1) − S(v1,g0) − S(v0,g1) + S(v0,g0); when
I ≠ 0 the split depends on the order, so both orders are reported. A crossed cell that cannot be
computed (incompatible evaluator and data) stays visible as invalid, never dropped. The replay
gate lives in `archive.replay` and is re-exported here.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Any

from agentmetrology.archive.model import Archive, ArchiveEpisode, cell_labels
from agentmetrology.archive.replay import REPLAY_MODES, ReplayVerdict, check_replay, tool_namespace

__all__ = ["REPLAY_MODES", "ReplayVerdict", "check_replay", "compare_archives",
           "crossed_decomposition", "rank_reversals", "tool_namespace", "transitions"]

Cell = tuple[str, str]  # (evaluator build, task-data revision)
EpisodeKey = tuple[str, str, str, int]  # (task, model, scaffold, trial)


def _diff(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a - b


def crossed_decomposition(scores: Mapping[Cell, float | None], v0: str, v1: str, g0: str,
                          g1: str) -> dict[str, Any]:
    """Return the total change, both orders of evaluator/data parts, I, and invalid cells."""
    s = {c: scores.get(c) for c in ((v0, g0), (v1, g0), (v0, g1), (v1, g1))}
    s00, s10, s01, s11 = s[(v0, g0)], s[(v1, g0)], s[(v0, g1)], s[(v1, g1)]
    inter = None if None in (s00, s10, s01, s11) else s11 - s10 - s01 + s00  # type: ignore[operator]
    evaluator_first = {"evaluator": _diff(s10, s00), "data": _diff(s11, s10),
                       "valid": s10 is not None}
    data_first = {"data": _diff(s01, s00), "evaluator": _diff(s11, s01), "valid": s01 is not None}
    orders: dict[str, Any] = {"evaluator_first": evaluator_first}
    if inter is None or abs(inter) > 1e-12:
        orders["data_first"] = data_first  # the split is order-dependent (or unknown)
    return {
        "cells": [{"evaluator": v, "data": g, "score": val, "valid": val is not None}
                  for (v, g), val in s.items()],
        "total": _diff(s11, s00), "interaction": inter, "orders": orders,
        "invalid_cells": [f"{v}|{g}" for (v, g), val in s.items() if val is None],
    }


def transitions(old: Mapping[EpisodeKey, bool], new: Mapping[EpisodeKey, bool]) -> dict[str, Any]:
    """Return n00, n01, n10, n11, net change and flip fraction over the common episodes."""
    common = sorted(set(old) & set(new))
    n = {"n00": 0, "n01": 0, "n10": 0, "n11": 0}
    for key in common:
        n[f"n{int(old[key])}{int(new[key])}"] += 1
    flips = n["n01"] + n["n10"]
    total = len(common)
    # net is a fraction, (n01 - n10)/N, as in stats.flips (docs/archive.md); the count apart.
    return {**n, "n": total, "net_count": n["n01"] - n["n10"], "flips": flips,
            "flip_fraction": float(Fraction(flips, total)) if total else None,
            "net": float(Fraction(n["n01"] - n["n10"], total)) if total else None}


def _written(value: float) -> Decimal:
    """Return a rate as the decimal it is written as (its shortest repr): in binary 0.50 − 0.49
    is 0.010000000000000009 and 0.18 − 0.17 is 0.009999999999999981, so two pairs exactly one
    tie tolerance (0.01) apart were a reversal and a tie; as written, both differ by 0.01."""
    return Decimal(repr(value))


def rank_reversals(s0: Mapping[str, float], s1: Mapping[str, float],
                   tol: float = 0.0) -> dict[str, Any]:
    """Return strict reversals (d0·d1 < 0) and ties among the n(n−1)/2 pairs of common units;
    a pair within `tol` on either side is a tie, never a reversal."""
    units = sorted(set(s0) & set(s1))
    pairs = reversals = ties = 0
    limit = _written(tol)
    listed = []
    for i, a in enumerate(units):
        for b in units[i + 1:]:
            pairs += 1
            d0, d1 = s0[a] - s0[b], s1[a] - s1[b]
            e0, e1 = _written(s0[a]) - _written(s0[b]), _written(s1[a]) - _written(s1[b])
            if abs(e0) <= limit or abs(e1) <= limit:
                ties += 1
            elif (e0 > 0) != (e1 > 0):
                reversals += 1
                listed.append({"a": a, "b": b, "d_old": d0, "d_new": d1})
    return {"units": len(units), "pairs": pairs, "strict_reversals": reversals, "ties": ties,
            "reversed_pairs": listed[:200]}


def _key(ep: ArchiveEpisode) -> EpisodeKey:
    return (ep.task, ep.model, ep.scaffold, ep.trial)


def _graded(archive: Archive) -> dict[EpisodeKey, bool]:
    return {_key(e): e.outcome == "pass" for e in archive.episodes
            if e.outcome in ("pass", "fail")}


def _cohort_scores(old: dict[EpisodeKey, bool], new: dict[EpisodeKey, bool]
                   ) -> tuple[dict[str, float], dict[str, float], int]:
    """Return per-unit pass rates on the cohort of (task, trial) graded in both for every unit."""
    common = set(old) & set(new)
    labels = cell_labels((key[1], key[2]) for key in common)
    units: dict[str, set[tuple[str, int]]] = defaultdict(set)
    for key in common:
        units[labels[key[1], key[2]]].add((key[0], key[3]))
    if not units:
        return {}, {}, 0
    cohort = set.intersection(*units.values())
    s0: dict[str, float] = {}
    s1: dict[str, float] = {}
    for key in common:
        unit = labels[key[1], key[2]]
        if (key[0], key[3]) in cohort:
            s0[unit] = s0.get(unit, 0.0) + old[key]
            s1[unit] = s1.get(unit, 0.0) + new[key]
    size = len(cohort)
    return ({u: v / size for u, v in s0.items()}, {u: v / size for u, v in s1.items()}, size)


def _score(archive: Archive) -> float | None:
    """Return the score as stored: passes over every episode (ungraded stored as 0)."""
    eps = archive.episodes
    return float(Fraction(sum(e.outcome == "pass" for e in eps), len(eps))) if eps else None


def _score_graded(archive: Archive) -> float | None:
    """Return passes over graded episodes (None when nothing is graded)."""
    g = _graded(archive)
    return float(Fraction(sum(g.values()), len(g))) if g else None


def _cell_counts(archive: Archive | None) -> dict[str, int] | None:
    if archive is None:
        return None
    outcomes = [e.outcome for e in archive.episodes]
    return {"episodes": len(outcomes), "graded": sum(o in ("pass", "fail") for o in outcomes),
            "invalid_replay": outcomes.count("invalid_replay"),
            "ungraded": outcomes.count("ungraded")}


def crossed_cells(cells: Mapping[tuple[str, str], Archive | None]
                  ) -> tuple[dict[tuple[str, str], float | None], int]:
    """Return each crossed cell's pass rate on the cohort graded in every available cell.

    An invalid replay or an ungraded episode is never a failure: scoring each cell on its own
    denominator would report a change of coverage as an evaluator effect. A missing archive, or
    one with nothing graded on the cohort, is an invalid cell (None).
    """
    graded = {c: g for c, a in cells.items() if a is not None and (g := _graded(a))}
    cohort = set.intersection(*(set(g) for g in graded.values())) if graded else set()
    out: dict[tuple[str, str], float | None] = {}
    for c in cells:
        cell = graded.get(c)
        out[c] = (float(Fraction(sum(cell[k] for k in cohort), len(cohort)))
                  if cell is not None and cohort else None)
    return out, len(cohort)


def _warnings(doc: dict[str, Any]) -> list[str]:
    """Return plain warnings when the comparison has little or nothing to compare."""
    both, graded_both = doc["episodes_in_both"], doc["transitions"]["n"]
    if both == 0:
        return [f"the archives share no episode (same task, model, scaffold and trial): "
                f"{doc['old']['episodes']} old and {doc['new']['episodes']} new episodes, "
                "nothing compared; are they runs of the same tasks?"]
    out = []
    if graded_both == 0:
        out.append(f"{both} episode(s) are in both archives but none is graded in both: "
                   "no transition can be counted")
    if doc["only_old"] or doc["only_new"]:
        out.append(f"{doc['only_old']} episode(s) only in the old and {doc['only_new']} only in "
                   "the new archive are not compared")
    return out


def compare_archives(old: Archive, new: Archive, crossed: Sequence[Archive | None] = ()
                     ) -> dict[str, Any]:
    """Return compare.json: transitions, flip fraction, rank reversals (and crossed cells)."""
    g_old, g_new = _graded(old), _graded(new)
    keys_old, keys_new = {_key(e) for e in old.episodes}, {_key(e) for e in new.episodes}
    s0, s1, cohort = _cohort_scores(g_old, g_new)
    out: dict[str, Any] = {
        "old": {"source": old.source, "format": old.format, "episodes": len(old.episodes),
                "graded": len(g_old), "score_stored": _score(old),
                "score_graded": _score_graded(old)},
        "new": {"source": new.source, "format": new.format, "episodes": len(new.episodes),
                "graded": len(g_new), "score_stored": _score(new),
                "score_graded": _score_graded(new)},
        "episodes_in_both": len(keys_old & keys_new),
        "only_old": len(keys_old - keys_new), "only_new": len(keys_new - keys_old),
        "not_comparable": len((keys_old & keys_new) - (set(g_old) & set(g_new))),
        "transitions": transitions(g_old, g_new),
        "rank": {"cohort_episodes_per_unit": cohort, "scores_old": s0, "scores_new": s1,
                 **rank_reversals(s0, s1)},
    }
    out["warnings"] = _warnings(out)
    if len(crossed) == 2:
        v10, v01 = crossed
        archives = {("v0", "g0"): old, ("v1", "g1"): new, ("v1", "g0"): v10,
                    ("v0", "g1"): v01}
        scores, cohort_size = crossed_cells(archives)
        out["crossed"] = crossed_decomposition(scores, "v0", "v1", "g0", "g1")
        out["crossed"]["cohort_episodes"] = cohort_size
        out["crossed"]["cell_counts"] = {f"{v}|{g}": _cell_counts(a)
                                         for (v, g), a in archives.items()}
    return out
