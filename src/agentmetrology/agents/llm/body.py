"""The lean path's request body of a conversation, from each message's bytes, encoded once.

A chat request carries the whole conversation every time, and encoding all of it again for
every request made the body's cost grow with the square of the conversation's length (about
40 us of CPU for the eighth request of a T10 episode, most of it escaping the quotes of earlier
tool results). The policy only ever appends messages, so each is encoded once, when it is
appended, and a body is joined from the request's bytes before its messages (the model), the
messages' bytes and the bytes after them (tools, request parameters), both encoded once per
episode: byte for byte what `lean.encode_body` writes for the same request, because msgspec
writes a list as its items' own encodings joined by "," (the tests compare the two on every
request of whole episodes).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agentmetrology.agents.llm.lean import encode_body, encode_json

# Stands for the messages while a template is encoded; a request holding this exact text
# anywhere else (it could not be split unambiguously) is encoded whole instead.
_MARK = "\x00agentmetrology:messages\x00"
_MARK_BYTES = encode_json(_MARK)


class Conversation:
    """The messages of one chat, append-only, each also kept as its JSON bytes."""

    def __init__(self, messages: list[dict[str, Any]] | None = None) -> None:
        self.messages: list[dict[str, Any]] = []
        self.encoded: list[bytes] = []
        for message in messages or []:
            self.append(message)

    def append(self, message: dict[str, Any]) -> None:
        """Add a message (never to be changed afterwards: its bytes are taken now)."""
        self.messages.append(message)
        self.encoded.append(encode_json(message))


class RequestTemplate:
    """One kind of request of an episode (model, tools, parameters) around its messages."""

    def __init__(self, kwargs: Mapping[str, Any]) -> None:
        # The value under "messages" is ignored: each request gets the conversation's.
        self._kwargs = {k: (None if k == "messages" else v) for k, v in kwargs.items()}
        self._kwargs.setdefault("messages", None)
        self._split = _split(self._kwargs)

    def kwargs(self, conversation: Conversation) -> dict[str, Any]:
        """Return the create(**kwargs) arguments of the next request (fresh containers)."""
        out = {**self._kwargs, "messages": list(conversation.messages)}
        extra = out.get("extra_body")
        if isinstance(extra, dict):
            out["extra_body"] = dict(extra)
        return out

    def body(self, conversation: Conversation) -> bytes:
        """Return `encode_body(self.kwargs(conversation))`, from the messages' kept bytes."""
        if self._split is None:
            return encode_body(self.kwargs(conversation))
        head, tail = self._split
        return b"".join((head, b"[", b",".join(conversation.encoded), b"]", tail))


def _split(kwargs: Mapping[str, Any]) -> tuple[bytes, bytes] | None:
    """Return the body's bytes before and after its messages, or None when they cannot be
    told apart (extra_body sets "messages" itself, or the mark occurs in the request)."""
    extra = kwargs.get("extra_body")
    if isinstance(extra, Mapping) and "messages" in extra:
        return None
    whole = encode_body({**kwargs, "messages": _MARK})
    if whole.count(_MARK_BYTES) != 1:
        return None
    head, tail = whole.split(_MARK_BYTES)
    return head, tail
