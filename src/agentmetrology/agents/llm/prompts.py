"""Tool specs in the OpenAI chat-completions format (the words themselves are the environment's).

What the model is told (system prompt, per-level instructions, the task message, the questions
at a half-scaffold level) comes from the environment's specification through the Brief and the
Question, so this policy works on every registered environment.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from agentmetrology.records.tools import ToolSpec


def openai_tools(specs: Iterable[ToolSpec]) -> list[dict[str, Any]]:
    """Return tool specs in the OpenAI chat-completions `tools` format."""
    return [
        {"type": "function",
         "function": {"name": s.name, "description": s.description,
                      "parameters": s.parameters or {"type": "object", "properties": {}}}}
        for s in specs
    ]
