"""The replay row fails when a rerun's episode bytes differ, even with identical scores."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from agentmetrology.audit.episodes import replay
from agentmetrology.audit.targets.env import EnvTarget, EpisodeRun
from agentmetrology.envs.registry import get_env

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
                   "mismatches_by_scorer": {"shipped": 0, "ground_truth": 0}}
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
    from agentmetrology.audit.target import ScoreOutcome

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
    from agentmetrology.audit.env_audit import audit_env
    from agentmetrology.audit.scorer_override import load_scorer

    path = tmp_path / "rnd.py"
    path.write_text("import random\ndef score(task_id, seed, submission):\n"
                    "    return random.random()\n")
    with load_scorer(f"{path}:score") as scorer:
        doc = audit_env(EnvTarget(get_env("permission"), seeds=3, scorer=scorer,
                                  scorer_label=scorer.label))
    assert doc["stages"]["replay"] == {"status": "fail", "episodes": 2, "mismatches": 2,
                                       "mismatches_by_scorer": {"shipped": 2, "ground_truth": 0}}
    user, truth = doc["card"]["configurations"]
    assert user["rows"]["replay"]["status"] == "fail"
    assert user["rows"]["replay"]["evidence"] == {"episodes": 2, "mismatches": 2}
    assert truth["rows"]["replay"]["status"] == "pass"
    assert truth["rows"]["replay"]["evidence"] == {"episodes": 2, "mismatches": 0}
    assert truth["licensed_claim"] == "model capability"
