"""Importer for our own evidence store (`agm`): every planned administration becomes an episode.

cell = target / scaffold level, run = campaign, task = task id (plus `[condition]` when the
condition is not `clean`), trial = the index of (seed, repeat) among the campaign's distinct
pairs. Our harness labels every event with its actor, so actor labels are kept as recorded. The
grade is the stored ground-truth assessment: an infrastructure failure (`infra_error`,
`cancelled`) is ungraded whatever was scored, an administration planned but never recorded is
ungraded `never_ran`, and a missing submission is a graded failure (the scorer stored FAIL).
Billable model attempts become model-call spans for the cost check.

Memory stays bounded by the episodes' summaries, not their evidence: an episode's events are
not kept (`StoredEvents` reads them from the episode's blob each time an analysis walks them,
one episode at a time), nor is its submission (its digest is).
"""

from __future__ import annotations

import operator
from collections import Counter
from collections.abc import Callable, Iterator, MutableSequence, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import msgspec

from agentmetrology.archive.importers.agm_ahead import BlobsAhead
from agentmetrology.archive.importers.agm_blob import (  # noqa: F401  (kept importable here)
    Found,
    _events,
    decode_blob,
    events_fingerprint,
)
from agentmetrology.archive.importers.agm_spans import episode_spans
from agentmetrology.archive.importers.limits import kind_name
from agentmetrology.archive.model import (
    Archive,
    ArchiveEpisode,
    ArchiveEvent,
    ArchiveFormatError,
    LoadProblem,
    StoredGrade,
    count_actors,
)
from agentmetrology.archive.recovery import Replayed, replay_episode, replay_inputs
from agentmetrology.archive.redact import redact, redact_memo
from agentmetrology.envs.registry import environment_or_default, get_env
from agentmetrology.records.episode import MEASUREMENT_FAILURES, EpisodeKey
from agentmetrology.store import EvidenceStore, StoreNotFoundError
from agentmetrology.store.archive_rows import Planned, assessment_body, planned_episodes
from agentmetrology.store.blob_reads import BlobReads
from agentmetrology.store.blobs import BlobError, BlobStore
from agentmetrology.store.errors import StoreError, reading
from agentmetrology.store.ledger import KEY_COLUMNS, LedgerError, binding_environment, key_text
from agentmetrology.store.store import LEDGER_FILE

FORMAT = "agm"
UNGRADED_STATUSES = ("UNKNOWN", "INVALID")


def looks_like_store(path: Path) -> bool:
    """Return True when `path` is a directory holding an evidence-store ledger."""
    return path.is_dir() and (path / LEDGER_FILE).is_file()


@contextmanager
def open_store(path: Path) -> Iterator[EvidenceStore]:
    """Open an existing store for reading (ArchiveFormatError when there is none)."""
    try:
        store = EvidenceStore.open(path, create=False, scrub_env=False)
    except StoreNotFoundError as exc:
        raise ArchiveFormatError(f"{path.name}: not an agm evidence store (no {LEDGER_FILE})"
                                 ) from exc
    except StoreError as exc:
        raise ArchiveFormatError(f"{path.name}: {LEDGER_FILE} is not a readable ledger "
                                 f"({exc.detail})") from exc
    except LedgerError as exc:  # another schema, or none (a foreign SQLite file)
        raise ArchiveFormatError(f"{path.name}: {LEDGER_FILE} is not a ledger this version "
                                 f"reads ({exc})") from exc
    try:
        yield store
    finally:
        store.close()


def planned_keys(store: EvidenceStore, campaign: str) -> list[EpisodeKey]:
    """Return every administration key of a campaign, in plan order."""
    return store.reader.administration_keys(campaign)


def task_label(key: EpisodeKey) -> str:
    """Return the archive task label of a key: the task id, with a non-clean condition."""
    return key.task if key.condition == "clean" else f"{key.task}[{key.condition}]"


def trial_index(keys: list[EpisodeKey]) -> dict[tuple[int, int], int]:
    """Return the trial number of each (seed, repeat) pair: its index in sorted order."""
    pairs = sorted({(k.seed, k.repeat) for k in keys})
    return {p: i for i, p in enumerate(pairs)}


