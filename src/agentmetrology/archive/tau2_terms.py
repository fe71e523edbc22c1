"""How tau2 simulations ended, and which planned tasks never ran.

The termination table keeps the runner's own reasons apart: a conversation that ended
(`user_stop`, `agent_stop`) is graded by the task's checks; a cap or an agent failure
(`max_steps`, `too_many_errors`, `agent_error`) gets a reward of 0 by the runner's rule; a
measurement failure (`infrastructure_error`, `user_error`) is ungraded. Each row says who ended
the episode.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from agentmetrology.archive.importers.tau2_sim import termination_of
from agentmetrology.archive.model import ArchiveEpisode

_CLASS_ORDER = ("conversation ended", "cap or agent failure", "measurement failure",
                "not recorded")
MAX_LISTED = 500


def termination_table(episodes: list[ArchiveEpisode]) -> list[dict[str, Any]]:
    """Return one row per termination reason: who ended it, its class, outcomes, by-rule zeros."""
    rows: dict[str, Counter[str]] = defaultdict(Counter)
    for ep in episodes:
        if ep.meta.get("never_ran"):
            continue
        reason = ep.meta.get("termination_reason") or "not recorded"
        rows[reason][ep.outcome] += 1
        rows[reason]["by_rule"] += int(bool((ep.meta.get("reward") or {}).get("premature")))
    out = []
    for reason, c in rows.items():
        who, _, klass = termination_of(None if reason == "not recorded" else reason)
        out.append({"termination": reason, "ended_by": who, "class": klass,
                    "simulations": sum(c[k] for k in ("pass", "fail", "ungraded",
                                                      "invalid_replay")),
                    "pass": c["pass"], "fail": c["fail"], "ungraded": c["ungraded"],
                    "reward_by_rule": c["by_rule"]})
    return sorted(out, key=lambda r: (_CLASS_ORDER.index(r["class"]), -r["simulations"],
                                      r["termination"]))


def never_ran(episodes: list[ArchiveEpisode]) -> dict[str, Any]:
    """Return planned (task, trial) entries with no simulation: count, tasks never run at all."""
    by_task: dict[str, list[bool]] = defaultdict(list)
    for ep in episodes:
        by_task[ep.task].append(bool(ep.meta.get("never_ran")))
    absent = sum(sum(v) for v in by_task.values())
    tasks = sorted((t for t, v in by_task.items() if all(v)), key=_order)
    return {"planned_entries_absent": absent, "tasks_never_run": len(tasks),
            "tasks": tasks[:MAX_LISTED], "tasks_listed": min(len(tasks), MAX_LISTED)}


def _order(task: str) -> tuple[int, str]:
    return (int(task), "") if task.isdigit() and len(task) < 18 else (1 << 62, task)
