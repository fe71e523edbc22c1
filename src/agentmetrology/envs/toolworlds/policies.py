"""The scripted-policy helpers of the tool worlds (the base lives in runtime.scripted)."""

from __future__ import annotations

from typing import Any

from agentmetrology.records.tools import Observation
from agentmetrology.runtime.scripted import Script, ScriptedPolicy

__all__ = ["Script", "ScriptedPolicy", "get"]


def get(obs: Observation | None, *path: str) -> Any:
    """Return a nested value of an observation (None when absent)."""
    value: Any = obs
    for part in path:
        value = value.get(part) if isinstance(value, dict) else None
    return value
