"""The store reader's queries: the episode index's filters, a key to look up, and the SQL text.

The totals are written by the rules of `store.status` (a test holds them equal), so that
SQLite reads the narrow key index instead of every wide administration row.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agentmetrology.records.episode import TERMINATIONS

KEY_FIELDS = ("campaign", "target", "task", "seed", "condition", "level", "repeat")
VERDICTS = ("PASS", "FAIL", "PARTIAL", "UNKNOWN", "INVALID")
# Administration states a user can filter on: recorded terminations, and the unrecorded ones.
STATES = ("pending", "not_launched", "recorded", "measurement_failure", *TERMINATIONS)
UNSCORED = ("UNKNOWN", "INVALID")  # a missing measurement: never averaged as a zero


@dataclass(frozen=True, slots=True)
class EpisodeFilter:
    """Filters of the episode index (all optional, all exact matches)."""

    campaign: str | None = None
    target: str | None = None
    task: str | None = None
    seed: int | None = None
    level: str | None = None
    condition: str | None = None
    status: str | None = None  # one of STATES
    verdict: str | None = None  # one of VERDICTS, of any scorer (or of `scorer`)
    scorer: str | None = None

    def where(self) -> tuple[str, list[Any]]:
        """Return the SQL WHERE clause (over `a` administrations, `e` episodes) and its values."""
        parts: list[str] = []
        values: list[Any] = []
        for name in ("campaign", "target", "task", "seed", "level", "condition"):
            v = getattr(self, name)
            if v is not None:
                parts.append(f"a.{name} = ?")
                values.append(v)
        s = self.status
        if s == "pending":
            parts.append("e.administration IS NULL")
        elif s == "not_launched":
            parts.append("e.administration IS NULL AND a.not_launched IS NOT NULL")
        elif s == "recorded":
            parts.append("e.administration IS NOT NULL")
        elif s == "measurement_failure":
            parts.append("e.measurement_failure = 1")
        elif s is not None:
            parts.append("e.termination = ?")
            values.append(s)
        if self.verdict is not None or self.scorer is not None:
            # The administrations with such an assessment, found from the assessments (a
            # scorer through its index): SQLite then looks each one up by its id, where an
            # EXISTS per administration read all of them (a million on a large store).
            conds = []
            if self.verdict is not None:
                conds.append("s.status = ?")
                values.append(self.verdict)
            if self.scorer is not None:
                conds.append("s.scorer = ?")
                values.append(self.scorer)
            parts.append("a.id IN (SELECT s.administration FROM assessments s WHERE "
                         + " AND ".join(conds) + ")")
        return (" WHERE " + " AND ".join(parts)) if parts else "", values


# The front page's totals, by the rules of store.status (same columns, grouped by campaign),
# written so that SQLite reads the narrow key index instead of every wide administration row.
SUMMARY = """
SELECT a.campaign, COUNT(*), COUNT(e.administration),
       COALESCE(SUM(e.termination = 'submitted'), 0),
       COALESCE(SUM(e.termination != 'submitted' AND e.measurement_failure = 0), 0),
       COALESCE(SUM(e.measurement_failure = 1), 0),
       TOTAL(e.cost), COALESCE(SUM(e.administration IS NOT NULL AND e.cost IS NULL), 0)
FROM administrations a LEFT JOIN episodes e ON e.administration = a.id GROUP BY a.campaign
"""
# Through the writer's partial index of the (few) administrations not launched, which SQLite
# chooses itself when the store has it (store.schema WRITER_INDEXES).
SUMMARY_NOT_LAUNCHED = """
SELECT a.campaign, COUNT(*) FROM administrations a
WHERE a.not_launched IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM episodes e WHERE e.administration = a.id)
GROUP BY a.campaign
"""
# Not recorded, and the latest attempt failed: found from the (few) failed attempts.
SUMMARY_ERRORED = """
SELECT a.campaign, COUNT(DISTINCT t.administration) FROM attempts t
JOIN administrations a ON a.id = t.administration
WHERE t.status = 'failed'
  AND NOT EXISTS (SELECT 1 FROM episodes e WHERE e.administration = t.administration)
  AND t.id = (SELECT MAX(t2.id) FROM attempts t2 WHERE t2.administration = t.administration)
