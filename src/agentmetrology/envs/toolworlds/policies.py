"""The scripted-policy helpers of the tool worlds (the base lives in records.scripted)."""

from __future__ import annotations

from typing import Any

from agentmetrology.records.scripted import Script, ScriptedPolicy
from agentmetrology.records.tools import Observation

__all__ = ["Script", "ScriptedPolicy", "get"]


def get(obs: Observation | None, *path: str) -> Any:
    """Return a nested value of an observation (None when absent)."""
    value: Any = obs
    for part in path:
        value = value.get(part) if isinstance(value, dict) else None
    return value
