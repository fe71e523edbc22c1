"""The `tau2` section of archive.json: what one tau2 results file's number means.

Denominators and bounds come from coverage.py over the planned episodes (the task set times
the trials, tasks never run included); pass^k from passk.py; the rest from the tau2_* modules.
The headlines are the findings a reader must see first (a pass count resting entirely on tasks
a do-nothing agent passes, an unpriced cost, a reported number the simulations do not give).
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from typing import Any

from agentmetrology.archive.coverage import cell_summary
from agentmetrology.archive.model import Archive, ArchiveEpisode
from agentmetrology.archive.passk import pass_hat_k_curve
from agentmetrology.archive.tau2_cost import cost_section
from agentmetrology.archive.tau2_donothing import Evaluator, do_nothing_verdicts
from agentmetrology.archive.tau2_reported import reported_section
from agentmetrology.archive.tau2_reward import reward_section
from agentmetrology.archive.tau2_terms import never_ran, termination_table

MAX_K = 8


def _ratio(num: int, den: int) -> float | None:
    return float(Fraction(num, den)) if den else None


def _counts(episodes: list[ArchiveEpisode]) -> dict[str, int]:
    return {"passes": sum(e.outcome == "pass" for e in episodes), "planned": len(episodes),
            "present": sum(not e.meta.get("never_ran") for e in episodes),
            "graded": sum(e.outcome in ("pass", "fail") for e in episodes),
            "tasks": len({e.task for e in episodes})}


def _task_counts(episodes: list[ArchiveEpisode]) -> list[tuple[int, int]]:
    """Return (planned trials, passes) per task, unresolved episodes counted as failures."""
    per_task: dict[str, list[bool]] = defaultdict(list)
    for ep in episodes:
        per_task[ep.task].append(ep.outcome == "pass")
    return [(len(v), sum(v)) for v in per_task.values()]


def _pass_k(counts: list[tuple[int, int]]) -> list[float | None]:
    """Return pass^1..pass^K over planned episodes, unresolved counted as failures."""
    trials = min((n for n, _ in counts), default=0)
    return pass_hat_k_curve(counts, min(trials, MAX_K)) if counts else []


def do_nothing_share(episodes: list[ArchiveEpisode], verdicts: dict[str, Any]) -> dict[str, Any]:
    """Return passes on do-nothing-passable tasks vs the rest, and the rate where it fails."""
    if not verdicts.get("applicable"):
        return verdicts
    tasks = verdicts["tasks"]
    group = {t: ("passable" if v["passed"] else "not_passable" if v["passed"] is False
                 else "not_probed") for t, v in tasks.items()}
    out: dict[str, Any] = {"applicable": True, "evaluator": verdicts["evaluator"],
                           "tasks": len(tasks)}
    for name in ("passable", "not_passable", "not_probed"):
        eps = [e for e in episodes if group.get(e.task, "not_probed") == name]
        out[name] = {"tasks": sum(g == name for g in group.values()), "episodes": len(eps),
                     "passes": sum(e.outcome == "pass" for e in eps),
                     "graded": sum(e.outcome in ("pass", "fail") for e in eps)}
    out["not_probed"]["tasks"] += len({e.task for e in episodes} - set(group))
    rest = out["not_passable"]
    out["pass_rate_where_doing_nothing_fails"] = _ratio(rest["passes"], rest["episodes"])
    passes = sum(e.outcome == "pass" for e in episodes)
    out["all_passes_on_passable"] = bool(passes) and passes == out["passable"]["passes"]
    out["passable_tasks"] = [t for t, g in group.items() if g == "passable"]
    out["verdicts"] = [{"task": t, **v} for t, v in tasks.items()]
    return out


def _headlines(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """Return the first-screen findings as structured rows (the report words them)."""
    out: list[dict[str, Any]] = []
    dn, cost, rep, runs = doc["do_nothing"], doc["cost"], doc["reported"], doc["never_ran"]
    if dn.get("applicable") and dn["all_passes_on_passable"]:
        out.append({"code": "all_passes_do_nothing_passable",
                    "passes": dn["passable"]["passes"], "passable_tasks": dn["passable"]["tasks"]})
    if cost.get("unpriced"):
        out.append({"code": "unpriced_cost", "reason": cost["unpriced_reason"]})
    if rep.get("applicable") and rep["findings"]:
        out.append({"code": "reported_disagrees", "findings": rep["findings"]})
    if runs["tasks_never_run"]:
        out.append({"code": "tasks_never_run", "tasks": runs["tasks_never_run"]})
    ungraded = doc["denominators"]["planned"] - doc["denominators"]["graded"]
    if ungraded:
        out.append({"code": "ungraded", "episodes": ungraded})
    return out


def tau2_section(archive: Archive, claim: tuple[str, dict[str, Any]] | None = None,
                 evaluator: Evaluator | None = None) -> dict[str, Any]:
    """Return the tau2 section: denominators, terminations, reward basis, do-nothing share,
    cost and recomputed vs reported, with the first-screen headlines."""
    notes = archive.notes.get("tau2") or {}
    eps = archive.episodes
    n = _counts(eps)
    summary = cell_summary(eps)
    per_task = _task_counts(eps)
    pass_k = _pass_k(per_task)
    defs = {e.task: e.meta["task_definition"] for e in eps if e.meta.get("task_definition")}
    cost = cost_section(eps, str(notes.get("agent_model") or ""))
    doc: dict[str, Any] = {
        "file": {k: notes.get(k) for k in ("shape", "domain", "domain_from", "agent_model",
                                           "user_model", "git_commit", "trials", "definitions",
                                           "planned_from", "split", "simulations",
                                           "versus_shipped", "ran_not_in_domain")},
        "denominators": {"planned": summary["planned"], "simulations_present": n["present"],
                         "graded": summary["graded"], "valid_recovered":
                         summary["valid_recovered"], "tasks": n["tasks"]},
        "outcomes": summary["counts"], "reasons": summary["reasons"],
        "pass_1": {"planned": summary["score_stored"], "graded": summary["score_graded_only"],
                   "simulations_present": _ratio(n["passes"], n["present"])},
        "bounds": summary["bounds"], "pass_k": pass_k,
        "never_ran": never_ran(eps), "terminations": termination_table(eps),
        "reward": reward_section(eps),
        "do_nothing": do_nothing_share(eps, do_nothing_verdicts(notes.get("domain"), defs,
                                                                evaluator)),
        "cost": cost,
        "reported": reported_section(claim, notes.get("reported_top_level") or {},
                                     notes.get("domain"), n, pass_k, cost, per_task),
    }
    doc["headlines"] = _headlines(doc)
    return doc
