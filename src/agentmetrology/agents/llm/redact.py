"""Credential redaction for everything an LLM policy records (messages, errors, notes).

Keys come only from environment variables, but a provider's error message can quote a key, a
proxy can echo an Authorization header, and a model can repeat text it was shown. Every string a
policy returns or records passes through `redact`. Long hex or base64 runs are redacted only in
an authentication context (after "api_key=", "Authorization:", ...): elsewhere they are digests
and record ids that the measurement needs intact.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from typing import Any

REDACTED = "[REDACTED]"
# A key variable's literal value is replaced wherever it appears only when it is at least this
# long: shorter values are placeholders ("EMPTY", "ollama") whose every occurrence is not secret.
MIN_SECRET_LEN = 8

_KEY_SHAPES: tuple[re.Pattern[str], ...] = (
    re.compile(r"sk-ant-[A-Za-z0-9_\-]{8,}"),  # Anthropic
    re.compile(r"\b(?:sk|pk|rk)-[A-Za-z0-9_\-]{12,}"),  # OpenAI and OpenAI-style keys
    re.compile(r"\b(?:gsk|xai|hf|ghp|gho|ghu|ghs|github_pat|glpat)[_\-][A-Za-z0-9_\-]{16,}"),
    re.compile(r"\bAIza[0-9A-Za-z_\-]{30,}"),  # Google API keys
    re.compile(r"\bAKIA[0-9A-Z]{16}\b"),  # AWS access key ids
    re.compile(r"\bxox[abpr]-[A-Za-z0-9\-]{10,}"),  # Slack tokens
    re.compile(r"(?i)\b(?:bearer|basic)\s+[A-Za-z0-9._~+/\-]{8,}=*"),
)
# In an auth context the label is kept and the value replaced, whatever its shape.
_AUTH_CONTEXT = re.compile(
    r"(?i)((?:api[_\-]?key|x-api-key|authorization|access[_\-]?token|auth[_\-]?token|"
    r"secret|password|passwd|client[_\-]?secret)[\"']?\s*[:=]\s*[\"']?)"
    r"((?:bearer\s+)?[A-Za-z0-9._~+/\-]{8,}=*)"
)
# Credentials embedded in URLs: https://user:key@host and ?key=... / &api_key=...
_URL_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)[^/\s:@]+:[^/\s@]+@")
_URL_QUERY_KEY = re.compile(r"(?i)([?&](?:key|api[_\-]?key|token|access_token|sig)=)[^&\s#]+")


def env_secrets(*names: str | None) -> list[str]:
    """Return the values of the named environment variables that are set and long enough."""
    out = []
    for name in names:
        value = os.environ.get(name) if name else None
        if value and len(value) >= MIN_SECRET_LEN:
            out.append(value)
    return out


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """Return `text` with known secret values and credential-shaped substrings replaced."""
    out = text
    # Literal values first: a key of any shape is caught even if no pattern knows it.
    for secret in sorted({s for s in secrets if len(s) >= MIN_SECRET_LEN}, key=len, reverse=True):
        out = out.replace(secret, REDACTED)
    out = _URL_USERINFO.sub(lambda m: f"{m.group(1)}{REDACTED}@", out)
    out = _URL_QUERY_KEY.sub(lambda m: f"{m.group(1)}{REDACTED}", out)
    out = _AUTH_CONTEXT.sub(lambda m: f"{m.group(1)}{REDACTED}", out)
    for pat in _KEY_SHAPES:
        out = pat.sub(REDACTED, out)
    return out


def redact_value(value: Any, secrets: Iterable[str] = ()) -> Any:
    """Return a copy of plain JSON-like data with every string (keys included) redacted."""
    secret_list = list(secrets)
    if isinstance(value, str):
        return redact(value, secret_list)
    if isinstance(value, dict):
        return {redact(str(k), secret_list): redact_value(v, secret_list)
                for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_value(v, secret_list) for v in value]
    return value
