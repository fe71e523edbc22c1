"""Redaction of secrets before any bytes reach the evidence store.

Two passes, both read from the one pattern table in `records.redaction`: the secret values the
caller registered (e.g. the API key read from `api_key_env`, in every form: raw, JSON-escaped,
base64, and any long substring of it), and credential-shaped patterns (provider keys, bearer
tokens, `"api_key":"…"` fields, URL passwords). Redacted canonical JSON stays valid JSON.
"""

from __future__ import annotations

from collections.abc import Iterable

from agentmetrology.records.redaction import (
    MIN_SECRET_LEN,
    PATTERNS_VERSION,
    SecretValues,
    env_secret_values,
)
from agentmetrology.records.redaction import redact_patterns as _redact_patterns
from agentmetrology.records.redaction import secret_forms as _secret_forms

__all__ = ["MIN_SECRET_LEN", "PATTERNS_VERSION", "REDACTED", "Redactor", "env_secrets",
           "redact_patterns", "secret_forms"]

REDACTED = b"[redacted]"


def secret_forms(value: str) -> list[bytes]:
    """Return the whole byte forms a secret can take in stored text (raw, escaped, base64)."""
    return [f.encode("utf-8") for f in _secret_forms(value)]


def env_secrets(environ: dict[str, str] | None = None) -> list[str]:
    """Return the values of environment variables whose names mark them as credentials."""
    return env_secret_values(environ)


def redact_patterns(data: bytes) -> bytes:
    """Return `data` with credential-like patterns replaced (no registered values needed)."""
    return _redact_patterns(data, REDACTED)


class Redactor:
    """Removes registered secret values and credential-like patterns from bytes."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._values = SecretValues(secrets)

    def add(self, secrets: Iterable[str]) -> None:
        """Register more secret values (too-short values are ignored, see MIN_SECRET_LEN)."""
        self._values.add(secrets)

    def exact(self, data: bytes) -> bytes:
        """Return `data` with every registered secret (its forms and long fragments) replaced."""
        return self._values.redact(data, REDACTED)

    def bytes(self, data: bytes) -> bytes:
        """Return `data` with every registered secret and credential pattern replaced."""
        return redact_patterns(self.exact(data))

    def text(self, text: str) -> str:
        """Return `text` redacted (UTF-8 round trip)."""
        return self.bytes(text.encode("utf-8")).decode("utf-8", errors="replace")
