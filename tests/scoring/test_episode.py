"""The one scoring function (scoring/episode.py): every scorer, in order; a measurement failure
is UNKNOWN with a null score and the reason; a scorer that raises is INVALID, never a crash.

score_episode's evidence digest is the episode's recorded submission digest, or "" when the
episode recorded none: never None, which lets a scorer digest the submission itself and cite a
blob the store never held (comtrade's scorers do so when called with None)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import pytest

from agentmetrology.envs.registry import get_env
from agentmetrology.records.assessment import Assessment
from agentmetrology.records.episode import Episode
from agentmetrology.records.events import Event
from agentmetrology.scoring.episode import (
    _guarded,
    episode_context,
    score_episode,
    score_submission,
    unmeasured,
)
from support.stores import episode, episode_key


@dataclass(frozen=True)
class _Echo:
    """Records what it was called with, as its components."""

    name: str = "echo"
    version: str = "2.1"
    kind: str = "outcome"

    def score(self, submission: Any, task: str, seed: int | None, profile: str,
              evidence_digest: str | None, trajectory: Any) -> Assessment:
        return Assessment(self.name, self.version, "PASS", 1.0,
                          {"submission": submission, "task": task, "seed": seed,
                           "profile": profile, "events": len(trajectory or ())},
                          (), evidence_digest or "")


@dataclass(frozen=True)
class _Raises(_Echo):
    name: str = "boom"

    def score(self, *args: Any) -> Assessment:
        raise KeyError("missing field")


SPEC = replace(get_env("comtrade"), scorers=(_Echo(), _Raises()), profiles=("seeded", "legacy"))


def _episode(kind: str = "submitted", detail: str = "", seed: int = 4,
             meta: dict[str, Any] | None = None) -> Episode:
    return episode(episode_key(seed, "c", "t", task="T1_single_page"), kind,
                   events=[Event(0, "agent", "tool_call", "fetch_page", {}, None, 0.0)],
                   sub={"data.jsonl": "x"}, detail=detail,
                   digests={"submission": "sub-digest"}, meta=meta)


def test_every_scorer_in_order_and_a_raising_scorer_is_invalid() -> None:
    echo, boom = score_episode(SPEC, _episode(meta={"profile": "legacy"}))
    assert echo == Assessment("echo", "2.1", "PASS", 1.0, {
        "submission": {"data.jsonl": "x"}, "task": "T1_single_page", "seed": 4,
        "profile": "legacy", "events": 1}, (), "sub-digest")
    assert boom == Assessment("boom", "2.1", "INVALID", None, {},
                              ("the scorer raised KeyError: 'missing field'",), "sub-digest")


def test_measurement_failures_are_unknown_with_the_reason() -> None:
    for kind in ("infra_error", "cancelled"):
        a, b = score_episode(SPEC, _episode(kind, "connection refused"))
        why = f"measurement failure ({kind}): connection refused"
        assert a == Assessment("echo", "2.1", "UNKNOWN", None, {}, (why,), "sub-digest")
        assert b == Assessment("boom", "2.1", "UNKNOWN", None, {}, (why,), "sub-digest")
    (a, _) = unmeasured(SPEC, _episode("infra_error"))
    assert a.reasons == ("measurement failure (infra_error)",)


def test_context_defaults_to_the_first_profile_and_a_negative_seed_is_none() -> None:
    assert episode_context(SPEC, _episode()) == (4, "seeded")
    assert episode_context(SPEC, _episode(seed=-1, meta={"profile": "legacy"})) == (
        None, "legacy")
    assert score_episode(SPEC, _episode(seed=-1))[0].components["seed"] is None


def test_score_submission_passes_the_evidence_digest_and_trajectory() -> None:
    (a, b) = score_submission(SPEC, {"k": "v"}, "T2_multi_page", 7, "seeded")
    assert a.components == {"submission": {"k": "v"}, "task": "T2_multi_page", "seed": 7,
                            "profile": "seeded", "events": 0}
    assert a.evidence_digest == "" and b.evidence_digest == ""
    (a, b) = score_submission(SPEC, None, "T2_multi_page", 7, "seeded", "ev",
                              [Event(0, "agent", "tool_call", "x", {}, None, 0.0)] * 3)
    assert (a.evidence_digest, a.components["events"], b.evidence_digest) == ("ev", 3, "ev")


def test_seed_0_is_a_seed_and_a_missing_digest_is_empty() -> None:
    ep = replace(_episode(seed=0), digests={})
    assert episode_context(SPEC, ep)[0] == 0
    assert [a.evidence_digest for a in score_episode(SPEC, ep)] == ["", ""]
    assert [a.evidence_digest for a in unmeasured(SPEC, ep)] == ["", ""]


def test_a_scorer_side_mutation_scores_with_the_mutated_scorers() -> None:
    spec = replace(SPEC, mutations={**(SPEC.mutations or {}),
                                    "rubric": lambda scorers: (_Echo(name="mutated"),)})
    (a,) = score_submission(spec, None, "T1_single_page", 1, "seeded", condition="mut:rubric")
    assert a.scorer == "mutated"
    ep = replace(_episode(), condition="mut:rubric")
    assert [x.scorer for x in score_episode(spec, ep)] == ["mutated"]
    assert [x.scorer for x in score_episode(spec, _episode())] == ["echo", "boom"]


class _Returns:
    """A scorer returning a fixed value (a plug-in's bug)."""

    name, version, kind, label = "odd", "0.1", "outcome", "odd"

    def __init__(self, value: Any) -> None:
        self.value = value

    def score(self, *args: Any) -> Any:
        return self.value

    def summary(self, a: Any) -> dict[str, Any]:
        return {"status": a.status, "score": a.score}


@pytest.mark.parametrize(("score", "why"), [
    (float("nan"), "the scorer returned a score that is not a finite number: nan"),
    (float("inf"), "the scorer returned a score that is not a finite number: inf"),
    (float("-inf"), "the scorer returned a score that is not a finite number: -inf"),
    (10**400, "the scorer returned a score that is not a finite number: " + repr(10**400)),
    ("0.5", "the scorer returned a score that is not a number: '0.5'"),
    (True, "the scorer returned a score that is not a number: True"),
])
def test_a_score_that_is_not_a_finite_number_is_invalid(score: Any, why: str) -> None:
    given = Assessment("odd", "0.1", "PASS", score, {"part": 1}, ("kept",), "e" * 64)
    got = _guarded(_Returns(given), None, "t", 0, "default", "e" * 64, None)
    assert got == Assessment("odd", "0.1", "INVALID", None, {"part": 1}, ("kept", why),
                             "e" * 64)


@pytest.mark.parametrize("score", [None, 0, 1, 0.5, -2.0, 100])
def test_a_finite_score_or_none_is_kept_as_given(score: Any) -> None:
    given = Assessment("odd", "0.1", "FAIL", score, {}, (), "")
    assert _guarded(_Returns(given), None, "t", 0, "default", None, None) is given


@pytest.mark.parametrize("value", [None, {"score": 1.0}, 0.5])
def test_a_scorer_that_returns_no_assessment_is_invalid(value: Any) -> None:
    got = _guarded(_Returns(value), None, "t", 0, "default", "e" * 64, None)
    assert got == Assessment("odd", "0.1", "INVALID", None, {},
                             (f"the scorer returned {type(value).__name__}, not an Assessment",),
                             "e" * 64)
    assert _guarded(_Returns(value), None, "t", 0, "default", None, None).evidence_digest == ""


COMTRADE = get_env("comtrade")
SUBMISSION = {"data.jsonl": "{}\n"}


def _submitted(digests: dict[str, str]) -> Episode:
    return episode(episode_key(4, "c", "t", task="T1_single_page"), sub=SUBMISSION,
                   digests=digests)


def test_an_episode_without_a_submission_digest_cites_no_evidence() -> None:
    assessed = score_episode(COMTRADE, _submitted({}))
    assert [(a.scorer, a.evidence_digest) for a in assessed] == [
        ("ground_truth_f1", ""), ("shape_judge", "")]
    # called directly with no digest, the same scorers digest the submission themselves
    direct = score_submission(COMTRADE, SUBMISSION, "T1_single_page", 4, "seeded")
    assert all(len(a.evidence_digest) == 64 for a in direct)


def test_an_episode_cites_its_recorded_submission_digest() -> None:
    assessed = score_episode(COMTRADE, _submitted({"submission": "ab" * 32}))
    assert [a.evidence_digest for a in assessed] == ["ab" * 32, "ab" * 32]
