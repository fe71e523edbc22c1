"""Recorded episodes of an evidence store as audit targets: read, never rerun.

Each (campaign, target) of the store whose episodes belong to the audited environment becomes a
store target. Its episodes are read from the ledger and the blobs with the scores recorded for
them; a measurement failure (`infra_error`, `cancelled`) or an episode without a ground-truth
score is excluded and counted, never a score. Episodes of every condition are read: a target
recorded under two conditions (clean and a stress arm, say) is two store targets, each naming its
condition, so no row ever pools episodes of different conditions.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentmetrology.audit.target import decided_truth
from agentmetrology.audit.targets.env import audit_hooks
from agentmetrology.envs.registry import environment_or_default
from agentmetrology.records.canonical import sha256_hex
from agentmetrology.records.environment import EnvSpec
from agentmetrology.records.episode import Episode, EpisodeKey, episode_from_plain
from agentmetrology.records.numbers import finite_float
from agentmetrology.store import EvidenceStore, LedgerError, StoreNotFoundError
from agentmetrology.store.blobs import BlobError
from agentmetrology.store.errors import StoreError, reading
from agentmetrology.store.store import LEDGER_FILE

CLEAN = "clean"  # the condition a store target's label leaves unsaid
MODEL_KINDS = frozenset({"llm"})  # a target whose decisions a model makes
EXCLUDED_FAILURE = "measurement failure"
EXCLUDED_NO_TRUTH = "no ground-truth score"
# (episode) -> the shipped scorer's score (0-1 scale divided later) or None when it cannot score
Rescore = Callable[[Episode], float | None]


class StoreAuditError(ValueError):
    """A store the audit cannot use; the message is one line a user can act on."""


@dataclass(frozen=True, slots=True)
class StoredEpisode:
    """One recorded episode as the audit uses it: identity, payload digest and both scores."""

    level: str
    task: str
    seed: int
    repeat: int
    submitted: bool
    payload_sha256: str | None
    payload_fields: dict[str, str]  # field name -> sha256 of its text (for per-field identity)
    truth: float
    shipped: float | None  # on the shipped scorer's own scale; None when it could not score
    actions: dict[str, list[int]] | None  # per decision, where the decision was live


@dataclass
class StoreTarget:
    """One target of one campaign in the store, with its usable episodes and exclusions."""

    label: str
    campaign: str
    target: str
    kind: str
    model: str | None
    episodes: list[StoredEpisode] = field(default_factory=list)
    excluded: Counter[str] = field(default_factory=Counter)
    condition: str = CLEAN
    agent: str | None = None  # the agent a model-free target runs (from the campaign file)

    @property
    def is_model(self) -> bool:
        """Return True when a model makes this target's decisions (an LLM target)."""
        return self.kind in MODEL_KINDS

    def at(self, level: str) -> list[StoredEpisode]:
        """Return the usable episodes at `level`."""
        return [e for e in self.episodes if e.level == level]

    def summary(self) -> dict[str, Any]:
        """Return the provenance the card shows: where it came from and how many episodes."""
        levels = sorted({e.level for e in self.episodes})
        return {"target": self.label, "campaign": self.campaign, "kind": self.kind,
                "model": self.model, "model_target": self.is_model,
                "condition": self.condition,
                "episodes": len(self.episodes),
                "episodes_by_level": {lv: len(self.at(lv)) for lv in levels},
                "excluded": dict(sorted(self.excluded.items())),
                "excluded_total": sum(self.excluded.values())}


@dataclass
class StoreEpisodes:
    """Every store target of one environment, in a stable order (campaign, then target)."""

    environment: str
    campaigns: list[str]
    targets: list[StoreTarget]

    def models(self) -> list[StoreTarget]:
        """Return the model (LLM) targets."""
        return [t for t in self.targets if t.is_model]

    def fixed(self) -> list[StoreTarget]:
        """Return the model-free targets (fixed rules and scripted profiles)."""
        return [t for t in self.targets if not t.is_model]

    def summary(self) -> dict[str, Any]:
        """Return what the card says about the store: campaigns and targets with counts."""
        return {"environment": self.environment,
                "conditions": sorted({t.condition for t in self.targets}),
                "campaigns": self.campaigns,
                "targets": [t.summary() for t in self.targets],
                "episodes": sum(len(t.episodes) for t in self.targets),
                "excluded": sum(sum(t.excluded.values()) for t in self.targets)}


