"""Re-grading tau2 simulations by replaying their tool calls through inspect-evals' airline tools.

Each test keeps a few simulations of the shared gpt-4.1 airline file (the rest become tasks
never run, which are not re-graded) so the replays stay short.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentmetrology.archive import load_archive
from agentmetrology.archive.tau2_regrade import regrade_tau2
from agentmetrology.cli.archive_cmd import archive_app
from archive.tau2_files import GPT_AIRLINE, GPT_TELECOM, raw, shared, write

pytest.importorskip("inspect_evals", reason="needs the `inspect` extra (inspect-evals)")


def _few(tmp: Path, picks: tuple[int, ...]) -> tuple[Path, dict[str, Any]]:
    data = copy.deepcopy(raw(GPT_AIRLINE))
    data["simulations"] = [data["simulations"][i] for i in picks]
    return write(tmp, "few.json", data), data


def _calls(sim: dict[str, Any], name: str) -> list[dict[str, Any]]:
    return [c for m in sim["messages"] for c in (m.get("tool_calls") or []) if c["name"] == name]


def test_replay_reproduces_the_stored_rewards(tmp_path: Path) -> None:
    path, data = _few(tmp_path, (2, 3, 4, 6, 9))  # writes of several kinds, passes and fails
    out = regrade_tau2(load_archive(path))
    stored = [s["reward_info"]["reward"] for s in data["simulations"]]
    assert stored == [1.0, 1.0, 0.0, 1.0, 0.0]  # by hand
    t = out["transitions"]
    assert (out["regraded"], t["n11"], t["n00"], t["n01"], t["n10"]) == (5, 3, 2, 0, 0)


def test_a_changed_write_is_a_named_transition(tmp_path: Path) -> None:
    data = copy.deepcopy(raw(GPT_AIRLINE))
    sim = data["simulations"][6]  # task 19: cancel_reservation, stored 1.0
    _calls(sim, "cancel_reservation")[0]["arguments"]["reservation_id"] = "NOSUCH"
    data["simulations"] = [sim]
    out = regrade_tau2(load_archive(write(tmp_path, "changed.json", data)))
    assert out["transitions"]["n10"] == 1
    (row,) = out["changed"]
    assert (row["stored"], row["recomputed"]) == (1.0, 0.0)
    assert row["components"] == {"DB": False, "COMMUNICATE": True}


def test_an_unknown_tool_is_an_invalid_replay_not_a_fail(tmp_path: Path) -> None:
    data = copy.deepcopy(raw(GPT_AIRLINE))
    sim = data["simulations"][6]
    _calls(sim, "cancel_reservation")[0]["name"] = "teleport_passenger"
    data["simulations"] = [sim]
    out = regrade_tau2(load_archive(write(tmp_path, "unknown.json", data)))
    assert out["regraded"] == 0 and out["problems"] == {"invalid replay": 1}
    assert "teleport_passenger" in out["not_regraded"][0]["problem"]


def test_cli_regrades_a_file_of_either_kind(tmp_path: Path) -> None:
    path, _ = _few(tmp_path, (3,))
    runner = CliRunner()
    res = runner.invoke(archive_app, ["regrade", str(path), "--out", str(tmp_path / "o")])
    assert res.exit_code == 0, res.output
    doc = json.loads((tmp_path / "o" / "regrade.json").read_text())
    assert doc["regrade"]["regraded"] == 1 and doc["inputs"][0]["name"] == "few.json"
    res = runner.invoke(archive_app, ["regrade", str(shared(GPT_TELECOM)), "--out",
                                      str(tmp_path / "t")])
    assert res.exit_code == 0 and ("re-graded 40 of 40 simulations, 40 reproduce the stored "
                                   "reward; n01 0, n10 0; wrote") in res.output


def test_arguments_that_are_not_an_object_are_a_named_problem(tmp_path: Path) -> None:
    data = copy.deepcopy(raw(GPT_AIRLINE))
    sim = data["simulations"][6]
    _calls(sim, "cancel_reservation")[0]["arguments"] = ["NOSUCH"]  # hostile: a list
    data["simulations"] = [sim]
    out = regrade_tau2(load_archive(write(tmp_path, "hostile.json", data)))
    assert out["regraded"] == 0 and out["problems"] == {"invalid replay": 1}
    assert "arguments are not an object" in out["not_regraded"][0]["problem"]


def test_an_nl_assertion_basis_is_not_regradable_without_a_judge(tmp_path: Path) -> None:
    data = copy.deepcopy(raw(GPT_AIRLINE))
    sim = data["simulations"][6]
    tid = sim["task_id"]
    (task,) = [t for t in data["tasks"] if t["id"] == tid]
    task["evaluation_criteria"]["reward_basis"] = ["DB", "NL_ASSERTION"]
    data["simulations"] = [sim]
    out = regrade_tau2(load_archive(write(tmp_path, "nl.json", data)))
    assert out["regraded"] == 0
    assert out["problems"] == {"not re-gradable without a judge": 1}
    assert out["not_regraded"][0]["recomputed"] is None


def _with_task(tmp: Path, name: str, edit: Any) -> dict[str, Any]:
    """Re-grade simulation 6 (task 19, stored 1.0) after editing its task definition."""
    data = copy.deepcopy(raw(GPT_AIRLINE))
    sim = data["simulations"][6]
    (task,) = [t for t in data["tasks"] if t["id"] == sim["task_id"]]
    edit(task["evaluation_criteria"])
    data["simulations"] = [sim]
    return regrade_tau2(load_archive(write(tmp, name, data)))


def test_an_action_basis_is_recomputed_from_the_gold_actions(tmp_path: Path) -> None:
    def add_action(crit: dict[str, Any]) -> None:
        crit["reward_basis"] = ["DB", "COMMUNICATE", "ACTION"]
    out = _with_task(tmp_path, "action.json", add_action)
    # every gold action of task 19 was called with its arguments (stored action_match true)
    assert out["reproduced"] == 1 and out["rows"][0]["components"] == {
        "DB": True, "COMMUNICATE": True, "ACTION": True}

    def unmatched(crit: dict[str, Any]) -> None:
        add_action(crit)
        crit["actions"].append({"action_id": "x", "requestor": "assistant",
                                "name": "get_user_details", "arguments": {"user_id": "nobody"}})
    out = _with_task(tmp_path, "unmatched.json", unmatched)
    (row,) = out["changed"]  # a read leaves the database as it was: only ACTION fails
    assert row["components"] == {"DB": True, "COMMUNICATE": True, "ACTION": False}
    assert row["changed_by"] == ["ACTION"] and out["transitions"]["n10"] == 1


def test_an_env_assertion_the_domain_lacks_is_a_named_problem(tmp_path: Path) -> None:
    def assertion(crit: dict[str, Any]) -> None:
        crit["reward_basis"] = ["DB", "ENV_ASSERTION"]
        crit["env_assertions"] = [{"env_type": "assistant", "func_name": "assert_nothing",
                                   "arguments": {}, "assert_value": True}]
    out = _with_task(tmp_path, "env.json", assertion)
    assert out["regraded"] == 0 and out["problems"] == {"invalid replay": 1}
    assert "'assert_nothing' is not a function" in out["not_regraded"][0]["problem"]


def test_initialization_data_is_named_not_regraded(tmp_path: Path) -> None:
    data = copy.deepcopy(raw(GPT_AIRLINE))
    sim = data["simulations"][6]
    (task,) = [t for t in data["tasks"] if t["id"] == sim["task_id"]]
    task["initial_state"] = {"initialization_data": {"agent_data": {"users": {}}}}
    data["simulations"] = [sim]
    out = regrade_tau2(load_archive(write(tmp_path, "init.json", data)))
    assert out["problems"] == {"unsupported here": 1}
    assert "initialization_data" in out["not_regraded"][0]["problem"]


@pytest.mark.parametrize("edit", [
    lambda t: t.update(initial_state="reset everything"),
    lambda t: t["evaluation_criteria"].update(actions=["cancel_reservation"]),
    lambda t: t["evaluation_criteria"]["actions"][0].update(arguments=["NOSUCH"]),
    lambda t: t["evaluation_criteria"]["actions"][0].update(compare_args="reservation_id"),
    lambda t: t["evaluation_criteria"].update(env_assertions=[{"func_name": 7}]),
    lambda t: t["evaluation_criteria"].update(communicate_info="1628"),
    lambda t: t["evaluation_criteria"].update(reward_basis="DB"),
])
def test_a_hostile_task_definition_is_named_never_replayed(tmp_path: Path, edit: Any) -> None:
    data = copy.deepcopy(raw(GPT_AIRLINE))
    sim = data["simulations"][6]
    (task,) = [t for t in data["tasks"] if t["id"] == sim["task_id"]]
    edit(task)
    data["simulations"] = [sim]
    out = regrade_tau2(load_archive(write(tmp_path, "hostile-task.json", data)))
    assert out["regraded"] == 0 and out["problems"] == {"malformed task definition": 1}
    assert out["action_checks"]["compared"] == 0


def _retail_sim(task: dict[str, Any], calls: bool, text: str, reward: float) -> dict[str, Any]:
    gold = task["evaluation_criteria"]["actions"] if calls else []
    return {"id": f"retail-{task['id']}", "task_id": task["id"], "trial": 0,
            "termination_reason": "user_stop", "agent_cost": 0.01, "user_cost": 0.01,
            "messages": [{"role": "assistant", "content": text, "tool_calls": [
                {"id": f"c{i}", "name": a["name"], "arguments": a["arguments"],
                 "requestor": "assistant"} for i, a in enumerate(gold)] or None}],
            "reward_info": {"reward": reward, "reward_basis": ["DB", "COMMUNICATE"],
                            "reward_breakdown": {"DB": reward, "COMMUNICATE": 1.0}}}


def test_retail_replays_on_the_shipped_retail_database(tmp_path: Path) -> None:
    from agentmetrology.archive.importers.tau2_domain import load_domain
    shipped = load_domain("retail")
    assert shipped is not None
    two, five = copy.deepcopy(shipped.tasks["2"]), copy.deepcopy(shipped.tasks["5"])
    assert two["evaluation_criteria"]["communicate_info"] == ["10"]
    data = copy.deepcopy(raw(GPT_AIRLINE))
    data["info"]["environment_info"]["domain_name"] = "retail"
    data["tasks"] = [two, five]
    # task 2 done as the gold actions do it and "10" said; task 5 (a return) never done
    data["simulations"] = [_retail_sim(two, True, "You will get 10 items back.", 1.0),
                           _retail_sim(five, False, "Goodbye.", 0.0)]
    out = regrade_tau2(load_archive(write(tmp_path, "retail.json", data)))
    assert out["domain"] == "retail" and (out["regraded"], out["reproduced"]) == (2, 2)
    assert [r["components"] for r in out["rows"]] == [
        {"DB": True, "COMMUNICATE": True}, {"DB": False, "COMMUNICATE": True}]


def test_an_argument_the_tool_does_not_accept_is_an_invalid_replay(tmp_path: Path) -> None:
    data = copy.deepcopy(raw(GPT_AIRLINE))
    sim = data["simulations"][6]
    call = _calls(sim, "cancel_reservation")[0]
    call["arguments"] = {"reservation": call["arguments"]["reservation_id"]}  # misnamed
    data["simulations"] = [sim]
    out = regrade_tau2(load_archive(write(tmp_path, "argerror.json", data)))
    assert out["regraded"] == 0 and out["problems"] == {"invalid replay": 1}
    assert out["not_regraded"][0]["problem"] == (
        "invalid replay: cancel_reservation: argument error (TypeError)")


def test_ungraded_simulations_are_listed_never_replayed(tmp_path: Path) -> None:
    from agentmetrology.archive.tau2_leaderboard import leaderboard
    data = copy.deepcopy(raw(GPT_AIRLINE))
    data["simulations"] = [data["simulations"][i] for i in (3, 4, 6)]  # stored 1, 0, 1
    data["simulations"][0]["termination_reason"] = "infrastructure_error"  # reward kept: 1
    data["simulations"][1]["reward_info"] = None
    path = write(tmp_path, "ungraded.json", data)
    out = regrade_tau2(load_archive(path))
    assert (out["simulations"], out["regraded"], out["reproduced"]) == (3, 1, 1)
    assert out["problems"] == {"ungraded": 2}
    assert [r["problem"].split(" (")[0] for r in out["not_regraded"]] == [
        "ungraded: infra_error", "ungraded: grader_never_ran"]
    # the re-graded pass^1 counts them as the stored one does: 1 pass of 20 planned
    (row,) = leaderboard([path], regrade=True)["domains"]["airline"]["rows"]
    assert row["regraded"] == row["recomputed"] == 1 / 20
