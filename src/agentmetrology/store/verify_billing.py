"""The store check of an episode's billing rows against its blob
(`billing_disagrees_with_evidence`).

A campaign writes each provider request of an attempt to `billable_attempts` as it is answered
(store.ledger.record_billable), then records the episode, whose blob lists the same requests in
`usage.attempts`. So the rows of a recorded (or superseded) episode's attempt are its blob's
requests, field for field. Two departures are legitimate and accepted:
- no billing row at all: an episode recorded through `EvidenceStore.record_episode` without a
  campaign (a library caller, older stores), or one whose ledger refused its first request;
- the blob's last request without a row, in a measurement failure: the ledger refused that
  row, which ends the episode as an infrastructure failure (agents.llm.client) or it was
  cancelled then.
The rows of an attempt that recorded no episode (interrupted, failed) have no blob to be held
to; their cost is what the ledger says (docs/evidence.md: not detected).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

from agentmetrology.store.redact import REDACTED

KIND = "billing_disagrees_with_evidence"
# The columns compared, in the blob's names (`BillableAttempt`); the row's `billing_id` is the
# blob's `attempt_id`.
FIELDS = ("attempt_id", "provider", "model", "request_id", "input_tokens", "output_tokens",
          "cached_tokens", "cost", "latency_s", "outcome")
_COLUMNS = ("billing_id", "provider", "model", "request_id", "input_tokens", "output_tokens",
            "cached_tokens", "cost", "latency_s", "outcome")
# Texts a writer redacts on its own (the row's alone, the blob's inside its JSON): they may
# differ where the blob's holds the redaction marker.
_REDACTED_TEXTS = frozenset({"provider", "model", "request_id"})
_MARK = REDACTED.decode()

# The billing rows of an episode's attempt (as `e`) in one JSON text, NULL when it has none.
# Each value is as JSON reads it back in Python: an INTEGER, TEXT or NULL as itself; a finite
# REAL as a JSON number of 17 significant digits (json_array keeps 15, and about 1 cost in
# 10,000 came back one digit off, so an honest store failed its check; SQLite's json() keeps a
# number's text as written); an infinite REAL as its text ('Inf', which JSON cannot hold); a
# BLOB a forger wrote as its quoted text X'..' (json_array refuses a BLOB, which would stop the
# check). No value is then decoded in Python one by one (a tenth of a 10,000-episode audit's
# serial tail went to that).
_FINITE = "1.7976931348623157e308"
BILLED_SQL = ("(SELECT CASE WHEN COUNT(*) THEN json_group_array(json_array(b.id, "
              + ", ".join(f"CASE typeof(b.{c}) WHEN 'real' THEN CASE WHEN abs(b.{c}) <= "
                          f"{_FINITE} THEN json(printf('%!.17g', b.{c})) "
                          f"ELSE printf('%!.17g', b.{c}) END "
                          f"WHEN 'blob' THEN quote(b.{c}) ELSE b.{c} END" for c in _COLUMNS)
              + ")) END FROM billable_attempts b WHERE b.attempt = e.attempt)")

Row = tuple[Any, list[Any]]  # a billing row's id and its values (FIELDS order)


def billed_rows(text: str | None) -> list[Row] | None:
    """Return the billing rows BILLED_SQL gave as (id, values), None when there are none."""
    if text is None:
        return None
    return [(r[0], r[1:]) for r in json.loads(text)]


def _blob_requests(plain: dict[str, Any]) -> dict[Any, list[Any]]:
    """Return the blob's requests by attempt id, the first of each id (the ledger keeps one
    row per id of an attempt), in the blob's order; {} when it lists none readable."""
    out: dict[Any, list[Any]] = {}
    attempts = (plain.get("usage") or {}).get("attempts") or []
    for a in attempts if isinstance(attempts, list) else ():
        if isinstance(a, dict):
            values = [a.get(f) for f in FIELDS]
            if _hashable(values[0]) and values[0] not in out:
                out[values[0]] = values
    return out


def _hashable(value: Any) -> bool:
    return isinstance(value, str | int | float | type(None))


def _digest(values: list[list[Any]]) -> str | None:
    """Return the digest of requests' values, ordered by attempt id; None when JSON cannot
    hold them exactly (the check then compares them one by one)."""
    try:
        text = json.dumps(sorted(values, key=lambda v: str(v[0])), allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return None
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def blob_billing(plain: Any) -> str | None:
    """Return the digest of an episode blob's requests (what `rows_billing` gives for billing
    rows that are exactly them), None when it has none or they cannot be digested."""
    if not isinstance(plain, dict):
        return None
    try:
        requests = _blob_requests(plain)
    except (AttributeError, TypeError):
        return None
    return _digest(list(requests.values())) if requests else None


def rows_billing(rows: list[Row]) -> str | None:
    """Return the digest of billing rows' values (see `blob_billing`)."""
    return _digest([values for _, values in rows])


def _same(name: str, row: Any, blob: Any) -> bool:
    if name in _REDACTED_TEXTS and isinstance(blob, str) and _MARK in blob:
        return True  # a secret was redacted there: the row may keep another redaction of it
    return row == blob and (type(row) is bool) == (type(blob) is bool)


def billing_findings(where: str, rows: list[Row], plain: dict[str, Any], failure: bool,
                     bad: Callable[[str, str, str], None]) -> None:
    """Name every way an episode's billing rows (`rows`, not empty) depart from its blob's
    requests (`plain`), its row named by `where`; `failure`: it is a measurement failure."""
    try:
        requests = _blob_requests(plain)
    except (AttributeError, TypeError):
        requests = {}
    billed = set()
    for ref, values in rows:
        bid = values[0]
        billed.add(bid)
        at = f"billable_attempts id={ref} ({where})"
        found = requests.get(bid) if _hashable(bid) else None
        if found is None:
            bad(KIND, at, f"request {bid} is billed to the episode's attempt in the ledger but "
                "is not in its episode blob")
            continue
        for name, mine, theirs in zip(FIELDS[1:], values[1:], found[1:], strict=True):
            if not _same(name, mine, theirs):
                bad(KIND, at, f"request {bid}: {name} is {mine!r} in the ledger but "
                    f"{theirs!r} in the episode blob")
    missing = [bid for bid in requests if bid not in billed]
    if failure and missing and missing == list(requests)[-1:]:
        return  # the ledger refused the last request's row: that ended the episode
    if missing:
        n = len(billed)
        names = ", ".join(map(str, missing[:5])) + (" ..." if len(missing) > 5 else "")
        bad(KIND, where, f"request{'s' if len(missing) > 1 else ''} {names} of the episode "
            f"blob {'have' if len(missing) > 1 else 'has'} no billing row, though the ledger "
            f"bills {n} other request{'s' if n > 1 else ''} of its attempt")
