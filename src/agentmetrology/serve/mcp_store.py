"""Recording a served MCP episode in the evidence store, as a one-administration campaign.

A served episode is registered exactly like a campaign: its campaign name is derived from the
served parameters (never from the time), and its bindings (task spec, target config, scorer
versions, seed) are sealed when the server starts, before the client can call any tool. The
ledger then holds one attempt per client session and at most one episode per key, so a second
session for a key already recorded is refused at startup; `repeat` records another repeat.

Repeats are separate campaigns (the name ends in `-r{repeat}`) because a sealed plan never
changes: adding a repeat to an existing campaign would change its plan digest.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentmetrology.envs.registry import DEFAULT_ENVIRONMENT, task_spec_digest
from agentmetrology.records.assessment import Assessment
from agentmetrology.records.canonical import digest, to_plain
from agentmetrology.records.episode import Episode, EpisodeKey
from agentmetrology.records.errors import UserError
from agentmetrology.records.names import slug
from agentmetrology.run.campaign.plan import scorer_versions
from agentmetrology.store import (
    AttemptStateError,
    Binding,
    EpisodeEvidence,
    EvidenceStore,
    RecordedDigests,
    StoreBusyError,
)
from agentmetrology.store.ledger import key_text
from agentmetrology.store.lock import RunLock

TARGET_KIND = "mcp-client"
SESSIONS_DIR = "mcp-sessions"
MAX_REPEAT_SCAN = 10_000
STALE_DETAIL = "the serving process ended before the episode was recorded"
UNRECORDED_DETAIL = "the MCP session ended without recording an episode"


class AlreadyRecordedError(UserError):
    """Raised at startup when the served key already has an episode in the store."""


class SessionBusyError(UserError):
    """Raised at startup when another live server is serving the same key from the store."""


@dataclass(frozen=True, slots=True)
class McpAdministration:
    """The parameters of one served administration; they determine its campaign and key."""

    task: str
    seed: int
    profile: str
    condition: str
    level: str
    target: str
    repeat: int = 0
    environment: str = DEFAULT_ENVIRONMENT

    @property
    def campaign(self) -> str:
        """Return the campaign name: readable parts and a digest of every parameter."""
        params = {k: getattr(self, k) for k in self.__dataclass_fields__}
        if self.environment == DEFAULT_ENVIRONMENT:
            del params["environment"]  # names given before environments were plug-ins stay
        prefix = "" if self.environment == DEFAULT_ENVIRONMENT else f"{slug(self.environment)}-"
        return (f"serve-{prefix}{slug(self.target)}-{slug(self.task)}-seed{self.seed}-"
                f"r{self.repeat}-{digest(params)[:10]}")

    @property
    def key(self) -> EpisodeKey:
        """Return the idempotency key of the administration."""
        return EpisodeKey(self.campaign, self.target, self.task, self.seed, self.condition,
                          self.level, self.repeat)

    def with_repeat(self, repeat: int) -> McpAdministration:
        """Return the same administration at another repeat."""
        return dataclasses.replace(self, repeat=repeat)

    def target_config(self) -> dict[str, Any]:
        """Return the target's configuration: the server knows only the name it was given."""
        # The transport is not bound: stdio and HTTP serve the same measurement.
        return {"name": self.target, "kind": TARGET_KIND, "protocol": "mcp"}

    def binding(self) -> Binding:
        """Return the bindings sealed before the episode runs."""
        return Binding(self.key, 0,
                       task_spec_digest(self.task, self.profile, self.environment),
                       digest(self.target_config()),
                       scorer_versions(self.environment, self.condition),
                       {"environment": self.environment, "profile": self.profile,
                        "served_over": "mcp"})

    def config(self) -> dict[str, Any]:
        """Return the campaign configuration stored with the registration."""
        return {"name": self.campaign, "kind": "mcp-serve", "environment": self.environment,
                "targets": [self.target_config()], "tasks": [self.task], "seeds": [self.seed],
                "levels": [self.level], "conditions": [self.condition], "repeat": self.repeat,
                "profile": self.profile}

    def plan_digest(self) -> str:
        """Return the digest of the one-administration plan."""
        b = self.binding()
        return digest({"campaign": self.campaign, "bindings": [{
            "key": to_plain(b.key), "task": b.task_spec_digest, "target": b.target_config_digest,
            "scorers": b.scorer_versions, "details": b.details}]})


