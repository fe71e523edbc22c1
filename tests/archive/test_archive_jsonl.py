"""Generic JSONL: episodes and spans, malformed lines reported and skipped, round trips."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentmetrology.archive import ArchiveFormatError, audit_archive, detect_format, load_archive
from agentmetrology.archive.importers.jsonl import (
    episode_to_line,
    load_jsonl,
    span_to_line,
    write_jsonl,
)
from agentmetrology.archive.synthetic import synthetic_archive

GOOD = {"task": "t1", "model": "m", "trial": 0, "grade": {"score": 1.0},
        "events": [{"name": "db.get", "args": {"id": 1}}],
        "executed_calls": [{"name": "db.get", "args": {"id": 1}}]}


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_malformed_lines_reported_with_line_numbers(tmp_path: Path) -> None:
    f = _write(tmp_path / "eps.jsonl", [
        json.dumps(GOOD),
        "{not json",
        json.dumps([1, 2]),
        json.dumps({"model": "m"}),
        "",
        json.dumps({**GOOD, "trial": 1, "grade": None, "reason": "sample_error"}),
        json.dumps({**GOOD, "trial": -3}),
        json.dumps({**GOOD, "events": [{"args": {}}]}),
    ])
    archive = load_jsonl(f)
    assert len(archive.episodes) == 2
    assert archive.notes["lines_skipped"] == 5
    assert [p.line for p in archive.problems] == [2, 3, 4, 7, 8]
    assert all(p.file == "eps.jsonl" for p in archive.problems)
    assert "eps.jsonl:4" in str(archive.problems[2])
    assert archive.episodes[1].outcome == "ungraded"
    assert archive.episodes[1].reason == "sample_error"


def test_bare_number_grade_and_missing_reason(tmp_path: Path) -> None:
    f = _write(tmp_path / "e.jsonl", [json.dumps({"task": 1, "model": "m", "grade": 0.0}),
                                      json.dumps({"task": 2, "model": "m", "grade": None})])
    eps = load_jsonl(f).episodes
    assert eps[0].outcome == "fail" and eps[0].task == "1"
    assert eps[1].outcome == "ungraded" and eps[1].reason == "no_grade_recorded"


def test_replay_gate_applied_at_load(tmp_path: Path) -> None:
    line = {**GOOD, "replay": {"mode": "stubbed_model", "available": ["mail"]}}
    archive = load_jsonl(_write(tmp_path / "r.jsonl", [json.dumps(line)]))
    (ep,) = archive.episodes
    assert ep.outcome == "invalid_replay"
    assert "db" in (ep.invalid_replay or "")


def test_synthetic_round_trip_and_spans_file(tmp_path: Path) -> None:
    archive, truth = synthetic_archive(4)
    eps, spans = tmp_path / "eps.jsonl", tmp_path / "spans.jsonl"
    write_jsonl(eps, (episode_to_line(e) for e in archive.episodes))
    write_jsonl(spans, (span_to_line(s) for s in archive.spans))
    assert detect_format(eps) == "jsonl"
    loaded = load_archive(eps, "auto", spans)
    assert not loaded.problems
    assert len(loaded.episodes) == len(archive.episodes)
    assert len(loaded.spans) == len(archive.spans)
    doc = audit_archive(loaded, [("archive", eps), ("spans", spans)])
    assert doc["provenance"]["candidates"] == truth.leaks
    assert doc["provenance"]["ambiguous_candidates"] == truth.ambiguous_leaks
    assert doc["coverage"]["overall"]["reasons"] == dict(sorted(truth.ungraded.items()))
    assert doc["coverage"]["overall"]["counts"]["pass"] == truth.passes
    assert doc["cost"]["extra_copies"] == truth.extra_copies
    assert doc["cost"]["pareto"]["applicable"] is True
    assert [i["role"] for i in doc["inputs"]] == ["archive", "spans"]


def test_spans_file_rejects_episode_lines(tmp_path: Path) -> None:
    eps = _write(tmp_path / "e.jsonl", [json.dumps(GOOD)])
    spans = _write(tmp_path / "s.jsonl", [
        json.dumps({"span_id": "s1", "kind": "model", "usage": {"input": 3, "output": 1},
                    "cost": 0.1}),
        json.dumps(GOOD),
        json.dumps({"span_id": "s2", "usage": {"input": -1}}),
        json.dumps({"span_id": "s3", "cost": "NaN"}),
    ])
    archive = load_archive(eps, "jsonl", spans)
    assert len(archive.spans) == 1
    assert [(p.file, p.line) for p in archive.problems] == [("s.jsonl", 2), ("s.jsonl", 3),
                                                            ("s.jsonl", 4)]
    assert archive.notes["span_lines_skipped"] == 3


def test_file_without_any_episode_is_an_error(tmp_path: Path) -> None:
    f = _write(tmp_path / "bad.jsonl", ["{oops", "{also bad"])
    with pytest.raises(ArchiveFormatError, match="no episode could be read"):
        load_archive(f)


def test_credentials_in_details_are_redacted(tmp_path: Path) -> None:
    line = {"task": "t", "model": "m", "grade": None, "reason": "sample_error",
            "reason_detail": "401: Incorrect API key provided: sk-abcdefghijklmnopqrstuvwx"}
    (ep,) = load_jsonl(_write(tmp_path / "c.jsonl", [json.dumps(line)])).episodes
    assert "sk-abc" not in ep.reason_detail and "[redacted]" in ep.reason_detail


def test_detect_formats(tmp_path: Path) -> None:
    rows = tmp_path / "rows.json"
    rows.write_text(json.dumps([{"task_id": 1, "reward": 1.0, "info": {}, "traj": []}]))
    assert detect_format(rows) == "taubench"
    other = tmp_path / "other.json"
    other.write_text(json.dumps([{"a": 1}]))
    with pytest.raises(ArchiveFormatError, match="not tau-bench"):
        detect_format(other)
    broken = tmp_path / "broken.json"
    broken.write_text("[1, 2")
    with pytest.raises(ArchiveFormatError, match="does not parse"):
        detect_format(broken)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    with pytest.raises(ArchiveFormatError, match="an empty file"):
        detect_format(empty)
    empty.write_text("\n \n")
    with pytest.raises(ArchiveFormatError, match="unrecognised"):
        detect_format(empty)


def test_passed_must_be_a_real_boolean(tmp_path: Path) -> None:
    import json as _json

    from agentmetrology.archive import load_archive

    path = tmp_path / "eps.jsonl"
    lines = [{"episode_id": "a", "task": "t", "model": "m", "grade": {"score": 0.0,
                                                                     "passed": "false"}},
             {"episode_id": "b", "task": "t", "model": "m", "grade": {"score": 1.0,
                                                                     "passed": True}}]
    path.write_text("".join(_json.dumps(x) + "\n" for x in lines))
    a = load_archive(path, "jsonl")
    assert [e.episode_id for e in a.episodes] == ["b"]
    assert len(a.problems) == 1 and "passed" in a.problems[0].message


def test_a_repeated_episode_line_is_listed_and_lines_without_a_trial_are_trials(
        tmp_path: Path) -> None:
    # Before, every line without a trial was trial 0 and a line repeating (task, trial) was
    # kept: the audit counted t1 twice (stored 1 of 3, pass^1 0.25) while `compare`, keyed by
    # (task, model, scaffold, trial), kept one of the two silently.
    f = tmp_path / "a.jsonl"
    lines = [{"task": "t1", "model": "m", "grade": 1.0},
             {"task": "t1", "model": "m", "grade": 0.0},
             {"task": "t1", "model": "m", "trial": 1, "grade": 1.0},
             {"task": "t2", "model": "m", "trial": 0, "grade": 0.0},
             {"task": "t2", "model": "m", "trial": 0, "grade": 1.0}]
    f.write_text("".join(json.dumps(x) + "\n" for x in lines))
    # A repeat with another result leaves the episode ungraded (keeping the first made the
    # score depend on the order of the lines); the same result twice is one episode.
    lines.append({"task": "t1", "model": "m", "trial": 0, "grade": 1.0})
    f.write_text("".join(json.dumps(x) + "\n" for x in lines))
    archive = load_jsonl(f)
    assert [(e.task, e.trial, e.grade.score if e.grade else None, e.reason)
            for e in archive.episodes] == [("t1", 0, 1.0, None),
                                           ("t1", 1, None, "malformed_record"),
                                           ("t2", 0, None, "malformed_record")]
    assert [str(p) for p in archive.problems] == [
        "a.jsonl:3: skipped: task t1 trial 1 of m repeats an earlier line's; kept ungraded: "
        "recorded twice with different results, fail (0) and pass (1): which one counts is "
        "not identified",
        "a.jsonl:5: skipped: task t2 trial 0 of m repeats an earlier line's; kept ungraded: "
        "recorded twice with different results, fail (0) and pass (1): which one counts is "
        "not identified",
        "a.jsonl:6: skipped: task t1 trial 0 of m repeats an earlier line's"]
