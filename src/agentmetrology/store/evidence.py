"""Episodes and assessments encoded for the store: canonical bytes plus the ledger's summary.

Encoding (and the credential-pattern pass of redaction) is the expensive part of recording, so
it happens where the episode ran (a worker process or Ray task); the single writer then only
removes registered secret values, hashes and writes.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from agentmetrology.records.assessment import Assessment
from agentmetrology.records.canonical import canonical_json, to_plain
from agentmetrology.records.episode import MEASUREMENT_FAILURES, Episode, EpisodeKey
from agentmetrology.store.redact import PATTERNS_VERSION, redact_patterns
from agentmetrology.store.transcripts import TranscriptBlobs, cleaned


def _plain_json(plain: Any) -> bytes:
    """Return canonical JSON of data that is already plain.

    Byte-identical to `canonical_json` (a test holds them together) but skips its `to_plain`
    walk, which would otherwise run a second time over every event of the episode. Plain data
    given by a caller may still hold a non-finite float: then the full encoding tags it.
    """
    try:
        return json.dumps(plain, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                          allow_nan=False).encode("utf-8")
    except ValueError:
        return canonical_json(plain)


def recorded_cost(plain: dict[str, Any]) -> float | None:
    """Return the cost the ledger records for an episode given as plain data (None: unknown).

    The one rule for the ledger column and for the store check that compares it with the blob.
    As Usage.cost: one unknown price makes the total unknown, never a silent 0. A served
    episode (`meta.served_over`, e.g. `agm serve mcp`) is driven by a client whose model calls
    the server never sees: its cost is unknown too, whereas a model-free agent run here bills
    nothing, so its cost is a known 0.0.
    """
    meta = plain.get("meta") or {}
    if meta.get("served_over") is not None:
        return None
    costs = [a.get("cost") for a in (plain.get("usage") or {}).get("attempts") or []]
    return None if any(c is None for c in costs) else float(sum(costs))


@dataclass(frozen=True, slots=True)
class AssessmentEvidence:
    """One assessment: the ledger columns and the canonical JSON of the full record."""

    scorer: str
    scorer_version: str
    status: str
    score: float | None
    evidence_digest: str
    body: bytes

    @classmethod
    def from_assessment(cls, a: Assessment) -> AssessmentEvidence:
        """Return the encoded form of an Assessment."""
        return cls(a.scorer, a.scorer_version, a.status, a.score, a.evidence_digest,
                   redact_patterns(canonical_json(a)))


@dataclass(frozen=True, slots=True)
class EpisodeEvidence:
    """One episode: its key, canonical bytes (episode and submission) and summary columns."""

    key: EpisodeKey
    body: bytes
    submission: bytes | None
    termination: str
    termination_detail: str
    cost: float | None
    input_tokens: int
    output_tokens: int
    requests: int
    tool_calls: int
    model_attempts: int
    assessments: tuple[AssessmentEvidence, ...] = ()
    # The pattern pass already applied to the bodies (it runs where the episode ran, in
    # parallel); the store still removes registered secret values itself, and redoes the
    # pattern pass when this is not its current version.
    patterns_redacted: str | None = None
    # A model's requests and responses (LLM episodes only), bound by the body's digests.
    transcript: TranscriptBlobs | None = None

    @property
    def measurement_failure(self) -> bool:
        """Return True when the episode ended for reasons outside the agent."""
        return self.termination in MEASUREMENT_FAILURES

    @classmethod
    def from_records(cls, episode: Episode,
                     assessments: Sequence[Assessment] = ()) -> EpisodeEvidence:
        """Return the encoded form of an Episode and its assessments."""
        plain = to_plain(episode, tag_non_finite=True)  # a NaN an agent sent is evidence too
        ev = cls.from_plain(plain, tuple(AssessmentEvidence.from_assessment(a)
                                         for a in assessments))
        if episode.transcript is None:
            return ev
        blobs, body = cleaned(TranscriptBlobs.of(episode.transcript), ev.body, redact_patterns)
        return dataclasses.replace(ev, body=body, transcript=blobs)

    @classmethod
    def from_plain(cls, plain: dict[str, Any],
                   assessments: tuple[AssessmentEvidence, ...] = ()) -> EpisodeEvidence:
        """Return the encoded form of an episode given as plain JSON data."""
        usage = plain.get("usage") or {}
        attempts = usage.get("attempts") or []
        sub = plain.get("submission")
        term = plain.get("termination") or {}
        raw = cls(
            key=EpisodeKey(**plain["key"]),
            body=_plain_json(plain),
            submission=None if sub is None else _plain_json(sub),
            termination=str(term.get("kind", "")),
            termination_detail=str(term.get("detail", "")),
            cost=recorded_cost(plain),
            input_tokens=sum(a.get("input_tokens") or 0 for a in attempts),
            output_tokens=sum(a.get("output_tokens") or 0 for a in attempts),
            requests=int(usage.get("requests") or 0),
            tool_calls=int(usage.get("tool_calls") or 0),
            model_attempts=len(attempts),
            assessments=assessments,
        )
        return dataclasses.replace(raw.cleaned(redact_patterns), patterns_redacted=PATTERNS_VERSION)

    def cleaned(self, clean: Callable[[bytes], bytes]) -> EpisodeEvidence:
        """Return this evidence with `clean` (a redaction) applied to its episode, submission and
        assessments, each reference to the submission's digest renamed to the cleaned bytes'.

        A submission holding a credential-shaped text is stored redacted, so under another
        digest than the one the episode and its scorers recorded for it; the records must
        name the bytes the store holds, or the store's own check finds them mismatched.
        """
        body = clean(self.body)
        assessments = tuple(dataclasses.replace(a, body=clean(a.body)) for a in self.assessments)
        sub = None if self.submission is None else clean(self.submission)
        if sub is not None and self.submission is not None and sub != self.submission:
            was = hashlib.sha256(self.submission).hexdigest()
            now = hashlib.sha256(sub).hexdigest()
            body = body.replace(was.encode(), now.encode())
            assessments = tuple(dataclasses.replace(
                a, body=a.body.replace(was.encode(), now.encode()),
                evidence_digest=now if a.evidence_digest == was else a.evidence_digest)
                for a in assessments)
        return dataclasses.replace(self, body=body, submission=sub, assessments=assessments)