class StoreSession:
    """The store side of one served administration: sealed, then one attempt, one episode."""

    def __init__(self, store: EvidenceStore, adm: McpAdministration) -> None:
        self.store = store
        self.adm = adm
        self.attempt_id: int | None = None
        self.digests: RecordedDigests | None = None
        self._lock: RunLock | None = None  # the key's session lock, taken in `open`
        self._closed = False

    @classmethod
    def open(cls, root: str | Path, adm: McpAdministration) -> StoreSession:
        """Open the store, refuse a recorded or busy key, and seal the bindings; return it."""
        try:
            store = EvidenceStore.open(root)
        except StoreBusyError:
            # Every writer of a store holds its lock: one serving session (or one campaign
            # run) per store at a time.
            raise SessionBusyError(
                f"another `agm serve mcp` session or `agm campaign run` is writing to the "
                f"store at {root}; stop it, or serve into another --store") from None
        session = cls(store, adm)
        try:
            session._start()
        except BaseException:
            session._release()
            raise
        return session

    def _start(self) -> None:
        store, adm = self.store, self.adm
        if store.episode(adm.key) is not None:
            raise AlreadyRecordedError(self._recorded_message())
        lock_dir = store.user_path(f"{SESSIONS_DIR}/{adm.campaign}")
        lock_dir.mkdir(parents=True, exist_ok=True)
        try:
            self._lock = RunLock(lock_dir).acquire()
        except StoreBusyError:
            raise SessionBusyError(
                f"another `agm serve mcp` session is serving {key_text(adm.key)} from the store "
                f"at {store.root}; stop it, or pass --repeat N to serve another repeat") from None
        if store.episode(adm.key) is not None:  # recorded just before we took the lock
            raise AlreadyRecordedError(self._recorded_message())
        store.register_campaign(adm.campaign, adm.plan_digest(), adm.config(), [adm.binding()])
        # Holding the key's lock, any attempt still `started` belongs to a dead server.
        for a in store.attempts(adm.key):
            if a["status"] == "started":
                store.fail_attempt(int(a["id"]), STALE_DETAIL)

    def _recorded_message(self) -> str:
        nxt = next((r for r in range(self.adm.repeat + 1, MAX_REPEAT_SCAN)
                    if self.store.episode(self.adm.with_repeat(r).key) is None), None)
        hint = "" if nxt is None else f"; pass --repeat {nxt} to record another repeat"
        return (f"{key_text(self.adm.key)} already has a recorded episode in the store at "
                f"{self.store.root}; an administration is recorded exactly once{hint}")

    def begin(self) -> None:
        """Record the start of the session's attempt (once, at the client's first tool call)."""
        if self.attempt_id is None and self.digests is None:
            self.attempt_id = self._new_attempt()

    def _new_attempt(self) -> int:
        pending = self.store.pending(self.adm.campaign)
        if not pending:  # sealed at startup and unrecorded: only a damaged ledger gets here
            raise AttemptStateError(f"{key_text(self.adm.key)} is not pending in the store")
        return self.store.start_attempt(pending[0], None, "mcp")

    def record(self, episode: Episode, assessments: Sequence[Assessment]) -> RecordedDigests:
        """Record the episode and its assessments (redacted by the store); return the digests."""
        if self.digests is not None:
            return self.digests
        self.begin()
        # The client's model calls are invisible to the server: the cost is unknown, not zero
        # (`store.evidence.recorded_cost` reads that from the episode's `meta.served_over`, so
        # the ledger row and the blob agree).
        ev = EpisodeEvidence.from_records(episode, assessments)
        assert self.attempt_id is not None
        try:
            self.digests = self.store.record(self.attempt_id, ev)
        except AttemptStateError:
            # A `campaign run` on the same store marked our running attempt interrupted (it is
            # kept as such); the episode itself is complete, so it is recorded by a new attempt.
            self.attempt_id = self._new_attempt()
            self.digests = self.store.record(self.attempt_id, ev)
        return self.digests

    def redact(self, data: bytes) -> bytes:
        """Return `data` redacted as the store redacts what it writes."""
        return self.store.redactor.bytes(data)

    def close(self) -> None:
        """End the session: an unrecorded attempt is marked failed; release and close (once)."""
        if self._closed:
            return
        self._closed = True
        try:
            if self.attempt_id is not None and self.digests is None:
                self.store.fail_attempt(self.attempt_id, UNRECORDED_DETAIL)
        finally:
            self._release()

    def _release(self) -> None:
        if self._lock is not None:
            self._lock.release()
        self.store.close()
