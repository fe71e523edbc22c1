"""An episode's transcript: every model request's messages and the response as returned.

A chat request carries the whole conversation every time, so storing each request whole would
grow with the square of the conversation. A transcript keeps each distinct message once (in
the store: one blob per message, named by its digest, so a system prompt shared by every
episode of an environment is stored once) and each request as the indexes of its messages.

The stored document (`document`) lists the digests of the message blobs and of the tool
declarations, the model and parameters every request named, then one exchange per request:
its messages (indexes), whether tools were offered, the billable attempts it took (retries
stay distinct, named as in `Usage.attempts`), when it started and ended on the episode's
clock, and the response as returned (text, reasoning, tool calls, finish reason, reported
usage, provider request id), or None when no attempt succeeded. The episode binds the
document's digest (`Episode.digests["transcript"]`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentmetrology.records.canonical import canonical_json, sha256_hex

FORMAT = "agm-transcript/1"


@dataclass(frozen=True, slots=True)
class Exchange:
    """One model request: which messages were sent, the attempts it took and the response."""

    request: int  # 1, 2, ... in the order the requests were made
    messages: tuple[int, ...]  # indexes into Transcript.messages, in the order sent
    with_tools: bool
    attempts: tuple[str, ...]  # BillableAttempt.attempt_id of every attempt, retries included
    started_t: float
    ended_t: float
    response: dict[str, Any] | None  # as returned; None when every attempt failed


@dataclass(slots=True)
class Transcript:
    """The distinct messages of an episode's model requests, the tools offered, the exchanges."""

    messages: list[dict[str, Any]] = field(default_factory=list)
    tools: list[dict[str, Any]] = field(default_factory=list)
    exchanges: list[Exchange] = field(default_factory=list)
    # The rest of every request: the model named and the parameters sent with the messages.
    settings: dict[str, Any] = field(default_factory=dict)
    # The canonical bytes of `messages` when whoever built them has them already (a transcript
    # is complete when built and never changed after), and the encoding once made.
    message_bytes: list[bytes] | None = field(default=None, compare=False, repr=False)
    _encoded: tuple[bytes, list[bytes]] | None = field(default=None, compare=False, repr=False)

    def parts(self) -> list[bytes]:
        """Return the canonical bytes of each message, then of the tool declarations."""
        messages = self.message_bytes
        if messages is None or len(messages) != len(self.messages):
            messages = [canonical_json(m) for m in self.messages]
        return [*messages, canonical_json(self.tools)]

    def document(self, part_digests: list[str]) -> dict[str, Any]:
        """Return the stored document, given the digests of `parts()` (as stored)."""
        return {"format": FORMAT, "messages": part_digests[:-1], "tools": part_digests[-1],
                "settings": self.settings,
                "exchanges": [_exchange_plain(x) for x in self.exchanges]}

    def encoded(self) -> tuple[bytes, list[bytes]]:
        """Return the document's canonical bytes and the parts' bytes it names."""
        if self._encoded is None:
            parts = self.parts()
            self._encoded = canonical_json(self.document([sha256_hex(p) for p in parts])), parts
        return self._encoded

    @property
    def digest(self) -> str:
        """Return the digest of the document (what the episode binds)."""
        return sha256_hex(self.encoded()[0])


def _exchange_plain(x: Exchange) -> dict[str, Any]:
    return {"request": x.request, "messages": list(x.messages), "with_tools": x.with_tools,
            "attempts": list(x.attempts), "started_t": x.started_t, "ended_t": x.ended_t,
            "response": x.response}


def part_digests(document: Any) -> list[str]:
    """Return every blob digest a stored transcript document names (messages, then tools)."""
    if not isinstance(document, dict):
        raise ValueError("a transcript document is a JSON object")
    messages, tools = document.get("messages"), document.get("tools")
    if not isinstance(messages, list) or not isinstance(tools, str):
        raise ValueError("a transcript document names its messages (a list) and tools")
    if not all(isinstance(d, str) for d in messages):
        raise ValueError("a transcript's message digests are strings")
    return [*messages, tools]
