"""The Inspect path's transcript: Inspect's chat messages and model outputs in the form the chat
policy records (agents.llm.transcript_log), so an episode run by `inspect eval
agentmetrology/...` binds a transcript like one run by `agm campaign run`.

Messages are kept by role, text, tool calls and tool call id only: Inspect gives every message
a random id, which would make the same outputs give different transcripts.
"""

from __future__ import annotations

from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageTool,
    ContentReasoning,
    ModelOutput,
)
from inspect_ai.tool import ToolCall, ToolInfo

from agentmetrology.agents.llm.transcript_log import json_value


def _call(call: ToolCall) -> dict[str, Any]:
    return {"id": call.id, "type": "function",
            "function": {"name": call.function, "arguments": json_value(call.arguments)},
            **({"parse_error": call.parse_error} if call.parse_error else {})}


def _reasoning(message: ChatMessageAssistant) -> str | None:
    if isinstance(message.content, str):
        return None
    parts = [c.reasoning for c in message.content if isinstance(c, ContentReasoning)]
    return "\n".join(parts) if parts else None


def message_record(message: ChatMessage) -> dict[str, Any]:
    """Return an Inspect chat message as the transcript keeps it (OpenAI's chat shape)."""
    out: dict[str, Any] = {"role": message.role, "content": message.text}
    if isinstance(message, ChatMessageAssistant):
        reasoning = _reasoning(message)
        if reasoning is not None:
            out["reasoning"] = reasoning
        if message.tool_calls:
            out["tool_calls"] = [_call(c) for c in message.tool_calls]
    if isinstance(message, ChatMessageTool):
        out["tool_call_id"] = message.tool_call_id
    return out


def output_record(out: ModelOutput) -> dict[str, Any]:
    """Return a model output as the transcript keeps a response: text, reasoning, tool calls,
    stop reason, reported usage (Inspect reports no provider request id)."""
    usage = out.usage
    record: dict[str, Any] = {
        "content": out.message.text, "tool_calls": [_call(c) for c in out.message.tool_calls
                                                    or []],
        "finish_reason": out.stop_reason, "request_id": None,
        "usage": {"prompt_tokens": None if usage is None else usage.input_tokens,
                  "completion_tokens": None if usage is None else usage.output_tokens,
                  "cached_tokens": None if usage is None else usage.input_tokens_cache_read}}
    reasoning = _reasoning(out.message)
    if reasoning is not None:
        record["reasoning"] = reasoning
    return record


def tool_records(tools: list[ToolInfo]) -> list[dict[str, Any]]:
    """Return the tools offered, as the chat policy declares them."""
    return [{"type": "function", "function": {
        "name": t.name, "description": t.description,
        "parameters": t.parameters.model_dump(exclude_none=True)}} for t in tools]
