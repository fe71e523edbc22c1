"""Re-grading telecom simulations: agent and user calls replayed on inspect-evals' telecom world.

The shared gpt-4.1 telecom file's rewards rest on ENV_ASSERTION (28 tasks) or ENV_ASSERTION +
ACTION (12); its simulations record the simulated user's phone calls (`requestor: user`) beside
the agent's, so both sides replay.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentmetrology.archive import load_archive
from agentmetrology.archive.tau2_regrade import regrade_doc, regrade_tau2
from agentmetrology.cli.archive_cmd import archive_app
from agentmetrology.report.tau2_regrade_report import render_tau2_regrade
from archive.tau2_files import GPT_TELECOM, raw, shared, write

pytest.importorskip("inspect_evals", reason="needs the `inspect` extra (inspect-evals)")


def _one_sim(tmp: Path, index: int, name: str,
             edit_sim: Any = None, edit_task: Any = None) -> dict[str, Any]:
    data = copy.deepcopy(raw(GPT_TELECOM))
    sim = data["simulations"][index]
    (task,) = [t for t in data["tasks"] if t["id"] == sim["task_id"]]
    if edit_sim:
        edit_sim(sim)
    if edit_task:
        edit_task(task)
    data["simulations"] = [sim]
    return regrade_tau2(load_archive(write(tmp, name, data)))


def _drop_calls(sim: dict[str, Any], name: str) -> None:
    for m in sim["messages"]:
        m["tool_calls"] = [c for c in m.get("tool_calls") or [] if c["name"] != name] or None


def test_the_whole_file_replays_and_reproduces_every_stored_reward() -> None:
    data = raw(GPT_TELECOM)
    out = regrade_tau2(load_archive(shared(GPT_TELECOM)))
    passes = sum(s["reward_info"]["reward"] == 1.0 for s in data["simulations"])
    assert passes == 18  # the README: 18 of 40
    t = out["transitions"]
    assert (out["simulations"], out["regraded"], out["reproduced"]) == (40, 40, 40)
    assert (t["n11"], t["n00"], t["n01"], t["n10"]) == (18, 22, 0, 0)
    assert out["problems"] == {} and out["changed"] == []
    bases = sorted(tuple(sorted(r["components"])) for r in out["rows"])
    assert bases.count(("ENV_ASSERTION",)) == 28
    assert bases.count(("ACTION", "ENV_ASSERTION")) == 12
    # every gold action (121 the user's, 41 the agent's) replays to its stored action_match
    gold = sum(len(s["reward_info"]["action_checks"]) for s in data["simulations"])
    assert gold == 162
    assert (out["action_checks"]["compared"], out["action_checks"]["disagree"]) == (162, 0)
    assert out["component_checks"] == {"compared": 28 + 12 * 2, "agree": 52}


def test_a_user_call_left_out_fails_the_env_assertion(tmp_path: Path) -> None:
    # simulation 0: data saver on; the user's toggle_data_saver_mode fixed it (stored 1.0)
    out = _one_sim(tmp_path, 0, "env.json",
                   edit_sim=lambda s: _drop_calls(s, "toggle_data_saver_mode"))
    (row,) = out["changed"]
    assert (row["stored"], row["recomputed"]) == (1.0, 0.0)
    assert row["components"] == {"ENV_ASSERTION": False}
    assert row["changed_by"] == ["ENV_ASSERTION"] and out["changed_by"] == {"ENV_ASSERTION": 1}


def test_the_report_names_the_transition_and_its_component(tmp_path: Path) -> None:
    data = copy.deepcopy(raw(GPT_TELECOM))
    data["simulations"] = data["simulations"][:1]
    _drop_calls(data["simulations"][0], "toggle_data_saver_mode")
    doc = regrade_doc(load_archive(write(tmp_path, "r.json", data)), [])
    md = render_tau2_regrade(doc)
    assert "1 of 1 simulations re-graded" in md and "n10 (pass to fail) 1" in md
    assert "| 1.000 | 0.000 | `{'ENV_ASSERTION': False}` | ENV_ASSERTION |" in md
    data["simulations"].append(copy.deepcopy(data["simulations"][0]))
    data["simulations"][1]["trial"] = 1
    for sim in data["simulations"]:
        sim["messages"][0]["tool_calls"] = [{"id": "x", "name": "fly", "arguments": {},
                                             "requestor": "user"}]
    res = CliRunner().invoke(archive_app, ["regrade", str(write(tmp_path, "c.json", data)),
                                           "--out", str(tmp_path / "o")])
    assert res.exit_code == 0, res.output
    assert "re-graded 0 of 2 simulations, 0 reproduce the stored reward" in res.output
    assert "not re-graded: invalid replay 2" in res.output


def test_the_cli_names_the_component_of_a_transition(tmp_path: Path) -> None:
    data = copy.deepcopy(raw(GPT_TELECOM))
    data["simulations"] = data["simulations"][:1]
    _drop_calls(data["simulations"][0], "toggle_data_saver_mode")
    res = CliRunner().invoke(archive_app, ["regrade", str(write(tmp_path, "c.json", data)),
                                           "--out", str(tmp_path / "o")])
    assert res.exit_code == 0, res.output
    assert ("re-graded 1 of 1 simulations, 0 reproduce the stored reward; n01 0, n10 1 "
            "(changed by ENV_ASSERTION 1); wrote") in res.output


def test_a_gold_action_never_called_fails_the_action_component(tmp_path: Path) -> None:
    # simulation 7: basis ENV_ASSERTION + ACTION; the gold action is the agent's transfer
    out = _one_sim(tmp_path, 7, "action.json",
                   edit_sim=lambda s: _drop_calls(s, "transfer_to_human_agents"))
    (row,) = out["changed"]
    assert (row["stored"], row["recomputed"]) == (1.0, 0.0)
    assert row["components"] == {"ENV_ASSERTION": True, "ACTION": False}
    assert row["changed_by"] == ["ACTION"]


def test_an_unknown_user_tool_is_an_invalid_replay(tmp_path: Path) -> None:
    def rename(sim: dict[str, Any]) -> None:
        calls = [c for m in sim["messages"] for c in m.get("tool_calls") or []
                 if c["requestor"] == "user"]
        calls[0]["name"] = "teleport_phone"
    out = _one_sim(tmp_path, 0, "unknown.json", edit_sim=rename)
    assert out["regraded"] == 0 and out["problems"] == {"invalid replay": 1}
    assert "'teleport_phone' for the user in telecom" in out["not_regraded"][0]["problem"]


def test_a_db_basis_in_telecom_is_named_not_regraded(tmp_path: Path) -> None:
    def db(task: dict[str, Any]) -> None:
        task["evaluation_criteria"]["reward_basis"] = ["DB", "ENV_ASSERTION"]
    out = _one_sim(tmp_path, 0, "db.json", edit_task=db)
    assert out["regraded"] == 0 and out["problems"] == {"unsupported here": 1}
    assert "telecom's DB check" in out["not_regraded"][0]["problem"]
