"""Qualification of a store (and of reports built from it): the result, the problems, a banner.

Results: `qualified` (every check passed), `unavailable` (evidence is missing: a blob or a
row the chain expects), `invalid_binding` (bytes or bindings no longer match what was sealed),
and `unsealed` (an older ledger layout without a chain: never qualified, migrate it with
`agm evidence seal`). The banner text lives here so that every report and terminal summary
built from a store says the same thing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

QUALIFIED = "qualified"
UNAVAILABLE = "unavailable"
INVALID = "invalid_binding"
UNSEALED = "unsealed"
# Checks run: full (bytes and bindings), hash-only (bytes only: the baseline), ledger (the
# cheap check run whenever a store is opened for a report: chain, rows, bindings and blob
# presence, blob bytes not re-hashed).
MODES = ("full", "hash-only", "ledger")
MAX_LISTED = 200

NOTICE_FROM = 20_000  # chain entries (about 3,000 episodes) from which a whole check is announced:
# it takes a few seconds there


@dataclass(frozen=True, slots=True)
class Problem:
    """One reason a store does not qualify: its kind, where it is, and what is wrong."""

    kind: str  # e.g. row_changed, blob_missing, seed_mismatch
    result: str  # UNAVAILABLE or INVALID
    where: str
    detail: str

    def text(self) -> str:
        """Return the one-line form."""
        return f"{self.kind}: {self.where}: {self.detail}"


@dataclass(frozen=True, slots=True)
class Qualification:
    """What a check of a store found."""

    store: str
    mode: str
    result: str
    head: str | None  # the chain head: the evidence digest reports record
    chain_length: int
    problems: tuple[Problem, ...] = ()
    checked: dict[str, int] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    migrated_at: str | None = None
    since: str | None = None  # an incremental check: the verified head it started from
    resume: Any = None  # when qualified: the store.verify_scope.Checkpoint it leaves

    @property
    def qualified(self) -> bool:
        """Return True when the store qualifies."""
        return self.result == QUALIFIED

    def to_json(self) -> dict[str, Any]:
        """Return plain JSON data (problems listed up to MAX_LISTED, all counted; an incremental
        check adds `incremental_since`, the head it started from)."""
        kinds: dict[str, int] = {}
        for p in self.problems:
            kinds[p.kind] = kinds.get(p.kind, 0) + 1
        doc = {"store": self.store, "mode": self.mode, "result": self.result,
               "qualified": self.qualified, "evidence_digest": self.head,
               "chain_length": self.chain_length, "migrated_at": self.migrated_at,
               "problem_count": len(self.problems), "problem_kinds": dict(sorted(kinds.items())),
               "problems": [{"kind": p.kind, "result": p.result, "where": p.where,
                             "detail": p.detail} for p in self.problems[:MAX_LISTED]],
               "checked": dict(self.checked), "notes": list(self.notes)}
        if self.since is not None:  # a full check's document is as it always was
            doc["incremental_since"] = self.since
        return doc


def worst(problems: tuple[Problem, ...] | list[Problem]) -> str:
    """Return the result a list of problems gives: invalid beats unavailable beats qualified."""
    if any(p.result == INVALID for p in problems):
        return INVALID
    if problems:
        return UNAVAILABLE
    return QUALIFIED


def banner(q: dict[str, Any] | Qualification | None,
           numbers: str = "Numbers below are") -> str | None:
    """Return the loud one-paragraph banner of a store, None when it qualifies unreservedly.

    `numbers` names what is not qualified (`agm export` prints it after the rows it wrote:
    "The rows exported are").

    A store sealed by migration gets a banner even when it qualifies: what it holds from
    before its seal point is unchained.

    Accepts a Qualification or its JSON form (reports carry the JSON form).
    """
    if q is None:
        return None
    doc = q.to_json() if isinstance(q, Qualification) else q
    result = doc.get("result")
    unchained = _unchained(doc.get("migrated_at"))
    if result == QUALIFIED:
        return unchained or None  # a migrated store says so even when it qualifies
    if result == UNSEALED:
        return ("UNQUALIFIED EVIDENCE: the store is unsealed (older layout): its ledger has no "
                f"hash chain, so edits to it cannot be detected. {numbers} not "
                "qualified; run `agm evidence seal STORE` to seal it as it is now.")
    kinds = doc.get("problem_kinds") or {}
    listed = ", ".join(f"{k} ({n})" for k, n in kinds.items())
    what = "evidence is missing" if result == UNAVAILABLE else "bindings or bytes no longer match"
    return (f"UNQUALIFIED EVIDENCE ({result}): {what}: {doc.get('problem_count', 0)} "
            f"problem(s): {listed}. {numbers} not qualified; run `agm evidence verify "
            "STORE` for the list." + (f" {unchained}" if unchained else ""))


def _unchained(migrated_at: Any) -> str:
    """Return the warning of a store sealed by migration ('' for one sealed since creation)."""
    if not migrated_at:
        return ""
    return (f"UNCHAINED EVIDENCE BEFORE {migrated_at}: the store was sealed by migration "
            "(`agm evidence seal`) then, so what it recorded before was sealed as found, not "
            "as appended: an edit made to it before the seal cannot be detected.")