def _configs(store: EvidenceStore, campaign: str) -> dict[str, dict[str, Any]]:
    """Return the stored public configuration of each target of a campaign, by name."""
    row = store.ledger.campaign(campaign) or {}
    try:
        config = store.get_json(row["config_digest"]) if row.get("config_digest") else {}
    except (BlobError, OSError, ValueError):
        config = {}
    return {str(t.get("name")): t for t in config.get("targets") or [] if isinstance(t, dict)}


def _assessment(row: dict[str, Any], scorer: str) -> dict[str, Any] | None:
    return next((a for a in row.get("assessments") or [] if a.get("scorer") == scorer), None)


def _truth(row: dict[str, Any], spec: EnvSpec) -> float | None:
    """Return the recorded ground truth (its component when the audit uses one), or None."""
    hooks = audit_hooks(spec)
    a = _assessment(row, hooks.truth_scorer)
    if a is None:
        return None
    components = (a.get("assessment") or {}).get("components") or {}
    return decided_truth(a.get("status"), a.get("score"), components,
                         hooks.truth_component)


def _shipped(row: dict[str, Any], spec: EnvSpec) -> float | None:
    a = _assessment(row, audit_hooks(spec).shipped_scorer)
    score = None if a is None else a.get("score")
    # NaN or an infinity (a store written before scorers' scores were checked) is no score.
    return finite_float(score)


def _fields(submission: Any) -> dict[str, str]:
    if not isinstance(submission, dict):
        return {}
    return {str(k): sha256_hex(json.dumps(v, sort_keys=True).encode("utf-8"))
            for k, v in sorted(submission.items())}


def read_store(path: Path, spec: EnvSpec, levels: Sequence[str] | None = None,
               rescore: Rescore | None = None,
               campaigns: Sequence[str] | None = None) -> StoreEpisodes:
    """Return the store's targets of `spec`'s environment; StoreAuditError when unusable.

    `levels` restricts the levels read (default: all of the environment's), `campaigns` the
    campaigns (default: all; an unknown name is an error). `rescore`, when
    given, replaces the recorded shipped score (a user's `--scorer` replayed on the stored
    submission; the episode itself is never rerun).
    """
    if not path.is_dir() or not (path / LEDGER_FILE).is_file():
        raise StoreAuditError(f"{path} is not an evidence store (no {LEDGER_FILE} in it)")
    try:
        store = EvidenceStore.open_readonly(path, scrub_env=False)
    except (StoreNotFoundError, LedgerError, StoreError, OSError) as exc:
        raise StoreAuditError(f"cannot read the evidence store at {path}: {_why(exc)}") from exc
    try:
        with reading(path):
            known = store.ledger.campaign_names()
            unknown = [c for c in campaigns or () if c not in known]
            if unknown:
                raise StoreAuditError(f"no campaign {unknown[0]!r} in the store at {path} (it "
                                      f"holds {', '.join(known) or 'none'})")
            return _read(store, path, spec, tuple(levels or spec.levels), rescore,
                         set(campaigns or known))
    except (StoreError, BlobError, OSError) as exc:
        raise StoreAuditError(f"cannot read the evidence store at {path}: {_why(exc)}") from exc
    finally:
        store.close()


def _why(exc: Exception) -> str:
    """Return what went wrong, in SQLite's words when the ledger could not be read."""
    return exc.detail if isinstance(exc, StoreError) else str(exc)


