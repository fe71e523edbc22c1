"""The ledger's records and errors: what its rows hold, as Python values, and what it refuses."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from agentmetrology.records.canonical import decode_json
from agentmetrology.records.episode import BillableAttempt, EpisodeKey
from agentmetrology.records.errors import UserError
from agentmetrology.store.evidence import EpisodeEvidence

KEY_COLUMNS = ("campaign", "target", "task", "seed", "condition", "level", "repeat")
# the key columns of an administration row aliased `a` in the ledger's queries
ADM_COLUMNS = ", ".join(f"a.{c}" for c in KEY_COLUMNS)


class LedgerError(Exception):
    """Base class of ledger errors; messages say what to do."""


class DuplicateEpisodeError(LedgerError):
    """Raised when an episode is submitted for a key that already has one."""


class CampaignMismatchError(LedgerError, UserError):
    """Raised when a campaign name is reused with a different plan."""


class AttemptStateError(LedgerError):
    """Raised when an attempt is unknown or no longer running."""


class BindingMismatchError(LedgerError):
    """Raised when an episode does not match the bindings sealed for its administration."""


def now() -> str:
    """Return the current UTC time as ISO 8601 with milliseconds."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def key_text(key: EpisodeKey) -> str:
    """Return a one-line human form of a key."""
    return (f"{key.campaign}/{key.target}/{key.task}/seed={key.seed}/{key.condition}/"
            f"{key.level}/repeat={key.repeat}")


def binding_environment(binding: str | None) -> str:
    """Return the environment a sealed binding text names, "" when it names none.

    Stores written before environments were plug-ins name none; the environment registry, above
    the store, reads "" as its default (`envs.registry.environment_or_default`).
    """
    try:
        bound = json.loads(binding or "{}")
    except (ValueError, RecursionError):  # nested deeper than Python reads: a forger's text
        return ""
    if not isinstance(bound, dict):  # an edited text (the store check names it), not a crash
        return ""
    return str(bound.get("environment") or "")


@dataclass(frozen=True, slots=True)
class Sealing:
    """The bindings of one administration, sealed before it runs."""

    key: EpisodeKey
    ordinal: int
    task_spec_digest: str
    target_config_digest: str
    scorer_versions: dict[str, str]
    binding: str  # canonical JSON of every binding, registration id included
    binding_digest: str  # sha256 of `binding`


@dataclass(frozen=True, slots=True)
class Administration:
    """A planned administration as the ledger holds it."""

    id: int
    key: EpisodeKey
    ordinal: int
    binding_digest: str
    scorer_versions: dict[str, str]
    not_launched: str | None


@dataclass(frozen=True, slots=True)
class RecordedDigests:
    """Digests of the blobs an episode was written to."""

    episode: str
    submission: str | None
    assessments: tuple[str, ...]  # sha256 of each assessment's canonical JSON


def row_key(row: sqlite3.Row | tuple[Any, ...], offset: int = 0) -> EpisodeKey:
    """Return the key held by a row's KEY_COLUMNS, starting at `offset`."""
    return EpisodeKey(*row[offset:offset + len(KEY_COLUMNS)])


_CREATE = re.compile(r"CREATE\s+(?:TABLE|INDEX)\s+IF\s+NOT\s+EXISTS\s+(\w+)", re.I)


def missing_objects(conn: sqlite3.Connection, statements: Iterable[str]) -> list[str]:
    """Return the names that `statements` create and the database does not hold yet.

    A statement of another form counts as missing, so the caller runs it rather than skip it.
    """
    have = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    names = [m.group(1) if (m := _CREATE.search(s)) else s.strip()
             for s in statements if s.strip()]
    return [n for n in names if n not in have]


def key_values(key: EpisodeKey) -> tuple[Any, ...]:
    """Return a key's values in KEY_COLUMNS order."""
    return tuple(getattr(key, c) for c in KEY_COLUMNS)


def administration_of(row: tuple[Any, ...]) -> Administration:
    """Return the Administration of a row (id, KEY_COLUMNS, ordinal, digest, versions, note)."""
    n = len(KEY_COLUMNS)
    return Administration(id=int(row[0]), key=row_key(row, 1), ordinal=int(row[1 + n]),
                          binding_digest=row[2 + n], scorer_versions=json.loads(row[3 + n]),
                          not_launched=row[4 + n])


def check_attempt(c: sqlite3.Connection, attempt_id: int, ev: EpisodeEvidence) -> int:
    """Return the administration of a running attempt that may record `ev` (else raise)."""
    row = c.execute(
        f"SELECT t.status, a.id, a.scorer_versions, {ADM_COLUMNS} FROM attempts t "
        "JOIN administrations a ON a.id = t.administration WHERE t.id=?",
        (attempt_id,)).fetchone()
    if row is None:
        raise AttemptStateError(f"attempt {attempt_id} is not in the ledger")
    status, adm_id, versions = row[0], int(row[1]), json.loads(row[2])
    if row_key(row, 3) != ev.key:
        raise BindingMismatchError(f"attempt {attempt_id} belongs to {key_text(row_key(row, 3))}"
                                   f", not to {key_text(ev.key)}")
    done = c.execute("SELECT attempt FROM episodes WHERE administration=?",
                     (adm_id,)).fetchone()
    if done is not None:
        raise DuplicateEpisodeError(
            f"{key_text(ev.key)} already has a recorded episode (attempt {done[0]}); "
            "an administration is recorded exactly once")
    if status != "started":
        raise AttemptStateError(f"attempt {attempt_id} is {status}, not running; its result "
                                "cannot be recorded")
    for a in ev.assessments:
        sealed = versions.get(a.scorer)
        if sealed != a.scorer_version:
            raise BindingMismatchError(
                f"{key_text(ev.key)}: scorer {a.scorer} version {a.scorer_version} does not "
                f"match the sealed version {sealed}")
    return adm_id


def billed_row(owner: dict[str, Any], attempt: BillableAttempt) -> dict[str, Any]:
    """Return the columns of one billed provider request under `owner`'s columns."""
    return {**owner, "billing_id": attempt.attempt_id, "provider": attempt.provider,
            "model": attempt.model, "request_id": attempt.request_id,
            "input_tokens": attempt.input_tokens, "output_tokens": attempt.output_tokens,
            "cached_tokens": attempt.cached_tokens, "cost": attempt.cost,
            "latency_s": float(attempt.latency_s), "outcome": attempt.outcome,
            "recorded_at": now()}


def row_dicts(cur: sqlite3.Cursor) -> list[dict[str, Any]]:
    """Return a cursor's rows as {column: value} dicts, in order."""
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r, strict=True)) for r in cur]


def episode_row(conn: sqlite3.Connection, key: EpisodeKey) -> dict[str, Any] | None:
    """Return the episode row of a key (with its assessments), or None."""
    cur = conn.execute(
        "SELECT e.* FROM episodes e JOIN administrations a ON a.id = e.administration "
        "WHERE " + " AND ".join(f"a.{c}=?" for c in KEY_COLUMNS), key_values(key))
    row = cur.fetchone()
    if row is None:
        return None
    out = dict(zip([d[0] for d in cur.description], row, strict=True))
    acur = conn.execute("SELECT scorer, scorer_version, status, score, evidence_digest, "
                        "assessment, assessment_digest FROM assessments "
                        "WHERE administration=? ORDER BY scorer", (out["administration"],))
    out["assessments"] = row_dicts(acur)
    for a in out["assessments"]:
        a["assessment"] = decode_json(a["assessment"])
    return out
