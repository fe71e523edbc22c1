"""The verifier's checks of recorded episodes: each episode blob against its ledger row, and
each assessment against its sealed instrument, its text and its evidence (see store.verify).

One streamed query walks the recorded episodes with their assessments (never one query per
episode, never a whole result in memory); superseded episodes, few, are walked on their own.
"""

from __future__ import annotations

import hashlib
import json
import math
import sqlite3
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from types import EllipsisType
from typing import TYPE_CHECKING, Any

import msgspec

from agentmetrology.records.episode import MEASUREMENT_FAILURES
from agentmetrology.store.evidence import recorded_cost
from agentmetrology.store.ledger import KEY_COLUMNS
from agentmetrology.store.qualify import INVALID, Problem
from agentmetrology.store.verify_billing import (
    BILLED_SQL,
    billed_rows,
    billing_findings,
    blob_billing,
    rows_billing,
)
from agentmetrology.store.verify_json import loads
from agentmetrology.store.verify_scope import Checkpoint, refs_param

if TYPE_CHECKING:
    from agentmetrology.store.blob_reads import BlobReads


# An episode to check against its blob: where, its key's values (KEY_COLUMNS order), its row
# (ROW_COLUMNS, then its billing rows as BILLED_SQL gives them), and the row's token
# (`row_token`).
EpisodeItem = tuple[str, tuple[Any, ...], tuple[Any, ...], bytes | None]


@dataclass(frozen=True)
class EpisodesPart:
    """What the episode checks find reading the ledger alone (run elsewhere: the ledger half,
    store.verify_ahead), in the order they found it: each problem, and each episode to check
    against its blob; their counts, and why a query of theirs failed (None: none did)."""

    items: tuple[Problem | EpisodeItem, ...] = ()
    checked: dict[str, int] = field(default_factory=dict)
    failed: str | None = None


