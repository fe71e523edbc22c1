"""Credential redaction for everything an LLM policy records (messages, errors, notes).

Keys come only from environment variables, but a provider's error message can quote a key (or
part of it), a proxy can echo an Authorization header, and a model can repeat text it was shown.
Every string a policy returns or records passes through `redact`, which reads the one pattern
table in `edges.redaction`. Long hex or base64 runs are redacted only in an authentication
context (after "api_key=", "Authorization:", ...): elsewhere they are digests and record ids
that the measurement needs intact.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable
from typing import Any

from agentmetrology.edges.redaction import MIN_SECRET_LEN, redactor

__all__ = ["MIN_SECRET_LEN", "REDACTED", "env_secrets", "redact", "redact_value"]

REDACTED = "[REDACTED]"
_redact = redactor(REDACTED)


def env_secrets(*names: str | None) -> list[str]:
    """Return the values of the named environment variables that are set and long enough."""
    out = []
    for name in names:
        value = os.environ.get(name) if name else None
        if value and len(value) >= MIN_SECRET_LEN:
            out.append(value)
    return out


# Short strings (argument names, tool-call ids, small JSON arguments) recur on every step; the
# result depends only on the text and the secrets, so it is remembered.
_MEMO_MAX_LEN = 256


@functools.lru_cache(maxsize=4096)
def _redact_short(text: str, secrets: tuple[str, ...]) -> str:
    return _redact(text, secrets)


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """Return `text` with known secret values (any form) and credential-shaped text replaced."""
    if len(text) <= _MEMO_MAX_LEN:
        return _redact_short(text, tuple(secrets))
    return _redact(text, secrets)


# Values that hold no string: returned as they are without the isinstance chain (most leaves
# of tool arguments and notes are numbers).
_NO_TEXT = frozenset({int, float, bool, type(None)})


def _redact_tree(value: Any, secrets: tuple[str, ...]) -> Any:
    kind = type(value)
    if kind in _NO_TEXT:
        return value
    if isinstance(value, str):
        if len(value) <= _MEMO_MAX_LEN:
            return _redact_short(value, secrets)
        return _redact(value, secrets)
    if isinstance(value, dict):
        return {(_redact_short(k, secrets) if type(k) is str and len(k) <= _MEMO_MAX_LEN
                 else redact(str(k), secrets)): _redact_tree(v, secrets)
                for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_redact_tree(v, secrets) for v in value]
    return value


def redact_value(value: Any, secrets: Iterable[str] = ()) -> Any:
    """Return a copy of plain JSON-like data with every string (keys included) redacted."""
    return _redact_tree(value, tuple(secrets))
