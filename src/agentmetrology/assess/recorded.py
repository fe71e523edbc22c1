"""Assess the recorded episodes of a store against their task contracts (never re-run).

The same estimands, views and envelopes as `assess.executions`, over what a store holds: one
group per (campaign, target, level, condition) of the environment. A recorded measurement
failure, or an episode whose evidence blob is unavailable, is excluded and counted as a
measurement failure in every view, never a FAIL.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agentmetrology.assess.executions import hooks_of, judge_episode, summarise, withheld_counts
from agentmetrology.assess.masking import check_coverage, check_mask
from agentmetrology.records.environment import EnvSpec
from agentmetrology.records.episode import EpisodeKey, episode_from_plain
from agentmetrology.records.errors import UserError
from agentmetrology.store.blobs import BlobError
from agentmetrology.store.store import EvidenceStore


class NoRecordedEpisodesError(UserError):
    """The store holds no recorded episode of the environment (in the campaign asked for)."""


def recorded_keys(store: EvidenceStore, environment: str,
                  campaign: str | None) -> list[EpisodeKey]:
    """Return the keys with a recorded episode of `environment`, in campaign and plan order."""
    return [r.key for r in store.reader.recorded_bindings()
            if (campaign is None or r.key.campaign == campaign) and r.environment == environment]


def _judge_recorded(store: EvidenceStore, spec: EnvSpec, key: EpisodeKey,
                    masks: Sequence[str]) -> dict[str, Any]:
    row = store.episode(key)
    assert row is not None  # recorded_keys joined on the episodes table
    try:
        episode = episode_from_plain(store.get_json(row["episode_digest"]))
    # KeyError, TypeError, AttributeError: a blob that is not an episode's shape (forged)
    except (BlobError, OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        out: dict[str, Any] = {"task": key.task, "seed": key.seed,
                               "termination": row["termination"],
                               "measurement_failure": f"evidence unavailable: {exc}"}
        out.update(dict.fromkeys(("original", "masked_raw", "masked_gate") if masks
                                 else ("original",)))
        return out
    return judge_episode(spec, episode, masks)


def assess_store(store: EvidenceStore, spec: EnvSpec, campaign: str | None,
                 tasks: Sequence[str] | None, masks: Sequence[str]) -> dict[str, Any]:
    """Return the assessment document of a store's recorded episodes of `spec`."""
    hooks = hooks_of(spec)
    if campaign is not None and campaign not in store.campaigns():
        raise NoRecordedEpisodesError(f"no campaign {campaign!r} in the store; it has: "
                                      f"{', '.join(store.campaigns()) or 'none'}")
    keys = [k for k in recorded_keys(store, spec.name, campaign)
            if tasks is None or k.task in tasks]
    if not keys:
        where = f" in campaign {campaign}" if campaign else ""
        raise NoRecordedEpisodesError(f"the store holds no recorded episodes of {spec.name}"
                                      f"{where}")
    for task in sorted({k.task for k in keys}):  # refuse a bad contract or mask up front
        hooks.contract(task)
        check_mask(hooks.capture(None, task, 0, spec.profiles[0], ()), masks,
                   f"{spec.name} task {task}")
    # Every planned group, in plan order, with how many it planned: an administration never
    # recorded (not launched, still pending) is said, never silently left out of N.
    planned: dict[tuple[str, str, str, str], int] = {}
    for camp in dict.fromkeys(k.campaign for k in keys):
        for k in store.reader.administration_keys(camp):
            if tasks is None or k.task in tasks:
                group = (k.campaign, k.target, k.level, k.condition)
                planned[group] = planned.get(group, 0) + 1
    groups: dict[tuple[str, str, str, str], list[dict[str, Any]]] = {g: [] for g in planned}
    for key in keys:
        groups[(key.campaign, key.target, key.level, key.condition)].append(
            _judge_recorded(store, spec, key, masks))
    held = {group: withheld_counts(rows, masks) for group, rows in groups.items()}
    withheld_in = {p: sum(h[p] for h in held.values()) for p in masks}
    measured = sum(1 for rows in groups.values() for r in rows if "measurement_failure" not in r)
    if measured:
        check_coverage(withheld_in, f"{spec.name} in this store")
    docs = []
    for group, rows in groups.items():
        camp, target, level, condition = group
        docs.append({"environment": spec.name, "campaign": camp, "agent": target,
                     "level": level, "condition": condition,
                     "tasks": sorted({r["task"] for r in rows}),
                     "seeds": sorted({r["seed"] for r in rows}), "masked": list(masks),
                     "withheld_in": held[group], "executions": len(rows),
                     "planned": planned[group], "not_recorded": planned[group] - len(rows),
                     "views": summarise(rows, masks), "rows": rows})
    return {"environment": spec.name, "source": "store", "campaign": campaign,
            "masked": list(masks), "executions": len(keys), "planned": sum(planned.values()),
            "groups": docs}
