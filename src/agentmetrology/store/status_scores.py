"""A campaign's scores per target and scorer: the mean over measured episodes, and what it left
out and why.

Every target of the plan has an entry for every scorer of the campaign, measured or not: a
target whose every episode was a measurement failure gets null statistics and the count of the
episodes it excluded, never a missing entry (which reads as a target that does not exist). The
reasons are the words `agm stats` uses for the same rows of an export: "measurement failure"
(with the episodes' termination details), "status UNKNOWN", "status INVALID", "value null"
(a verdict without a score) and "not assessed" (no verdict of that scorer).
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

UNMEASURED = frozenset({"UNKNOWN", "INVALID"})  # a missing measurement: never a zero
MAX_DETAILS = 20  # failure details listed per target, as `agm stats`; the count is complete

# Measurement failures are excluded from agent scores (they say nothing about the agent).
_SCORES = """
SELECT a.target, s.scorer, s.status, COUNT(*), TOTAL(s.score), COUNT(s.score)
FROM assessments s JOIN administrations a ON a.id = s.administration
JOIN episodes e ON e.administration = s.administration
WHERE a.campaign = ? AND e.measurement_failure = 0
GROUP BY a.target, s.scorer, s.status
"""
# Every scorer that assessed an episode of the campaign, measurement failures' (UNKNOWN)
# included: a target none of whose episodes was measured still has its columns.
_SCORERS = """
SELECT DISTINCT s.scorer FROM assessments s JOIN administrations a ON a.id = s.administration
WHERE a.campaign = ?
"""
# The scorers the plan sealed in its first binding: a campaign with nothing recorded yet.
_FIRST_BINDING = """
SELECT binding FROM administrations WHERE campaign = ? ORDER BY ordinal LIMIT 1
"""
# Why each target's measurement failures failed, as an export's `measurement_failure` says it.
_FAILURES = """
SELECT a.target, e.termination || ': ' || e.termination_detail, COUNT(*)
FROM administrations a JOIN episodes e ON e.administration = a.id
WHERE a.campaign = ? AND e.measurement_failure = 1
GROUP BY a.target, e.termination, e.termination_detail
"""


def campaign_scores(conn: sqlite3.Connection, name: str, recorded: Mapping[str, int]
                    ) -> dict[str, dict[str, dict[str, Any]]]:
    """Return {target: {scorer: n, statuses, scored, mean_score, excluded}} for every target of
    `recorded` ({target: recorded episodes}) and every scorer of campaign `name`.

    `n` and `statuses` count the verdicts on episodes that are not measurement failures;
    `excluded` is {"count", "by_reason": {reason: {"count"[, "details"]}}} over every recorded
    episode without a measured score, so `scored + excluded.count` is the recorded count.
    """
    acc: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for target, scorer, status, n, total, scored in conn.execute(_SCORES, (name,)):
        s = acc[target].setdefault(scorer, {"n": 0, "statuses": {}, "_sum": 0.0, "_scored": 0})
        s["n"] += n
        s["statuses"][status] = n
        if status not in UNMEASURED:  # a missing measurement is never a zero
            s["_sum"] += total
            s["_scored"] += scored
    failures = _failures(conn, name)
    scorers = sorted({*_scorers(conn, name), *(sc for per in acc.values() for sc in per)})
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for target in sorted(recorded):
        out[target] = {}
        for scorer in scorers:
            s = acc[target].get(scorer) or {"n": 0, "statuses": {}, "_sum": 0.0, "_scored": 0}
            scored = s.pop("_scored")
            total = s.pop("_sum")
            s["mean_score"] = round(total / scored, 6) if scored else None
            s["scored"] = scored
            s["excluded"] = _excluded(s, recorded[target], failures.get(target, {}))
            out[target][scorer] = s
    return out


def _excluded(s: dict[str, Any], recorded: int, failures: dict[str, int]) -> dict[str, Any]:
    """Return the count and reasons of the recorded episodes without a measured score."""
    by_reason: dict[str, dict[str, Any]] = {}
    failed = sum(failures.values())
    if failed:
        top = sorted(failures.items(), key=lambda kv: (-kv[1], kv[0]))[:MAX_DETAILS]
        by_reason["measurement failure"] = {"count": failed, "details": dict(top)}
    statuses: dict[str, int] = s["statuses"]
    for status in sorted(UNMEASURED):
        if statuses.get(status):
            by_reason[f"status {status}"] = {"count": statuses[status]}
    measured = sum(n for st, n in statuses.items() if st not in UNMEASURED)
    if measured > s["scored"]:  # a PASS/FAIL/PARTIAL verdict that carries no score
        by_reason["value null"] = {"count": measured - s["scored"]}
    if (missing := recorded - failed - s["n"]) > 0:
        by_reason["not assessed"] = {"count": missing}
    return {"count": sum(r["count"] for r in by_reason.values()),
            "by_reason": dict(sorted(by_reason.items()))}


def _failures(conn: sqlite3.Connection, name: str) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = defaultdict(dict)
    for target, why, n in conn.execute(_FAILURES, (name,)):
        out[target][str(why)] = int(n)
    return out


def _scorers(conn: sqlite3.Connection, name: str) -> set[str]:
    """Return the campaign's scorers: those that assessed an episode, else the plan's."""
    found = {str(r[0]) for r in conn.execute(_SCORERS, (name,))}
    if found:
        return found
    row = conn.execute(_FIRST_BINDING, (name,)).fetchone()
    try:
        versions = json.loads(row[0]).get("scorer_versions") if row else None
    except (ValueError, TypeError, AttributeError):  # not a binding: verify says so, not this
        return set()
    return {str(k) for k in versions} if isinstance(versions, dict) else set()
