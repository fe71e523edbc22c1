"""Typed archive records: episodes imported from any source format, trace spans and load problems.

Every importer produces these records; every analysis reads only these. A grade is either stored
(`StoredGrade`) or absent (`None`, with a reason code saying why) — a missing grade is never a 0.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, get_args

from agentmetrology.records.errors import UserError

if TYPE_CHECKING:
    from agentmetrology.store.blob_reads import BlobReads

Outcome = Literal["pass", "fail", "ungraded", "invalid_replay"]
OUTCOMES: tuple[str, ...] = get_args(Outcome)

# Reason codes for episodes without a usable grade; the detail string says more.
REASONS: dict[str, str] = {
    "step_cap": "grader never ran: step cap reached without an ending event",
    "grader_never_ran": "grader never ran: no ending event recorded",
    "scaffold_exit": "grader never ran: scaffold exited early",
    "sample_error": "grader never ran: the sample errored (infrastructure or solver error)",
    "infra_error": "grader never ran: infrastructure error",
    "cancelled": "grader never ran: the episode was cancelled",
    "never_ran": "planned administration never recorded (never ran)",
    "unscored": "grader ran but stored no usable score (None or NaN)",
    "unsupported_score": "stored score value cannot be read as a number",
    "score_out_of_range": "stored score outside the format's declared range [0, 1]",
    "malformed_record": "the archived record is malformed, so its grade cannot be trusted",
    "no_grade_recorded": "no grade recorded in the archive",
    "not_in_archive": "planned episode absent from the archive",
    "invalid_replay": "replay lacks a declared mode or a required tool namespace",
}

SUCCESS_TOLERANCE = 1e-6  # success is |score - 1| <= 1e-6, as in the tau-bench metrics


@dataclass(frozen=True, slots=True)
class ArchiveEvent:
    """One archived action: kind, tool name, arguments, result, and the actor when recorded."""

    seq: int
    kind: str
    name: str
    args: dict[str, Any] | None
    result: Any = None
    actor: str | None = None  # only when the source recorded it; never inferred on import
    call_id: str | None = None


def count_actors(events: Iterable[ArchiveEvent]) -> Counter[str]:
    """Return how many events each actor has ('(unlabelled)' for events without one)."""
    return Counter(e.actor or "(unlabelled)" for e in events)


def actor_counts(events: Iterable[ArchiveEvent]) -> Counter[str]:
    """Return an episode's events per actor, from the summary its event list keeps when it has
    one (a list read from storage on each walk), else by walking it."""
    kept = getattr(events, "actor_counts", None)
    return kept() if callable(kept) else count_actors(events)


@dataclass(frozen=True, slots=True)
class ExecutedCall:
    """One tool call the model emitted, from the raw model log (independent of the action list)."""

    name: str
    args: dict[str, Any] | None
    call_id: str | None = None


@dataclass(frozen=True, slots=True)
class StoredGrade:
    """A grade the archive stored: numeric score, pass flag, and source-specific detail."""

    score: float
    passed: bool
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ReplaySpec:
    """A re-graded episode's declared replay mode, required and available tool namespaces."""

    mode: str | None
    requires: tuple[str, ...] = ()
    available: tuple[str, ...] | None = None


@dataclass(slots=True)
class ArchiveEpisode:
    """One archived episode: who ran what, its actions, its stored grade (or why there is none)."""

    episode_id: str
    task: str
    model: str
    scaffold: str = ""
    run: str = ""
    trial: int = 0
    # A list, or a sequence read from stored evidence on demand (an agm store's episodes).
    events: Sequence[ArchiveEvent] = field(default_factory=list)
    executed_calls: list[ExecutedCall] | None = None
    grade: StoredGrade | None = None
    stored_score: float | None = None  # the number the archive wrote (ungraded rows may hold 0)
    termination: str | None = None
    termination_detail: str = ""
    reason: str | None = None  # reason code (see REASONS) when grade is None or replay invalid
    reason_detail: str = ""
    replay: ReplaySpec | None = None
    invalid_replay: str | None = None  # set by the replay gate at load time
    recovered: StoredGrade | None = None  # a grade recovered by replay (the stored one is None)
    grade_source: str | None = None  # observed | recovered_by_replay | invalid_replay | ...
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def outcome(self) -> Outcome:
        """Return the outcome category: pass, fail, ungraded or invalid_replay."""
        if self.invalid_replay is not None:
            return "invalid_replay"
        if self.grade is None:
            return "ungraded"
        return "pass" if self.grade.passed else "fail"


RepeatKey = tuple[str, str, str, str, int, object]


def repeat_key(ep: ArchiveEpisode) -> RepeatKey:
    """Return what makes two records one episode when several sources hold it: run, model,
    scaffold, task, trial and Inspect task (an Inspect run of several tasks gives them one run
    id and sample ids 1..N each: the task's name tells their samples apart)."""
    return (ep.run, ep.model, ep.scaffold, ep.task, ep.trial, ep.meta.get("inspect_task"))


