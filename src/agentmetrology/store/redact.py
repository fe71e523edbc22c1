"""Redaction of secrets before any bytes reach the evidence store.

Two passes: exact values the caller registered (e.g. the API key read from `api_key_env`), and
credential-like patterns (provider keys, bearer tokens, `"api_key":"…"` fields). The patterns
never consume a JSON quote, comma or brace, so redacted canonical JSON stays valid JSON.
The store is a layer below agents, so this module is self-contained on purpose.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable

REDACTED = b"[redacted]"
# Shorter registered values would match ordinary data and corrupt evidence for no protection.
MIN_SECRET_LEN = 8
_TOKEN = rb"[^\s\"'\\,;&}\]]"  # a token character that cannot end a JSON string or value

_KEY_WORDS = (b"api_key", b"api-key", b"apikey", b"authorization", b"passw", b"secret",
              b"access_token", b"access-token", b"refresh_token")

# (pattern, replacement, lowercase literals one of which every match contains). A pattern runs
# only when one of its literals occurs: `in` scans at memory speed, while a regex without a
# literal prefix tries every position (over 100x slower on a large episode).
_PATTERNS: tuple[tuple[re.Pattern[bytes], bytes, tuple[bytes, ...]], ...] = (
    (re.compile(rb"\b(?:sk|pk|rk)-" + _TOKEN + rb"{12,}"), REDACTED, (b"k-",)),
    (re.compile(rb"\b(?:ghp|gho|ghu|ghs|github_pat)_[A-Za-z0-9_]{16,}"), REDACTED,
     (b"ghp_", b"gho_", b"ghu_", b"ghs_", b"github_pat_")),
    (re.compile(rb"\bAKIA[0-9A-Z]{16}\b"), REDACTED, (b"akia",)),
    (re.compile(rb"\bxox[abpr]-[A-Za-z0-9\-]{10,}"), REDACTED, (b"xox",)),
    (re.compile(rb"(?i)\b(bearer\s+)" + _TOKEN + rb"{12,}"), rb"\1[redacted]", (b"bearer",)),
    # A secret-named JSON field: keep the name, drop the value.
    (re.compile(rb'(?i)("(?:api[_-]?key|x-api-key|authorization|password|passwd|secret|'
                rb'client_secret|access_token|refresh_token)"\s*:\s*")(?:[^"\\]|\\.)*"'),
     rb'\1[redacted]"', _KEY_WORDS),
    # `api_key=…` / `password: …` in free text (logs, error messages).
    (re.compile(rb"(?i)\b((?:api[_-]?key|access[_-]?token|secret|password|passwd)\s*[:=]\s*)"
                + _TOKEN + rb"+"), rb"\1[redacted]", _KEY_WORDS),
)
_LITERALS = tuple(dict.fromkeys(t for _, _, ts in _PATTERNS for t in ts))
# Bumped whenever the patterns change, so that pre-redacted evidence is redacted again.
PATTERNS_VERSION = "1"

# Environment variables whose names say they hold a credential.
_SECRET_ENV_NAME = re.compile(r"(?i)(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)")


def secret_forms(value: str) -> list[bytes]:
    """Return the byte forms a secret can take in stored text: raw and JSON-escaped."""
    raw = value.encode("utf-8")
    escaped = json.dumps(value, ensure_ascii=False)[1:-1].encode("utf-8")
    ascii_escaped = json.dumps(value)[1:-1].encode("utf-8")
    return sorted({raw, escaped, ascii_escaped}, key=len, reverse=True)


def env_secrets(environ: dict[str, str] | None = None) -> list[str]:
    """Return the values of environment variables whose names mark them as credentials."""
    env = os.environ if environ is None else environ
    return [v for k, v in env.items() if _SECRET_ENV_NAME.search(k) and len(v) >= MIN_SECRET_LEN]


def redact_patterns(data: bytes) -> bytes:
    """Return `data` with credential-like patterns replaced (no registered values needed)."""
    lowered = data.lower()
    present = {t for t in _LITERALS if t in lowered}
    if present:
        for pattern, repl, literals in _PATTERNS:
            if present.intersection(literals):
                data = pattern.sub(repl, data)
    return data


class Redactor:
    """Removes registered secret values and credential-like patterns from bytes."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._forms: list[bytes] = []
        self.add(secrets)

    def add(self, secrets: Iterable[str]) -> None:
        """Register more exact secret values (too-short values are ignored, see MIN_SECRET_LEN)."""
        forms = set(self._forms)
        for s in secrets:
            if isinstance(s, str) and len(s) >= MIN_SECRET_LEN:
                forms.update(secret_forms(s))
        self._forms = sorted(forms, key=len, reverse=True)

    def exact(self, data: bytes) -> bytes:
        """Return `data` with every registered secret value replaced."""
        for form in self._forms:
            if form in data:
                data = data.replace(form, REDACTED)
        return data

    def bytes(self, data: bytes) -> bytes:
        """Return `data` with every registered secret and credential pattern replaced."""
        return redact_patterns(self.exact(data))

    def text(self, text: str) -> str:
        """Return `text` redacted (UTF-8 round trip)."""
        return self.bytes(text.encode("utf-8")).decode("utf-8", errors="replace")
