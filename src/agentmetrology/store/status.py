"""What a campaign's ledger says: planned, done, failed (agent vs infrastructure), cost so far.

Superseded measurement failures (re-opened by a retrying run) were billed: their cost, tokens
and unknown costs count in the totals, and are also reported on their own. So were the provider
requests of attempts that never recorded an episode (a killed or failed run): the ledger has
them in `billable_attempts`, written as each response arrived, and they count in the totals too
(and on their own as `unrecorded_*`). A recorded episode's requests are counted once, through
the episode.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from agentmetrology.records.episode import MEASUREMENT_FAILURES, EpisodeKey
from agentmetrology.store.blobs import BlobCorruptError
from agentmetrology.store.schema import SERVED_EPISODE_SQL, TOKENS_UNKNOWN_SQL
from agentmetrology.store.status_scores import UNMEASURED, campaign_scores

# Read through the key index alone (campaign, target, ...: it covers every column used here),
# never the administrations' rows, whose sealed bindings make them large: on a big store that
# was most of the time. The sums run in the same order as before (the index's).
_EPISODE_COUNTS = f"""
SELECT a.target,
       COUNT(*),
       COUNT(e.administration),
       COALESCE(SUM(e.termination = 'submitted'), 0),
       COALESCE(SUM(e.termination != 'submitted' AND e.measurement_failure = 0), 0),
       COALESCE(SUM(e.measurement_failure = 1), 0),
       COALESCE(SUM(e.administration IS NOT NULL AND e.cost IS NULL), 0),
       TOTAL(e.cost), TOTAL(e.input_tokens), TOTAL(e.output_tokens),
       COALESCE(SUM({SERVED_EPISODE_SQL}), 0)
FROM administrations a LEFT JOIN episodes e ON e.administration = a.id
WHERE a.campaign = ? GROUP BY a.target
"""
# Counts only (no sum whose order could matter), so they walk the administrations in plan order
# (the (campaign, ordinal) index, the second UNIQUE constraint), which reads the attempts
# table in the order it was written instead of jumping about it.
_PLAN_ORDER = "administrations a INDEXED BY sqlite_autoindex_administrations_2"
_ATTEMPT_COUNTS = f"""
SELECT a.target, t.status, COUNT(*) FROM {_PLAN_ORDER}
JOIN attempts t ON a.id = t.administration
WHERE a.campaign = ? GROUP BY a.target, t.status
"""
# Not yet recorded, and the latest attempt ended in an execution error: an infrastructure
# failure waiting for the next run.
_ERRORED = f"""
SELECT a.target, COUNT(*) FROM {_PLAN_ORDER}
WHERE a.campaign = ?
  AND NOT EXISTS (SELECT 1 FROM episodes e WHERE e.administration = a.id)
  AND (SELECT t.status FROM attempts t WHERE t.administration = a.id
       ORDER BY t.id DESC LIMIT 1) = 'failed'
GROUP BY a.target
"""
_NOT_LAUNCHED = f"""
SELECT a.not_launched, a.target, COUNT(*) FROM {_PLAN_ORDER}
LEFT JOIN episodes e ON e.administration = a.id
WHERE a.campaign = ? AND e.administration IS NULL AND a.not_launched IS NOT NULL
GROUP BY a.not_launched, a.target
"""
# Billable requests of attempts without a recorded (or superseded) episode: interrupted, failed,
# or still running. An attempt with any request of unknown cost counts once as unknown.
_UNRECORDED = """
SELECT a.target, COUNT(*), TOTAL(b.cost),
       COUNT(DISTINCT CASE WHEN b.cost IS NULL THEN b.attempt END),
       TOTAL(b.input_tokens), TOTAL(b.output_tokens)
FROM billable_attempts b JOIN attempts t ON t.id = b.attempt
JOIN administrations a ON a.id = t.administration
WHERE a.campaign = ?
  AND NOT EXISTS (SELECT 1 FROM episodes e WHERE e.attempt = b.attempt)
  AND NOT EXISTS (SELECT 1 FROM superseded_episodes s WHERE s.attempt = b.attempt)
