"""The rows of `agm export` as plain value lists in column order, built straight from the store.

`run.export.episode_row` builds a row as a dict from the per-key reads; this builds the same
values (a test holds the bytes of every format equal) with as few Python steps per row as it
can, for a store of a million episodes: one walk of the ledger per campaign
(`store.export_query.recorded_rows`), the two fields a row takes from its binding (environment,
profile) decoded without building the whole binding, and the scorer groups written into fixed
slots. The binding is still checked against its digest for every row.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

import msgspec

from agentmetrology.records.episode import MEASUREMENT_FAILURES
from agentmetrology.store import EvidenceStore
from agentmetrology.store.errors import reading
from agentmetrology.store.export_query import recorded_rows

KEY_FIELDS = ("campaign", "target", "task", "seed", "condition", "level", "repeat")
# Fields of every row, in column order; scorer groups follow, then the digests.
BASE_FIELDS = (*KEY_FIELDS, "environment", "profile", "termination", "termination_detail",
               "measurement_failure", "requests", "tool_calls", "model_attempts",
               "input_tokens", "output_tokens", "cost")
SCORER_PARTS = ("score", "status", "version", "digest")
DIGEST_FIELDS = ("episode_digest", "submission_digest", "binding_digest", "plan_digest")
UNMEASURED_STATUSES = frozenset({"UNKNOWN", "INVALID"})
BASE_COUNT = len(BASE_FIELDS)  # where the scorer groups start


class _Bound(msgspec.Struct):
    """The two binding fields an export row shows (the rest of the binding is skipped)."""

    environment: Any = None
    profile: Any = None


_DECODE_BOUND = msgspec.json.Decoder(_Bound).decode


def _decode_bound(text: str | bytes) -> _Bound:
    """Return a binding's environment and profile from its text (or the text's UTF-8 bytes); a
    text msgspec refuses (never one the store seals: NaN, a lone surrogate, a float out of
    range) is read by json, as it always was."""
    try:
        return _DECODE_BOUND(text)
    except (msgspec.DecodeError, msgspec.ValidationError):
        bound = dict(json.loads(text if isinstance(text, str) else text.decode("utf-8")))
        return _Bound(bound.get("environment"), bound.get("profile"))


def _default_environment() -> str:
    """Return the environment of a record that names none (only such rows load the registry)."""
    from agentmetrology.envs.registry import DEFAULT_ENVIRONMENT

    return DEFAULT_ENVIRONMENT


def campaign_values(store: EvidenceStore, campaign: str, scorers: Sequence[str]
                    ) -> Iterator[list[Any]]:
    """Yield the export row of each recorded episode of a campaign as values in column order
    (BASE_FIELDS, four per scorer of `scorers`, then DIGEST_FIELDS)."""
    plan = store.ledger.campaign(campaign)
    plan_digest = "" if plan is None else str(plan["plan_digest"])
    slot = {s: BASE_COUNT + 4 * i for i, s in enumerate(scorers)}
    empty = [None] * (4 * len(scorers))
    failures, unmeasured, decode = MEASUREMENT_FAILURES, UNMEASURED_STATUSES, _decode_bound
    for row, assessments in recorded_rows(store, campaign):
        # one unpacking into names and one list display: the fewest Python steps per row
        (_, text, binding_digest, name, target, task, seed, condition, level, repeat,
         termination, detail, requests, tool_calls, model_attempts, input_tokens,
         output_tokens, cost, episode_digest, submission_digest, tokens_unknown) = row
        if tokens_unknown:  # the row sums the known counts: the totals are not known
            input_tokens = output_tokens = None
        bound = decode(text)
        environment = bound.environment
        detail = detail or ""
        failure = None
        if str(termination) in failures:
            failure = f"{termination}: {detail}" if detail else str(termination)
        values = [name, target, task, seed, condition, level, repeat,
                  str(environment) if environment else _default_environment(), bound.profile,
                  termination, detail, failure, requests, tool_calls, model_attempts,
                  input_tokens, output_tokens, cost, *empty, episode_digest, submission_digest,
                  binding_digest, plan_digest]
        for _, scorer, version, status, score, digest in assessments:
            i = slot.get(str(scorer))
            if i is None:  # a scorer recorded after the columns were read: not a column
                continue
            status = str(status)
            values[i] = score if failure is None and status not in unmeasured else None
            values[i + 1], values[i + 2], values[i + 3] = status, version, digest
        yield values


def export_values(store: EvidenceStore, names: Sequence[str], scorers: Sequence[str]
                  ) -> Iterator[list[Any]]:
    """Yield the rows of every campaign of `names` in turn (StoreError on an unreadable
    ledger, BlobCorruptError on a binding that no longer hashes to its digest)."""
    with reading(store.root):
        for name in names:
            yield from campaign_values(store, name, scorers)
