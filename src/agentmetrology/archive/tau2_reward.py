"""What a tau2 reward rests on: the reward basis per task, the component that decided each
reward, gold-action checks that disagree with the reward, and the share resting on an LLM judge.

tau2 computes action, NL-assertion and other checks even when they are not in the task's
`reward_basis`; only the basis decides the reward. So a reward of 1 with an unmatched gold
action is the benchmark working as declared when ACTION is not in the basis, and a disagreement
to read when it is: both are counted, apart. A natural-language assertion is judged by an LLM;
its verdicts are evidence about the transcript, not ground truth.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from fractions import Fraction
from typing import Any

from agentmetrology.archive.model import ArchiveEpisode

NL = "NL_ASSERTION"
MAX_LISTED = 200


def task_basis(ep: ArchiveEpisode) -> list[str]:
    """Return a task's reward basis: its definition's, else the one stored with the reward."""
    crit = (ep.meta.get("task_definition") or {}).get("evaluation_criteria") or {}
    basis = crit.get("reward_basis") if isinstance(crit, dict) else None
    if isinstance(basis, list) and basis:
        return sorted(str(b) for b in basis)
    return sorted((ep.meta.get("reward") or {}).get("basis") or [])


def decided_by(ep: ArchiveEpisode) -> str:
    """Return what decided a graded reward: the termination, all of the basis, or the components
    of the basis that scored below 1 (e.g. `DB`, `DB+COMMUNICATE`)."""
    parts = ep.meta.get("reward") or {}
    if parts.get("premature"):
        return "termination (reward 0 by rule)"
    if ep.outcome == "pass":
        return "all of the basis"
    low = sorted(k for k, v in (parts.get("breakdown") or {}).items() if v is not None and v < 1)
    return "+".join(low) if low else "not recorded"


def _action_rows(graded: list[ArchiveEpisode]) -> dict[str, Any]:
    """Return counts of gold-action checks that disagree with the reward, by basis membership."""
    counts: Counter[str] = Counter()
    listed: list[dict[str, Any]] = []
    for ep in graded:
        actions = (ep.meta.get("reward") or {}).get("actions") or []
        if not actions:
            continue
        counts["with_action_checks"] += 1
        matched = sum(a["match"] for a in actions)
        kind = None
        if ep.outcome == "pass" and matched < len(actions):
            kind = "pass_with_unmatched_actions"
        elif ep.outcome == "fail" and matched == len(actions):
            kind = "fail_with_all_actions_matched"
        if kind is None:
            continue
        in_basis = "ACTION" in task_basis(ep)
        counts[kind + ("_action_in_basis" if in_basis else "_action_not_in_basis")] += 1
        if len(listed) < MAX_LISTED:
            listed.append({"episode_id": ep.episode_id, "task": ep.task, "kind": kind,
                           "action_in_basis": in_basis, "matched": matched,
                           "gold_actions": len(actions)})
    keys = ("with_action_checks", *(f"{k}_action_{w}_basis" for k in (
        "pass_with_unmatched_actions", "fail_with_all_actions_matched") for w in ("in", "not_in")))
    return {**{k: counts.get(k, 0) for k in keys}, "episodes": listed}


def _nl_rows(graded: list[ArchiveEpisode]) -> dict[str, Any]:
    """Return how many rewards rest on an LLM-judged assertion, and judged-but-ignored verdicts."""
    in_basis = [ep for ep in graded if NL in task_basis(ep)]
    judged_outside = [ep for ep in graded if NL not in task_basis(ep)
                      and (ep.meta.get("reward") or {}).get("nl")]
    unmet_pass = [ep for ep in judged_outside if ep.outcome == "pass"
                  and not all(ep.meta["reward"]["nl"])]
    return {"graded": len(graded), "resting_on_nl_assertion": len(in_basis),
            "share": float(Fraction(len(in_basis), len(graded))) if graded else None,
            "passes_resting_on_nl_assertion": sum(ep.outcome == "pass" for ep in in_basis),
            "judged_outside_basis": len(judged_outside),
            "passes_with_unmet_nl_assertion_outside_basis": len(unmet_pass),
            "unmet_pass_episodes": [e.episode_id for e in unmet_pass[:MAX_LISTED]]}


def reward_section(episodes: list[ArchiveEpisode]) -> dict[str, Any]:
    """Return the reward-basis section: bases per task, deciders, action checks, NL share."""
    first: dict[str, ArchiveEpisode] = {}
    for ep in episodes:
        first.setdefault(ep.task, ep)
    basis_tasks: dict[str, list[str]] = defaultdict(list)
    for task, ep in first.items():
        basis_tasks["+".join(task_basis(ep)) or "not recorded"].append(task)
    graded = [ep for ep in episodes if ep.outcome in ("pass", "fail")]
    deciders: Counter[tuple[str, str]] = Counter((ep.outcome, decided_by(ep)) for ep in graded)
    return {
        "basis": [{"basis": b, "tasks": len(ts)} for b, ts in sorted(basis_tasks.items())],
        "decided_by": [{"outcome": o, "decided_by": d, "episodes": n}
                       for (o, d), n in sorted(deciders.items())],
        "action_checks": _action_rows(graded),
        "nl_assertions": _nl_rows(graded),
    }
