"""The empty-trajectory census on tau-bench-style tasks: how many a do-nothing agent passes.

Two sources, two criteria reported separately (docs/inspect.md):
- the tau2 domains the inspect-evals wheel ships: every task's do-nothing episode (the task's own
  solver, an agent model that answers nothing, a simulated user that stops at once) scored by the
  shipped scorer and, separately, by its two parts, inspect-evals' own `db_match` (database
  unchanged from the gold end state) and `score_communicated_info` (required outputs);
- a tau-bench (v1) run archive (rows with `info.task` = gold actions and required outputs, and
  `info.reward_info.info.gt_data_hash`): the database criterion by the gold hash (tasks whose
  gold end state is the start state share one hash) and by the gold actions (no write action),
  and the outputs criterion (no required output).
"""

from __future__ import annotations

import copy
from collections import Counter
from pathlib import Path
from typing import Any

from agentmetrology.archive.importers.taubench import read_json_file
from agentmetrology.archive.model import ArchiveFormatError

__all__ = ["READ_ONLY_TOOLS", "TAU2_DOMAINS", "archive_census", "tau2_census", "tau2_domain",
           "tau2_summary", "with_criteria"]

TAU2_DOMAINS = ("airline", "retail", "telecom")
SPLIT_DOMAINS = ("airline", "retail")  # whose shipped scorer is db_match + communicated info
# tau-bench tools that never write the database (reads, arithmetic, thinking, hand-off).
READ_ONLY_TOOLS = frozenset({
    "get_user_details", "get_reservation_details", "search_direct_flight",
    "search_onestop_flight", "list_all_airports", "calculate", "think",
    "transfer_to_human_agents", "find_user_id_by_email", "find_user_id_by_name_zip",
    "get_order_details", "get_product_details", "list_all_product_types"})
PASS_EPS = 1e-9


def _criterion(cells: dict[tuple[str, str, int], Any], ids: list[str],
               index: int) -> dict[str, Any]:
    got = [cells.get((sid, "empty_trajectory", index)) for sid in ids]
    ok = {sid: c.value for sid, c in zip(ids, got, strict=True)
          if c is not None and c.status == "ok" and c.value is not None}
    passed = [sid for sid, v in ok.items() if v >= 1.0 - PASS_EPS]
    reasons = Counter(c.message for c in got if c is not None and c.status != "ok")
    return {"tasks": len(ids), "scored": len(ok), "passed": len(passed),
            "invalid": len(ids) - len(ok), "passed_tasks": passed,
            "invalid_reasons": [{"reason": r, "cells": n} for r, n in reasons.most_common(3)]}


def tau2_census(domain: str, limit: int | None = None, timeout: float = 60.0) -> dict[str, Any]:
    """Run the do-nothing episode on a tau2 domain's tasks and count passes per criterion."""
    from agentmetrology.inspect_ext.audit.load import load_task
    from agentmetrology.inspect_ext.audit.run import run_empty_trajectory

    if domain not in TAU2_DOMAINS:
        raise ValueError(f"tau2 domain {domain!r} is not one of {', '.join(TAU2_DOMAINS)}")
    loaded = load_task(f"inspect_evals/tau2_{domain}", {"shuffle": False}, limit)
    probe = with_criteria(domain, loaded)
    return tau2_summary(domain, loaded, probe, run_empty_trajectory(probe, timeout, None))


def tau2_domain(spec: str) -> str | None:
    """Return the tau2 domain a task spec names (`inspect_evals/tau2_retail` -> retail), or None."""
    name = spec.partition(" ")[0]
    domain = name.removeprefix("inspect_evals/tau2_")
    return domain if name != domain and domain in TAU2_DOMAINS else None


def with_criteria(domain: str, loaded: Any) -> Any:
    """Return a copy of a loaded tau2 task scored by its shipped scorer, then by its two criteria
    (db_match, score_communicated_info) where the shipped scorer is their combination."""
    from agentmetrology.inspect_ext.audit.load import scorer_name

    scorers = list(loaded.task.scorer or [])
    if domain in SPLIT_DOMAINS:
        from inspect_evals.tau2.common.scorer import db_match, score_communicated_info

        scorers += [db_match(domain=domain), score_communicated_info()]  # type: ignore[arg-type]
    probe = copy.copy(loaded)
    probe.task = copy.copy(loaded.task)
    probe.task.scorer = scorers
    probe.scorer_names = [scorer_name(s) for s in scorers]
    return probe


