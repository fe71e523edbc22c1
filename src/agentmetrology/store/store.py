"""The evidence store: content-addressed blobs and the SQLite ledger behind one facade."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from agentmetrology.edges.files import path_kind
from agentmetrology.records.assessment import Assessment
from agentmetrology.records.canonical import canonical_json, decode_json
from agentmetrology.records.episode import BillableAttempt, Episode, EpisodeKey
from agentmetrology.records.errors import UserError
from agentmetrology.store.blobs import BlobCorruptError, BlobStore
from agentmetrology.store.errors import reading, unreadable
from agentmetrology.store.evidence import EpisodeEvidence
from agentmetrology.store.ledger import (
    Administration,
    Ledger,
    LedgerError,
    RecordedDigests,
    Sealing,
)
from agentmetrology.store.ledger_reader import LedgerReader
from agentmetrology.store.lock import StoreLock
from agentmetrology.store.paths import inside
from agentmetrology.store.redact import PATTERNS_VERSION, Redactor
from agentmetrology.store.status import CampaignStatus, campaign_status, failure_reasons
from agentmetrology.store.transcripts import cleaned

LEDGER_FILE = "ledger.sqlite"


class StoreNotFoundError(FileNotFoundError, UserError):
    """Raised when opening a store that does not exist without permission to create it."""


class NotAStoreError(LedgerError, FileExistsError):
    """Raised when asked to create a store in a directory that holds something else."""


def check_new_store_dir(root: Path) -> None:
    """Raise NotAStoreError unless `root` is missing or an empty directory (or already a store).

    A store is never created beside other files: `--store out/` pointing at an audit's output
    folder would otherwise mix a ledger into it.
    """
    if (root / LEDGER_FILE).exists() or not (root.exists() or root.is_symlink()):
        return
    if not root.is_dir():  # a file, a named pipe, a link to nothing (mkdir: "File exists")
        raise NotAStoreError(f"{root} is {path_kind(root)}, not a directory; give a new or "
                             "empty directory")
    if any(root.iterdir()):
        raise NotAStoreError(f"{root} is not an evidence store (no {LEDGER_FILE}) and is not "
                             "empty; give a new or empty directory, or an existing store")


@dataclass(frozen=True, slots=True)
class Binding:
    """What an administration is bound to before it runs (the registration id is added later)."""

    key: EpisodeKey
    ordinal: int
    task_spec_digest: str
    target_config_digest: str
    scorer_versions: dict[str, str]
    details: dict[str, Any] = field(default_factory=dict)  # e.g. profile and limits


class StoreReadOnlyError(LedgerError):
    """Raised when a store opened for reading is asked to write."""


class EvidenceStore:
    """Blobs under `root/blobs`, the ledger in `root/ledger.sqlite`; secrets never written.

    A store opened for writing holds the single-writer lock (see `store.lock`) from `open` to
    `close`, whoever the writer is (`campaign run`, `serve mcp`, a library caller); a second
    writer gets StoreBusyError. A store opened for reading takes no lock and cannot write.
    `write` defaults to `create`: `open(root)` writes, `open(root, create=False)` reads.
    """

    def __init__(self, root: str | Path, *, create: bool = True, write: bool | None = None,
                 secrets: Iterable[str] = (), scrub_env: bool = True,
                 fsync: bool = False) -> None:
        self.root = Path(root)
        self.writable = create if write is None else write
        ledger_path = self.root / LEDGER_FILE
        if not ledger_path.exists():
            if not create:
                raise StoreNotFoundError(f"no evidence store at {self.root} (no {LEDGER_FILE})")
            check_new_store_dir(self.root)
            self.root.mkdir(parents=True, exist_ok=True)
        elif not self.writable and ledger_path.stat().st_size == 0:  # nothing made in its place
            raise unreadable(self.root, LedgerError("an empty file: 0 bytes"))
        self._lock: StoreLock | None = None
        if self.writable:
            self._lock = StoreLock(self.root, ledger_path).acquire()
        try:
            self.blobs = BlobStore(self.root, fsync=fsync)
            with reading(self.root):  # a corrupt or foreign file: StoreError, never SQLite's
                self.ledger = Ledger(ledger_path, readonly=not self.writable, fsync=fsync)
        except BaseException:
            self._release()
            raise
        # Credential-named environment variables are scrubbed even if the caller forgets them,
        # also those set after the store was opened.
        self.redactor = Redactor(secrets, watch_env=scrub_env)

    @classmethod
    def open(cls, root: str | Path, *, create: bool = True, **kw: Any) -> EvidenceStore:
        """Open (or create) the store at `root`; for writing unless `create=False`."""
        return cls(root, create=create, **kw)

    @classmethod
    def open_readonly(cls, root: str | Path, **kw: Any) -> EvidenceStore:
        """Open an existing store for reading only (no lock: readers never wait for writers)."""
        return cls(root, create=False, write=False, **kw)

    def close(self) -> None:
        """Close the ledger and release the writer lock (idempotent)."""
        try:
            self.ledger.close()
        finally:
            self._release()

    def _release(self) -> None:
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def _check_writable(self) -> None:
        if not self.writable:
            raise StoreReadOnlyError(f"the evidence store at {self.root} was opened read-only")
        if self._lock is None:
            raise StoreReadOnlyError(f"the evidence store at {self.root} is closed")

    def __enter__(self) -> EvidenceStore:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    # -- blobs --------------------------------------------------------------------------------

    def add_secrets(self, values: Iterable[str]) -> None:
        """Register secret values that must never be written (e.g. an API key's value)."""
        self.redactor.add(values)

    def put_bytes(self, data: bytes) -> str:
        """Redact `data`, store it, and return the digest of what was stored."""
        self._check_writable()
        return self.blobs.put(self.redactor.bytes(data))

    def put_json(self, value: Any) -> str:
        """Store `value` as redacted canonical JSON and return the digest."""
        return self.put_bytes(canonical_json(value))

    def get_bytes(self, digest: str) -> bytes:
        """Return a blob's bytes, verified against its digest."""
        return self.blobs.get(digest)

    def get_json(self, digest: str) -> Any:
        """Return a JSON blob decoded (tagged non-finite floats restored, see records.canonical)."""
        return decode_json(self.get_bytes(digest))

    def user_path(self, path: str | Path) -> Path:
        """Return a user-given path resolved inside the store root (traversal is rejected)."""
        return inside(self.root, path)

    def lock(self) -> contextlib.nullcontext[StoreLock]:
        """Return the held writer lock as a context manager (StoreReadOnlyError if none).

        The lock is taken when the store is opened for writing; this proves it is held.
        """
        self._check_writable()
        assert self._lock is not None
        return contextlib.nullcontext(self._lock)

    # -- campaigns ----------------------------------------------------------------------------

    def register_campaign(self, name: str, plan_digest: str, config: Any,
                          bindings: Sequence[Binding], source_text: str | None = None) -> str:
        """Register a campaign and seal every binding before anything runs; return its id.

        Re-registering the same plan returns the existing registration id; the same name with
        another plan raises CampaignMismatchError.
        """
        self._check_writable()
        # raises on a different plan, naming the scorers whose versions changed
        existing = self.ledger.registered(name, plan_digest, (b.scorer_versions for b in bindings))
        if existing is not None:
            return existing
        registration_id = uuid.uuid4().hex
        sealings = []
        for b in bindings:
            text = self.redactor.bytes(canonical_json(_binding_doc(b, registration_id)))
            sealings.append(Sealing(b.key, b.ordinal, b.task_spec_digest,
                                    b.target_config_digest, b.scorer_versions,
                                    text.decode("utf-8"), hashlib.sha256(text).hexdigest()))
        source = None if source_text is None else self.put_bytes(source_text.encode("utf-8"))
        return self.ledger.register_campaign(name, registration_id, plan_digest,
                                             self.put_json(config), source, sealings)

    @property
    def sealed(self) -> bool:
        """Return True when the ledger keeps its hash chain (False: an older layout)."""
        return self.ledger.sealed

    def seal_existing(self) -> int:
        """Seal an older ledger's rows as they are now; return how many (0 if already sealed)."""
        self._check_writable()
        with reading(self.root, write=True):
            return self.ledger.seal_existing()

    @property
    def reader(self) -> LedgerReader:
        """Return the named read queries over this store's ledger (see `store.ledger_reader`)."""
        return LedgerReader(self.ledger.conn, self.root)

    def campaigns(self) -> list[str]:
        """Return the names of every campaign in the store."""
        return self.ledger.campaign_names()

    def status(self, campaign: str) -> CampaignStatus:
        """Return the status of one campaign (KeyError if unknown)."""
        row = self.ledger.campaign(campaign)
        if row is None:
            raise KeyError(f"no campaign {campaign!r} in the store at {self.root}")
        return campaign_status(self.ledger.conn, row)

    def failure_reasons(self, campaign: str, target: str) -> list[tuple[str, int]]:
        """Return the most frequent reasons of a target's recorded measurement failures."""
        return failure_reasons(self.ledger.conn, campaign, target)

    def pending(self, campaign: str) -> list[Administration]:
        """Return the administrations without a recorded episode, in plan order."""
        return self.ledger.pending(campaign)

    # -- attempts and episodes ----------------------------------------------------------------

    def recover(self, detail: str = "the run ended before this attempt finished") -> int:
        """Mark every attempt still `started` as interrupted; return how many.

        Holding the writer lock, no other process can be running them: at the start of a run
        they belong to a dead run, at its end (Ctrl-C) to this one.
        """
        self._check_writable()
        return self.ledger.interrupt_started(detail)

    def begin_run(self, campaign: str, backend: str) -> int:
        """Record the start of a run and return its id."""
        self._check_writable()
        return self.ledger.begin_run(campaign, backend)

    def end_run(self, run_id: int, outcome: str) -> None:
        """Record how a run ended."""
        self._check_writable()
        self.ledger.end_run(run_id, self.redactor.text(outcome))

    def start_attempt(self, administration: Administration, run_id: int | None, backend: str,
                      worker: str | None = None) -> int:
        """Record the start of an attempt and return its id."""
        return self.start_attempts([administration], run_id, backend, worker)[0]

    def start_attempts(self, administrations: Sequence[Administration], run_id: int | None,
                       backend: str, worker: str | None = None) -> list[int]:
        """Record the start of several attempts in one transaction; return their ids."""
        self._check_writable()
        return self.ledger.start_attempts([a.id for a in administrations], run_id, backend,
                                          worker)

    def fail_attempt(self, attempt_id: int, detail: str, worker: str | None = None) -> None:
        """Record an attempt as failed outside the agent (detail redacted); `worker`, when
        given, replaces where the attempt ran (a Ray node and pid)."""
        self._check_writable()
        self.ledger.fail_attempt(attempt_id, self.redactor.text(detail), worker)

    def record_billable(self, attempt_id: int, attempt: BillableAttempt) -> bool:
        """Record one provider request of a running attempt as soon as it is answered.

        Call it from the single writer (a campaign's driver) for every request, before the
        episode ends: a killed run then loses at most the request in flight. Recording the
        same request twice is a no-op (returns False).
        """
        self._check_writable()
        return self.ledger.record_billable(attempt_id, self._redacted(attempt))

    def billable_attempts(self, attempt_id: int) -> list[dict[str, Any]]:
        """Return the provider requests recorded for a store attempt, in order."""
        return self.ledger.billable_attempts(attempt_id)

    def record_grader_call(self, grader: str, purpose: str, subject: str,
                           attempt: BillableAttempt) -> bool:
        """Record one provider request of a grader (an LLM judge): its cost is never an
        agent's. Recording the same request twice is a no-op (returns False)."""
        self._check_writable()
        red = self.redactor.text
        return self.ledger.record_grader_call(red(grader), purpose, red(subject),
                                              self._redacted(attempt))

    def _redacted(self, attempt: BillableAttempt) -> BillableAttempt:
        """Return a billed request with its texts redacted: the request id (a provider's may
        echo a key), the provider and the model (a target's configuration as typed, where a
        key or an endpoint's password can be pasted). Rows written before the model and the
        provider were redacted keep them as written: their sealed digests, the check and
        `--recompute` read them as stored."""
        red = self.redactor.text
        rid = attempt.request_id
        return dataclasses.replace(attempt, provider=red(attempt.provider),
                                   model=red(attempt.model),
                                   request_id=None if rid is None else red(rid))

    def grader_calls(self) -> list[dict[str, Any]]:
        """Return every recorded grader request, in order."""
        return self.ledger.grader_calls()

    def set_not_launched(self, administrations: Iterable[Administration], reason: str) -> None:
        """Record why these administrations were not launched (the reason redacted: it quotes
        a provider's error, which may echo a key)."""
        self._check_writable()
        self.ledger.set_not_launched((a.id for a in administrations), self.redactor.text(reason))

    def record(self, attempt_id: int, ev: EpisodeEvidence,
               worker: str | None = None) -> RecordedDigests:
        """Write an episode's blobs (redacted) and record it with its assessments atomically;
        `worker`, when given, replaces where the attempt ran (a Ray node and pid).

        Raises DuplicateEpisodeError when the key already has an episode.
        """
        self._check_writable()
        clean = self.redactor.bytes
        if ev.patterns_redacted == PATTERNS_VERSION:
            clean = self.redactor.exact  # the pattern pass already ran where the episode ran

        # Assessments are small records: kept in the ledger row with their digest, not as files.
        ev = ev.cleaned(clean)
        body = ev.body
        if ev.transcript is not None:  # its blobs first: the episode names them
            transcript, body = cleaned(ev.transcript, body, clean)
            for part in (*transcript.parts, transcript.document):
                self.blobs.put(part)
        digests = RecordedDigests(
            episode=self.blobs.put(body),
            submission=None if ev.submission is None else self.blobs.put(ev.submission),
            assessments=tuple(hashlib.sha256(a.body).hexdigest() for a in ev.assessments))
        ev = dataclasses.replace(ev, termination_detail=self.redactor.text(ev.termination_detail))
        self.ledger.record_episode(attempt_id, ev, digests, worker)
        return digests

    def record_episode(self, attempt_id: int, episode: Episode,
                       assessments: Sequence[Assessment] = ()) -> RecordedDigests:
        """Record an Episode record and its Assessments (see `record`)."""
        return self.record(attempt_id, EpisodeEvidence.from_records(episode, assessments))

    def binding(self, key: EpisodeKey) -> dict[str, Any]:
        """Return the bindings sealed for a key, after checking them against their digest."""
        row = self.ledger.binding(key)
        if row is None:
            raise KeyError(f"no administration {key} in the store at {self.root}")
        text, expected = row
        actual = hashlib.sha256(text.encode("utf-8")).hexdigest()
        if actual != expected:
            raise BlobCorruptError(f"the bindings of {key} no longer hash to {expected}")
        return dict(json.loads(text))

    def episode(self, key: EpisodeKey) -> dict[str, Any] | None:
        """Return the ledger row of a key's episode (with assessments), or None."""
        return self.ledger.episode(key)

    def load_episode(self, key: EpisodeKey) -> Any:
        """Return the stored episode record of a key as plain data (KeyError if none)."""
        row = self.episode(key)
        if row is None:
            raise KeyError(f"no episode recorded for {key}")
        return self.get_json(row["episode_digest"])

    def attempts(self, key: EpisodeKey) -> list[dict[str, Any]]:
        """Return every attempt of a key, oldest first."""
        return self.ledger.attempts(key)

    def supersede_measurement_failures(self, campaign: str, run_id: int | None) -> int:
        """Re-open the campaign's measurement failures, kept as history; return how many.

        Call it only while holding `lock()`. Agent failures are never re-opened.
        """
        self._check_writable()
        return self.ledger.supersede_measurement_failures(campaign, run_id)

    def superseded(self, key: EpisodeKey) -> list[dict[str, Any]]:
        """Return the superseded (re-opened) episode rows of a key, oldest first."""
        return self.ledger.superseded(key)


def _binding_doc(b: Binding, registration_id: str) -> dict[str, Any]:
    return {"key": b.key, "registration_id": registration_id, "seed": b.key.seed,
            "task_spec_digest": b.task_spec_digest,
            "target_config_digest": b.target_config_digest,
            "scorer_versions": b.scorer_versions, **b.details}
