"""One tau2 simulation as an archive episode: tool calls, termination, stored reward, costs.

tau2-bench stores a reward of 0 with `reward_info.info.note` "Simulation terminated prematurely"
when the agent errored or hit a cap; that is the runner's verdict on the agent, kept as a failure
and marked as decided by the termination, not by the task's checks. An infrastructure failure
(or a user-simulator error) is the harness's, so that episode is ungraded whatever it stores, and
a `reward_info` of null means the grader never ran: ungraded, never a 0.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict, deque
from typing import Any

from agentmetrology.archive.importers.limits import (
    MAX_COST,
    Malformed,
    count,
    ident,
    kind_name,
    obj,
    score_outside,
    seq,
)
from agentmetrology.archive.model import ArchiveEpisode, ArchiveEvent, StoredGrade, is_success
from agentmetrology.records.numbers import finite_float

# tau2 termination reason -> (who ended the episode, the archive's termination, its class)
TERMINATIONS: dict[str, tuple[str, str | None, str]] = {
    "user_stop": ("user simulator", "submitted", "conversation ended"),
    "agent_stop": ("agent", "submitted", "conversation ended"),
    "max_steps": ("harness (step cap)", "step_limit", "cap or agent failure"),
    "too_many_errors": ("harness (error cap)", "agent_error", "cap or agent failure"),
    "agent_error": ("harness, after an agent error", "agent_error", "cap or agent failure"),
    "user_error": ("harness, after a user-simulator error", "infra_error", "measurement failure"),
    "infrastructure_error": ("harness (infrastructure)", "infra_error", "measurement failure"),
}
UNKNOWN_TERMINATION = ("not recorded", None, "not recorded")
PREMATURE = "Simulation terminated prematurely"


def termination_of(reason: str | None) -> tuple[str, str | None, str]:
    """Return (who ended it, archive termination, class) for a tau2 termination reason."""
    if reason is None:
        return UNKNOWN_TERMINATION
    return TERMINATIONS.get(reason, ("unknown (" + reason + ")", None, "not recorded"))


def _tool_events(messages: list[Any]) -> tuple[list[ArchiveEvent], Counter[str]]:
    """Return tool-call events (results paired by call id, in order) and message counts."""
    results: dict[str, deque[Any]] = defaultdict(deque)
    roles: Counter[str] = Counter()
    for i, raw in enumerate(messages):
        m = obj(raw, f"messages[{i}]")
        roles[str(m.get("role"))] += 1
        if m.get("role") == "tool" and ident(m.get("id")) is not None:
            results[str(ident(m.get("id")))].append(m.get("content"))
    events: list[ArchiveEvent] = []
    for i, m in enumerate(messages):
        for j, call in enumerate(seq(m.get("tool_calls"), f"messages[{i}].tool_calls")):
            c = obj(call, f"messages[{i}].tool_calls[{j}]")
            call_id = ident(c.get("id"))
            queue = results.get(call_id or "")
            args = c.get("arguments")
            events.append(ArchiveEvent(
                seq=len(events), kind="tool_call", name=ident(c.get("name")) or "",
                args=args if isinstance(args, dict) else None,
                result=queue.popleft() if queue else None,
                actor="user" if c.get("requestor") == "user" else "agent", call_id=call_id))
    return events, roles


def a_cost(value: Any) -> float | None:
    """Return a recorded cost, or None when it is none (missing, not finite, negative: no
    provider pays us, so a sum holding it would be read as a cost lower than was paid; or
    above MAX_COST, far beyond any run, where sums would overflow to infinity)."""
    cost = finite_float(value)
    return cost if cost is not None and 0 <= cost <= MAX_COST else None


def message_costs(messages: list[Any]) -> dict[str, Any]:
    """Return per-role sums of message `cost` and usage tokens (agent = assistant, simulator =
    user), and how many messages carried a cost."""
    costs: dict[str, list[float]] = {"assistant": [], "user": []}
    tokens: Counter[str] = Counter()
    for m in messages:
        role = m.get("role") if isinstance(m, dict) else None
        if role not in costs:
            continue
        cost = a_cost(m.get("cost"))
        if cost is not None:
            costs[role].append(cost)
        usage = m.get("usage") if isinstance(m.get("usage"), dict) else {}
        tokens[role] += sum(count(usage.get(k)) or 0 for k in ("prompt_tokens",
                                                                  "completion_tokens"))
    return {"assistant": math.fsum(costs["assistant"]), "user": math.fsum(costs["user"]),
            "assistant_with_cost": len(costs["assistant"]), "user_with_cost": len(costs["user"]),
            "assistant_tokens": tokens["assistant"], "user_tokens": tokens["user"]}


def _met(items: Any, key: str, what: str) -> list[bool]:
    return [bool(obj(x, what).get(key)) for x in seq(items, what)]


def reward_parts(info: dict[str, Any]) -> dict[str, Any]:
    """Return the components a stored `reward_info` holds (checks, basis, breakdown, note)."""
    actions = []
    for i, raw in enumerate(seq(info.get("action_checks"), "reward_info.action_checks")):
        chk = obj(raw, f"reward_info.action_checks[{i}]")
        act = obj(chk.get("action"), f"reward_info.action_checks[{i}].action")
        actions.append({"name": ident(act.get("name")) or "",
                        "match": bool(chk.get("action_match")),
                        "requestor": act.get("requestor") or "assistant"})
    db = obj(info.get("db_check"), "reward_info.db_check")
    breakdown = obj(info.get("reward_breakdown"), "reward_info.reward_breakdown")
    note = obj(info.get("info"), "reward_info.info").get("note")
    return {
        "basis": [str(b) for b in seq(info.get("reward_basis"), "reward_info.reward_basis")],
        "breakdown": {str(k): finite_float(v) for k, v in breakdown.items()},
        "db_match": db.get("db_match") if db else None,
        "actions": actions,
        "env": _met(info.get("env_assertions"), "met", "reward_info.env_assertions"),
        "nl": _met(info.get("nl_assertions"), "met", "reward_info.nl_assertions"),
        "communicate": _met(info.get("communicate_checks"), "met",
                            "reward_info.communicate_checks"),
        "premature": isinstance(note, str) and note.startswith(PREMATURE),
    }


def sim_key(sim: dict[str, Any], seen: Counter[str]) -> tuple[str, int]:
    """Return (task id, trial); a missing trial is the task's occurrence number in the file."""
    task = ident(sim.get("task_id"))
    if task is None:
        raise Malformed(f"task_id is {kind_name(sim.get('task_id'))}, not a string or integer")
    raw = sim.get("trial")
    trial = count(raw) if raw is not None else seen[task]
    if trial is None:
        raise Malformed(f"trial is {kind_name(raw)}, not a non-negative integer")
    seen[task] += 1
    return task, trial


