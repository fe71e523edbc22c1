"""Redaction of secrets before any bytes reach the evidence store.

Two passes, both read from the one pattern table in `edges.redaction`: the secret values the
caller registered (e.g. the API key read from `api_key_env`, in every form: raw, JSON-escaped,
base64, and any long substring of it), and credential-shaped patterns (provider keys, bearer
tokens, `"api_key":"…"` fields, URL passwords). Redacted canonical JSON stays valid JSON.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from agentmetrology.edges.redaction import (
    MIN_SECRET_LEN,
    PATTERNS_VERSION,
    SECRET_ENV_NAME,
    SecretValues,
    env_secret_values,
)
from agentmetrology.edges.redaction import redact_patterns as _redact_patterns
from agentmetrology.edges.redaction import secret_forms as _secret_forms

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


def _env_names() -> frozenset[Any]:
    # CPython's os.environ keeps its variables in `_data` (bytes keys on POSIX): comparing those
    # keys costs ~1 us, decoding every name through the mapping ~10 us.
    data = getattr(os.environ, "_data", None)
    return frozenset(data if isinstance(data, dict) else os.environ)


class _EnvWatch:
    """The credential-named environment variables, read again only when they may have changed."""

    def __init__(self, values: SecretValues) -> None:
        self.values = values
        self.read()

    def read(self) -> None:
        """Register the values of every credential-named variable (~80 us)."""
        self.names = _env_names()
        self.seen = {k: v for k, v in os.environ.items() if SECRET_ENV_NAME.search(k)}
        self.values.add(self.seen.values())

    def refresh(self) -> None:
        """Read again when a variable was added or removed or a known one changed (~2 us)."""
        if _env_names() != self.names or any(os.environ.get(k) != v
                                              for k, v in self.seen.items()):
            self.read()


class Redactor:
    """Removes registered secret values and credential-like patterns from bytes.

    With `watch_env`, the values of credential-named environment variables are registered as
    well, also those set after the redactor was made (a key exported by a library caller after
    opening the store): before each redaction it checks the names of the variables and the
    values of the credential-named ones, and reads the environment again when either changed.
    """

    def __init__(self, secrets: Iterable[str] = (), *, watch_env: bool = False) -> None:
        self._values = SecretValues(secrets)
        self._env = _EnvWatch(self._values) if watch_env else None

    def add(self, secrets: Iterable[str]) -> None:
        """Register more secret values (too-short values are ignored, see MIN_SECRET_LEN)."""
        self._values.add(secrets)

    def exact(self, data: bytes) -> bytes:
        """Return `data` with every registered secret (its forms and long fragments) replaced."""
        if self._env is not None:
            self._env.refresh()
        return self._values.redact(data, REDACTED)

    def bytes(self, data: bytes) -> bytes:
        """Return `data` with every registered secret and credential pattern replaced."""
        return redact_patterns(self.exact(data))

    def text(self, text: str) -> str:
        """Return `text` redacted (UTF-8 round trip)."""
        return self.bytes(text.encode("utf-8")).decode("utf-8", errors="replace")
