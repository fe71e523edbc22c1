"""The real tau-bench archive: import, coverage, pass^k and the per-task view (pinned values)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentmetrology.archive import audit_archive, load_archive
from agentmetrology.archive.importers.taubench import load_taubench
from agentmetrology.records.canonical import canonical_json


@pytest.fixture(scope="module")
def doc(taubench_file: Path) -> dict:
    return audit_archive(load_archive(taubench_file), [("archive", taubench_file)])


def test_import_counts_every_row(taubench_file: Path) -> None:
    archive = load_taubench(taubench_file)
    assert archive.format == "taubench"
    assert len(archive.episodes) == 200
    assert {e.model for e in archive.episodes} == {"gpt-4o"}
    assert len({e.task for e in archive.episodes}) == 50
    assert not archive.problems


def test_ungraded_rows_have_reason_and_stored_zero(taubench_file: Path) -> None:
    archive = load_taubench(taubench_file)
    ungraded = [e for e in archive.episodes if e.grade is None]
    assert sorted((int(e.task), e.trial) for e in ungraded) == [
        (2, 1), (9, 2), (9, 3), (33, 0), (46, 3)]
    for ep in ungraded:
        assert ep.outcome == "ungraded"
        assert ep.reason == "step_cap"
        assert ep.termination == "step_limit"
        assert ep.stored_score == 0.0  # the archive stored them as reward 0
        assert ep.meta["messages"] == 62
        assert "30 agent steps" in ep.reason_detail


def test_tool_calls_paired_by_position_not_id(taubench_file: Path) -> None:
    archive = load_taubench(taubench_file)
    assert archive.notes["pairing"]["rows_with_reused_call_ids"] == 49
    assert "orphan_tool_messages" not in archive.notes["pairing"]
    assert sum(len(e.events) for e in archive.episodes) == 1164
    # every call got the result of the message right after it, even when ids repeat
    assert all(ev.result is not None for e in archive.episodes for ev in e.events)


def test_coverage_and_bounds(doc: dict) -> None:
    cov = doc["coverage"]["overall"]
    assert (cov["planned"], cov["graded"], cov["valid_recovered"]) == (200, 195, 195)
    assert cov["counts"] == {"pass": 84, "fail": 111, "ungraded": 5, "invalid_replay": 0}
    assert cov["reasons"] == {"step_cap": 5}
    assert cov["graded_fraction"] == 0.975
    assert f"{cov['score_stored']:.3f}" == "0.420"
    assert (cov["bounds"]["lower"], cov["bounds"]["upper"]) == (0.42, 0.445)
    assert len(doc["coverage"]["unresolved_episodes"]) == 5


def test_recorded_pass_hat_k_matches_published(doc: dict) -> None:
    (cell,) = doc["pass_hat_k"]
    stored = [f"{r['stored']:.3f}" for r in cell["rows"]]
    assert stored == ["0.420", "0.273", "0.220", "0.200"]
    upper = [f"{r['upper']:.3f}" for r in cell["rows"]]
    assert upper == ["0.445", "0.287", "0.225", "0.200"]
    assert (cell["unresolved_episodes"], cell["tasks_with_unresolved"]) == (5, 4)


def test_mixed_task_view(doc: dict) -> None:
    counts = doc["tasks"]["counts"]
    assert counts == {"tasks": 50, "mixed": 28, "pass_and_fail": 26, "always_pass": 10,
                      "always_fail": 12, "with_unresolved": 4}
    by_task = {m["task"]: m["outcomes"] for m in doc["tasks"]["mixed"]}
    assert by_task["9"] == "FFUU" and by_task["46"] == "FPPU"


def test_audit_is_deterministic_and_bound_to_input(doc: dict, taubench_file: Path) -> None:
    again = audit_archive(load_archive(taubench_file), [("archive", taubench_file)])
    assert canonical_json(again) == canonical_json(doc)
    (inp,) = doc["inputs"]
    assert inp["name"] == "gpt-4o-airline.json" and len(inp["sha256"]) == 64
    assert doc["package"]["version"]
    assert doc["cost"]["applicable"] is False
    assert doc["provenance"]["applicable"] is False


def test_missing_or_non_finite_reward_is_never_read_as_zero(taubench_file: Path,
                                                            tmp_path: Path) -> None:
    import json as _json

    from agentmetrology.archive import load_archive

    rows = [r for r in _json.loads(taubench_file.read_text()) if r["reward"] == 1.0][:3]
    del rows[2]["reward"]  # the grader's reward_info.reward (1.0) is still there
    rows[1]["reward"] = float("nan")
    rows[1]["info"]["reward_info"]["reward"] = float("nan")
    path = tmp_path / "edited-airline.json"
    path.write_text(_json.dumps(rows))
    a = load_archive(path, "taubench")
    assert a.episodes[0].outcome == "pass"
    assert a.episodes[1].outcome == "ungraded" and a.episodes[1].reason == "unscored"
    assert a.episodes[2].outcome == "pass" and a.episodes[2].grade.score == 1.0


def test_a_repeated_task_and_trial_is_listed_and_skipped(taubench_file: Path,
                                                         tmp_path: Path) -> None:
    # Before, a second row for (task 0, trial 0) was a fifth trial of task 0: 201 planned
    # episodes, stored score 84/201, no load problem; `compare` kept one of the two silently.
    import json as _json

    rows = _json.loads(taubench_file.read_text())
    first = next(r for r in rows if r["reward"] == 0.0)
    twin = {**_json.loads(_json.dumps(next(r for r in rows if r["reward"] == 1.0))),
            "task_id": first["task_id"], "trial": first["trial"]}
    # Then the first of the two was kept: appended, the twin's pass was dropped (84 passes);
    # put first, it replaced the fail (85). Two results for one episode: neither is counted.
    path = tmp_path / "gpt-4o-airline.json"
    for order, row in (([*rows, twin], 200), ([twin, *rows], 1 + rows.index(first))):
        path.write_text(_json.dumps(order))
        doc = audit_archive(load_archive(path))
        overall = doc["coverage"]["overall"]
        assert (overall["planned"], overall["graded"], overall["counts"]["pass"],
                overall["score_stored"], overall["bounds"]["upper"]) == (200, 194, 84, 0.42, 0.45)
        fail, passed = ("fail (0)", "pass (1)") if row == 200 else ("pass (1)", "fail (0)")
        assert doc["load"]["problems"] == [
            f"gpt-4o-airline.json: row {row}: task {first['task_id']} trial {first['trial']} "
            f"repeated, kept ungraded: recorded twice with different results, {fail} and "
            f"{passed}: which one counts is not identified"]
    same = {**_json.loads(_json.dumps(first))}
    path.write_text(_json.dumps([*rows, same]))
    doc = audit_archive(load_archive(path))  # the same result twice: one episode, as it says
    assert (doc["coverage"]["overall"]["graded"], doc["load"]["problems"]) == (
        195, [f"gpt-4o-airline.json: row 200: task {first['task_id']} trial {first['trial']} "
              "repeated; skipped"])


def test_a_row_whose_two_rewards_differ_is_ungraded_not_the_graders_fail(
        taubench_file: Path, tmp_path: Path) -> None:
    # Before, a row storing reward 1 beside reward_info.reward 0 was a fail (the grader's
    # copy won, the row's silently dropped): 83 passes, bounds 0.415..0.440, though
    # tau-bench's own metrics read `reward` (84 passes). Which one counts is not identified.
    import json as _json

    rows = _json.loads(taubench_file.read_text())
    i = next(i for i, r in enumerate(rows) if r["reward"] == 1.0)
    rows[i]["info"]["reward_info"]["reward"] = 0.0
    path = tmp_path / "gpt-4o-airline.json"
    path.write_text(_json.dumps(rows))
    doc = audit_archive(load_archive(path))
    overall = doc["coverage"]["overall"]
    assert overall["counts"] == {"pass": 83, "fail": 111, "ungraded": 6, "invalid_replay": 0}
    assert overall["reasons"] == {"malformed_record": 1, "step_cap": 5}
    assert (overall["score_stored"], overall["bounds"]["upper"]) == (0.415, 0.445)
    task = rows[i]["task_id"]
    assert doc["load"]["problems"] == [
        f"gpt-4o-airline.json: row {i} (task {task}): malformed, kept ungraded: reward 1 but "
        "reward_info.reward 0: which one counts is not identified"]
    ep = next(e for e in load_archive(path).episodes if e.task == str(task) and e.trial == 0)
    assert ep.stored_score == 1.0 and ep.events  # the row's reward and its calls are kept