def environment_of(store: EvidenceStore, key: EpisodeKey) -> str:
    """Return the environment a key's sealed bindings name (ComtradeBench for older stores)."""
    bound = store.ledger.binding(key)
    return environment_or_default(binding_environment(None if bound is None else bound[0]))


def grade_scorer(environment: str) -> str:
    """Return the name of the scorer whose verdict grades an episode of `environment`."""
    try:
        return get_env(environment).grade_scorer.name
    except ValueError:
        return "ground_truth_f1"  # an environment no longer installed: the built-in's name


def ground_truth_row(row: dict[str, Any], scorer: str = "ground_truth_f1") -> dict[str, Any] | None:
    """Return the stored grading assessment (by scorer name) of a ledger row, or None."""
    for a in row.get("assessments") or []:
        if a.get("scorer") == scorer:
            return dict(a)
    return None


class StoredEvents(MutableSequence[ArchiveEvent]):
    """An episode's events, read from its stored blob each time they are walked (never kept).

    The length is known from the import, so `len` and truth tests read nothing. A caller that
    edits the events (a test tampering with a trajectory) gets them loaded once and held from
    then on, so the edit stays.
    """

    __slots__ = ("_actors", "_blobs", "_digest", "_fingerprint", "_held", "_n")

    def __init__(self, blobs: BlobStore, digest: str, events: list[ArchiveEvent],
                 fingerprint: str | None = None, *,
                 summary: tuple[int, dict[Any, int]] | None = None) -> None:
        # `summary`: the event count and events per actor when the import read no events
        # (agm_summary); else they are taken from `events`.
        count, actors = summary or (len(events), dict(count_actors(events)))
        self._blobs, self._digest, self._n = blobs, digest, count
        self._held: list[ArchiveEvent] | None = None
        # What the analyses ask of every episode, kept from the import's one read so that they
        # need not read the blob again: the actor counts and what a replay is made from.
        self._actors = actors
        self._fingerprint = fingerprint

    def actor_counts(self) -> Counter[str]:
        """Return the events per actor (from the import's read unless the events were edited)."""
        return count_actors(self._held) if self._held is not None else Counter(self._actors)

    @property
    def replay_fingerprint(self) -> str | None:
        """Return `events_fingerprint` of the events as imported (None once they are edited)."""
        return None if self._held is not None else self._fingerprint

    def _load(self) -> list[ArchiveEvent]:
        if self._held is not None:
            return self._held
        plain = decode_blob(self._blobs.get(self._digest))  # verified against its digest
        return _events(plain.get("events") or [])

    def _hold(self) -> list[ArchiveEvent]:
        if self._held is None:
            self._held = self._load()
        return self._held

    def __len__(self) -> int:
        return self._n if self._held is None else len(self._held)

    def __iter__(self) -> Iterator[ArchiveEvent]:
        return iter(self._load())

    def __getitem__(self, index: Any) -> Any:
        return self._load()[index]

    def __setitem__(self, index: Any, value: Any) -> None:
        self._hold()[index] = value

    def __delitem__(self, index: Any) -> None:
        del self._hold()[index]

    def insert(self, index: int, value: ArchiveEvent) -> None:
        """Insert an event (the events are held in memory from then on)."""
        self._hold().insert(index, value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]


def _grade(ep: ArchiveEpisode, row: dict[str, Any], scorer: str = "ground_truth_f1") -> None:
    """Set the episode's grade (or its reason for having none) from the ledger row."""
    term = str(row.get("termination") or "")
    gt = ground_truth_row(row, scorer)
    if term in MEASUREMENT_FAILURES:
        ep.reason = "infra_error" if term == "infra_error" else "cancelled"
        ep.reason_detail = redact(str(row.get("termination_detail") or term))
        return
    if gt is None:
        ep.reason, ep.reason_detail = "no_grade_recorded", "no ground-truth assessment stored"
        return
    if gt["status"] in UNGRADED_STATUSES or gt.get("score") is None:
        reasons = (assessment_body(gt.get("assessment")) or {}).get("reasons") or []
        ep.reason = "unscored"
        ep.reason_detail = redact(f"{gt['status']}: " + "; ".join(map(str, reasons)))
        return
    score = float(gt["score"])
    ep.grade = StoredGrade(score, gt["status"] == "PASS",
                           {"scorer": gt["scorer"], "scorer_version": gt["scorer_version"],
                            "status": gt["status"]})
    ep.stored_score = score