class EpisodeChecks(ABC):
    """The episode and assessment checks of `store.verify._Verifier` (a base class of it)."""

    c: sqlite3.Connection
    checked: dict[str, int]
    blob_ok: dict[str, bool]
    reads: BlobReads | None  # what the import found in the blobs it read (store.blob_reads)
    since: Checkpoint | None  # incremental: from this verified head
    touched: dict[str, dict[str, str | None]]  # incremental: the rows appended entries name
    episodes_found: EpisodesPart | None = None  # what `episodes` found elsewhere, to take
    _billed_since: dict[str, set[str]] | None = None  # incremental: see `billed_since`

    @abstractmethod
    def bad(self, kind: str, where: str, detail: str, result: str = INVALID) -> None:
        """Record a problem (the verifier's own)."""

    @abstractmethod
    def episode_json(self, d: str) -> Any | None:
        """Return a verified episode blob's JSON (at least the fields checked here), or None."""

    @abstractmethod
    def transcript(self, where: str, digest: str) -> None:
        """Check the transcript an episode binds (see store.verify_transcripts)."""

    def episode_scope(self) -> tuple[str | None, str | None]:
        """Return the recorded and superseded episodes an incremental check re-reads (as
        json_each arrays: those appended, or with an assessment appended), None when full."""
        if self.since is None:
            return None, None
        t = self.touched
        recorded = set(t.get("episodes", {})) | {str(a) for (a,) in self.c.execute(
            "SELECT administration FROM assessments WHERE id IN (SELECT value FROM "
            "json_each(?))", (refs_param(t.get("assessments", {})),))}
        superseded = set(t.get("superseded_episodes", {})) | {str(s) for (s,) in self.c.execute(
            "SELECT superseded FROM superseded_assessments WHERE id IN (SELECT value FROM "
            "json_each(?))", (refs_param(t.get("superseded_assessments", {})),))}
        billed = self.billed_since()
        recorded |= billed.get("episodes", set())
        superseded |= billed.get("superseded_episodes", set())
        return refs_param(recorded), refs_param(superseded)

    def episodes(self) -> None:
        """Check every recorded and superseded episode with its assessments (or those in
        scope, for an incremental check); or take what these checks found of the ledger
        elsewhere (`episodes_found`) and check each episode it names against its blob."""
        if self.episodes_found is not None:
            self.take_episodes(self.episodes_found)
            return
        cols = ", ".join(f"a.{k}" for k in KEY_COLUMNS)
        recorded, superseded = self.episode_scope()
        n = self.recorded_episodes(cols, recorded)  # one streamed query, not one per episode
        where, params = ("", ()) if superseded is None else (
            " WHERE e.id IN (SELECT value FROM json_each(?))", (superseded,))
        for row in self.c.execute(
                f"SELECT e.id, a.id, a.scorer_versions, {cols}, e.episode_digest, "
                "e.submission_digest, e.termination, e.measurement_failure, e.cost, "
                "e.input_tokens, e.output_tokens, e.requests, e.tool_calls, "
                f"e.model_attempts, {self.billed_sql()} FROM superseded_episodes e "
                "JOIN administrations a ON a.id = e.administration" + where, params):
            n += 1
            ref, adm, versions_text = row[0], row[1], row[2]
            key = dict(zip(KEY_COLUMNS, row[3:10], strict=True))
            self.episode(f"superseded_episodes id={ref}", key, row[10:21])
            self.superseded_assessments(ref, adm, sealed_versions(versions_text), row[11])
        self.checked["episodes"] = n

    def take_episodes(self, part: EpisodesPart) -> None:
        """Do, in order, what the episode checks found reading the ledger elsewhere: record
        each problem, check each episode against its blob; then stop where they stopped."""
        for item in part.items:
            if isinstance(item, Problem):
                self.bad(item.kind, item.where, item.detail, item.result)
            else:
                where, key, row, token = item
                self.episode(where, dict(zip(KEY_COLUMNS, key, strict=True)), row, token)
        self.checked.update(part.checked)
        if part.failed is not None:
            raise sqlite3.DatabaseError(part.failed)

    def billed_since(self) -> dict[str, set[str]]:
        """Return the recorded and superseded episodes (by table) whose attempt a request was
        billed to since the verified head (incremental; read once): each is held to its blob
        again, although its own row was not appended."""
        if self.since is None:
            return {}
        if self._billed_since is None:
            self._billed_since = {}
            billed = self.touched.get("billable_attempts", {})
            for table, ident in (("episodes", "administration"), ("superseded_episodes", "id")):
                self._billed_since[table] = {str(r) for (r,) in self.c.execute(
                    f"SELECT e.{ident} FROM {table} e JOIN billable_attempts b ON b.attempt = "
                    "e.attempt WHERE b.id IN (SELECT value FROM json_each(?))",
                    (refs_param(billed),))} if billed else set()
        return self._billed_since

    def billed_sql(self) -> str:
        """Return BILLED_SQL, or NULL for a ledger without `billable_attempts` (an older
        store no writer opened since the table was added: it bills nothing)."""
        found = self.c.execute("SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') "
                               "AND name='billable_attempts'").fetchone()
        return BILLED_SQL if found is not None else "NULL"

    def episode(self, where: str, key: dict[str, Any], row: tuple[Any, ...],
                token: bytes | EllipsisType | None = ...) -> None:
        """Check one episode blob against its administration (key) and its ledger row
        (`token`: the row's `row_token`, when it was taken already)."""
        try:
            self._episode(where, key, row, token)
        except RecursionError:  # a forger's blob nested deeper than Python reads or shows
            self.bad("row_disagrees_with_evidence", where, f"the episode blob {row[0][:12]} "
                     "is nested too deep to read")

    def _episode(self, where: str, key: dict[str, Any], row: tuple[Any, ...],
                 token: bytes | EllipsisType | None = ...) -> None:
        ep_digest, sub_digest, term, mfail, cost, tin, tout, requests, tools, attempts = row[:10]
        ledgers = (term, mfail, cost, tin, tout, requests, tools, attempts)
        try:
            billed = billed_rows(row[10] if len(row) > 10 else None)
        except (ValueError, TypeError, IndexError):  # no writer's rows: BILLED_SQL gave them
            billed = None
        seen = None if self.reads is None else self.reads.seen(ep_digest)
        if (seen is not None and seen.token is not None and self.blob_ok.get(ep_digest)
                and seen.token == (row_token(key, row) if token is ... else token)
                and (billed is None or seen.billed == rows_billing(billed))):
            # The blob, read once by the import, agrees with the row: what the checks below
            # find of it is nothing but its transcript's checks.
            if seen.transcript is not None:
                self.transcript(where, seen.transcript)
            return
        plain = self.episode_json(ep_digest)
        if not isinstance(plain, dict):
            if self.blob_ok.get(ep_digest):  # its bytes are the sealed ones (or, cheap, present)
                self.bad("row_disagrees_with_evidence", where, f"the episode blob "
                         f"{ep_digest[:12]} is not a JSON object")
            return  # otherwise missing, changed or a link: already a problem
        if plain.get("key") != key:
            self.bad("scope_mismatch", where, f"the episode blob {ep_digest[:12]} belongs to "
                     f"{_key_text(plain.get('key'))}, not to {_key_text(key)}")
            return
        try:
            recorded, evidences = _evidence_facts(plain)
        except (AttributeError, TypeError, ValueError) as exc:  # a blob of another shape
            self.bad("row_disagrees_with_evidence", where, f"the episode blob {ep_digest[:12]} "
                     f"has no readable digests, usage or termination ({exc})")
            return
        if recorded is not None and sub_digest is not None and recorded != sub_digest:
            self.bad("scope_mismatch", where, f"submission {sub_digest[:12]} is not the one "
                     f"the episode recorded ({str(recorded)[:12]})")
        transcript = (plain.get("digests") or {}).get("transcript")
        if transcript is not None:  # only a model's episode binds one
            self.transcript(where, str(transcript))
        for name, evidence, ledger in zip(_FACTS, evidences, ledgers, strict=True):
            if evidence != ledger:
                self.bad("row_disagrees_with_evidence", where, f"{name} is {ledger!r} in the "
                         f"ledger but {evidence!r} in the episode blob")
        if billed:
            billing_findings(where, billed, plain, bool(mfail), self.bad)

    def recorded_episodes(self, cols: str, scope: str | None = None) -> int:
        """Check every recorded episode (or those in `scope`, a JSON array of administration
        ids), then its assessments, in one streamed query; return how many were checked."""
        n, last = 0, None
        versions: dict[str, dict[str, str]] = {}  # parsed once per distinct text
        for row in self.c.execute(
                f"SELECT e.administration, a.scorer_versions, {cols}, e.episode_digest, "
                "e.submission_digest, e.termination, e.measurement_failure, e.cost, "
                "e.input_tokens, e.output_tokens, e.requests, e.tool_calls, e.model_attempts, "
                f"{self.billed_sql()}, s.id, s.scorer, s.scorer_version, s.status, s.score, "
                "s.evidence_digest, "
                "s.assessment FROM episodes e JOIN administrations a ON a.id = e.administration "
                "LEFT JOIN assessments s ON s.administration = e.administration "
                + ("" if scope is None else
                   "WHERE e.administration IN (SELECT value FROM json_each(?)) ")
                + "ORDER BY e.administration, s.scorer, s.scorer_version",
                () if scope is None else (scope,)):
            adm, versions_text = row[0], row[1]
            if adm != last:
                n, last = n + 1, adm
                self.episode(f"episodes administration={adm}",
                             dict(zip(KEY_COLUMNS, row[2:9], strict=True)), row[9:20])
            if row[20] is None:
                continue  # an episode without assessments
            if versions_text not in versions:
                versions[versions_text] = sealed_versions(versions_text)
            self.assessment("assessments", adm, versions[versions_text], row[10], *row[20:])
        return n

    def superseded_assessments(self, ref: Any, adm: int, versions: dict[str, str],
                               submission: str | None) -> None:
        """Check the assessments of one superseded episode, one query."""
        for row in self.c.execute(
                "SELECT id, scorer, scorer_version, status, score, evidence_digest, assessment "
                "FROM superseded_assessments WHERE superseded=?", (ref,)):
            self.assessment("superseded_assessments", adm, versions, submission, *row)

    def assessment(self, table: str, adm: int, versions: dict[str, str], submission: str | None,
                   aid: int, scorer: str, version: str, status: str, score: float | None,
                   evd: str, text: str) -> None:
        """Check one assessment against its sealed instrument, its text and its evidence."""
        where = f"{table} id={aid} (administration {adm})"
        if versions.get(scorer) != version:
            self.bad("instrument_mismatch", where, f"scorer {scorer} version {version} is "
                     f"not the sealed version {versions.get(scorer)}")
        try:
            body = loads(text)
        except ValueError:
            self.bad("assessment_unreadable", where, "not JSON")
            return
        except RecursionError:  # no writer nests so deep: Python cannot read it
            self.bad("assessment_unreadable", where, "nested too deep to read")
            return
        if not isinstance(body, dict):
            self.bad("assessment_unreadable", where, "not a JSON object")
            return
        for name, col in (("scorer", scorer), ("scorer_version", version),
                          ("status", status), ("score", score), ("evidence_digest", evd)):
            if body.get(name) != col:
                self.bad("instrument_mismatch" if name.startswith("scorer") else
                         "row_disagrees_with_evidence", where,
                         f"{name} is {col!r} in the ledger but {_shown(body.get(name))} in "
                         "the sealed assessment")
        if type(body.get("score")) is bool:  # true == 1.0 in Python; no column holds a bool
            self.bad("row_disagrees_with_evidence", where, f"score is {score!r} in the ledger "
                     f"but {body['score']!r} (a boolean, not a number) in the sealed assessment")
        if submission is not None and evd != submission:
            self.bad("scope_mismatch", where, f"assessed evidence {str(evd)[:12]} is not "
                     f"the episode's submission {submission[:12]}")


