"""The transcript of one ChatPolicy episode, logged cheaply while it runs.

The policy's conversation is append-only, so a request is recorded as how many of the
conversation's messages it carried (no copy per request); the response is recorded as returned.
`transcript()` then keeps each distinct message once (what the model and the policy wrote
redacted of the policy's secrets, like every other record of the policy; the environment's
observations as the events keep them) and names a request's messages by their indexes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agentmetrology.agents.llm.redact import redact_value
from agentmetrology.records.canonical import canonical_json
from agentmetrology.records.transcript import Exchange, Transcript


@dataclass(frozen=True, slots=True)
class Opened:
    """A request in flight: messages sent, attempts already made, when it started."""

    messages: int
    attempts_before: int
    started_t: float
    with_tools: bool


def json_value(value: Any) -> Any:
    """Return a reported value as JSON can hold it (its repr when it is not plain data)."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list | tuple):
        return [json_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): json_value(v) for k, v in value.items()}
    dump = getattr(value, "model_dump", None)  # an SDK object
    return json_value(dump()) if callable(dump) else repr(value)


def response_record(message: Any, finish_reason: str | None, request_id: str | None,
                    usage: Sequence[Any]) -> dict[str, Any]:
    """Return a chat completion's first choice as returned: text, reasoning, tool calls,
    finish reason, reported usage and the provider's request id."""
    calls = []
    for tc in getattr(message, "tool_calls", None) or []:
        fn = getattr(tc, "function", None)
        calls.append({"id": getattr(tc, "id", None), "type": getattr(tc, "type", None),
                      "function": None if fn is None else {
                          "name": getattr(fn, "name", None),
                          "arguments": getattr(fn, "arguments", None)}})
    out: dict[str, Any] = {"content": getattr(message, "content", None), "tool_calls": calls,
                           "finish_reason": finish_reason, "request_id": request_id,
                           "usage": dict(zip(("prompt_tokens", "completion_tokens",
                                              "cached_tokens"), map(json_value, usage),
                                             strict=True))}
    for name in ("reasoning_content", "reasoning"):
        value = getattr(message, name, None)
        if value is not None:
            out[name] = json_value(value)
    return out


class TranscriptLog:
    """The exchanges of one episode, with the conversation they index into."""

    def __init__(self, tools: list[dict[str, Any]], settings: dict[str, Any]) -> None:
        self.tools, self.settings = tools, settings
        self.exchanges: list[tuple[Opened, tuple[str, ...], float, dict[str, Any] | None]] = []

    def close(self, opened: Opened, attempt_ids: Sequence[str], ended_t: float,
              response: dict[str, Any] | None) -> None:
        """Record a finished request (response None: no attempt succeeded)."""
        self.exchanges.append((opened, tuple(attempt_ids), ended_t, response))

    def transcript(self, conversation: Sequence[dict[str, Any]],
                   secrets: Sequence[str]) -> Transcript:
        """Return the transcript, every message and response redacted of `secrets`."""
        distinct: dict[bytes, int] = {}
        messages: list[dict[str, Any]] = []
        position: list[int] = []
        for message in conversation:
            # A tool result is the environment's observation, kept as the events keep it (the
            # store redacts it); what the model or the policy wrote is redacted here as well.
            clean = message if message.get("role") == "tool" else redact_value(message, secrets)
            index = distinct.setdefault(canonical_json(clean), len(messages))
            if index == len(messages):
                messages.append(clean)
            position.append(index)
        exchanges = [
            Exchange(n, tuple(position[:o.messages]), o.with_tools, ids, o.started_t, ended,
                     None if resp is None else redact_value(resp, secrets))
            for n, (o, ids, ended, resp) in enumerate(self.exchanges, 1)]
        return Transcript(messages, redact_value(self.tools, secrets), exchanges,
                          redact_value(self.settings, secrets), list(distinct))
