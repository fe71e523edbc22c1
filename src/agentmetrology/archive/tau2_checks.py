"""tau2's reward components recomputed from a replay, by the rules inspect-evals' tau2 applies.

ACTION (inspect-evals' `evaluate_required_actions`): every gold action must be matched by some
recorded call of the same requestor (the agent's calls for `assistant` actions, the simulated
user's for `user` actions) with the same name and equal arguments: only the keys in the action's
`compare_args` when it names them (an empty list: any call of that name), all of them otherwise;
lists compare as multisets and an integer equals the same float. A `transfer_to_human_agents`
action matches by name alone (inspect-evals does not compare its summary; tau2-bench's stored
checks do, so the two can disagree there, and the disagreement is named, not hidden).
ENV_ASSERTION: each assertion's function, run on the replayed world of its `env_type`, must give
its `assert_value`. COMMUNICATE: each required output appears in the agent's messages, lower
case, commas removed (inspect-evals' `score_communicated_info`).
"""

from __future__ import annotations

from typing import Any

from agentmetrology.archive.tau2_world import World

Call = tuple[str, str, Any]  # (requestor, tool name, arguments)
NAME_ONLY = frozenset({"transfer_to_human_agents"})


def same_value(a: Any, b: Any) -> bool:
    """Return whether two JSON values are equal, lists as multisets, 1 == 1.0 (not True)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if len(a) != len(b):
            return False
        unused = list(b)
        for item in a:  # greedy multiset matching, as an unordered comparison
            hit = next((i for i, other in enumerate(unused) if same_value(item, other)), None)
            if hit is None:
                return False
            unused.pop(hit)
        return True
    return type(a) is type(b) and bool(a == b)


def _matches(action: dict[str, Any], call: Call) -> bool:
    requestor, name, args = call
    if requestor != (action.get("requestor") or "assistant") or name != action.get("name"):
        return False
    if name in NAME_ONLY:
        return True
    gold = action.get("arguments") or {}
    got = args if isinstance(args, dict) else {}
    keys = action.get("compare_args")
    if keys is None:
        return same_value(got, gold)
    return same_value({k: got.get(k) for k in keys}, {k: gold.get(k) for k in keys})


def action_matches(actions: list[dict[str, Any]], calls: list[Call]) -> list[bool]:
    """Return, per gold action, whether a recorded call of its requestor matches it."""
    return [any(_matches(a, c) for c in calls) for a in actions]


def assertions_met(world: World, assertions: list[dict[str, Any]]) -> list[bool]:
    """Return, per environment assertion, whether the replayed world gives its value."""
    return [world.query(a.get("env_type") or "assistant", str(a.get("func_name")),
                        a.get("arguments") or {}) == a.get("assert_value", True)
            for a in assertions]


def communicated(texts: list[Any], required: list[Any]) -> bool:
    """Return whether every required output appears in the agent's messages."""
    text = " ".join(str(t) for t in texts).lower().replace(",", "")
    return all(str(i).lower() in text for i in required)
