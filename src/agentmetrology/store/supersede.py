"""Re-opening measurement failures: their episodes move to history, never deleted.

An administration whose recorded episode is a measurement failure (the infrastructure failed,
not the agent) can be measured again. Its episode row and assessments move, in the caller's
transaction, to `superseded_episodes` / `superseded_assessments`; its attempts stay as they
are. Agent failures are never re-opened: they are measurements.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from typing import Any

from agentmetrology.records.canonical import decode_json

EPISODE_COLUMNS = ("administration", "attempt", "episode_digest", "submission_digest",
                   "termination", "termination_detail", "measurement_failure", "cost",
                   "input_tokens", "output_tokens", "requests", "tool_calls", "model_attempts",
                   "recorded_at")
ASSESSMENT_COLUMNS = ("administration", "scorer", "scorer_version", "status", "score",
                      "evidence_digest", "assessment", "assessment_digest")
_EPISODES = ", ".join(EPISODE_COLUMNS)
_ASSESSMENTS = ", ".join(ASSESSMENT_COLUMNS)


Seal = Callable[[sqlite3.Connection, str, Iterable[object]], None]


def supersede_measurement_failures(c: sqlite3.Connection, campaign: str, run_id: int | None,
                                   at: str, seal: Seal | None = None) -> int:
    """Move a campaign's measurement-failure episodes to history; return how many.

    Call inside one transaction: either every such episode is re-opened or none is. `seal`
    chains every row moved (its deletion and its history row) in a sealed ledger.
    """
    ids = [int(r[0]) for r in c.execute(
        "SELECT e.administration FROM episodes e JOIN administrations a "
        "ON a.id = e.administration WHERE a.campaign=? AND e.measurement_failure=1 "
        "ORDER BY a.ordinal", (campaign,))]
    for adm in ids:
        cur = c.execute(
            f"INSERT INTO superseded_episodes ({_EPISODES}, superseded_by_run, superseded_at) "
            f"SELECT {_EPISODES}, ?, ? FROM episodes WHERE administration=?", (run_id, at, adm))
        sid = int(cur.lastrowid or 0)
        c.execute(f"INSERT INTO superseded_assessments (superseded, {_ASSESSMENTS}) "
                  f"SELECT ?, {_ASSESSMENTS} FROM assessments WHERE administration=?",
                  (sid, adm))
        moved = [r[0] for r in c.execute("SELECT id FROM assessments WHERE administration=? "
                                         "ORDER BY id", (adm,))]
        c.execute("DELETE FROM assessments WHERE administration=?", (adm,))
        c.execute("DELETE FROM episodes WHERE administration=?", (adm,))
        if seal is not None:
            seal(c, "assessments", moved)
            seal(c, "episodes", [adm])
            seal(c, "superseded_episodes", [sid])
            seal(c, "superseded_assessments", [r[0] for r in c.execute(
                "SELECT id FROM superseded_assessments WHERE superseded=? ORDER BY id", (sid,))])
    return len(ids)


def superseded_episodes(c: sqlite3.Connection, administration: int) -> list[dict[str, Any]]:
    """Return the superseded episodes of an administration (oldest first) with assessments."""
    cur = c.execute("SELECT * FROM superseded_episodes WHERE administration=? ORDER BY id",
                    (administration,))
    cols = [d[0] for d in cur.description]
    rows = [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]
    for row in rows:
        acur = c.execute(f"SELECT {_ASSESSMENTS} FROM superseded_assessments "
                         "WHERE superseded=? ORDER BY scorer", (row["id"],))
        acols = [d[0] for d in acur.description]
        row["assessments"] = [dict(zip(acols, r, strict=True)) for r in acur]
        for a in row["assessments"]:
            a["assessment"] = decode_json(a["assessment"])
    return rows
