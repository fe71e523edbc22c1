"""Re-grade tau2 simulations with the benchmark's own checks, as the `inspect` extra ships them.

A stored reward is the submitter's claim. Each simulation's recorded tool calls (the agent's, and
in telecom the simulated user's on their phone) are replayed in order on a fresh world of the
domain (`tau2_world`: inspect-evals' databases and tools, after the task's own initialization
actions), and every component of the task's `reward_basis` is recomputed (`tau2_checks`): DB
(airline, retail: the database hash against the gold actions replayed the same way, as
inspect-evals' `get_expected_db`), ENV_ASSERTION, ACTION and COMMUNICATE. The recomputed reward
is 1 when every component of the basis holds. NL_ASSERTION needs a judge model: such a task is
named not re-gradable, never a 0 or a pass. A call the tools cannot execute makes the replay
invalid, a named problem, never a failure. A reward of 0 by the runner's rule (premature
termination) stays 0. Where a stored reward changes, the components whose recomputed value
differs from the stored breakdown are named as its cause.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from agentmetrology.archive.importers.tau2_domain import DEFAULT_BASIS
from agentmetrology.archive.model import Archive, ArchiveEpisode
from agentmetrology.archive.tau2_checks import (
    NAME_ONLY,
    Call,
    action_matches,
    assertions_met,
    communicated,
)
from agentmetrology.archive.tau2_world import DOMAINS, Kit, ReplayProblem, World, open_kit
from agentmetrology.archive.versions import transitions

REGRADED = {"airline": ("DB", "COMMUNICATE", "ACTION", "ENV_ASSERTION"),
            "retail": ("DB", "COMMUNICATE", "ACTION", "ENV_ASSERTION"),
            "telecom": ("COMMUNICATE", "ACTION", "ENV_ASSERTION")}
WHY_NOT = {"NL_ASSERTION": "needs a judge model",
           "DB": "telecom's DB check (agent and phone databases against the gold actions) is "
                 "not reproduced by this version"}
MAX_LISTED = 500


def _world(kit: Kit, task: dict[str, Any], calls: list[Call], strict: bool) -> World:
    """Return a world after the task's initialization actions and the given calls."""
    world = World(kit)
    for a in (task.get("initial_state") or {}).get("initialization_actions") or []:
        try:
            world.call(a.get("env_type") or "assistant", str(a.get("func_name")),
                       a.get("arguments") or {})
        except ReplayProblem as exc:
            raise ReplayProblem(f"the task's initial state cannot be set: {exc}") from exc
    for call in calls:
        world.call(*call, strict=strict)
    return world


def _calls_ok(items: Any, name_key: str) -> bool:
    """Return whether a task's list of calls (actions, assertions) has the shape tau2 gives it."""
    return items is None or (isinstance(items, list) and all(
        isinstance(i, dict) and isinstance(i.get(name_key), str)
        and isinstance(i.get("arguments") or {}, dict)
        and isinstance(i.get("requestor", i.get("env_type")) or "", str)
        and isinstance(i.get("compare_args") or [], list) for i in items))


def malformed(task: dict[str, Any]) -> str | None:
    """Return the part of a task definition whose shape is not tau2's (never replayed), or None."""
    crit, init = task.get("evaluation_criteria") or {}, task.get("initial_state") or {}
    if not isinstance(crit, dict) or not isinstance(init, dict):
        return "evaluation_criteria or initial_state is not an object"
    checks = {"reward_basis": isinstance(crit.get("reward_basis") or [], list),
              "actions": _calls_ok(crit.get("actions"), "name"),
              "env_assertions": _calls_ok(crit.get("env_assertions"), "func_name"),
              "communicate_info": isinstance(crit.get("communicate_info") or [], list),
              "initialization_actions": _calls_ok(init.get("initialization_actions"),
                                                  "func_name")}
    bad = [k for k, ok in checks.items() if not ok]
    return ", ".join(bad) + " not of tau2's shape" if bad else None