def fill_episode(ep: ArchiveEpisode, sim: dict[str, Any]) -> None:
    """Fill events, termination, grade and cost facts of a simulation's episode."""
    messages = seq(sim.get("messages"), "messages")
    ep.events, roles = _tool_events(messages)
    raw_reason = sim.get("termination_reason")
    reason = raw_reason if isinstance(raw_reason, str) else None
    who, termination, klass = termination_of(reason)
    ep.termination, ep.termination_detail = termination, reason or "not recorded"
    ep.meta.update(termination_reason=reason, ended_by=who, termination_class=klass,
                   agent_cost=a_cost(sim.get("agent_cost")),
                   user_cost=a_cost(sim.get("user_cost")),
                   message_costs=message_costs(messages), roles=dict(roles),
                   agent_texts=[m.get("content") for m in messages
                                if m.get("role") == "assistant" and isinstance(m.get("content"),
                                                                               str)],
                   simulation_id=ident(sim.get("id")))
    raw_info = sim.get("reward_info")
    info = obj(raw_info, "reward_info") if raw_info is not None else None
    reward = finite_float(info.get("reward")) if info else None
    ep.stored_score = reward
    if info is not None:
        ep.meta["reward"] = reward_parts(info)
    if klass == "measurement failure":
        ep.reason, ep.reason_detail = "infra_error", (
            f"termination {reason}: the harness failed, not the agent; stored reward "
            f"{'none' if reward is None else f'{reward:g}'} not counted")
        return
    if info is None:
        ep.reason, ep.reason_detail = "grader_never_ran", "reward_info is null"
        return
    if reward is None:
        ep.reason, ep.reason_detail = "unscored", "reward_info.reward is not a finite number"
        return
    if (outside := score_outside(reward, "reward")) is not None:
        # tau2 rewards are success probabilities: 5 or -1 is no such score, and a mean over
        # it would not be a rate (kept in stored_score, counted ungraded like any other).
        ep.reason, ep.reason_detail = "score_out_of_range", outside
        return
    ep.grade = StoredGrade(score=reward, passed=is_success(reward),
                           detail={"basis": ep.meta["reward"]["basis"]})
