"""The store check of how an attempt ended: finished exactly when an episode records it.

`record_episode` inserts an episode and marks its attempt finished in one transaction; an
attempt interrupted (a run stopped, a worker lost) or failed (its episode refused) has no
episode, and `--retry-measurement-failures` moves an episode to history with its attempt
still named. So an attempt is `finished` exactly when an episode or a superseded episode names
it. A forger who marked an interrupted attempt finished (hiding the interruption from
`agm campaign status` and the attempt counts) and rebuilt the chain and its head log left a
store that qualified; that, and an episode whose attempt reads interrupted or failed, is now
`attempt_end_disagrees`. An attempt still `started` (a run in progress, or one killed before
`recover`) has no episode yet and is not a finding. A full check reads every attempt; an
incremental one the attempts its appended entries touch, directly or through their episodes.
"""

from __future__ import annotations

import sqlite3

from agentmetrology.store.verify_lifecycle import Finding
from agentmetrology.store.verify_scope import refs_param

KIND = "attempt_end_disagrees"
_RECORDED = ("EXISTS (SELECT 1 FROM episodes e WHERE e.attempt = a.id) OR EXISTS (SELECT 1 FROM "
             "superseded_episodes s WHERE s.attempt = a.id)")


def _touched_attempts(c: sqlite3.Connection, touched: dict[str, dict[str, str | None]]
                      ) -> set[str]:
    """Return the attempts an incremental check re-reads: those appended entries name, and
    those of the episodes and superseded episodes they name."""
    out = set(touched.get("attempts", {}))
    for table, ident in (("episodes", "administration"), ("superseded_episodes", "id")):
        refs = touched.get(table, {})
        if refs:
            out |= {str(a) for (a,) in c.execute(
                f"SELECT attempt FROM {table} WHERE {ident} IN (SELECT value FROM json_each(?))",
                (refs_param(refs),))}
    return out


def attempt_findings(c: sqlite3.Connection,
                     touched: dict[str, dict[str, str | None]] | None) -> list[Finding]:
    """Return a finding for every attempt whose status disagrees with the episodes recorded
    for it: every attempt, or (`touched`) those an incremental check re-reads."""
    where: str = ""
    params: tuple[str, ...] = ()
    if touched is not None:
        scope = _touched_attempts(c, touched)
        if not scope:
            return []
        where, params = " WHERE a.id IN (SELECT value FROM json_each(?))", (refs_param(scope),)
    out: list[Finding] = []
    for ref, status, recorded in c.execute(
            f"SELECT a.id, a.status, {_RECORDED} FROM attempts a{where} ORDER BY a.id", params):
        if status == "finished" and not recorded:
            out.append((KIND, f"attempts id={ref}", "finished, but no episode (recorded or "
                        "superseded) names it: the ledger finishes an attempt only with its "
                        "episode"))
        elif recorded and status != "finished":
            out.append((KIND, f"attempts id={ref}", f"{status}, but an episode names it: the "
                        "ledger marks an attempt finished when it records its episode"))
    return out
