"""One campaign as the viewer's campaign page shows it: totals and the per-cell grid, read once.

`store.status.campaign_status` computes more than the page shows (per-target counts, attempt
counts, tokens, per-target scores) in queries that each walk the whole campaign; on a large
store that doubled the page's time. Here the grid (progress and scores per target × level ×
condition) is read once and the campaign's totals are its cells' sums, plus the few queries
over what no cell holds (superseded episodes, requests of unrecorded attempts, not-launched
reasons). The totals follow the store's status rules (a test holds them equal).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agentmetrology.store.reader_queries import (
    CAMPAIGN_NOT_LAUNCHED_REASONS,
    CAMPAIGN_SUPERSEDED,
    CAMPAIGN_UNRECORDED,
    GRID_ERRORED,
    GRID_NOT_LAUNCHED,
    GRID_PROGRESS,
    GRID_SCORES,
    KEY_INDEX,
    NOT_LAUNCHED_INDEX,
    UNSCORED,
)
from agentmetrology.store.verify_schema import has_index_as_defined

# The totals the campaign page shows; a cell's count of the same name sums into each.
CELL_SUMS = ("planned", "done", "submitted", "failed_agent", "failed_infra", "errored",
             "not_launched")


@dataclass(frozen=True, slots=True)
class CampaignOverview:
    """A campaign's identity, its totals and its grid of cells (target × level × condition)."""

    campaign: str
    registration_id: str
    plan_digest: str
    total: dict[str, Any]  # CELL_SUMS, remaining, cost, cost_unknown, superseded, ...
    grid: list[dict[str, Any]]
    not_launched_reasons: dict[str, int]

    @property
    def complete(self) -> bool:
        """Return True when every planned administration has a recorded episode."""
        return bool(self.total["remaining"] == 0)


def rows_if_any(c: sqlite3.Connection, sql: str, args: Sequence[Any] = ()
                ) -> list[tuple[Any, ...]]:
    """Return a query's rows; none when the store predates a history table it reads."""
    try:
        return c.execute(sql, args).fetchall()
    except sqlite3.OperationalError as exc:
        if "no such table" in str(exc):  # an older store without the later history tables
            return []
        raise


def not_launched_query(c: sqlite3.Connection, sql: str) -> str:
    """Return a not-launched query through the writer's partial index when the store has it
    (store.verify_schema.has_index_as_defined), else through the key index."""
    return sql.format(index=NOT_LAUNCHED_INDEX if has_index_as_defined(c, NOT_LAUNCHED_INDEX)
                      else KEY_INDEX)


def campaign_grid(c: sqlite3.Connection, campaign: str) -> list[dict[str, Any]]:
    """Return progress and per-scorer scores per target × level × condition."""
    cells: dict[tuple[str, str, str], dict[str, Any]] = {}
    for r in c.execute(GRID_PROGRESS, (campaign,)):
        cells[(r[0], r[1], r[2])] = {
            "target": r[0], "level": r[1], "condition": r[2], "planned": r[3],
            "done": r[4], "submitted": r[5], "failed_agent": r[6], "failed_infra": r[7],
            "not_launched": 0, "cost_known": float(r[8]), "cost_unknown": r[9],
            "errored": 0, "scores": {}}
    for target, level, cond, n in rows_if_any(c, not_launched_query(c, GRID_NOT_LAUNCHED),
                                              (campaign,)):
        cells[(target, level, cond)]["not_launched"] = n
    for target, level, cond, n in rows_if_any(c, GRID_ERRORED, (campaign,)):
        cells[(target, level, cond)]["errored"] = n
    for target, level, cond, scorer, status, n, total, scored in c.execute(
            GRID_SCORES, (campaign,)):
        cell = cells[(target, level, cond)]
        s = cell["scores"].setdefault(scorer, {"n": 0, "statuses": {}, "_sum": 0.0,
                                               "scored": 0})
        s["n"] += n
        s["statuses"][status] = n
        if status not in UNSCORED:
            s["_sum"] += total
            s["scored"] += scored
    for cell in cells.values():
        for s in cell["scores"].values():
            total = s.pop("_sum")
            s["mean"] = total / s["scored"] if s["scored"] else None
    return [cells[k] for k in sorted(cells)]


def campaign_overview(c: sqlite3.Connection, campaign: str) -> CampaignOverview | None:
    """Return one campaign's overview, or None if the store has no such campaign."""
    head = c.execute("SELECT registration_id, plan_digest FROM campaigns WHERE name = ?",
                     (campaign,)).fetchone()
    if head is None:
        return None
    grid = campaign_grid(c, campaign)
    total: dict[str, Any] = {k: sum(cell[k] for cell in grid) for k in CELL_SUMS}
    total["cost"] = sum(cell["cost_known"] for cell in grid)
    total["cost_unknown"] = sum(cell["cost_unknown"] for cell in grid)
    for field, (n, cost, unknown) in (("superseded", _one(c, CAMPAIGN_SUPERSEDED, campaign)),
                                      ("unrecorded_requests",
                                       _one(c, CAMPAIGN_UNRECORDED, campaign))):
        total[field] = int(n)
        total["cost"] += float(cost)  # billed: part of the campaign's cost
        total["cost_unknown"] += int(unknown)
    total["remaining"] = total["planned"] - total["done"]
    reasons = {str(reason): int(n) for reason, n in
               rows_if_any(c, not_launched_query(c, CAMPAIGN_NOT_LAUNCHED_REASONS),
                           (campaign,))}
    return CampaignOverview(campaign, str(head[0]), str(head[1]), total, grid, reasons)


def _one(c: sqlite3.Connection, sql: str, campaign: str) -> tuple[Any, ...]:
    rows = rows_if_any(c, sql, (campaign,))
    return rows[0] if rows else (0, 0.0, 0)