_KEY_VALUES = operator.attrgetter(*KEY_COLUMNS)


def _key_dict(key: EpisodeKey) -> dict[str, Any]:
    """Return an episode key as the dict of its columns, in KEY_COLUMNS order (one C-level
    read of them: built twice an episode, the comprehension was felt on 10,000 episodes)."""
    return dict(zip(KEY_COLUMNS, _KEY_VALUES(key), strict=True))


def _never_ran(store: EvidenceStore, key: EpisodeKey) -> str:
    adm = store.ledger.administration(key)
    if adm is not None and adm.not_launched:
        return f"not launched: {adm.not_launched}"
    attempts = store.attempts(key)
    if attempts:
        last = attempts[-1]
        return redact(f"last attempt {last['status']}: {last.get('detail') or ''}".strip(": "))
    return "planned, never attempted"


def _episode(store: EvidenceStore, item: Item, found: Found | None, archive: Archive,
             reads: BlobReads, scorers: dict[str, str]) -> None:
    planned, trial, env = item
    key, row = planned.key, planned.episode
    ep = ArchiveEpisode(episode_id=key_text(key), task=task_label(key), model=key.target,
                        scaffold=key.level, run=key.campaign, trial=trial,
                        meta={"key": _key_dict(key)})
    archive.episodes.append(ep)
    ep.meta["environment"] = env
    if row is None:
        ep.reason, ep.reason_detail = "never_ran", _never_ran(store, key)
        return
    ep.termination = str(row.get("termination") or "") or None
    ep.termination_detail = redact(str(row.get("termination_detail") or ""))
    if env not in scorers:  # looked up once per environment, not once per episode
        scorers[env] = grade_scorer(env)
    try:
        _grade(ep, row, scorers[env])
    except (KeyError, ValueError, TypeError, ArithmeticError) as exc:  # a damaged ledger row
        ep.grade, ep.stored_score = None, None
        ep.reason, ep.reason_detail = "malformed_record", redact(f"{type(exc).__name__}: {exc}")
        archive.problems.append(LoadProblem(archive.source, None,
                                            redact(f"{ep.episode_id}: ledger row: {exc}")))
    try:
        digest = str(row["episode_digest"])
        assert found is not None  # the walk read the blob of every row naming one
        if found.verdict is not None:
            reads.keep(digest, found.verdict)  # for the store check that follows
        if found.error is not None:
            raise found.error  # where reading it here would have raised it
    except (BlobError, KeyError, ValueError, TypeError, AttributeError) as exc:
        # (any way the blob is not an episode: the read names it; the store check too)
        archive.problems.append(LoadProblem(archive.source, None,
                                            redact(f"{ep.episode_id}: episode blob: {exc}")))
        return
    assert found.plain is not None and found.actors is not None
    ep.events = StoredEvents(store.blobs, digest, [], found.fingerprint,
                             summary=(found.event_count, found.actors))
    plain = found.plain
    meta, digests = _object(plain, "meta", ep, archive), _object(plain, "digests", ep, archive)
    ep.meta.update(profile=meta.get("profile", "seeded"), max_steps=meta.get("max_steps"),
                   submission_digest=digests.get("submission"))
    spans, problems = episode_spans(ep, plain.get("usage"))
    archive.spans.extend(spans)
    archive.problems.extend(LoadProblem(archive.source, None, redact(
        f"{ep.episode_id}: episode blob: {p}")) for p in problems)


def _object(plain: dict[str, Any], name: str, ep: ArchiveEpisode, archive: Archive
            ) -> dict[str, Any]:
    """Return the blob's object `name` ({} when absent); a value of another type is a load
    problem naming it, and reads as absent."""
    value = plain.get(name)
    if value is None or isinstance(value, dict):
        return value or {}
    archive.problems.append(LoadProblem(archive.source, None, redact(
        f"{ep.episode_id}: episode blob: its {name} is {kind_name(value)}, not an object: "
        "not read")))
    return {}


class _Bound(msgspec.Struct):
    environment: Any = None


_BOUND = msgspec.json.Decoder(_Bound).decode


