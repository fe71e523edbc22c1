"""Re-grade our own evidence store with the CURRENT scorers and compare with what it stored.

Every recorded episode's stored submission is scored again by the ground-truth scorer and the
shape judge (no replay: the submission is the evidence). Per scorer: how many episodes changed
score or status, the per-episode pass transitions (n01, n10, net, flip fraction), strict rank
reversals among targets on the common cohort, and the stored vs current scorer versions.
Infrastructure failures are left out of the comparison (they measure nothing about the agent).
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from pathlib import Path
from typing import Any

from agentmetrology import __version__
from agentmetrology.archive.importers.agm_store import (
    environment_of,
    open_store,
    planned_keys,
    task_label,
    trial_index,
)
from agentmetrology.archive.score_row import regrade_rows, store_facts
from agentmetrology.archive.versions import EpisodeKey, rank_reversals, transitions
from agentmetrology.envs.registry import DEFAULT_ENVIRONMENT, get_env
from agentmetrology.records.assessment import Assessment
from agentmetrology.records.canonical import to_plain
from agentmetrology.records.environment import EnvSpec
from agentmetrology.records.episode import MEASUREMENT_FAILURES, episode_from_plain
from agentmetrology.records.episode import EpisodeKey as StoreKey
from agentmetrology.scoring.episode import score_submission
from agentmetrology.store import EvidenceStore
from agentmetrology.store.ledger import key_text

SCHEMA = "agentmetrology.archive-regrade/1"
MAX_LISTED = 200
_NO_MEASURE = ("UNKNOWN", "INVALID")


def _pair(stored: dict[str, Any], current: Assessment) -> dict[str, Any]:
    return {"stored_status": stored["status"], "stored_score": stored["score"],
            "stored_version": stored["scorer_version"], "current_status": current.status,
            "current_score": current.score, "current_version": current.scorer_version}


def regrade_episode(spec: EnvSpec, plain: dict[str, Any], key: StoreKey
                    ) -> tuple[Assessment, ...]:
    """Return the current scorers' assessments of a stored episode's own submission and
    events (no replay: the recorded episode is the evidence)."""
    profile = str((plain.get("meta") or {}).get("profile") or spec.profiles[0])
    ep = episode_from_plain(plain)
    return score_submission(spec, ep.submission, key.task, None if key.seed < 0 else key.seed,
                            profile, ep.digests.get("submission", ""), ep.events,
                            key.condition)


def _rescore(store: EvidenceStore, current: dict[str, str]
             ) -> tuple[list[dict[str, Any]], int, list[str]]:
    """Return one row per recorded episode (stored vs current assessments), planned, campaigns.

    `current` collects {scorer: current version} of every environment met.
    """
    rows, planned, campaigns = [], 0, store.campaigns()
    for campaign in campaigns:
        keys = planned_keys(store, campaign)
        planned += len(keys)
        trials = trial_index(keys)
        for key in keys:
            row = store.episode(key)
            if row is None:
                continue
            spec = get_env(environment_of(store, key))
            current.update(spec.scorer_versions())
            now = regrade_episode(spec, store.load_episode(key), key)
            stored = {a["scorer"]: a for a in row["assessments"]}
            ekey: EpisodeKey = (f"{campaign}/{task_label(key)}", key.target, key.level,
                                trials[(key.seed, key.repeat)])
            rows.append({"episode_id": key_text(key), "key": ekey, "unit":
                         f"{key.target} / {key.level}", "item": (campaign, ekey[0], ekey[3]),
                         "infra": row["termination"] in MEASUREMENT_FAILURES,
                         "scorers": {a.scorer: _pair(stored[a.scorer], a) for a in now
                                     if a.scorer in stored}})
    return rows, planned, campaigns


def _cohort_rank(old: dict[tuple[str, str], float], new: dict[tuple[str, str], float]
                 ) -> dict[str, Any]:
    """Return rank reversals of unit mean scores on items measured in both for every unit."""
    items: dict[str, set[str]] = defaultdict(set)
    for unit, item in set(old) & set(new):
        items[unit].add(item)
    cohort = set.intersection(*items.values()) if items else set()
    s0 = {u: float(sum(Fraction(old[(u, i)]) for i in cohort) / len(cohort))
          for u in items} if cohort else {}
    s1 = {u: float(sum(Fraction(new[(u, i)]) for i in cohort) / len(cohort))
          for u in items} if cohort else {}
    return {"cohort_items_per_unit": len(cohort), "scores_stored": s0, "scores_current": s1,
            **rank_reversals(s0, s1)}


def _scorer_section(name: str, version: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Return changes, transitions, rank reversals and versions of one scorer."""
    pairs = [(r, r["scorers"][name]) for r in rows if name in r["scorers"]]
    score_changed = [r["episode_id"] for r, p in pairs if p["stored_score"] != p["current_score"]]
    status_changed = [r["episode_id"] for r, p in pairs
                      if p["stored_status"] != p["current_status"]]
    old: dict[EpisodeKey, bool] = {}
    new: dict[EpisodeKey, bool] = {}
    s_old: dict[tuple[str, str], float] = {}
    s_new: dict[tuple[str, str], float] = {}
    for r, p in pairs:
        if r["infra"] or p["stored_status"] in _NO_MEASURE or p["current_status"] in _NO_MEASURE:
            continue
        if p["stored_score"] is None or p["current_score"] is None:
            continue  # a status without a number is not comparable, never a 0
        old[r["key"]], new[r["key"]] = p["stored_status"] == "PASS", p["current_status"] == "PASS"
        item = "|".join(map(str, r["item"]))
        s_old[(r["unit"], item)] = float(p["stored_score"])
        s_new[(r["unit"], item)] = float(p["current_score"])
    stored_versions = sorted({p["stored_version"] for _, p in pairs})
    return {"episodes": len(pairs), "compared": len(old),
            "score_changed": len(score_changed), "status_changed": len(status_changed),
            "changed_episodes": sorted(set(score_changed) | set(status_changed))[:MAX_LISTED],
            "stored_versions": stored_versions, "current_version": version,
            "version_changed": stored_versions != [version],
            "transitions": transitions(old, new), "rank": _cohort_rank(s_old, s_new)}


