"""What a failed provider request was: its outcome, whether to retry, and one stable reason.

HTTP statuses map to outcomes (429 rate_limited, 5xx server_error, ...); a connection error is
told apart from a lost connection, because only the first proves that no request was sent.
"""

from __future__ import annotations

import socket
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(slots=True)
class Failure:
    """A failed attempt: outcome, whether it is retried, detail, the provider's wait hint."""

    outcome: str
    retryable: bool
    detail: str
    wait_hint: float | None = None
    reason: str = ""  # one stable line per failure mode (same cause, same text), no secrets


def classify_status(code: int) -> tuple[str, bool]:
    """Return (outcome, retryable) for an HTTP error status."""
    if code == 429:
        return "rate_limited", True
    if code == 408:
        return "timeout", True
    if code == 409:
        return "conflict", True
    if code >= 500:
        return "server_error", True
    names = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
             413: "too_large", 422: "unprocessable"}
    return names.get(code, f"http_{code}"), False


def retry_after_s(headers: Mapping[str, str] | None) -> float | None:
    """Return the server's requested wait in seconds (retry-after-ms / retry-after), if any."""
    if not headers:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        raw = headers.get(name)
        if raw is None:
            continue
        try:
            value = float(raw) * scale
        except ValueError:
            continue  # an HTTP date: fall back to our own backoff
        if value >= 0:
            return value
    return None


def request_id_of(headers: Mapping[str, str] | None, fallback: str | None = None) -> str | None:
    """Return the provider's request id (x-request-id / request-id header), else `fallback`."""
    if headers:
        for name in ("x-request-id", "request-id"):
            if headers.get(name):
                return str(headers[name])
    return fallback


def chain_of(exc: BaseException) -> list[BaseException]:
    """Return an exception and its causes/contexts, outermost first (cycles cut)."""
    out: list[BaseException] = []
    cur: BaseException | None = exc
    while cur is not None and cur not in out:
        out.append(cur)
        cur = cur.__cause__ or cur.__context__
    return out


def connect_failure(exc: BaseException, endpoint: str) -> str | None:
    """Return why no connection to `endpoint` was established, or None if one was.

    The HTTP stack raises a Connect* error (ConnectError, ConnectTimeout) only before a single
    byte of the request is sent; every later failure (read, write, protocol) may follow a request
    the provider received and billed.
    """
    chain = chain_of(exc)
    if not any(type(e).__name__ in ("ConnectError", "ConnectTimeout") for e in chain):
        return None
    if any(isinstance(e, ConnectionRefusedError) for e in chain):
        return f"connection refused by {endpoint}"
    if any(isinstance(e, socket.gaierror) for e in chain):
        return f"cannot resolve the host of {endpoint}"
    if any(type(e).__name__ == "ConnectTimeout" for e in chain):
        return f"no connection to {endpoint} (connect timeout)"
    return f"cannot connect to {endpoint}"
