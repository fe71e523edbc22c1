"""Grade recovery by replay on an `agm` archive: validated on graded episodes, then applied."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from agentmetrology.archive import audit_archive, load_archive
from agentmetrology.archive.model import Archive, ArchiveEpisode
from agentmetrology.archive.recovery import recover_grades
from archive.agm_fixtures import RECORDED, build_store


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_store(tmp_path_factory.mktemp("agm") / "store", planned_only="unrun")


def _withhold(a: Archive, every: int = 5) -> dict[str, tuple[float, bool]]:
    """Drop the stored grade of every `every`-th recorded episode; return what was dropped."""
    dropped = {}
    for i, e in enumerate(x for x in a.episodes if x.grade is not None):
        if i % every == 0:
            assert e.grade is not None
            dropped[e.episode_id] = (e.grade.score, e.grade.passed)
            e.grade, e.stored_score, e.reason = None, None, "no_grade_recorded"
    return dropped


def _tamper(e: ArchiveEpisode) -> None:
    """Change one recorded agent action (the page asked for), leaving its recorded result."""
    i = next(i for i, ev in enumerate(e.events) if ev.actor == "agent"
             and ev.name == "fetch_page")
    e.events[i] = dataclasses.replace(e.events[i], args={"page": 99})


def test_recovery_restores_exactly_the_withheld_grades(store: Path) -> None:
    a = load_archive(store)
    events_before = {e.episode_id: list(e.events) for e in a.episodes}
    dropped = _withhold(a)
    assert len(dropped) == 5
    s = recover_grades(a)
    assert s["validated"] and not s["refused"]
    assert s["validation"]["agreement"] == 1.0
    assert s["validation"]["graded_episodes"] == RECORDED - 5
    assert s["recovered"] == 5 and s["invalid_replay"] == 0
    assert s["sources"] == {"not_recovered": 12, "observed": RECORDED - 5,
                            "recovered_by_replay": 5}
    assert set(s["not_recovered"]) == {"no recorded actions to replay"}  # never-ran episodes
    for e in a.episodes:
        if e.episode_id in dropped:
            assert e.grade is None and e.recovered is not None  # stored grade stays absent
            assert (e.recovered.score, e.recovered.passed) == dropped[e.episode_id]
            assert e.grade_source == "recovered_by_replay"
            assert e.recovered.detail["actor"] == "grader"
        elif e.grade is not None:
            assert e.grade_source == "observed" and e.recovered is None
    # Replays write to their own stream: the agent's recorded events are untouched.
    assert {e.episode_id: list(e.events) for e in a.episodes} == events_before
    rows = [r for r in s["episodes"] if r["source"] == "recovered_by_replay"]
    assert all(r["actor"] == "grader" and r["replay_events"] > 0 for r in rows)
    cov = audit_archive(a)["coverage"]
    o = cov["overall"]
    assert (o["planned"], o["graded"], o["recovered"], o["valid_recovered"]) == \
        (RECORDED + 12, RECORDED - 5, 5, RECORDED)
    assert cov["recovery"]["available"] is True


def test_tampered_graded_episode_refuses_recovery(store: Path) -> None:
    a = load_archive(store)
    _withhold(a)
    _tamper(next(e for e in a.episodes if e.grade is not None and e.model == "rule"))
    s = recover_grades(a)
    assert s["refused"] and not s["validated"] and s["recovered"] == 0
    assert s["validation"]["trajectory_mismatches"] == 1
    assert len(s["validation"]["disagreeing_episodes"]) == 1
    assert all(e.recovered is None for e in a.episodes)
    assert any(w.startswith("recovery refused") for w in s["not_recovered"])
    assert audit_archive(a)["coverage"]["overall"]["valid_recovered"] == RECORDED - 5


def test_tampered_submission_disagrees_with_the_observed_grade(store: Path) -> None:
    a = load_archive(store)
    e = next(e for e in a.episodes if e.grade is not None and e.grade.passed
             and e.scaffold == "L2")
    # Drop the agent's submit action: the replay ends without a submission (score 0).
    e.events[:] = [ev for ev in e.events if ev.name != "submit_results"]
    s = recover_grades(a)
    assert s["refused"] and s["validation"]["agreement"] < 1.0
    assert e.episode_id in s["validation"]["disagreeing_episodes"]


def test_tampered_ungraded_episode_is_invalid_replay(store: Path) -> None:
    a = load_archive(store)
    dropped = _withhold(a)
    victim = next(e for e in a.episodes if e.episode_id in dropped
                  and any(ev.name == "fetch_page" for ev in e.events))
    _tamper(victim)
    s = recover_grades(a)
    assert s["validated"] and s["recovered"] == 4 and s["invalid_replay"] == 1
    assert victim.outcome == "invalid_replay" and victim.grade_source == "invalid_replay"
    assert victim.recovered is None and "diverges from the record" in (victim.invalid_replay
                                                                        or "")


def test_other_formats_do_not_recover(tmp_path: Path) -> None:
    a = Archive("x.jsonl", "jsonl", [ArchiveEpisode("e", "t", "m")])
    assert recover_grades(a)["available"] is False