GROUP BY a.target
"""
# Provider requests whose input or output token count is unknown (a timeout, a cancelled request,
# an answer without usable usage), recorded or not: the token totals are a lower bound then.
_TOKENS_UNKNOWN = f"""
SELECT a.target, COUNT(*)
FROM billable_attempts b JOIN attempts t ON t.id = b.attempt
JOIN administrations a ON a.id = t.administration
WHERE a.campaign = ? AND {TOKENS_UNKNOWN_SQL}
GROUP BY a.target
"""
_SUPERSEDED = """
SELECT a.target, COUNT(*), TOTAL(s.cost), COALESCE(SUM(s.cost IS NULL), 0),
       TOTAL(s.input_tokens), TOTAL(s.output_tokens)
FROM superseded_episodes s JOIN administrations a ON a.id = s.administration
WHERE a.campaign = ? GROUP BY a.target
"""


@dataclass(frozen=True, slots=True)
class Counts:
    """Administration counts and spending of a campaign or one of its targets."""

    planned: int = 0
    done: int = 0
    submitted: int = 0
    failed_agent: int = 0  # recorded; the agent did not submit (its own failure)
    failed_infra: int = 0  # recorded as a measurement failure (infra_error, cancelled)
    errored: int = 0  # not recorded; its latest attempt failed outside the agent
    not_launched: int = 0  # not recorded; the last run did not launch it (budget)
    interrupted_attempts: int = 0
    failed_attempts: int = 0
    cost: float = 0.0  # the known part of the cost; the total is unknown if cost_unknown > 0
    # Episodes (superseded included) and unrecorded attempts whose cost is unknown.
    cost_unknown: int = 0
    input_tokens: int = 0  # the known part; a lower bound if tokens_unknown > 0
    output_tokens: int = 0
    # provider requests whose token counts are unknown, and episodes served to an outside
    # client (each counts once: its requests are the client's, never seen here)
    tokens_unknown: int = 0
    superseded: int = 0  # measurement failures re-opened and kept as history
    superseded_cost: float = 0.0  # their known cost (already included in `cost`)
    superseded_cost_unknown: int = 0  # of them, how many have unknown cost (in cost_unknown)
    # Provider requests of attempts without a recorded episode (interrupted, failed, running).
    unrecorded_requests: int = 0
    unrecorded_cost: float = 0.0  # their known cost (already included in `cost`)
    unrecorded_cost_unknown: int = 0  # attempts among them with unknown cost (in cost_unknown)

    @property
    def remaining(self) -> int:
        """Return planned administrations without a recorded episode."""
        return self.planned - self.done

    @property
    def failed(self) -> int:
        """Return every failure: agent, recorded infrastructure, and errored attempts."""
        return self.failed_agent + self.failed_infra + self.errored

    def plus(self, other: Counts) -> Counts:
        """Return the field-wise sum of two counts."""
        return Counts(**{k: v + getattr(other, k) for k, v in asdict(self).items()})

    def to_json(self) -> dict[str, Any]:
        """Return the counts as plain data, derived counts included."""
        out = asdict(self)
        # `cost` is null when any part is unknown (never a silent 0); `cost_known` is the part
        # that is known, a lower bound then.
        out.update(remaining=self.remaining, failed=self.failed,
                   failed_infrastructure=self.failed_infra + self.errored,
                   cost=None if self.cost_unknown else round(self.cost, 6),
                   cost_known=round(self.cost, 6),
                   # tokens likewise: null when any request's count is unknown
                   input_tokens=None if self.tokens_unknown else self.input_tokens,
                   output_tokens=None if self.tokens_unknown else self.output_tokens,
                   input_tokens_known=self.input_tokens,
                   output_tokens_known=self.output_tokens,
                   superseded_cost=round(self.superseded_cost, 6),
                   unrecorded_cost=round(self.unrecorded_cost, 6))
        return out


@dataclass(frozen=True, slots=True)
class CampaignStatus:
    """The state of one campaign: totals, per-target counts and per-scorer summaries."""

    campaign: str
    registration_id: str
    plan_digest: str
    total: Counts
    targets: dict[str, Counts]
    scores: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    not_launched_reasons: dict[str, int] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        """Return True when every planned administration has a recorded episode."""
        return self.total.remaining == 0

    @property
    def unmeasured_targets(self) -> list[str]:
        """Return the targets with recorded episodes that are all measurement failures
        (nothing about them was measured: a dead endpoint, an unset key)."""
        return [t for t, c in self.targets.items() if c.done and c.failed_infra == c.done]

    def to_json(self) -> dict[str, Any]:
        """Return the status as plain JSON data."""
        return {"campaign": self.campaign, "registration_id": self.registration_id,
                "plan_digest": self.plan_digest, "complete": self.complete,
                "total": self.total.to_json(),
                "targets": {t: c.to_json() for t, c in self.targets.items()},
                "scores": self.scores, "not_launched_reasons": self.not_launched_reasons}


def campaign_status(conn: sqlite3.Connection, campaign: dict[str, Any]) -> CampaignStatus:
    """Return the status of a campaign row from the ledger connection."""
    name = campaign["name"]
    per: dict[str, Counts] = {}
    reasons: dict[str, int] = {}
    launch: dict[str, int] = defaultdict(int)
    for reason, target, n in conn.execute(_NOT_LAUNCHED, (name,)):
        reasons[str(reason)] = reasons.get(str(reason), 0) + int(n)
        launch[target] += int(n)
    for r in conn.execute(_EPISODE_COUNTS, (name,)):
        per[r[0]] = Counts(planned=r[1], done=r[2], submitted=r[3], failed_agent=r[4],
                           failed_infra=r[5], not_launched=launch.get(r[0], 0),
                           cost_unknown=r[6], cost=float(r[7]), input_tokens=int(r[8]),
                           output_tokens=int(r[9]), tokens_unknown=int(r[10]))
    for target, status, n in conn.execute(_ATTEMPT_COUNTS, (name,)):
        if status in ("interrupted", "failed"):
            per[target] = replace(per[target], **{f"{status}_attempts": n})
    for target, n in conn.execute(_ERRORED, (name,)):
        per[target] = replace(per[target], errored=n)
    for target, n, cost, unknown, tin, tout in conn.execute(_SUPERSEDED, (name,)):
        c = per[target]
        per[target] = replace(c, superseded=n, superseded_cost=float(cost),
                              superseded_cost_unknown=unknown,
                              cost=c.cost + float(cost), cost_unknown=c.cost_unknown + unknown,
                              input_tokens=c.input_tokens + int(tin),
                              output_tokens=c.output_tokens + int(tout))
    for target, n, cost, unknown, tin, tout in conn.execute(_UNRECORDED, (name,)):
        c = per[target]
        per[target] = replace(c, unrecorded_requests=n, unrecorded_cost=float(cost),
                              unrecorded_cost_unknown=unknown,
                              cost=c.cost + float(cost), cost_unknown=c.cost_unknown + unknown,
                              input_tokens=c.input_tokens + int(tin),
                              output_tokens=c.output_tokens + int(tout))
    for target, n in conn.execute(_TOKENS_UNKNOWN, (name,)):  # beside served episodes'
        per[target] = replace(per[target], tokens_unknown=per[target].tokens_unknown + int(n))
    total = Counts()
    for c in per.values():
        total = total.plus(c)
    return CampaignStatus(name, campaign["registration_id"], campaign["plan_digest"], total,
                          dict(sorted(per.items())),
                          campaign_scores(conn, name, {t: c.done for t, c in per.items()}),
                          reasons)


_FAILURE_REASONS = """
SELECT e.termination_detail, COUNT(*) AS n
FROM administrations a JOIN episodes e ON e.administration = a.id
WHERE a.campaign = ? AND a.target = ? AND e.measurement_failure = 1
GROUP BY e.termination_detail ORDER BY n DESC, e.termination_detail LIMIT ?
"""


def failure_reasons(conn: sqlite3.Connection, campaign: str, target: str,
                    limit: int = 3) -> list[tuple[str, int]]:
    """Return the most frequent reasons of a target's recorded measurement failures, with
    how many episodes gave each (most frequent first)."""
    return [(str(r), int(n)) for r, n in conn.execute(_FAILURE_REASONS,
                                                      (campaign, target, limit))]


# One row per assessment of each recorded episode (a row with null scorer when it has none), in
# plan order and, within an episode, in the order the ledger lists its assessments.
_CELL_ROWS = """
SELECT a.id, a.campaign, a.target, a.task, a.seed, a.condition, a.level, a.repeat,
       a.binding, a.binding_digest, e.termination, s.scorer, s.status, s.score
