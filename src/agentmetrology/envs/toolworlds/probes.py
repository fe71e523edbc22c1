"""Forged episodes for the auditor: a scripted policy driven directly on a fresh world."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agentmetrology.envs.toolworlds.policies import ScriptedPolicy
from agentmetrology.envs.toolworlds.world import World
from agentmetrology.records.clock import FakeClock
from agentmetrology.records.environment import Forged
from agentmetrology.records.events import Event
from agentmetrology.records.policy import Brief, ToolCall


def drive(world: World, policy: ScriptedPolicy) -> Forged:
    """Return the submission and trajectory of a scripted policy run on `world`."""
    brief = Brief(world.task_id, "", {}, tuple(t.spec for t in world.tools.values()), "L2", (),
                  world.seed, 0, FakeClock())
    events: list[Event] = []
    script = policy.script(brief)
    obs: Any = None
    try:
        call = next(script)
        while (isinstance(call, ToolCall) and world.submitted is None
               and not world.budget_exhausted):
            obs = world.tools[call.name](**call.args)
            events.append(Event(len(events), "agent", "tool_call", call.name, call.args, obs,
                                0.0))
            call = script.send(obs)
    except StopIteration:
        pass
    return Forged(world.submitted, tuple(events))


def battery(make: Callable[[str, int | None, str, str], World],
            agents: dict[str, type[ScriptedPolicy]]) -> Callable[[str, int | None, str],
                                                                 dict[str, Any]]:
    """Return the probe battery: every scripted policy's episode, the compliant one first."""
    def probes(task: str, seed: int | None, profile: str) -> dict[str, Any]:
        return {name.removeprefix("scripted:"): drive(make(task, seed, profile, "clean"), cls())
                for name, cls in agents.items()}
    return probes
