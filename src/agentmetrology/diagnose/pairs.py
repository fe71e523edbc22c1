"""Original/mutated pairs read from an evidence store, each side scored, rescored and traced.

A pair is one administration without a mutation and the same administration (campaign, target,
task, seed, level, repeat, base condition) under a mutation: each mutated episode is compared
with its own original only. A group (environment, policy, level, mutation) pools the pairs of
every base condition and campaign (`pooled` says which; docs/diagnose.md, "What is pooled").
A side that was never recorded makes the pair half-finished; a side that is a measurement
failure makes it unmeasured. Both are counted, never scored.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from agentmetrology.archive.importers.agm_store import environment_of, planned_keys
from agentmetrology.envs.registry import get_env
from agentmetrology.mutations import get_mutation, invert_trajectory, split_condition
from agentmetrology.records.canonical import canonical_json
from agentmetrology.records.environment import EnvSpec
from agentmetrology.records.episode import Episode, EpisodeKey, episode_from_plain
from agentmetrology.records.events import sent_arguments
from agentmetrology.records.numbers import finite_float
from agentmetrology.scoring.rescore import not_rescorable, original_tool_names, rescore_episode
from agentmetrology.store import EvidenceStore

GroupKey = tuple[str, str, str, str]  # environment, target, level, mutation


@dataclass(frozen=True, slots=True)
class Scorers:
    """Which scorer is the verifier under study (shipped) and which is ground truth."""

    shipped: str
    shipped_scale: float
    truth: str
    truth_component: str | None


def scorers_of(spec: EnvSpec) -> Scorers:
    """Return the shipped and truth scorers of an environment (its audit hooks, else its grade)."""
    if spec.audit is not None:
        a = spec.audit
        return Scorers(a.shipped_scorer, a.shipped_scale, a.truth_scorer, a.truth_component)
    grade = spec.grade_scorer.name
    return Scorers(grade, 1.0, grade, None)


@dataclass(slots=True)
class Side:
    """One side of a pair: verifier score (0-1), truth, rescored score, operations."""

    key: EpisodeKey
    measured: bool
    shipped: float | None = None
    truth: float | None = None
    truth_pass: bool | None = None
    rescored: float | None = None
    rescored_how: str = ""
    ptd: float | None = None
    operations: bytes = b""
    reason: str = ""


@dataclass(slots=True)
class Pair:
    """An original and its mutated administration (either side may be missing)."""

    group: GroupKey
    task: str
    seed: int
    repeat: int
    base: str
    original: Side | None = None
    mutated: Side | None = None
    campaign: str = ""  # the campaign both sides belong to (a pair never spans two)

    @property
    def complete(self) -> bool:
        """Return True when both sides were recorded and measured."""
        return bool(self.original and self.mutated and self.original.measured
                    and self.mutated.measured)

    @property
    def unmeasured(self) -> bool:
        """Return True when both sides were recorded and one is a measurement failure."""
        return bool(self.original and self.mutated and not self.complete)

    def why_unmeasured(self) -> str:
        """Return why an unmeasured pair is (each unmeasured side's reason, once)."""
        sides = (self.original, self.mutated)
        return "; ".join(dict.fromkeys(s.reason for s in sides if s and not s.measured))


def _value(doc: dict[str, Any] | None, component: str | None, scale: float) -> float | None:
    if doc is None or doc.get("status") in ("UNKNOWN", "INVALID") or doc.get("score") is None:
        return None
    value = (doc.get("components") or {}).get(component) if component else doc["score"]
    # A non-finite score (a plug-in scorer's NaN) is no measurement: the side is unmeasured.
    number = finite_float(value)
    return None if number is None else number / scale


def _normal(value: Any) -> Any:
    """Return a value with JSON text inside it in one layout (key order is not behaviour)."""
    if isinstance(value, dict):
        return {k: _normal(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_normal(v) for v in value]
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            return json.dumps(_normal(json.loads(value)), sort_keys=True)
        except ValueError:
            pass  # JSON lines, or not JSON
        lines = []
        for line in value.split("\n"):
            if not line.strip():
                continue
            try:
                lines.append(json.dumps(json.loads(line), sort_keys=True))
            except ValueError:
                return value
        return "\n".join(lines)
    return value


def _operations(ep: Episode, mutation: str | None, names: list[str]) -> bytes:
    """Return the agent's operations (tools under original names, arguments) as one value."""
    events = ep.events
    if mutation is not None and get_mutation(mutation).invertible:
        events = invert_trajectory(events, mutation, names)
    return canonical_json([(e.name, _normal(sent_arguments(e.args, e.result))) for e in events
                           if e.actor == "agent" and e.kind in ("tool_call", "intercepted")])


def has_inverse(mutation: str) -> bool:
    """Return True when a mutation can be undone for rescoring: a tool map or the old scorers."""
    m = get_mutation(mutation)
    return m.invertible or m.side == "scorer"


def _side(store: EvidenceStore, spec: EnvSpec, sc: Scorers, key: EpisodeKey,
          rescore: bool) -> Side | None:
    row = store.episode(key)
    if row is None:
        return None
    side = Side(key, measured=row["termination"] not in ("infra_error", "cancelled"))
    if not side.measured:
        side.reason = f"measurement failure ({row['termination']})"
        return side
    stored = {a["scorer"]: a["assessment"] for a in row["assessments"]}
    side.shipped = _value(stored.get(sc.shipped), None, sc.shipped_scale)
    truth = stored.get(sc.truth)
    side.truth = _value(truth, sc.truth_component, 1.0)
    side.truth_pass = None if truth is None else truth.get("status") == "PASS"
    if truth is not None and isinstance((truth.get("components") or {}).get("ptd"), int | float):
        side.ptd = float(truth["components"]["ptd"])
    ep = episode_from_plain(store.load_episode(key))
    side.reason = not_rescorable(spec, ep)
    if side.reason:  # its operations and rescoring need the environment made again
        side.measured = False
        return side
    mutation = split_condition(key.condition)[1]
    if rescore:  # only a mutated trajectory has anything to map back
        assessments, side.rescored_how = rescore_episode(spec, ep)
        again = {a.scorer: a for a in assessments}.get(sc.shipped)
        side.rescored = None if again is None or again.score is None or again.status in (
            "UNKNOWN", "INVALID") else float(again.score) / sc.shipped_scale
    side.operations = _operations(ep, mutation, original_tool_names(spec, ep))
    if side.shipped is None or side.truth is None:
        side.measured = False
        side.reason = "no usable score (UNKNOWN, INVALID or not a finite number)"
    return side


def _target_config(store: EvidenceStore, key: EpisodeKey) -> str:
    """Return the target configuration digest a key's sealed binding names ("" if none)."""
    bound = store.ledger.binding(key)
    try:
        doc = json.loads(bound[0]) if bound is not None else {}
    except (ValueError, RecursionError):  # an edited binding: `agm evidence verify` names it
        return ""
    return str(doc.get("target_config_digest") or "") if isinstance(doc, dict) else ""


def _target_labels(store: EvidenceStore, campaigns: dict[str, list[EpisodeKey]],
                   envs: dict[str, str]) -> dict[tuple[str, str], str]:
    """Return each (campaign, target)'s label in the groups: its name, unless that name runs
    other configurations in other campaigns (then `campaign/target`, so they are never pooled)."""
    configs: dict[tuple[str, str], set[str]] = defaultdict(set)
    firsts: dict[tuple[str, str], EpisodeKey] = {}
    for campaign, keys in campaigns.items():
        for k in keys:
            firsts.setdefault((campaign, k.target), k)
    for (campaign, target), k in firsts.items():
        configs[(envs[campaign], target)].add(_target_config(store, k))
    return {(campaign, target): f"{campaign}/{target}"
            if len(configs[(envs[campaign], target)]) > 1 else target
            for campaign, target in firsts}


def collect_pairs(store: EvidenceStore) -> tuple[list[Pair], dict[str, Scorers]]:
    """Return every original/mutated pair of every campaign in the store, and the scorers used.

    A target's pairs are pooled across the store's campaigns when its name runs one
    configuration in all of them; a name that runs different agents is kept apart per campaign.
    """
    pairs: dict[tuple[Any, ...], Pair] = {}
    used: dict[str, Scorers] = {}
    plans = {c: planned_keys(store, c) for c in store.campaigns()}
    plans = {c: keys for c, keys in plans.items()
             if any(split_condition(k.condition)[1] is not None for k in keys)}
    envs = {c: environment_of(store, keys[0]) for c, keys in plans.items()}
    labels = _target_labels(store, plans, envs)
    for campaign, keys in plans.items():
        muts = [k for k in keys if split_condition(k.condition)[1] is not None]
        env = envs[campaign]
        spec = get_env(env)
        sc = used.setdefault(env, scorers_of(spec))
        by_key = set(keys)
        for k in muts:
            base, mutation = split_condition(k.condition)
            assert mutation is not None
            orig = EpisodeKey(k.campaign, k.target, k.task, k.seed, base, k.level, k.repeat)
            pid = (k.campaign, k.target, k.task, k.seed, k.level, k.repeat, base, mutation)
            pair = pairs[pid] = Pair((env, labels[(campaign, k.target)], k.level, mutation),
                                     k.task, k.seed, k.repeat, base, campaign=campaign)
            # Without an inverse map there is nothing to undo: rescoring "as recorded" would
            # print the gap again as a rescored gap (docs/diagnose.md: n/a without one).
            pair.mutated = _side(store, spec, sc, k, rescore=has_inverse(mutation))
            pair.original = _side(store, spec, sc, orig, rescore=False) if orig in by_key \
                else None
    return list(pairs.values()), used