FROM administrations a JOIN episodes e ON e.administration = a.id
LEFT JOIN assessments s ON s.administration = a.id
WHERE a.campaign = ? ORDER BY a.ordinal, s.scorer, s.scorer_version
"""
_CELL_SCORERS = """
SELECT DISTINCT s.scorer FROM assessments s JOIN episodes e ON e.administration = s.administration
JOIN administrations a ON a.id = s.administration WHERE a.campaign = ?
"""
CHUNK = 2000  # rows fetched at a time: memory holds one chunk, never the whole campaign

Cell = tuple[str, str, str]  # target, level, condition


@dataclass
class CellScore:
    """One scorer in one (target, level, condition) cell: n recorded, excluded, mean."""

    n: int = 0
    excluded: int = 0
    total: float = 0.0

    @property
    def scored(self) -> int:
        """Return the number of episodes with a measured score."""
        return self.n - self.excluded

    @property
    def mean(self) -> float | None:
        """Return the mean of the measured scores (None when none was measured)."""
        return round(self.total / self.scored, 6) if self.scored else None


def _episode_scores(conn: sqlite3.Connection, campaign: str
                    ) -> Iterator[tuple[Cell, dict[str, float | None]]]:
    """Yield (cell, {scorer: measured score or None}) per recorded episode, in plan order.

    A binding that no longer hashes to its digest raises BlobCorruptError, as reading it
    through `EvidenceStore.binding` does.
    """
    cur = conn.execute(_CELL_ROWS, (campaign,))
    current: int | None = None
    cell: Cell = ("", "", "")
    scores: dict[str, float | None] = {}
    while rows := cur.fetchmany(CHUNK):
        for (adm, *key, text, expected, term, scorer, status, score) in rows:
            if adm != current:
                if current is not None:
                    yield cell, scores
                current, cell, scores = adm, (key[1], key[5], key[4]), {}
                if (type(text) is not str  # a raw BLOB a forger stored: no sealed text
                        or hashlib.sha256(text.encode("utf-8")).hexdigest() != expected):
                    raise BlobCorruptError(f"the bindings of {EpisodeKey(*key)} no longer hash "
                                           f"to {expected}")
            if scorer is not None:  # a measurement failure or unmeasured status has no score
                measured = term not in MEASUREMENT_FAILURES and status not in UNMEASURED
                scores[str(scorer)] = score if measured else None
    if current is not None:
        yield cell, scores


def cell_counts(conn: sqlite3.Connection, campaign: str) -> dict[Cell, dict[str, CellScore]]:
    """Return per (target, level, condition), sorted, and per scorer: n, excluded, score sum.

    The same numbers as `run.export.cell_scores(export_rows(...))` (a test holds them equal),
    streamed from one query: every recorded episode counts once for every scorer of the
    campaign; a score that was not measured (measurement failure, UNKNOWN, INVALID, null, or
    no assessment by that scorer) is excluded. Scores are summed in plan order.
    """
    names = sorted(str(r[0]) for r in conn.execute(_CELL_SCORERS, (campaign,)))
    out: dict[Cell, dict[str, CellScore]] = {}
    for cell, scores in _episode_scores(conn, campaign):
        per = out.setdefault(cell, {})
        for sc in names:
            c = per.setdefault(sc, CellScore())
            c.n += 1
            value = scores.get(sc)
            if value is None:
                c.excluded += 1
            else:
                c.total += float(value)
    return dict(sorted(out.items()))


def grader_totals(calls: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Return per grader (an LLM judge) its requests, failed ones and cost: never an agent's.

    `cost` is null when any request's cost is unknown (`cost_known` is the known part).
    """
    out: dict[str, dict[str, Any]] = {}
    for c in calls:
        g = out.setdefault(c["grader"], {"requests": 0, "failed": 0, "cost_known": 0.0,
                                         "cost_unknown": 0})
        g["requests"] += 1
        g["failed"] += c["outcome"] != "ok"
        if c["cost"] is None:
            g["cost_unknown"] += 1
        else:
            g["cost_known"] += c["cost"]
    for g in out.values():
        g["cost_known"] = round(g["cost_known"], 6)
        g["cost"] = None if g["cost_unknown"] else g["cost_known"]
    return dict(sorted(out.items()))