def _result(ep: ArchiveEpisode) -> tuple[str, float | None, float | None]:
    return ep.outcome, ep.stored_score, ep.grade.score if ep.grade else None


def _stored(ep: ArchiveEpisode) -> str:
    score = ep.grade.score if ep.grade and ep.stored_score is None else ep.stored_score
    return f"{ep.outcome} ({'none' if score is None else f'{score:g}'})"


def merge_repeat(kept: ArchiveEpisode, again: ArchiveEpisode) -> str | None:
    """Fold a second record of kept's (task, trial) into it: None when both say the same
    (outcome, stored score and grade; the repeat is dropped), else why they differ, with kept
    made an ungraded `malformed_record`: keeping the first made the score depend on the file's
    order."""
    if kept.meta.get("repeat_conflict"):
        return kept.reason_detail  # two results already differ: a third changes nothing
    if _result(kept) == _result(again):
        return None
    why = (f"recorded twice with different results, {_stored(kept)} and {_stored(again)}: "
           "which one counts is not identified")
    kept.grade, kept.stored_score = None, None
    kept.reason, kept.reason_detail = "malformed_record", why
    kept.meta["repeat_conflict"] = True
    return why


def repeat_text(record: str, again: ArchiveEpisode, why: str | None) -> str:
    """Return the load problem of a repeated (task, trial) record, as `merge_repeat` left it."""
    head = f"{record}: task {again.task} trial {again.trial} repeated"
    return f"{head}; skipped" if why is None else f"{head}, kept ungraded: {why}"

@dataclass(frozen=True, slots=True)
class TraceSpan:
    """One trace span: tree position, kind, model, response and attempt ids, usage and cost."""

    span_id: str
    parent_id: str | None
    kind: str
    model: str | None = None
    response_id: str | None = None
    attempt_id: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    cost: float | None = None
    run: str | None = None
    episode_id: str | None = None
    # False when the source gave no input or output token count (a timed-out request, an
    # event without usage): the counts above are 0 then, and totals over it a lower bound
    usage_known: bool = True

    @property
    def usage(self) -> tuple[int, int, int]:
        """Return (input, output, cached) tokens."""
        return (self.input_tokens, self.output_tokens, self.cached_tokens)


@dataclass(frozen=True, slots=True)
class LoadProblem:
    """A problem met while loading (file, line when known, message); the item was skipped."""

    file: str
    line: int | None
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else self.file
        return f"{where}: {self.message}"


@dataclass(slots=True)
class Archive:
    """An imported archive: source name, format, episodes, spans, load problems, importer notes."""

    source: str
    format: str
    episodes: list[ArchiveEpisode] = field(default_factory=list)
    spans: list[TraceSpan] = field(default_factory=list)
    problems: list[LoadProblem] = field(default_factory=list)
    notes: dict[str, Any] = field(default_factory=dict)
    recovery: dict[str, Any] | None = None  # grade recovery by replay, when it was attempted
    # Our own store: what the import found in the blobs it read (store.blob_reads), for the
    # store check that follows; never part of a report, nor of an archive's equality.
    blob_reads: BlobReads | None = field(default=None, repr=False, compare=False)
    # And the replays its reader process ran ahead (archive.recovery's memo, by inputs), for
    # the recovery that follows; likewise never compared.
    replays: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


def cell_label(model: str, scaffold: str) -> str:
    """Return the plain cell label: model, plus scaffold when one is named."""
    return f"{model} / {scaffold}" if scaffold else model


def cell_labels(pairs: Iterable[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """Return a distinct label for each (model, scaffold) pair: the plain label where it is unique.

    Two pairs can share a plain label (model "x / y" without a scaffold, model "x" with scaffold
    "y"); merging them would add one unit's episodes to another's (a pass rate above 1), so such
    pairs are labelled by their JSON form ["x / y", ""] instead.
    """
    unique = sorted(set(pairs))
    counts = Counter(cell_label(m, s) for m, s in unique)
    labels = {(m, s): (cell_label(m, s) if counts[cell_label(m, s)] == 1
                       else json.dumps([m, s], ensure_ascii=False)) for m, s in unique}
    if len(set(labels.values())) != len(labels):
        seen = Counter(labels.values())
        clash = sorted(v for v, n in seen.items() if n > 1)
        raise ArchiveFormatError(f"model/scaffold names give the same cell label {clash[0]!r} "
                                 "to different cells; rename one so the cells can be told apart")
    return labels


def is_success(score: float) -> bool:
    """Return True when a numeric score counts as success (|score − 1| <= 1e-6)."""
    return abs(score - 1.0) <= SUCCESS_TOLERANCE


class ArchiveFormatError(UserError):
    """Raised when a file cannot be read as the requested format (the message is user-facing)."""
