"""Redaction of credential-like strings before text from an archive reaches a report or terminal.

Archived error messages can quote API keys or bearer tokens (e.g. a provider's "incorrect API key"
error); reports and summaries must never repeat them. The patterns are the one table in
`edges.redaction`; the values of this machine's credential-named environment variables are
removed too (in any form, or quoted in part).
"""

from __future__ import annotations

from agentmetrology.edges.redaction import env_secret_values, redactor

MAX_DETAIL = 300
REDACTED = "[redacted]"
_redact = redactor(REDACTED)


def redact(text: str, limit: int = MAX_DETAIL) -> str:
    """Return `text` with credential-like substrings replaced and cut to `limit` characters."""
    if not text or text.isspace():
        return ""  # most details are empty: skip reading the environment (per field, per row)
    out = _redact(text, env_secret_values())
    out = " ".join(out.split())  # one line: details go into tables and one-line messages
    if len(out) > limit:
        out = out[: limit - 1] + "…"
    return out
