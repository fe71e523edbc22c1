"""The replay row fails when a rerun's episode bytes differ, even with identical scores."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from agentmetrology.audit.env_audit import seal
from agentmetrology.audit.replay import NO_RERUNS, replay, stage_status
from agentmetrology.audit.target import ScoreOutcome
from agentmetrology.audit.targets.env import EnvTarget, EpisodeRun
from agentmetrology.envs.registry import get_env
from agentmetrology.report.audit_report import render_audit_report
from support.user_scorer_audit import audit_with_scorer

AGENTS = ("rule", "scripted:careful", "scripted:off_by_one")


@pytest.fixture(scope="module")
def one_run() -> EpisodeRun:
    target = EnvTarget(get_env("comtrade"), seeds=1)
    return target.run_episode("rule", "L2", "T1_single_page", 0)


def _target(run: EpisodeRun, monkeypatch: pytest.MonkeyPatch,
            change: dict[str, Any] | None) -> EnvTarget:
    """A comtrade target whose reruns return `run`, altered by `change` on every second call."""
    target = EnvTarget(get_env("comtrade"), seeds=1)
    calls = {"n": 0}

    def run_episode(agent: str, level: str, task: str, seed: int) -> EpisodeRun:
        calls["n"] += 1
        base = replace(run, agent=agent, level=level, task=task, seed=seed)
        return replace(base, **change) if change and calls["n"] % 2 == 0 else base

    monkeypatch.setattr(target, "run_episode", run_episode)
    return target


def test_identical_reruns_pass(one_run: EpisodeRun, monkeypatch: pytest.MonkeyPatch) -> None:
    target = _target(one_run, monkeypatch, None)
    res = replay(target, seeds=1)
    assert target.hooks.replay_agents == AGENTS
    assert res == {"status": "pass", "episodes": res["episodes"], "mismatches": 0,
                   "mismatches_by_scorer": {"shipped": 0, "ground_truth": 0},
                   "unscored_by_scorer": {"shipped": 0, "ground_truth": 0}}
    assert res["episodes"] > 0


def test_episode_digest_mismatch_fails(one_run: EpisodeRun,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # Same truth and same shipped score: only the episode bytes differ.
    target = _target(one_run, monkeypatch, {"episode_sha256": "0" * 64})
    res = replay(target, seeds=1)
    assert res["status"] == "fail"
    assert res["mismatches"] == res["episodes"] > 0


@pytest.mark.parametrize("field", ["truth", "shipped"])
def test_score_mismatch_fails(one_run: EpisodeRun, monkeypatch: pytest.MonkeyPatch,
                              field: str) -> None:
    other = {"truth": one_run.truth - 0.5, "shipped": ScoreOutcome(-1.0)}[field]
    res = replay(_target(one_run, monkeypatch, {field: other}), seeds=1)
    assert res["status"] == "fail"
    assert res["mismatches"] == res["episodes"] > 0
    n = res["episodes"]
    assert res["mismatches_by_scorer"] == {"shipped": n if field == "shipped" else 0,
                                           "ground_truth": n if field == "truth" else 0}


def test_a_scorer_that_does_not_replay_fails_its_own_column_only(tmp_path: Path) -> None:
    # A user's scorer drawing a random number: the episodes replay byte for byte and so does
    # the ground truth, whose column keeps its replay pass and its claim; the replay row was
    # one for both columns, and the ground truth's `model capability` was lost to it.
    doc = audit_with_scorer(tmp_path, "researchops",
                            "    import random\n    return random.random()\n", 1)
    n = 15  # three policies x five tasks x one seed, at L2
    assert doc["stages"]["replay"] == {"status": "fail", "episodes": n, "mismatches": n,
                                       "mismatches_by_scorer": {"shipped": n, "ground_truth": 0},
                                       "unscored_by_scorer": {"shipped": 0, "ground_truth": 0}}
    user, truth = doc["card"]["configurations"]
    assert user["rows"]["replay"]["status"] == "fail"
    assert user["rows"]["replay"]["evidence"] == {"episodes": n, "mismatches": n, "unscored": 0}
    assert truth["rows"]["replay"]["status"] == "pass"
    assert truth["rows"]["replay"]["evidence"] == {"episodes": n, "mismatches": 0, "unscored": 0}
    assert truth["licensed_claim"] == "model capability"


INVALID = ScoreOutcome(None, "INVALID", "ValueError: cannot score this")


def test_a_scorer_that_scored_nothing_has_not_shown_it_replays(tmp_path: Path) -> None:
    # Every score INVALID on both runs: two identical INVALIDs compared equal and the column
    # read `pass`, though no score was ever replayed.
    doc = audit_with_scorer(tmp_path, "researchops",
                            "    raise ValueError('cannot score this')\n", 1)
    user, truth = doc["card"]["configurations"]
    assert user["rows"]["replay"] == {
        "status": "not probed", "source_digest": user["rows"]["replay"]["source_digest"],
        "evidence": {"episodes": 15, "mismatches": 0, "unscored": 15, "reason": (
            "no rerun was scored: the scorer gave no score on either run of 15 of 15 reruns "
            "(INVALID or undecided); a scorer that scored nothing has not shown that it "
            "replays")}}
    assert truth["rows"]["replay"]["status"] == "pass"  # its scores did replay
    # The stage says what its rows say: it read `pass` (and so did report.md's intro) while
    # the user's column was not probed.
    stage = doc["stages"]["replay"]
    assert (stage["status"], stage["reason"]) == (
        "not probed", "the shipped column (`user_scorer.py:score`) scored no rerun: 15 of 15 "
                      "reruns unscored")
    assert stage["unscored_by_scorer"] == {"shipped": 15, "ground_truth": 0}
    md, _ = render_audit_report(seal(doc))
    assert ("Replay: not probed (15 episodes, 0 mismatches): the shipped column "
            "(`user_scorer.py:score`) scored no rerun: 15 of 15 reruns unscored.") in md


def test_unscored_reruns_are_counted_and_scored_once_is_a_mismatch(
        one_run: EpisodeRun, monkeypatch: pytest.MonkeyPatch) -> None:
    unscored = replace(one_run, shipped=INVALID, truth=None)
    res = replay(_target(unscored, monkeypatch, None), seeds=1)
    n = res["episodes"]
    assert res == {"status": "not probed", "episodes": n, "mismatches": 0,
                   "mismatches_by_scorer": {"shipped": 0, "ground_truth": 0},
                   "unscored_by_scorer": {"shipped": n, "ground_truth": n},
                   "reason": f"the shipped column (`shape_judge`) scored no rerun: {n} of {n} "
                             f"reruns unscored; the ground-truth column (`ground_truth_f1_exact`) "
                             f"scored no rerun: {n} of {n} reruns unscored"}
    # INVALID on one run and scored on the other did not replay
    res = replay(_target(one_run, monkeypatch, {"shipped": INVALID}), seeds=1)
    assert res["status"] == "fail"
    assert res["mismatches_by_scorer"] == {"shipped": n, "ground_truth": 0}
    assert res["unscored_by_scorer"] == {"shipped": 0, "ground_truth": 0}


def _stage(mismatches: dict[str, int], unscored: dict[str, int],
           episodes: int = 4) -> dict[str, str]:
    return stage_status({"episodes": episodes, "mismatches_by_scorer": mismatches,
                         "unscored_by_scorer": unscored}, {"shipped": "s", "ground_truth": "t"})


def test_the_stage_status_is_what_every_column_row_reads() -> None:
    none = {"shipped": 0, "ground_truth": 0}
    assert _stage(none, none) == {"status": "pass"}
    # a failing column fails the stage, whatever the other column did
    assert _stage({"shipped": 1, "ground_truth": 0}, {"shipped": 0, "ground_truth": 4}) == {
        "status": "fail"}
    # one column not probed and none failed: not probed, naming the column
    assert _stage(none, {"shipped": 0, "ground_truth": 4}) == {
        "status": "not probed",
        "reason": "the ground-truth column (`t`) scored no rerun: 4 of 4 reruns unscored"}
    # a column that scored some reruns replayed on those: it passes
    assert _stage(none, {"shipped": 3, "ground_truth": 0}) == {"status": "pass"}
    assert _stage(none, none, episodes=0) == {"status": "not probed", "reason": NO_RERUNS}
