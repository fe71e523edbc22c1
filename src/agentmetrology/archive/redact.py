"""Redaction of credential-like strings before text from an archive reaches a report or terminal.

Archived error messages can quote API keys or bearer tokens (e.g. a provider's "incorrect API key"
error); reports and summaries must never repeat them.
"""

from __future__ import annotations

import re

_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(r"\b(sk|pk|rk)-[A-Za-z0-9_\-]{12,}"),  # provider-style secret keys
    re.compile(r"\b(ghp|gho|ghu|ghs|github_pat)_[A-Za-z0-9_]{16,}"),
    re.compile(r"\bAKIA[0-9A-Z]{16}\b"),
    re.compile(r"\bxox[abpr]-[A-Za-z0-9\-]{10,}"),
    re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._\-~+/]{12,}=*"),
    re.compile(r"(?i)\b(api[_-]?key|token|secret|password|passwd)\b\s*[:=]\s*\S+"),
)

MAX_DETAIL = 300


def redact(text: str, limit: int = MAX_DETAIL) -> str:
    """Return `text` with credential-like substrings replaced and cut to `limit` characters."""
    out = text
    for pat in _PATTERNS:
        out = pat.sub("[redacted]", out)
    out = " ".join(out.split())  # one line: details go into tables and one-line messages
    if len(out) > limit:
        out = out[: limit - 1] + "…"
    return out