def _unsupported(domain: str, task: dict[str, Any], basis: list[str]) -> str | None:
    """Return why a task cannot be re-graded here, or None."""
    if "NL_ASSERTION" in basis:
        return "not re-gradable without a judge: NL_ASSERTION in the basis"
    missing = [b for b in basis if b not in REGRADED[domain]]
    if missing:
        return "unsupported here: " + "; ".join(f"{b} in the basis ({WHY_NOT.get(b, 'unknown')})"
                                             for b in missing)
    init = task.get("initial_state") or {}
    for key in ("initialization_data", "message_history"):
        if init.get(key):
            return f"unsupported here: initial_state.{key} is not applied by this version"
    return None


def _stored_ok(ep: ArchiveEpisode, component: str) -> bool | None:
    value = ((ep.meta.get("reward") or {}).get("breakdown") or {}).get(component)
    return None if value is None else value == 1.0


def _components(ep: ArchiveEpisode, kit: Kit, task: dict[str, Any], calls: list[Call],
                gold: dict[str, str]) -> dict[str, bool]:
    crit = task.get("evaluation_criteria") or {}
    basis = crit.get("reward_basis") or DEFAULT_BASIS
    world = _world(kit, task, calls, strict=True)
    parts: dict[str, bool] = {}
    if "DB" in basis:
        if ep.task not in gold:
            actions = [(a.get("requestor") or "assistant", str(a.get("name")),
                        a.get("arguments") or {}) for a in crit.get("actions") or []]
            gold[ep.task] = _world(kit, task, actions, strict=False).db_hash()
        parts["DB"] = world.db_hash() == gold[ep.task]
    if "ENV_ASSERTION" in basis:
        parts["ENV_ASSERTION"] = all(assertions_met(world, crit.get("env_assertions") or []))
    if "ACTION" in basis:
        parts["ACTION"] = all(action_matches(crit.get("actions") or [], calls))
    if "COMMUNICATE" in basis:
        parts["COMMUNICATE"] = communicated(ep.meta.get("agent_texts") or [],
                                            crit.get("communicate_info") or [])
    return parts


def _one(ep: ArchiveEpisode, kit: Kit, gold: dict[str, str]) -> dict[str, Any]:
    task = ep.meta.get("task_definition") or {}
    bad = malformed(task)
    basis = [] if bad else [str(b) for b in (task.get("evaluation_criteria") or {}).get(
        "reward_basis") or DEFAULT_BASIS]
    row: dict[str, Any] = {"episode_id": ep.episode_id, "task": ep.task, "basis": basis,
                           "stored": ep.stored_score, "recomputed": None, "problem": None}
    if ep.grade is None:  # ungraded by the audit (harness failure, no reward): never re-graded
        return {**row, "problem": f"ungraded: {ep.reason} ({ep.reason_detail})"}
    if not task:
        return {**row, "problem": "no task definition: the file does not define the task"}
    if (ep.meta.get("reward") or {}).get("premature"):
        return {**row, "recomputed": 0.0, "note": "reward 0 by the runner's rule, kept"}
    if bad:
        return {**row, "problem": f"malformed task definition: {bad}"}
    why = _unsupported(kit.domain, task, basis)
    if why:
        return {**row, "problem": why}
    calls = [("user" if e.actor == "user" else "assistant", e.name, e.args) for e in ep.events]
    try:
        parts = _components(ep, kit, task, calls, gold)
    except ReplayProblem as exc:
        return {**row, "problem": f"invalid replay: {exc}"}
    recomputed = 1.0 if all(parts.values()) else 0.0
    row = {**row, "recomputed": recomputed, "components": parts}
    if recomputed != ep.stored_score:
        row["changed_by"] = [c for c in basis if parts[c] != _stored_ok(ep, c)] or [
            "none: the stored breakdown does not give the stored reward"]
    return row


