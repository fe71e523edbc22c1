"""Re-grade tau2 simulations with the benchmark's own checks, as the `inspect` extra ships them.

A stored reward is the submitter's claim. For the airline and retail domains each simulation's
recorded agent tool calls are replayed, in order, on a fresh copy of the domain database of
inspect-evals' tau2 implementation (its tool classes: the same database and tools); the gold
actions are replayed the same way (as inspect-evals' `get_expected_db` does), and the two
database hashes are compared (DB). The required outputs are looked for in the agent's messages
(COMMUNICATE, as inspect-evals' `score_communicated_info`: lower case, commas removed). A
reward whose basis holds a component not re-graded here (ACTION, ENV_ASSERTION, NL_ASSERTION;
NL needs a judge model) is not re-graded, and says which. A call that cannot be executed (a tool
the domain does not have, arguments it does not accept) makes the replay invalid, a named
problem, never a failure. A reward of 0 by the runner's rule (premature termination) stays 0.
"""

from __future__ import annotations

import uuid
from collections import Counter
from typing import Any

from agentmetrology.archive.model import Archive, ArchiveEpisode
from agentmetrology.archive.versions import transitions

REGRADED = frozenset({"DB", "COMMUNICATE"})
SKIPPED_TOOLS = frozenset({"calculate", "transfer_to_human_agents"})  # write nothing
MAX_LISTED = 500


class ReplayProblem(Exception):
    """A recorded call the domain's tools cannot execute (unknown tool, argument error)."""


def _toolkit(domain: str) -> tuple[type, Any, type[Exception]]:
    """Return (tools class, a loaded initial database, the tool-error class) of a domain."""
    from inspect_ai.tool import ToolError
    from inspect_evals.tau2.airline.AirlineAgentTools import AirlineAgentTools
    from inspect_evals.tau2.retail.RetailAgentTools import RetailAgentTools

    cls: type = AirlineAgentTools if domain == "airline" else RetailAgentTools
    base = cls(instance=f"agm_regrade_{uuid.uuid4()}")
    base.initialize()
    return cls, base.db, ToolError


def _replay(kit: tuple[type, Any, type[Exception]], calls: list[tuple[str, Any]],
            strict: bool) -> str:
    """Return the database hash after replaying (name, arguments) calls on a fresh copy."""
    cls, db, tool_error = kit
    tools = cls(instance=f"agm_regrade_{uuid.uuid4()}", db=db.model_copy(deep=True),
                initialized=True)
    for name, args in calls:
        if name in SKIPPED_TOOLS:
            continue
        method = getattr(tools, name, None) if not name.startswith("_") else None
        if not callable(method) or name in {"initialize", "model_copy"}:
            if strict:
                raise ReplayProblem(f"unknown tool {name!r}")
            continue
        if not isinstance(args, dict):
            raise ReplayProblem(f"{name}: arguments are not an object")
        try:
            method(**args)
        except tool_error:
            continue  # the agent saw an error observation; the database is unchanged
        except (TypeError, ValueError) as exc:
            if strict:
                raise ReplayProblem(f"{name}: argument error ({type(exc).__name__})") from exc
    return str(tools.db.get_hash())


def _communicated(ep: ArchiveEpisode, crit: dict[str, Any]) -> bool:
    text = " ".join(str(m) for m in ep.meta.get("agent_texts") or []).lower().replace(",", "")
    return all(str(i).lower() in text for i in crit.get("communicate_info") or [])


def _one(ep: ArchiveEpisode, kit: Any, expected: dict[str, str]) -> dict[str, Any]:
    crit = ep.meta["task_definition"].get("evaluation_criteria") or {}
    basis = set(crit.get("reward_basis") or ("DB", "COMMUNICATE"))
    row: dict[str, Any] = {"episode_id": ep.episode_id, "task": ep.task,
                           "stored": ep.stored_score, "recomputed": None, "problem": None}
    if (ep.meta.get("reward") or {}).get("premature"):
        return {**row, "recomputed": 0.0, "note": "reward 0 by the runner's rule, kept"}
    if "NL_ASSERTION" in basis:  # a judge model decides these; never a 0 or a pass here
        return {**row, "problem": "not re-gradable without a judge: NL_ASSERTION in the basis"}
    if basis - REGRADED:
        return {**row, "problem": "not re-graded: " + "+".join(sorted(basis - REGRADED))
                + " in the basis (not replayed by this version)"}
    if ep.task not in expected:
        gold = [(a.get("name"), a.get("arguments") or {}) for a in crit.get("actions") or []]
        expected[ep.task] = _replay(kit, gold, strict=False)
    calls = [(e.name, e.args) for e in ep.events if e.actor == "agent"]
    try:
        db = _replay(kit, calls, strict=True) == expected[ep.task]
    except ReplayProblem as exc:
        return {**row, "problem": f"invalid replay: {exc}"}
    parts = {"DB": db, "COMMUNICATE": _communicated(ep, crit)}
    ok = all(parts[b] for b in basis)
    return {**row, "recomputed": 1.0 if ok else 0.0, "components": parts}


def regrade_tau2(archive: Archive) -> dict[str, Any]:
    """Return the re-grade of a tau2 archive: per simulation stored vs recomputed, transitions."""
    domain = (archive.notes.get("tau2") or {}).get("domain")
    if domain not in ("airline", "retail"):
        return {"applicable": False, "reason": f"re-grading replays the airline and retail "
                f"databases; domain {domain!r} is not re-graded (its checks need the simulated "
                "user's device)"}
    try:
        kit = _toolkit(domain)
    except ImportError:
        return {"applicable": False, "reason": "needs the `inspect` extra (inspect-evals)"}
    expected: dict[str, str] = {}
    eps = [ep for ep in archive.episodes if ep.meta.get("task_definition")
           and not ep.meta.get("never_ran") and ep.stored_score is not None]
    rows = [_one(ep, kit, expected) for ep in eps]
    done = [(ep, r) for ep, r in zip(eps, rows, strict=True) if r["recomputed"] is not None]
    old = {(ep.task, ep.model, ep.scaffold, ep.trial): r["stored"] == 1.0 for ep, r in done}
    new = {(ep.task, ep.model, ep.scaffold, ep.trial): r["recomputed"] == 1.0 for ep, r in done}
    changed = [r for r in rows if r["recomputed"] is not None and r["recomputed"] != r["stored"]]
    return {"applicable": True, "domain": domain, "simulations": len(rows),
            "regraded": len(new), "transitions": transitions(old, new),
            "problems": dict(Counter(r["problem"].split(":")[0] for r in rows if r["problem"])),
            "changed": changed[:MAX_LISTED],
            "not_regraded": [r for r in rows if r["problem"]][:MAX_LISTED]}


def regrade_doc(archive: Archive, inputs: list[dict[str, Any]]) -> dict[str, Any]:
    """Return regrade.json for a tau2 file: inputs, package and the re-grade (canonical-ready)."""
    from agentmetrology import __version__
    from agentmetrology.records.canonical import to_plain

    doc = {"schema": "agentmetrology.tau2-regrade/1",
           "package": {"name": "agentmetrology", "version": __version__},
           "inputs": inputs, "source": archive.source,
           "evaluator": "inspect-evals tau2 tools and checks (DB, COMMUNICATE)",
           "regrade": regrade_tau2(archive)}
    plain: dict[str, Any] = to_plain(doc)
    return plain