_FACTS = ("termination", "measurement_failure", "cost", "input_tokens", "output_tokens",
          "requests", "tool_calls", "model_attempts")


def _evidence_facts(plain: dict[str, Any]) -> tuple[Any, tuple[Any, ...]]:
    """Return the submission digest an episode blob records and its values of `_FACTS`."""
    recorded = (plain.get("digests") or {}).get("submission")
    usage = plain.get("usage") or {}
    atts = usage.get("attempts") or []
    kind = str((plain.get("termination") or {}).get("kind", ""))
    return recorded, (kind, int(kind in MEASUREMENT_FAILURES),
                      recorded_cost(plain),
                      sum(a.get("input_tokens") or 0 for a in atts),
                      sum(a.get("output_tokens") or 0 for a in atts),
                      int(usage.get("requests") or 0), int(usage.get("tool_calls") or 0),
                      len(atts))


def episode_token(plain: Any) -> tuple[bytes, str | None, str | None] | None:
    """Return the token of what `EpisodeChecks.episode` compares of an episode blob (decoded
    as `plain`) with its ledger row, the transcript it binds and the digest of its requests
    (store.verify_billing.blob_billing); None when the check must read the blob itself (not an
    object, unreadable facts, a value the token cannot hold)."""
    if not isinstance(plain, dict):
        return None
    try:
        recorded, evidences = _evidence_facts(plain)
        transcript = (plain.get("digests") or {}).get("transcript")
    except (AttributeError, TypeError, ValueError):
        return None
    token = _token(plain.get("key"), recorded, evidences)
    return None if token is None else (token, None if transcript is None else str(transcript),
                                       blob_billing(plain))