def _action_checks(eps: list[ArchiveEpisode]) -> dict[str, Any]:
    """Return stored per-action `action_match` against the replayed match, whatever the basis."""
    agree, disagree = 0, []
    for ep in eps:
        task = ep.meta.get("task_definition") or {}
        if not task or malformed(task):
            continue
        gold = (task.get("evaluation_criteria") or {}).get("actions") or []
        stored = (ep.meta.get("reward") or {}).get("actions") or []
        if not stored or [s["name"] for s in stored] != [a.get("name") for a in gold]:
            continue  # no checks stored (premature end) or not the task's gold actions
        calls = [("user" if e.actor == "user" else "assistant", e.name, e.args)
                 for e in ep.events]
        for a, s, got in zip(gold, stored, action_matches(gold, calls), strict=True):
            if got == s["match"]:
                agree += 1
                continue
            cause = ("inspect-evals matches it by name only; the stored check compared its "
                     "arguments" if a.get("name") in NAME_ONLY and got else
                     "the stored check differs from the replayed match")
            disagree.append({"episode_id": ep.episode_id, "action": a.get("name"),
                             "stored": s["match"], "replayed": got, "cause": cause})
    return {"compared": agree + len(disagree), "agree": agree, "disagree": len(disagree),
            "disagreements": disagree[:MAX_LISTED]}


def regrade_tau2(archive: Archive) -> dict[str, Any]:
    """Return the re-grade of a tau2 archive: per simulation stored vs recomputed, transitions."""
    domain = (archive.notes.get("tau2") or {}).get("domain")
    if domain not in DOMAINS:
        return {"applicable": False, "reason": f"re-grading replays the airline, retail and "
                f"telecom environments; domain {domain!r} is none of them"}
    try:
        kit = open_kit(domain)
    except ImportError:
        return {"applicable": False, "reason": "needs the `inspect` extra (inspect-evals)"}
    gold: dict[str, str] = {}
    eps = [ep for ep in archive.episodes
           if ep.reason != "never_ran" and not ep.meta.get("never_ran")]  # simulations present
    rows = [_one(ep, kit, gold) for ep in eps]
    done = [(ep, r) for ep, r in zip(eps, rows, strict=True) if r["recomputed"] is not None]
    old = {(ep.task, ep.model, ep.scaffold, ep.trial): r["stored"] == 1.0 for ep, r in done}
    new = {(ep.task, ep.model, ep.scaffold, ep.trial): r["recomputed"] == 1.0 for ep, r in done}
    changed = [r for _, r in done if r["recomputed"] != r["stored"]]
    pairs = [(v, _stored_ok(ep, c)) for ep, r in done for c, v in (r.get("components") or {})
             .items()]
    return {"applicable": True, "domain": domain, "components": list(REGRADED[domain]),
            "simulations": len(rows), "regraded": len(new),
            "reproduced": len(done) - len(changed), "transitions": transitions(old, new),
            "changed_by": dict(Counter(c for r in changed for c in r["changed_by"])),
            "problems": dict(Counter(r["problem"].split(":")[0] for r in rows if r["problem"])),
            "component_checks": {"compared": len(pairs),
                                 "agree": sum(v == stored for v, stored in pairs)},
            "action_checks": _action_checks(eps),
            "rows": rows[:MAX_LISTED], "changed": changed[:MAX_LISTED],
            "not_regraded": [r for r in rows if r["problem"]][:MAX_LISTED]}


def regrade_doc(archive: Archive, inputs: list[dict[str, Any]]) -> dict[str, Any]:
    """Return regrade.json for a tau2 file: inputs, package and the re-grade (canonical-ready)."""
    from agentmetrology import __version__
    from agentmetrology.records.canonical import to_plain

    doc = {"schema": "agentmetrology.tau2-regrade/1",
           "package": {"name": "agentmetrology", "version": __version__},
           "inputs": inputs, "source": archive.source,
           "evaluator": "inspect-evals tau2 tools and checks (DB, COMMUNICATE, ACTION, "
                        "ENV_ASSERTION; NL_ASSERTION needs a judge)",
           "regrade": regrade_tau2(archive)}
    plain: dict[str, Any] = to_plain(doc)
    return plain