def _bound_environment(binding: str | None) -> str:
    """Return `binding_environment(binding)`: read by msgspec (that one field decoded) where it
    reads the text as json does, else by binding_environment itself (msgspec refuses, never
    misreads: NaN, a float out of range, a lone surrogate, a text that is not an object)."""
    if binding:
        try:
            return str(_BOUND(binding).environment or "")
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
            pass
    return binding_environment(binding)


def _digest(item: Item) -> str | None:
    """Return the episode blob a planned row names (None: no episode, or no digest)."""
    row = item[0].episode
    if row is None or "episode_digest" not in row:
        return None
    return str(row["episode_digest"])


# A planned administration, its trial number and the environment its sealed binding names.
Item = tuple[Planned, int, str]


def _planned(store: EvidenceStore, campaigns: list[str]) -> Iterator[Item]:
    """Yield every administration of every campaign, in plan order, with its trial number and
    environment (read from its binding once, for the replay asked ahead and the episode)."""
    for campaign in campaigns:
        trials = trial_index(planned_keys(store, campaign))
        for planned in planned_episodes(store, campaign, bodies=False):  # one streamed read
            yield (planned, trials[(planned.key.seed, planned.key.repeat)],
                   environment_or_default(_bound_environment(planned.binding)))


def _replay_ask(scorers: dict[str, str]) -> Callable[[Item], Any]:
    """Return what a reader is asked to replay ahead of a planned row: its environment and
    key (None where the recovery never replays it: no episode, a measurement failure)."""
    def ask(item: Item) -> tuple[str, dict[str, Any]] | None:
        planned, _, env = item
        row = planned.episode
        if (row is None or "episode_digest" not in row
                or str(row.get("termination") or "") in MEASUREMENT_FAILURES):
            return None
        if env not in scorers:  # the environment loaded here, before a reader is forked
            scorers[env] = grade_scorer(env)  # (which then replays it without loading it)
        return env, _key_dict(planned.key)
    return ask


def _replay_ahead(blobs: BlobStore, digest: str, found: Found,
                  ask: tuple[str, dict[str, Any]], memo: dict[str, Any]
                  ) -> tuple[str, Replayed] | None:
    """In a reader: run the replay the recovery will ask of this episode, unless its inputs
    were run here before; return (its inputs, the result), as `replay_episode` keeps them in
    its memo. The episode is the one `_episode` builds, in all a replay reads of it."""
    if found.error is not None or found.plain is None or found.fingerprint is None:
        return None
    meta = found.plain.get("meta") or {}
    env, key = ask
    ep = ArchiveEpisode(episode_id="", task="", model="", meta={
        "key": key, "environment": env, "profile": meta.get("profile", "seeded"),
        "max_steps": meta.get("max_steps")})
    ep.events = StoredEvents(blobs, digest, [], found.fingerprint,
                             summary=(found.event_count, found.actors or {}))
    inputs = replay_inputs(ep, key)
    if inputs is None or inputs in memo:
        return None
    replay_episode(ep, memo)
    return (inputs, memo[inputs]) if inputs in memo else None


def load_agm(path: Path) -> Archive:
    """Return the Archive of every campaign in an evidence store (planned episodes included).

    The archive's `replays` are those a reader ran ahead (agm_ahead), for the recovery."""
    reads = BlobReads()  # handed to the store check that follows (archive.inputs)
    scorers: dict[str, str] = {}
    archive = Archive(source=path.name, format=FORMAT, blob_reads=reads)
    with open_store(path) as store, redact_memo():  # the same details on many rows
        try:
            with reading(path):
                campaigns = store.campaigns()
                # blobs read (and replays run) ahead, on another core
                with BlobsAhead(store.blobs, ahead=_replay_ahead) as ahead:
                    for item, found in ahead.walk(
                            _planned(store, campaigns), _digest, _replay_ask(scorers)):
                        _episode(store, item, found, archive, reads, scorers)
                    archive.replays = ahead.results
        except StoreError as exc:
            raise ArchiveFormatError(f"{path.name}: {LEDGER_FILE} is not a readable ledger "
                                     f"({exc.detail})") from exc
    archive.notes["campaigns"] = campaigns
    archive.notes["never_ran"] = sum(e.reason == "never_ran" for e in archive.episodes)
    return archive