def tau2_summary(domain: str, loaded: Any, probe: Any, run: Any) -> dict[str, Any]:
    """Count the do-nothing passes of one run of `probe` (from with_criteria) per criterion."""
    ids = [i.sample_id for i in loaded.infos]
    out: dict[str, Any] = {"domain": domain, "spec": f"inspect_evals/tau2_{domain}",
                           "tasks": len(ids), "dataset_tasks": loaded.dataset_size,
                           "shipped_scorer": probe.scorer_names[0],
                           "shipped": _criterion(run.cells, ids, 0)}
    if domain in SPLIT_DOMAINS:
        db, info = _criterion(run.cells, ids, 1), _criterion(run.cells, ids, 2)
        out["database_unchanged"] = db
        out["required_outputs"] = info
        out["both"] = len(set(db["passed_tasks"]) & set(info["passed_tasks"]))
    else:
        out["criteria_note"] = ("the shipped scorer's criteria (environment assertions, "
                                "actions, communicated info) are not split here")
    return out


def _archive_rows(path: Path) -> list[dict[str, Any]]:
    """Return the rows of a tau-bench run archive, read as the archive importer reads one (a
    regular file of bounded size, bounded nesting); ValueError saying what was wrong."""
    try:
        rows = read_json_file(path)
    except ArchiveFormatError as exc:  # before: /dev/zero was read whole, a FIFO never ended
        raise ValueError(f"cannot read the tau-bench archive {path}: "
                         f"{str(exc).split(': ', 1)[-1]}") from exc
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise ValueError(f"{path}: not a tau-bench run archive (a JSON list of result rows)")
    return rows


def archive_census(path: Path) -> dict[str, Any]:
    """Count, from a tau-bench run archive, the tasks a do-nothing trajectory satisfies."""
    tasks: dict[int, dict[str, Any]] = {}
    hashes: dict[int, set[str]] = {}
    rows = _archive_rows(path)
    try:
        for r in rows:
            info = r.get("info") or {}
            tid = int(r["task_id"])
            tasks.setdefault(tid, info.get("task") or {})
            grader = ((info.get("reward_info") or {}).get("info")) or {}
            if "gt_data_hash" in grader:
                hashes.setdefault(tid, set()).add(str(grader["gt_data_hash"]))
    except (AttributeError, KeyError, TypeError, ValueError) as exc:  # a row of another shape
        raise ValueError(f"{path}: not a tau-bench run archive ({type(exc).__name__}: {exc})"
                         ) from exc
    no_write = sorted(t for t, task in tasks.items()
                      if all(a.get("name") in READ_ONLY_TOOLS for a in task.get("actions", [])))
    no_output = sorted(t for t, task in tasks.items() if not task.get("outputs"))
    # The start state's hash is the gold hash of every task without a write: take it from them.
    start = Counter(h for t in no_write for h in hashes.get(t, ()))
    start_hash = start.most_common(1)[0][0] if start else None
    by_hash = sorted(t for t, hs in hashes.items() if start_hash in hs)
    both = sorted(set(no_write) & set(no_output))
    return {
        "archive": path.name, "tasks": len(tasks), "tasks_with_gold_hash": len(hashes),
        "start_hash": start_hash,
        "database_unchanged_by_gold_hash": {"passed": len(by_hash), "of": len(hashes),
                                            "tasks": by_hash},
        "database_unchanged_by_gold_actions": {"passed": len(no_write), "of": len(tasks),
                                               "tasks": no_write},
        "required_outputs_none": {"passed": len(no_output), "of": len(tasks),
                                  "tasks": no_output},
        "both": {"passed": len(both), "of": len(tasks), "tasks": both},
        "hash_unrecorded_no_write": sorted(set(no_write) - set(hashes)),
    }
