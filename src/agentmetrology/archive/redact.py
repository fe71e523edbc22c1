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
    if _memo is not None:
        got = _memo.get((text, limit))
        if got is None:
            got = _redacted(text, limit)
            if len(_memo) < _MEMO_ENTRIES:  # details unique to each row are not kept
                _memo[(text, limit)] = got
        return got
    return _redacted(text, limit)


class redact_memo:  # lower case: used as `with redact_memo():`, like contextlib managers
    """Within the block, `redact` of a text it was given before in the block returns what it
    returned then: an import gives it the same few details (a termination's, a never-ran
    episode's) on thousands of rows, and each call read every environment variable anew.
    Blocks nest (the outermost one's memo is used)."""

    __slots__ = ("_outer",)

    def __enter__(self) -> None:
        global _memo
        self._outer = _memo
        if _memo is None:
            _memo = {}

    def __exit__(self, *exc: object) -> None:
        global _memo
        _memo = self._outer


_memo: dict[tuple[str, int], str] | None = None  # redact_memo's, while a block runs
_MEMO_ENTRIES = 4096  # the few repeated details fit; a million unique ones would not


def _redacted(text: str, limit: int) -> str:
    out = _redact(text, env_secret_values())
    out = " ".join(out.split())  # one line: details go into tables and one-line messages
    if len(out) > limit:
        out = out[: limit - 1] + "…"
    return out
