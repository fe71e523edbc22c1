"""Expected check statuses of a tool-world contract: PASS unless named otherwise."""

from __future__ import annotations

from agentmetrology.envs.registry import get_env


def expected(env: str, task: str, others: dict[str, str]) -> dict[str, str]:
    """Return {check: status} of the task's contract: `others` where named, else PASS."""
    hooks = get_env(env).contract
    assert hooks is not None
    names = [o.name for o in hooks.contract(task).checks]
    assert set(others) <= set(names), sorted(set(others) - set(names))
    return {n: others.get(n, "PASS") for n in names}
