"""The tau2 importer on the three shared files and on every variant seen in public repositories.

Every expected number is recomputed by hand from the file's JSON (plain json and arithmetic),
never through the importer's code.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path

import pytest

from agentmetrology.archive import ArchiveFormatError, detect_format, load_archive
from agentmetrology.archive.importers.tau2_domain import data_dir, load_domain
from archive.tau2_files import (
    GPT_AIRLINE,
    GPT_TELECOM,
    QWEN_AIRLINE,
    raw,
    shared,
    two_trials,
    write,
)


def _by_hand(name: str) -> tuple[int, int, Counter[str]]:
    """Return (passes, simulations, termination reasons) straight from the JSON."""
    sims = raw(name)["simulations"]
    passes = sum(1 for s in sims if s["reward_info"] and s["reward_info"]["reward"] == 1.0)
    return passes, len(sims), Counter(s["termination_reason"] for s in sims)


@pytest.mark.parametrize(("name", "passes", "total"), [
    (GPT_AIRLINE, 10, 20), (QWEN_AIRLINE, 9, 50), (GPT_TELECOM, 18, 40)])
def test_shared_files_import_with_the_readme_counts(name: str, passes: int, total: int) -> None:
    hand_passes, hand_total, _ = _by_hand(name)
    assert (hand_passes, hand_total) == (passes, total)  # the README's numbers, by hand
    archive = load_archive(shared(name))
    assert archive.format == "tau2" and detect_format(shared(name)) == "tau2"
    outcomes = Counter(e.outcome for e in archive.episodes)
    assert outcomes == {"pass": passes, "fail": total - passes}
    assert archive.notes["tau2"]["definitions"] == "file"
    assert archive.notes["tau2"]["tasks_planned"] == len(raw(name)["tasks"]) == total


def test_qwen_agent_errors_are_failures_kept_apart() -> None:
    _, _, reasons = _by_hand(QWEN_AIRLINE)
    assert reasons == {"user_stop": 40, "agent_error": 9, "too_many_errors": 1}
    archive = load_archive(shared(QWEN_AIRLINE), "tau2")
    ended = Counter((e.meta["termination_reason"], e.outcome) for e in archive.episodes)
    assert ended[("agent_error", "fail")] == 9 and ended[("too_many_errors", "fail")] == 1
    assert all(e.meta["reward"]["premature"] for e in archive.episodes
               if e.meta["termination_reason"] != "user_stop")
    assert archive.notes["tau2"]["agent_model"] == "ollama_chat/qwen2.5:7b"


def test_telecom_user_tool_calls_carry_the_user_actor() -> None:
    sims = raw(GPT_TELECOM)["simulations"]
    by_hand = Counter(c.get("requestor") for s in sims for m in s["messages"]
                      for c in (m.get("tool_calls") or []))
    archive = load_archive(shared(GPT_TELECOM))
    actors = Counter(ev.actor for e in archive.episodes for ev in e.events)
    assert actors == {"agent": by_hand["assistant"], "user": by_hand["user"]}


def _variant(tmp: Path, shape: str) -> Path:
    data = copy.deepcopy(raw(GPT_AIRLINE))
    sims = data["simulations"]
    if shape == "bare":
        return write(tmp, "bare-airline.json", sims)
    if shape == "custom":
        return write(tmp, "custom.json", {"agent": "my-agent", "domain": "airline",
                                          "model": "gpt-4.1", "pass_rate": 0.5, "passed": 10,
                                          "total_tasks": 20, "simulations": sims})
    raise AssertionError(shape)


def test_bare_list_takes_definitions_and_task_set_from_the_shipped_domain(tmp_path: Path) -> None:
    if load_domain("airline") is None:
        pytest.skip("needs the `inspect` extra (inspect-evals' tau2 data)")
    path = _variant(tmp_path, "bare")
    assert detect_format(path) == "tau2"
    archive = load_archive(path)
    notes = archive.notes["tau2"]
    assert notes["shape"] == "bare_list" and notes["domain_from"] == "file name"
    assert notes["definitions"].startswith("inspect-evals ")
    # the 20 tasks the file ran are exactly airline's "test" split (by hand from the file)
    assert notes["split"] == "test" and notes["tasks_planned"] == 20
    assert all(e.meta["task_definition"]["id"] == e.task for e in archive.episodes)
    assert notes["agent_model"] == "bare-airline"  # no info: the file name


def test_bare_list_with_fewer_tasks_plans_the_split_and_lists_the_missing(tmp_path: Path
                                                                          ) -> None:
    if load_domain("airline") is None:
        pytest.skip("needs the `inspect` extra (inspect-evals' tau2 data)")
    sims = raw(GPT_AIRLINE)["simulations"]
    kept = [s for s in sims if s["task_id"] not in ("2", "6", "8")]
    archive = load_archive(write(tmp_path, "airline-part.json", kept))
    missing = sorted(e.task for e in archive.episodes if e.reason == "never_ran")
    assert missing == ["2", "6", "8"] and len(archive.episodes) == 20


def test_custom_top_level_keeps_its_reported_numbers(tmp_path: Path) -> None:
    archive = load_archive(_variant(tmp_path, "custom"))
    notes = archive.notes["tau2"]
    assert notes["shape"] == "custom" and notes["agent_model"] == "gpt-4.1"
    assert notes["reported_top_level"] == {"pass_rate": 0.5, "passed": 10, "total_tasks": 20}


def test_fewer_simulations_than_tasks_counts_tasks_never_run(tmp_path: Path) -> None:
    data = copy.deepcopy(raw(QWEN_AIRLINE))
    data["simulations"] = data["simulations"][:30]
    archive = load_archive(write(tmp_path, "short.json", data))
    never = [e for e in archive.episodes if e.reason == "never_ran"]
    assert len(archive.episodes) == 50 and len(never) == 20  # planned = the file's 50 tasks
    assert all(e.outcome == "ungraded" and e.grade is None for e in never)


def test_several_trials_per_task(tmp_path: Path) -> None:
    data, _ = two_trials(GPT_AIRLINE, 3)
    archive = load_archive(write(tmp_path, "three.json", data))
    assert len(archive.episodes) == 60  # 20 tasks x 3 trials planned
    assert Counter(e.reason for e in archive.episodes)["never_ran"] == 20
    assert Counter(e.trial for e in archive.episodes if e.outcome == "pass") == {0: 10, 1: 10}



def test_simulations_sharing_an_id_are_a_load_problem_and_change_no_number(
        tmp_path: Path) -> None:
    # Before, two simulations of different tasks with one `id` gave no load problem (a look-up
    # by id, as the viewer once did, silently picks one of them).
    data = copy.deepcopy(raw(GPT_AIRLINE))
    sims = data["simulations"]
    sims[1]["id"] = sims[0]["id"]
    plain = load_archive(shared(GPT_AIRLINE))
    archive = load_archive(write(tmp_path, "shared-id.json", data))
    assert [str(p) for p in archive.problems] == [
        f"shared-id.json: simulation id {sims[0]['id']!r} is shared by 2 simulations of "
        f"different (task, trial): simulation 0 (task {sims[0]['task_id']} trial 0), "
        f"simulation 1 (task {sims[1]['task_id']} trial 0); each is kept as its own episode"]
    assert (sims[0]["task_id"], sims[1]["task_id"]) == ("13", "6")  # two tasks, by hand
    assert ([(e.task, e.trial, e.outcome, e.stored_score) for e in archive.episodes]
            == [(e.task, e.trial, e.outcome, e.stored_score) for e in plain.episodes])


def test_a_simulation_repeated_with_another_reward_is_ungraded_whatever_the_order(
        tmp_path: Path) -> None:
    # Before, the first of two simulations of one (task, trial) was kept: appended, a failing
    # twin of a pass left 10 passes (0.500); put first, 9 (0.450): the file's order decided.
    data = copy.deepcopy(raw(GPT_AIRLINE))
    sims = data["simulations"]
    first = next(s for s in sims if s["reward_info"]["reward"] == 1.0)
    twin = copy.deepcopy(first)
    twin["reward_info"]["reward"] = 0.0
    for order, at, said in (([*sims, twin], 20, "pass (1) and fail (0)"),
                            ([twin, *sims], 1 + sims.index(first), "fail (0) and pass (1)")):
        archive = load_archive(write(tmp_path, "twice.json", {**data, "simulations": order}))
        outcomes = Counter(e.outcome for e in archive.episodes)
        assert (len(archive.episodes), outcomes["pass"], outcomes["fail"],
                outcomes["ungraded"]) == (20, 9, 10, 1)
        (ep,) = [e for e in archive.episodes if e.outcome == "ungraded"]
        assert (ep.task, ep.reason, ep.stored_score) == (first["task_id"], "malformed_record",
                                                          None)
        assert [p.message for p in archive.problems] == [
            f"simulation {at}: task {first['task_id']} trial 0 repeated, kept ungraded: "
            f"recorded twice with different results, {said}: which one counts is not "
            "identified"]
    archive = load_archive(write(tmp_path, "same.json", {**data, "simulations": [
        *sims, copy.deepcopy(first)]}))  # the same reward twice: one episode, as it says
    assert Counter(e.outcome for e in archive.episodes) == {"pass": 10, "fail": 10}
    assert [p.message for p in archive.problems] == [
        f"simulation 20: task {first['task_id']} trial 0 repeated; skipped"]

@pytest.mark.parametrize("declared", ["3", 0, -1, 2.5, True, None])
def test_a_declared_trial_count_that_is_no_count_is_named_never_ignored(
        tmp_path: Path, declared: object) -> None:
    # Before, "3" (or 0) was passed over in silence and the plan took the trials present.
    data = copy.deepcopy(raw(GPT_AIRLINE))
    data["info"]["num_trials"] = declared
    archive = load_archive(write(tmp_path, "declared.json", data))
    assert len(archive.episodes) == 20  # the trials present: one
    assert [p.message for p in archive.problems] == [
        f"info.num_trials {declared!r} is not a whole number of trials >= 1: ignored; the "
        "plan takes the trials present (1)"]
    data["info"]["num_trials"] = 1
    assert not load_archive(write(tmp_path, "one.json", data)).problems


def test_null_termination_and_infrastructure_error(tmp_path: Path) -> None:
    data = copy.deepcopy(raw(GPT_AIRLINE))
    for s in data["simulations"]:
        s["termination_reason"] = None
    infra = data["simulations"][0]
    infra["termination_reason"], infra["reward_info"] = "infrastructure_error", None
    # a stored reward beside an infrastructure failure is not counted either
    data["simulations"][1]["termination_reason"] = "infrastructure_error"
    archive = load_archive(write(tmp_path, "nulls.json", data))
    eps = {e.task: e for e in archive.episodes}
    first, second = eps[infra["task_id"]], eps[data["simulations"][1]["task_id"]]
    assert first.outcome == second.outcome == "ungraded"
    assert first.reason == second.reason == "infra_error"
    rest = [e for e in archive.episodes if e not in (first, second)]
    assert all(e.meta["ended_by"] == "not recorded" and e.outcome in ("pass", "fail")
               for e in rest)


def test_reward_info_null_is_ungraded_never_zero(tmp_path: Path) -> None:
    data = copy.deepcopy(raw(GPT_AIRLINE))
    data["simulations"][0]["reward_info"] = None
    archive = load_archive(write(tmp_path, "null.json", data))
    ep = next(e for e in archive.episodes if e.task == data["simulations"][0]["task_id"])
    assert ep.outcome == "ungraded" and ep.reason == "grader_never_ran"
    assert ep.stored_score is None


@pytest.mark.parametrize("reward", [5.0, -1.0, 1.5])
def test_a_reward_outside_0_1_is_no_score(tmp_path: Path, reward: float) -> None:
    # Before, a tau2 reward of 5 or -1 was graded a failure and entered the mean of stored
    # values (0.75 for one 5 among 10 passes of 20), unlike every other importer.
    data = copy.deepcopy(raw(GPT_AIRLINE))
    sim = next(s for s in data["simulations"] if s["reward_info"]["reward"] == 0.0)
    sim["reward_info"]["reward"] = reward
    archive = load_archive(write(tmp_path, "range.json", data))
    ep = next(e for e in archive.episodes if e.task == sim["task_id"])
    assert ep.outcome == "ungraded" and ep.reason == "score_out_of_range" and ep.grade is None
    assert ep.stored_score == reward
    assert ep.reason_detail == f"reward {reward:g} is outside the declared range [0, 1]"
    assert Counter(e.outcome for e in archive.episodes) == {"pass": 10, "fail": 9,
                                                             "ungraded": 1}


@pytest.mark.parametrize(("reward", "outcome", "detail"), [
    (1.0000001, "pass", ""), (1.000001, "pass", ""), (-1e-7, "fail", ""),
    (1.000002, "ungraded", "reward 1.000002 is outside the declared range [0, 1]")])
def test_a_reward_within_the_success_tolerance_of_1_is_a_pass(
        tmp_path: Path, reward: float, outcome: str, detail: str) -> None:
    # Before, 1.0000001 (a success by tau2's is_successful: within 1e-6 of 1) was ungraded,
    # score_out_of_range, with the detail "reward 1 is outside the declared range [0, 1]":
    # 9 passes of 20 and bounds 0.45..0.50 where tau2 gives 10 of 20.
    data = copy.deepcopy(raw(GPT_AIRLINE))
    sim = next(s for s in data["simulations"] if s["reward_info"]["reward"] == 1.0)
    sim["reward_info"]["reward"] = reward
    archive = load_archive(write(tmp_path, "eps.json", data))
    ep = next(e for e in archive.episodes if e.task == sim["task_id"])
    assert (ep.outcome, ep.reason_detail if ep.reason else "") == (outcome, detail)
    assert ep.stored_score == reward
    passes = Counter(e.outcome for e in archive.episodes)["pass"]
    assert passes == (10 if outcome == "pass" else 9)


def test_malformed_simulation_is_kept_ungraded_and_listed(tmp_path: Path) -> None:
    data = copy.deepcopy(raw(GPT_AIRLINE))
    data["simulations"][0]["messages"] = "not a list"
    archive = load_archive(write(tmp_path, "bad.json", data))
    assert len(archive.problems) == 1 and "malformed" in str(archive.problems[0])
    assert Counter(e.reason for e in archive.episodes)["malformed_record"] == 1


@pytest.mark.parametrize("first", [[], "x", {"x": 1}])
def test_a_first_simulation_of_the_wrong_shape_is_listed_not_the_file_refused(
        tmp_path: Path, first: object) -> None:
    # Before, only the first simulation was looked at: the file was then no tau2 file, read
    # as JSONL and refused ("no episode could be read as jsonl"), 19 good simulations unread.
    data = copy.deepcopy(raw(GPT_AIRLINE))
    lost = data["simulations"][0]["task_id"]
    data["simulations"][0] = first
    path = write(tmp_path, "first.json", data)
    assert detect_format(path) == "tau2"
    archive = load_archive(path)
    assert [p.message for p in archive.problems] == (
        ["simulation 0: not an object"] if not isinstance(first, dict) else
        ["simulation 0: skipped: task_id is null, not a string or integer"])
    assert Counter(e.outcome for e in archive.episodes) == {"pass": 9, "fail": 10,
                                                             "ungraded": 1}
    assert next(e for e in archive.episodes if e.task == lost).reason == "never_ran"


@pytest.mark.parametrize("payload", [
    {"simulations": 3}, {"simulations": [{"x": 1}]}, [{"task_id": "1", "foo": 2}]])
def test_unknown_shapes_are_refused_in_one_line(tmp_path: Path, payload: object) -> None:
    path = write(tmp_path, "odd.json", payload)
    with pytest.raises(ArchiveFormatError) as info:
        load_archive(path, "tau2")
    assert "not a tau2 results file" in str(info.value) and "\n" not in str(info.value)


def test_definitions_that_differ_from_the_shipped_ones_are_named() -> None:
    shipped = load_domain("airline")
    if shipped is None:
        pytest.skip("needs the `inspect` extra (inspect-evals' tau2 data)")
    root = data_dir()
    assert root is not None
    ship = {t["id"]: t for t in json.loads((root / "airline" / "tasks.json").read_text())}
    mine = {t["id"]: t for t in raw(QWEN_AIRLINE)["tasks"]}
    by_hand = sorted(i for i, t in mine.items() if t["evaluation_criteria"]["nl_assertions"]
                     != ship[i]["evaluation_criteria"]["nl_assertions"])
    assert by_hand == ["1"]
    notes = load_archive(shared(QWEN_AIRLINE)).notes["tau2"]
    assert notes["versus_shipped"]["differ"] == 1 and notes["versus_shipped"]["tasks"] == by_hand


@pytest.mark.parametrize("fmt", ["auto", "tau2"])
def test_an_empty_results_file_is_named_as_such(tmp_path: Path, fmt: str) -> None:
    # Before, `{"simulations": []}` was read as JSONL ("task and model are required") and with
    # --format tau2 was "not a tau2 results file (expected ... an object with a `simulations`
    # list)", which it is; `[]` was "a JSON list, but not tau-bench result rows".
    f = tmp_path / "empty.json"
    f.write_text('{"simulations": []}', encoding="utf-8")
    with pytest.raises(ArchiveFormatError) as exc:
        load_archive(f, fmt)
    assert str(exc.value) == "empty.json: no episode could be read as tau2 (the file holds none)"
    if fmt == "auto":
        f.write_text("[]", encoding="utf-8")
        with pytest.raises(ArchiveFormatError, match=r"^empty.json: an empty JSON list: no "):
            load_archive(f, fmt)
