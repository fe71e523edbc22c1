"""Episode rows of an evidence store, flat and typed, for pandas and `agm stats` (`agm export`).

One row per recorded episode: every key field, the environment and profile its bindings name,
termination, one `SCORER.score` / `SCORER.status` / `SCORER.version` / `SCORER.digest` group
per scorer, cost and tokens, and the digests that bind the row to its evidence. A score that was
not measured (an UNKNOWN or INVALID assessment, or any score of an infrastructure failure) is
null with its status beside it, never 0; `agm stats` and pandas then leave it out.

The store is read through its public API (`campaigns`, `episode`, `binding`); only the list of
a campaign's keys is one query over the administrations table, as the archive importer does.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from agentmetrology.records.episode import MEASUREMENT_FAILURES, EpisodeKey
from agentmetrology.records.errors import UserError
from agentmetrology.run.export_values import (
    BASE_FIELDS,
    DIGEST_FIELDS,
    KEY_FIELDS,
    SCORER_PARTS,
    UNMEASURED_STATUSES,
    export_values,
)
from agentmetrology.store import EvidenceStore
from agentmetrology.store.errors import reading
from agentmetrology.store.export_query import scorer_names, unrecorded_count
from agentmetrology.store.status import Cell, CellScore


@dataclass(frozen=True, slots=True)
class Export:
    """Rows of an export, their column order, and the administrations left out (unrecorded)."""

    rows: list[dict[str, Any]]
    columns: list[str]
    unrecorded: int = 0
    scorers: list[str] = field(default_factory=list)


def _failure(termination: str, detail: str) -> str | None:
    """Return why an episode is a measurement failure, or None when it measures the agent."""
    if termination not in MEASUREMENT_FAILURES:
        return None
    return f"{termination}: {detail}" if detail else termination


def episode_row(key: EpisodeKey, led: dict[str, Any], binding: dict[str, Any],
                plan_digest: str, tokens_unknown: int = 0) -> dict[str, Any]:
    """Return the flat export row of one recorded episode (ledger row + sealed bindings;
    `tokens_unknown`: its requests without token counts, `Ledger.tokens_unknown`)."""
    # imported here: the streamed export (run.export_values) does without the registry
    from agentmetrology.envs.registry import environment_or_default

    failure = _failure(str(led["termination"]), str(led.get("termination_detail") or ""))
    row: dict[str, Any] = {f: getattr(key, f) for f in KEY_FIELDS}
    row.update(environment=environment_or_default(binding.get("environment")),
               profile=binding.get("profile"), termination=led["termination"],
               termination_detail=led.get("termination_detail") or "",
               measurement_failure=failure, requests=led["requests"],
               tool_calls=led["tool_calls"], model_attempts=led["model_attempts"],
               # the ledger's counts sum the known ones: null when a request had none
               input_tokens=None if tokens_unknown else led["input_tokens"],
               output_tokens=None if tokens_unknown else led["output_tokens"],
               cost=led["cost"])  # null when any request's price or token count is unknown
    for a in led.get("assessments") or []:
        status = str(a["status"])
        measured = failure is None and status not in UNMEASURED_STATUSES
        name = str(a["scorer"])
        row[f"{name}.score"] = a["score"] if measured else None
        row[f"{name}.status"] = status
        row[f"{name}.version"] = a["scorer_version"]
        row[f"{name}.digest"] = a["assessment_digest"]
    row.update(episode_digest=led["episode_digest"], submission_digest=led["submission_digest"],
               binding_digest=None, plan_digest=plan_digest)
    return row


def _campaign_rows(store: EvidenceStore, campaign: str) -> Iterator[dict[str, Any] | None]:
    """Yield the row of each administration of a campaign (None when it has no episode)."""
    plan = store.ledger.campaign(campaign)
    plan_digest = "" if plan is None else str(plan["plan_digest"])
    for key in store.reader.administration_keys(campaign):
        led = store.episode(key)
        if led is None:
            yield None
            continue
        bound = store.binding(key)  # verified against its digest: a tampered binding raises
        row = episode_row(key, led, bound, plan_digest,
                          store.ledger.tokens_unknown(led["attempt"]))
        row["binding_digest"] = _binding_digest(store, key)
        yield row


def _binding_digest(store: EvidenceStore, key: EpisodeKey) -> str | None:
    sealed = store.ledger.binding(key)
    return None if sealed is None else sealed[1]


def export_rows(store: EvidenceStore, campaigns: Sequence[str] | None = None) -> Export:
    """Return the export of the store's recorded episodes (of `campaigns`, default all).

    UserError names an unknown campaign; StoreError an unreadable ledger.
    """
    with reading(store.root):
        return _export(store, campaigns)


def _export(store: EvidenceStore, campaigns: Sequence[str] | None) -> Export:
    names = _names(store, campaigns)
    rows: list[dict[str, Any]] = []
    unrecorded = 0
    for name in names:
        for row in _campaign_rows(store, name):
            if row is None:
                unrecorded += 1
            else:
                rows.append(row)
    scorers = sorted({k[:-len(".score")] for r in rows for k in r if k.endswith(".score")})
    columns = [*BASE_FIELDS, *(f"{s}.{p}" for s in scorers for p in SCORER_PARTS),
               *DIGEST_FIELDS]
    # Every row has every column (null where it has no such scorer), so CSV and Parquet agree.
    full = [{c: r.get(c) for c in columns} for r in rows]
    return Export(full, columns, unrecorded, scorers)


@dataclass
class ExportStream:
    """An export read as it is written: its columns, then its rows one at a time (`values`:
    each row's values in column order; `rows`: the same rows as dicts)."""

    columns: list[str]
    scorers: list[str]
    unrecorded: int
    values: Iterator[list[Any]]

    @property
    def rows(self) -> Iterator[dict[str, Any]]:
        """Return the rows as dicts keyed by column (the values stream, consumed)."""
        return (dict(zip(self.columns, v, strict=True)) for v in self.values)


def stream_rows(store: EvidenceStore, campaigns: Sequence[str] | None = None) -> ExportStream:
    """Return the export of the store's recorded episodes as a stream: the same rows, in the
    same order, as `export_rows`, one streamed walk per campaign and never all in memory.

    UserError names an unknown campaign; StoreError an unreadable ledger; BlobCorruptError,
    raised while the rows are read, a binding that no longer hashes to its digest.
    """
    with reading(store.root):
        names = _names(store, campaigns)
        scorers = scorer_names(store, names)
        unrecorded = unrecorded_count(store, names)
    columns = [*BASE_FIELDS, *(f"{s}.{p}" for s in scorers for p in SCORER_PARTS),
               *DIGEST_FIELDS]
    return ExportStream(columns, scorers, unrecorded, export_values(store, names, scorers))


def _names(store: EvidenceStore, campaigns: Sequence[str] | None) -> list[str]:
    """Return the store's campaigns, or those of `campaigns` (UserError names an unknown one)."""
    names = store.campaigns()
    if campaigns is None:
        return names
    for c in campaigns:
        if c not in names:
            raise UserError(f"no campaign {c!r} in the store at {store.root} "
                            f"(have: {', '.join(names) or 'none'})")
    return [n for n in names if n in campaigns]


def cell_scores(export: Export) -> dict[Cell, dict[str, CellScore]]:
    """Return per (target, level, condition) and scorer: recorded episodes, excluded, mean.

    Excluded are the episodes without a measured score: measurement failures, UNKNOWN or
    INVALID assessments, null scores. The means are those `agm stats` computes on the export.
    """
    out: dict[Cell, dict[str, CellScore]] = {}
    for r in export.rows:
        cell = (str(r["target"]), str(r["level"]), str(r["condition"]))
        per = out.setdefault(cell, {})
        for s in export.scorers:
            c = per.setdefault(s, CellScore())
            c.n += 1
            score = r.get(f"{s}.score")
            if score is None:
                c.excluded += 1
            else:
                c.total += float(score)
    return dict(sorted(out.items()))


def jsonl_text(export: Export) -> str:
    """Return the rows as JSON Lines (no NaN or Infinity: a missing value is null)."""
    return "".join(json.dumps(r, allow_nan=False, ensure_ascii=False) + "\n"
                   for r in export.rows)