def _note(scorers: dict[str, dict[str, Any]]) -> str:
    parts = []
    for name, s in scorers.items():
        was = ", ".join(s["stored_versions"]) or "none"
        verb = "differs from" if s["version_changed"] else "equals"
        parts.append(f"{name}: stored version {was} {verb} current {s['current_version']}")
    return "; ".join(parts)


def regrade_store(path: Path, qualification: dict[str, Any] | None = None) -> dict[str, Any]:
    """Return regrade.json: every recorded episode re-scored now, compared with the stored.

    `qualification` (the store's, see store.verify) is carried into the document and every
    score row; a stored score and its re-grade are a score row and its correction.
    """
    current: dict[str, str] = {}
    with open_store(path) as store:
        rows, planned, campaigns = _rescore(store, current)
        facts = store_facts(store)
    if not current:  # an empty store: report the built-in's scorers, none changed
        current = get_env(DEFAULT_ENVIRONMENT).scorer_versions()
    scorers = {name: _scorer_section(name, v, rows) for name, v in sorted(current.items())}
    doc = {"schema": SCHEMA, "package": {"name": "agentmetrology", "version": __version__},
           "store": {"source": path.name, "campaigns": campaigns, "planned": planned,
                     "recorded": len(rows),
                     "infrastructure_failures": sum(r["infra"] for r in rows)},
           "scorers": scorers,
           "scorers_changed": sum(s["score_changed"] + s["status_changed"] > 0
                              for s in scorers.values()),
           "version_note": _note(scorers)}
    doc["score_rows"] = [r for name, v in sorted(current.items()) for r in regrade_rows(
        name, v, [(r, r["scorers"][name]) for r in rows if name in r["scorers"]], planned,
        doc["store"], facts, qualification, MAX_LISTED)]
    if qualification is not None:
        doc["evidence"] = qualification
    plain: dict[str, Any] = to_plain(doc)
    return plain