GROUP BY a.campaign
"""
SUMMARY_SUPERSEDED = """
SELECT a.campaign, TOTAL(s.cost), COALESCE(SUM(s.cost IS NULL), 0)
FROM superseded_episodes s JOIN administrations a ON a.id = s.administration
GROUP BY a.campaign
"""
SUMMARY_UNRECORDED = """
SELECT a.campaign, TOTAL(b.cost), COUNT(DISTINCT CASE WHEN b.cost IS NULL THEN b.attempt END)
FROM billable_attempts b JOIN attempts t ON t.id = b.attempt
JOIN administrations a ON a.id = t.administration
WHERE NOT EXISTS (SELECT 1 FROM episodes e WHERE e.attempt = b.attempt)
  AND NOT EXISTS (SELECT 1 FROM superseded_episodes s WHERE s.attempt = b.attempt)
GROUP BY a.campaign
"""

# Through the key index alone (it covers every column here), never the wide administration
# rows; the not-launched counts come apart, from the few administrations without an episode.
GRID_PROGRESS = """
SELECT a.target, a.level, a.condition, COUNT(*), COUNT(e.administration),
       COALESCE(SUM(e.termination = 'submitted'), 0),
       COALESCE(SUM(e.termination != 'submitted' AND e.measurement_failure = 0), 0),
       COALESCE(SUM(e.measurement_failure = 1), 0),
       TOTAL(e.cost), COALESCE(SUM(e.administration IS NOT NULL AND e.cost IS NULL), 0)
FROM administrations a LEFT JOIN episodes e ON e.administration = a.id
WHERE a.campaign = ? GROUP BY a.target, a.level, a.condition
"""
# The not-launched queries name their index: the writer's partial index of the administrations
# not launched (a few hundred rows) when the store has it (NOT_LAUNCHED_INDEX), else the
# campaign's key index (SQLite's own choice, another campaign-first index, was 4x slower there).
NOT_LAUNCHED_INDEX = "administrations_not_launched"
KEY_INDEX = "sqlite_autoindex_administrations_2"
GRID_NOT_LAUNCHED = """
SELECT a.target, a.level, a.condition, COUNT(*)
FROM administrations a INDEXED BY {index}
LEFT JOIN episodes e ON e.administration = a.id
WHERE a.campaign = ? AND e.administration IS NULL AND a.not_launched IS NOT NULL
GROUP BY a.target, a.level, a.condition
"""
# Not recorded, and the latest attempt failed outside the agent (infrastructure, as in the
# store's status).
GRID_ERRORED = """
SELECT a.target, a.level, a.condition, COUNT(DISTINCT t.administration) FROM attempts t
JOIN administrations a ON a.id = t.administration
WHERE a.campaign = ? AND t.status = 'failed'
  AND NOT EXISTS (SELECT 1 FROM episodes e WHERE e.administration = t.administration)
  AND t.id = (SELECT MAX(t2.id) FROM attempts t2 WHERE t2.administration = t.administration)
GROUP BY a.target, a.level, a.condition
"""
# Measurement failures are excluded from scores, as in the store's status.
GRID_SCORES = """
SELECT a.target, a.level, a.condition, s.scorer, s.status, COUNT(*), TOTAL(s.score),
       COUNT(s.score)
FROM assessments s JOIN administrations a ON a.id = s.administration
JOIN episodes e ON e.administration = s.administration
WHERE a.campaign = ? AND e.measurement_failure = 0
GROUP BY a.target, a.level, a.condition, s.scorer, s.status
"""

# One campaign's totals beyond its grid's cells, by the rules of store.status: superseded
# measurement failures (count, known cost, unknown costs) and the billable requests of attempts
# that recorded no episode (count, known cost, attempts with an unknown cost).
CAMPAIGN_SUPERSEDED = """
SELECT COUNT(*), TOTAL(s.cost), COALESCE(SUM(s.cost IS NULL), 0)
FROM superseded_episodes s JOIN administrations a ON a.id = s.administration
WHERE a.campaign = ?
"""
CAMPAIGN_UNRECORDED = """
SELECT COUNT(*), TOTAL(b.cost), COUNT(DISTINCT CASE WHEN b.cost IS NULL THEN b.attempt END)
FROM billable_attempts b JOIN attempts t ON t.id = b.attempt
JOIN administrations a ON a.id = t.administration
WHERE a.campaign = ?
  AND NOT EXISTS (SELECT 1 FROM episodes e WHERE e.attempt = b.attempt)
  AND NOT EXISTS (SELECT 1 FROM superseded_episodes s WHERE s.attempt = b.attempt)
"""
CAMPAIGN_NOT_LAUNCHED_REASONS = """
SELECT a.not_launched, COUNT(*)
FROM administrations a INDEXED BY {index}
LEFT JOIN episodes e ON e.administration = a.id
WHERE a.campaign = ? AND e.administration IS NULL AND a.not_launched IS NOT NULL
GROUP BY a.not_launched ORDER BY a.not_launched
"""