def _read(store: EvidenceStore, path: Path, spec: EnvSpec, levels: tuple[str, ...],
          rescore: Rescore | None, campaigns: set[str]) -> StoreEpisodes:
    own = spec.ownership or {}
    decision_levels = {lv for lv, m in own.items() if "model" in m.values()}
    elsewhere: Counter[str] = Counter()
    targets: dict[tuple[str, str, str], StoreTarget] = {}
    configs: dict[str, dict[str, dict[str, Any]]] = {}
    for r in store.reader.recorded_bindings():
        key = r.key
        if key.campaign not in campaigns:
            continue
        env = environment_or_default(r.environment)
        if env != spec.name:
            elsewhere[env] += 1
            continue
        if key.level not in levels:
            continue
        if key.campaign not in configs:
            configs[key.campaign] = _configs(store, key.campaign)
        conf = configs[key.campaign].get(key.target, {})
        st = targets.get((key.campaign, key.target, key.condition))
        if st is None:
            st = targets[(key.campaign, key.target, key.condition)] = StoreTarget(
                key.target, key.campaign, key.target, str(conf.get("kind") or "unknown"),
                conf.get("model"), condition=key.condition,
                agent=str(conf["agent"]) if conf.get("agent") else None)
        row = store.episode(key)
        if row is None:
            continue
        if row["measurement_failure"]:
            st.excluded[EXCLUDED_FAILURE] += 1
            continue
        truth = _truth(row, spec)
        if truth is None:
            st.excluded[EXCLUDED_NO_TRUTH] += 1
            continue
        st.episodes.append(_stored_episode(store, spec, key, row, truth, rescore,
                                           key.level in decision_levels))
    _refuse_unusable(list(targets.values()), elsewhere, path, spec, levels, campaigns)
    _label(list(targets.values()))
    ordered = sorted(targets.values(), key=lambda t: (t.campaign, t.target, t.condition))
    return StoreEpisodes(spec.name, sorted({t.campaign for t in ordered}), ordered)


def _stored_episode(store: EvidenceStore, spec: EnvSpec, key: EpisodeKey, row: dict[str, Any],
                    truth: float, rescore: Rescore | None, decisions: bool) -> StoredEpisode:
    """Return one recorded episode as the audit reads it; its record is read only if needed.

    `decisions`: the model owns decisions at the episode's level, so its actions are read.
    """
    hooks = audit_hooks(spec)
    needs_record = rescore is not None or (decisions and hooks.actions is not None)
    episode = episode_from_plain(store.get_json(row["episode_digest"])) \
        if needs_record else None
    submission = store.get_json(row["submission_digest"]) \
        if row["submission_digest"] else None
    return StoredEpisode(
        key.level, key.task, key.seed, key.repeat, row["submission_digest"] is not None,
        row["submission_digest"], _fields(submission), truth,
        rescore(episode) if rescore is not None and episode is not None
        else _shipped(row, spec),
        hooks.actions(episode) if episode is not None and hooks.actions is not None
        and decisions else None)


def _refuse_unusable(targets: list[StoreTarget], elsewhere: Counter[str], path: Path,
                     spec: EnvSpec, levels: tuple[str, ...], campaigns: set[str]) -> None:
    """Raise StoreAuditError when no target was found, or none has a usable episode."""
    if not targets:
        others = ", ".join(f"{n} of {e}" for e, n in sorted(elsewhere.items()))
        where = f" at {', '.join(levels)}" if tuple(levels) != tuple(spec.levels) else ""
        where += f" in campaign {', '.join(sorted(campaigns))}" if len(campaigns) == 1 else ""
        raise StoreAuditError(
            f"the store at {path} holds no recorded episodes of {spec.name}{where}"
            + (f" (it holds {others})" if others else ""))
    if not any(t.episodes for t in targets):
        raise StoreAuditError(
            f"the store at {path} holds no usable episodes of {spec.name}: "
            + "; ".join(f"{t.target}{_at(t.condition)}: {sum(t.excluded.values())} "
                        "measurement failures or unscored" for t in targets))


def _at(condition: str) -> str:
    return "" if condition == CLEAN else f" @{condition}"


def _label(targets: list[StoreTarget]) -> None:
    """Name a target by its own name (`campaign/target` when two campaigns share it), then
    `@condition` unless clean: a row never hides which condition its episodes ran under."""
    campaigns: dict[str, set[str]] = {}
    for t in targets:
        campaigns.setdefault(t.target, set()).add(t.campaign)
    for t in targets:
        name = t.target if len(campaigns[t.target]) == 1 else f"{t.campaign}/{t.target}"
        t.label = name + _at(t.condition)
