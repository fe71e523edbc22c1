"""The scripted-policy helpers of the tool worlds (the base lives in runtime.scripted)."""

from __future__ import annotations

from typing import Any

from agentmetrology.records.policy import Brief, ToolCall
from agentmetrology.records.tools import Observation
from agentmetrology.runtime.scripted import Script, ScriptedPolicy, TimedScript

__all__ = ["Script", "ScriptedPolicy", "get", "plus_calls"]


def get(obs: Observation | None, *path: str) -> Any:
    """Return a nested value of an observation (None when absent)."""
    value: Any = obs
    for part in path:
        value = value.get(part) if isinstance(value, dict) else None
    return value


def plus_calls(base: type[ScriptedPolicy], name: str, doc: str,
              *calls: ToolCall) -> type[ScriptedPolicy]:
    """Return a policy that plays `base` and makes `calls` just before its finish call.

    The profile's failing policies: the task done as the compliant policy does it, plus the
    one side effect that breaks an invariant.
    """
    def script(self: ScriptedPolicy, brief: Brief) -> TimedScript:
        inner = base.script(self, brief)
        try:
            call = next(inner)
            while True:
                if isinstance(call, ToolCall) and call.name == "finish":
                    for extra in calls:  # their observations are not the base's to see
                        _ = yield extra
                call = inner.send((yield call))
        except StopIteration:
            return
    return type(f"{base.__name__}_{name.removeprefix('scripted:')}", (base,),
                {"name": name, "__doc__": doc, "script": script})
