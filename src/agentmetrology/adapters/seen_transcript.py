"""The conversation an RL framework's rollout showed us, kept as the episode's transcript.

A framework (verifiers) owns the model: it sends the whole chat at every turn and bills its own
requests. What the adapter sees is that chat, so the transcript is rebuilt from the last one
seen: each assistant message is the response to a request made of every message before it
(attempts none: the framework billed them; times unknown: 0.0 on the episode's clock). Each
distinct message is kept once, as for an LLM episode, so `agm view` draws it the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agentmetrology.agents.llm.transcript_log import json_value
from agentmetrology.records.canonical import canonical_json
from agentmetrology.records.transcript import Exchange, Transcript

RESPONSE_FIELDS = ("content", "tool_calls", "reasoning_content", "reasoning")


def plain_message(message: Any) -> dict[str, Any]:
    """Return a chat message as plain JSON data (an SDK object dumped, unknowns as repr)."""
    value = json_value(message)
    return value if isinstance(value, dict) else {"role": "unknown", "content": repr(message)}


def seen_transcript(conversation: Sequence[dict[str, Any]], tools: list[dict[str, Any]],
                    source: str) -> Transcript:
    """Return the transcript of a conversation driven from outside (`source` names who)."""
    distinct: dict[bytes, int] = {}
    messages: list[dict[str, Any]] = []
    position: list[int] = []
    exchanges: list[Exchange] = []
    for message in conversation:
        if message.get("role") == "assistant":
            response = {k: message[k] for k in RESPONSE_FIELDS if message.get(k) is not None}
            exchanges.append(Exchange(len(exchanges) + 1, tuple(position), bool(tools), (),
                                      0.0, 0.0, response))
        index = distinct.setdefault(canonical_json(message), len(messages))
        if index == len(messages):
            messages.append(message)
        position.append(index)
    return Transcript(messages, tools, exchanges,
                      {"source": source, "billed_by": source}, list(distinct))
