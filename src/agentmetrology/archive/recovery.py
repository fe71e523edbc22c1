"""Grade recovery by replay for our own environments (archives read from an `agm` store).

Each episode's recorded agent actions are replayed in a fresh, seeded environment with the model
stubbed (`ReplayPolicy`), and the replayed submission is scored with the ground-truth scorer.
The replay is validated first on the episodes that WERE graded: unless every replayed grade
equals the observed one (agreement 1.0) and every replayed trajectory equals the recorded one,
nothing is recovered. Observed grades are never changed; a recovered grade is kept beside the
(missing) stored one with source `recovered_by_replay` and actor `grader`. Replays run in their
own environment and their events stay in their own stream: the agent's events are never touched.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from agentmetrology.agents.replay import ReplayPolicy
from agentmetrology.archive.model import Archive, ArchiveEpisode, StoredGrade
from agentmetrology.envs.registry import DEFAULT_ENVIRONMENT, get_env
from agentmetrology.records.canonical import (
    FLOAT_TAG,
    LITERAL_TAG,
    CanonicalError,
    canonical_json,
    digest,
    sha256_hex,
    to_plain,
)
from agentmetrology.run.episode import run_episode

ACTOR = "grader"  # recovered grades are the grader's, never the agent's
NOT_REPLAYABLE = {"infra_error": "the record ends at an infrastructure failure; the agent's "
                                 "remaining actions are unknown",
                  "cancelled": "the episode was cancelled; the agent's remaining actions are "
                               "unknown",
                  "never_ran": "no recorded actions to replay"}
MAX_LISTED = 1000


@dataclass(frozen=True, slots=True)
class Replayed:
    """One replay: the grade it earned (None when unusable), whether it matched the record, why."""

    grade: StoredGrade | None
    status: str
    matches_record: bool
    why: str
    events: int
    events_digest: str


def _recorded(ep: ArchiveEpisode) -> list[dict[str, Any]]:
    return [{"actor": e.actor, "kind": e.kind, "name": e.name, "args": e.args,
             "result": e.result} for e in ep.events]


def _divergence(recorded: list[dict[str, Any]], replayed: list[dict[str, Any]]) -> str:
    """Return where the replayed trajectory leaves the recorded one ('' when identical)."""
    for i, (a, b) in enumerate(zip(recorded, replayed, strict=False)):
        if canonical_json(a) != canonical_json(b):
            return f"replay diverges from the record at event {i} ({a['name']})"
    if len(recorded) != len(replayed):
        return f"replay has {len(replayed)} events, the record {len(recorded)}"
    return ""


def replay_episode(ep: ArchiveEpisode, memo: dict[str, Replayed] | None = None) -> Replayed:
    """Replay an agm episode's agent actions in a fresh environment and score the submission.

    With `memo`, a replay whose every input was replayed before (environment, task, seed,
    level, condition, profile, step limit and the recorded actions, byte for byte) is not run
    again: an episode is a deterministic function of those, so the result is the same.
    """
    key = ep.meta.get("key")
    if not key:
        return Replayed(None, "", False, "not an agm episode (no key)", 0, "")
    inputs = None if memo is None else replay_inputs(ep, key)
    if inputs is not None and memo is not None and inputs in memo:
        return _fresh(memo[inputs])
    recorded = _recorded(ep)
    try:
        spec = get_env(str(ep.meta.get("environment") or DEFAULT_ENVIRONMENT))
        profile = str(ep.meta.get("profile") or spec.profiles[0])
        steps = ep.meta.get("max_steps")
        run = run_episode(spec, key["task"], None if key["seed"] < 0 else key["seed"],
                          ReplayPolicy(recorded), key["level"], profile=profile,
                          condition=key["condition"],
                          max_steps=int(steps) if steps else None, target=key["target"],
                          campaign=key["campaign"], repeat=key["repeat"])
    except Exception as exc:  # a replay that cannot run is an invalid replay, never a failure
        return Replayed(None, "", False, f"replay failed: {type(exc).__name__}: {exc}", 0, "")
    replayed = [{"actor": e.actor, "kind": e.kind, "name": e.name, "args": e.args,
                 "result": e.result} for e in run.events]
    why, events_digest = _compare(recorded, replayed, _plain_json(ep, recorded))
    scorer = spec.grade_scorer
    a = scorer.score(run.submission, key["task"], None if key["seed"] < 0 else key["seed"],
                     profile, run.digests.get("submission", ""), run.events)
    grade = None
    if a.is_measurement and a.score is not None:
        grade = StoredGrade(float(a.score), a.status == "PASS",
                            {"scorer": a.scorer, "scorer_version": a.scorer_version,
                             "status": a.status, "source": "recovered_by_replay",
                             "actor": ACTOR})
    elif not why:
        why = f"replayed submission is {a.status}: " + "; ".join(a.reasons)
    out = Replayed(grade, a.status, not why, why, len(replayed), events_digest)
    if inputs is not None and memo is not None:
        memo[inputs] = out
    return _fresh(out)


def _plain_json(ep: ArchiveEpisode, recorded: list[dict[str, Any]]) -> bytes | None:
    """Return the canonical JSON of recorded events read from their blob, written by json
    alone, or None (then `canonical_json` writes it).

    Events read from a blob (as imported, never edited: they keep a fingerprint) are decoded
    JSON: str keys, lists, str, int, float, bool and None. Of such data canonical JSON is one
    `json.dumps` (the walk before it changes nothing) unless a float is not finite (json
    refuses it here) or a mapping looks like a tag ("$float", "$literal": not taken here)."""
    if not isinstance(getattr(ep.events, "replay_fingerprint", None), str):
        return None
    try:
        text = _JSON(recorded).encode("utf-8")
    except ValueError:
        return None
    return None if _TAG_TEXT[0] in text or _TAG_TEXT[1] in text else text


_JSON = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                         allow_nan=False).encode
_TAG_TEXT = (FLOAT_TAG.encode(), LITERAL_TAG.encode())


def _compare(recorded: list[dict[str, Any]], replayed: list[dict[str, Any]],
             theirs: bytes | None = None) -> tuple[str, str]:
    """Return where the replay leaves the record ('' when nowhere) and the replayed events'
    digest: one canonical encoding of each side (`theirs`: the record's, when known), event by
    event only when they differ."""
    mine = canonical_json(replayed)
    if theirs is None:
        theirs = canonical_json(recorded)
    if FLOAT_TAG.encode() in mine or FLOAT_TAG.encode() in theirs:
        # a non-finite float (or text that looks like one): the plain walk raises on the
        # former as it always did, so take the event-by-event path
        plain = to_plain(replayed)
        return _divergence(to_plain(recorded), plain), digest(plain)
    if mine == theirs:  # the same canonical bytes: the same events, one by one
        return "", sha256_hex(mine)
    return _divergence(to_plain(recorded), to_plain(replayed)), sha256_hex(mine)


def replay_inputs(ep: ArchiveEpisode, key: dict[str, Any]) -> str | None:
    """Return the digest of everything a replay is made from, or None when the episode's
    events keep no fingerprint of themselves (that replay is then run, and never shared)."""
    fingerprint = getattr(ep.events, "replay_fingerprint", None)
    if not isinstance(fingerprint, str):
        return None
    meta = ep.meta  # (every episode is asked this, by the recovery and by a reader: no loops)
    inputs = (meta.get("environment"), meta.get("profile"), meta.get("max_steps"),
              key.get("task"), key.get("seed"), key.get("level"), key.get("condition"),
              fingerprint)
    if _SCALARS.issuperset(map(type, inputs)):
        # The repr of a tuple of these exact types is one text per value, type for type (1,
        # 1.0 and True differ, and so do 0.0 and -0.0), at a fraction of a digest's cost.
        return repr(inputs)
    try:
        return digest({"environment": ep.meta.get("environment"),
                       "profile": ep.meta.get("profile"), "max_steps": ep.meta.get("max_steps"),
                       **{k: key.get(k) for k in ("task", "seed", "level", "condition")},
                       "recorded": fingerprint})
    except (CanonicalError, TypeError):
        return None


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _fresh(r: Replayed) -> Replayed:
    """Return a replay result whose grade is a copy (each episode owns the grade it is given)."""
    if r.grade is None:
        return r
    return Replayed(StoredGrade(r.grade.score, r.grade.passed, dict(r.grade.detail)),
                    r.status, r.matches_record, r.why, r.events, r.events_digest)


def _same(a: StoredGrade, b: StoredGrade) -> bool:
    return a.passed == b.passed and a.score == b.score and \
        a.detail.get("status") == b.detail.get("status")


def _validate(graded: list[ArchiveEpisode], memo: dict[str, Replayed]
              ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Replay every graded episode; return the validation summary and per-episode rows."""
    agree, mismatched, rows, disagreeing = 0, 0, [], []
    for ep in graded:
        r = replay_episode(ep, memo)
        assert ep.grade is not None
        same = r.grade is not None and _same(r.grade, ep.grade)
        agree += same
        mismatched += not r.matches_record
        if not same or not r.matches_record:
            disagreeing.append(ep.episode_id)
        ep.grade_source = "observed"
        rows.append({"episode_id": ep.episode_id, "source": "observed", "agrees": same,
                     "observed_score": ep.grade.score, "replayed_score":
                     None if r.grade is None else r.grade.score, "why": r.why,
                     "replay_events": r.events, "replay_events_digest": r.events_digest})
    n = len(graded)
    return ({"graded_episodes": n, "agree": agree,
             "agreement": float(Fraction(agree, n)) if n else None,
             "trajectory_mismatches": mismatched,
             "disagreeing_episodes": disagreeing[:MAX_LISTED]}, rows)


def _refusal(validation: dict[str, Any]) -> str:
    if not validation["graded_episodes"]:
        return "no graded episode to validate the replay on"
    if validation["agree"] < validation["graded_episodes"]:
        return (f"replayed grades agree with observed grades on {validation['agree']} of "
                f"{validation['graded_episodes']} graded episodes (agreement below 1)")
    if validation["trajectory_mismatches"]:
        return (f"{validation['trajectory_mismatches']} replayed trajectories of graded "
                "episodes differ from the record")
    return ""


def _recover_one(ep: ArchiveEpisode, refused: str, memo: dict[str, Replayed]
                 ) -> dict[str, Any]:
    """Try to recover one ungraded episode's grade; return its row."""
    row: dict[str, Any] = {"episode_id": ep.episode_id, "actor": ACTOR}
    if ep.reason in NOT_REPLAYABLE or not ep.events:
        ep.grade_source = "not_recovered"
        return {**row, "source": "not_recovered",
                "why": NOT_REPLAYABLE.get(ep.reason or "", "no recorded actions to replay")}
    if refused:
        ep.grade_source = "not_recovered"
        return {**row, "source": "not_recovered", "why": f"recovery refused: {refused}"}
    r = replay_episode(ep, memo)
    row.update(replay_events=r.events, replay_events_digest=r.events_digest)
    if r.grade is None or not r.matches_record:
        ep.grade_source = "invalid_replay"
        ep.invalid_replay = r.why
        ep.reason, ep.reason_detail = "invalid_replay", r.why
        return {**row, "source": "invalid_replay", "why": r.why}
    ep.recovered, ep.grade_source = r.grade, "recovered_by_replay"
    return {**row, "source": "recovered_by_replay", "why": "", "score": r.grade.score,
            "passed": r.grade.passed, "status": r.status}


def _known(name: str) -> bool:
    try:
        get_env(name)
    except ValueError:
        return False
    return True


def recover_grades(archive: Archive) -> dict[str, Any]:
    """Validate replay on graded episodes, then recover missing grades; return the summary."""
    if archive.format != "agm":
        summary = {"available": False, "reason": "grade recovery by replay needs our own "
                   "evidence store (format agm)"}
        archive.recovery = summary
        return summary
    graded = [e for e in archive.episodes if e.grade is not None and e.invalid_replay is None]
    # Replays of the same inputs (a deterministic agent's repeats), starting from those the
    # import's reader ran ahead (agm_ahead): each a replay of exactly the inputs it is kept by.
    memo: dict[str, Replayed] = archive.replays
    archive.replays = {}
    validation, rows = _validate(graded, memo)
    refused = _refusal(validation)
    rows += [_recover_one(e, refused, memo) for e in archive.episodes if e.grade is None
             and e.invalid_replay is None]
    sources = Counter(r["source"] for r in rows)
    why = Counter(r["why"] for r in rows if r["source"] == "not_recovered")
    reason = (f"recovery refused: {refused}" if refused else
              f"replay validated on {validation['graded_episodes']} graded episodes "
              f"(agreement 1); {sources['recovered_by_replay']} grades recovered")
    envs = sorted({str(e.meta.get("environment") or DEFAULT_ENVIRONMENT)
                   for e in archive.episodes})
    graders = [get_env(n).grade_scorer for n in envs if _known(n)]
    summary = {"available": True, "validated": not refused, "refused": bool(refused),
               "reason": reason, "actor": ACTOR,
               "scorer": ", ".join(sorted({g.name for g in graders})) or None,
               "scorer_version": ", ".join(sorted({g.version for g in graders})) or None,
               "environments": envs, "validation": validation,
               "sources": dict(sorted(sources.items())),
               "recovered": sources["recovered_by_replay"],
               "invalid_replay": sources["invalid_replay"],
               "not_recovered": dict(sorted(why.items())),
               "episodes": rows[:MAX_LISTED]}
    archive.recovery = summary
    return summary