def row_token(key: dict[str, Any], row: tuple[Any, ...]) -> bytes | None:
    """Return the token of an episode's ledger row (as `EpisodeChecks.episode` takes it), to
    compare with its blob's (`episode_token`)."""
    return _token(key, row[1], tuple(row[2:10]))


def _token(key: Any, submission: Any, facts: tuple[Any, ...]) -> bytes | None:
    """Return the digest of (key, submission, facts) as JSON, None when JSON cannot hold them
    exactly. Equal JSON texts are equal values (type for type: 1, 1.0 and true differ; NaN and
    the infinities are refused), so a blob whose token is its row's agrees with the row: the
    same key, the submission the row names, the same facts. Unequal tokens prove nothing (a
    submission the blob leaves out, -0.0): the blob is then read and compared as it always was.
    """
    if _flat(key, submission, facts):
        # Flat values of exact types, every float finite: msgspec's compact text is one text
        # per value too (1, 1.0 and true differ), at a fraction of json's cost. It is hashed
        # after b"m", so it never gives the digest of json's spaced text below.
        try:
            return hashlib.sha256(b"m" + _FLAT_TEXT([key, submission, facts])).digest()
        except (msgspec.EncodeError, UnicodeEncodeError, OverflowError):
            pass  # a lone surrogate: json's text escapes it
    try:
        text = json.dumps([key, submission, facts], sort_keys=True, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return None
    return hashlib.sha256(text.encode("utf-8")).digest()


_FLAT_TEXT = msgspec.json.Encoder(order="sorted").encode
_FLAT = frozenset({str, int, float, type(None)})


def _flat(key: Any, submission: Any, facts: tuple[Any, ...]) -> bool:
    """Return True when `key` is a dict of str keys and it, `submission` and `facts` hold
    only values of exactly these types: str, int, finite float, None."""
    if type(key) is not dict or not set(map(type, key)) <= _STR:
        return False
    values = (*key.values(), submission, *facts)
    kinds = set(map(type, values))
    return kinds <= _FLAT and (float not in kinds or all(
        math.isfinite(v) for v in values if type(v) is float))


_STR = frozenset({str})


def sealed_versions(text: str) -> dict[str, str]:
    """Return the sealed scorer versions, {} when unreadable (the binding check names that)."""
    try:
        versions = loads(text)
    except (ValueError, RecursionError):
        return {}
    return versions if isinstance(versions, dict) else {}


def _shown(value: Any) -> str:
    """Return a sealed value's repr, or what it is when it is nested too deep to show."""
    try:
        return repr(value)
    except RecursionError:
        return f"a {type(value).__name__} nested too deep to show"


def short_text(value: Any) -> str:
    """Return a value as a problem message shows it: a digest's 12 digits, else 80 characters."""
    try:  # a raw BLOB shows as its repr; a value nested too deep is named so
        text = value if isinstance(value, str) else json.dumps(value, sort_keys=True,
                                                               default=repr)
    except (RecursionError, TypeError, ValueError):
        text = f"a {type(value).__name__} too deeply nested (or keyed) to show"
    return text[:12] if isinstance(value, str) and len(text) == 64 else text[:80]


def _key_text(key: Any) -> str:
    if not isinstance(key, dict):
        return "an unknown administration"
    return "/".join(str(key.get(k)) for k in KEY_COLUMNS)
