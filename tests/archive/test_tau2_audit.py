"""The tau2 section of an archive audit: every number checked against a by-hand recomputation.

The do-nothing evaluator is replaced here by a stated verdict per task (the real evaluator runs
in test_tau2_do_nothing.py); everything else is the audit as `agm archive audit` runs it.
"""

from __future__ import annotations

import copy
import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from agentmetrology.archive import audit_archive, load_archive
from archive import tau2_files as F
from archive.tau2_files import raw, shared, two_trials, write


def _no_verdicts(domain: str, defs: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t: {"passed": None, "decided_by": "not probed: test"} for t in defs}


def _section(path: Path, claim: tuple[str, dict[str, Any]] | None = None,
             evaluator: Any = _no_verdicts) -> dict[str, Any]:
    doc = audit_archive(load_archive(path), claim=claim, evaluator=evaluator)
    section: dict[str, Any] = doc["tau2"]
    return section


def test_gpt_airline_costs_apart_and_messages_sum_to_totals() -> None:
    sims = raw(F.GPT_AIRLINE)["simulations"]
    agent = math.fsum(s["agent_cost"] for s in sims)
    user = math.fsum(s["user_cost"] for s in sims)
    msgs = math.fsum(m["cost"] for s in sims for m in s["messages"] if m["role"] == "assistant")
    assert (round(agent, 4), round(user, 4), round(msgs, 4)) == (0.7833, 0.2279, 0.7833)
    c = _section(shared(F.GPT_AIRLINE))["cost"]
    assert c["agent"]["total"] == pytest.approx(agent, abs=1e-12)
    assert c["agent"]["messages_total"] == pytest.approx(msgs, abs=1e-12)
    assert c["user_simulator"]["total"] == pytest.approx(user, abs=1e-12)
    assert c["agent"]["disagreeing_simulations"] == 0
    assert c["user_simulator"]["disagreeing_simulations"] == 0
    assert not c["unpriced"]
    assert c["agent_per_pass"] == pytest.approx(agent / 10)
    assert c["user_share"] == pytest.approx(user / (agent + user))


def test_qwen_cost_is_unpriced_not_free() -> None:
    sims = raw(F.QWEN_AIRLINE)["simulations"]
    assert {s["agent_cost"] for s in sims} == {0.0}
    t = _section(shared(F.QWEN_AIRLINE))
    c = t["cost"]
    assert c["unpriced"] and c["unpriced_simulations"] == 50
    assert c["agent_per_pass"] is None and c["agent_per_simulation"] is None
    assert {"code": "unpriced_cost", "reason": c["unpriced_reason"]} in t["headlines"]
    assert c["user_simulator"]["total"] == pytest.approx(math.fsum(s["user_cost"] for s in sims))



def test_some_simulations_at_cost_0_for_tokens_used_are_unpriced_not_free(tmp_path: Path) -> None:
    # Before, 5 of 20 gpt-4.1 simulations recording cost 0 for the tokens their messages used
    # were summed as free: agent cost per simulation 0.5854 / 20 = 0.02927, a quarter low.
    data = copy.deepcopy(raw(F.GPT_AIRLINE))
    for sim in data["simulations"][:5]:
        sim["agent_cost"] = 0.0
        for m in sim["messages"]:
            if m["role"] == "assistant":
                m["cost"] = 0.0
    data["simulations"][7]["user_cost"] = 0.0
    for m in data["simulations"][7]["messages"]:
        if m["role"] == "user":
            m["cost"] = 0.0
    t = _section(write(tmp_path, "zero.json", data))
    c = t["cost"]
    assert (c["agent"]["unpriced"], c["user_simulator"]["unpriced"]) == (5, 1)
    assert c["unpriced"] and c["unpriced_simulations"] == 5
    assert c["unpriced_reason"] == ("cost 0 with recorded token usage in 5 of 20 simulations: "
                                    "no price was applied there")
    assert (c["agent_per_simulation"], c["agent_per_pass"], c["total_per_pass"],
            c["user_share"]) == (None, None, None, None)
    assert {"code": "unpriced_cost", "reason": c["unpriced_reason"]} in t["headlines"]
    # the user simulator's side alone: the agent's averages stand, the simulator's share not
    data = copy.deepcopy(raw(F.GPT_AIRLINE))
    data["simulations"][7]["user_cost"] = 0.0
    c = _section(write(tmp_path, "user.json", data))["cost"]
    assert not c["unpriced"] and c["user_simulator"]["unpriced"] == 1
    agent = math.fsum(s["agent_cost"] for s in data["simulations"])
    assert c["agent_per_simulation"] == pytest.approx(agent / 20)
    assert (c["user_share"], c["total_per_pass"], c["total_per_simulation"]) == (None, None,
                                                                                 None)

def test_a_message_cost_disagreeing_with_its_total_is_a_finding(tmp_path: Path) -> None:
    data = copy.deepcopy(raw(F.GPT_AIRLINE))
    data["simulations"][3]["agent_cost"] += 0.01
    c = _section(write(tmp_path, "off.json", data))["cost"]
    assert c["agent"]["disagreeing_simulations"] == 1
    assert c["agent"]["disagreements"][0]["episode_id"].endswith(
        f"/{data['simulations'][3]['task_id']}/0")


def test_qwen_termination_table_keeps_agent_failures_apart() -> None:
    rows = {r["termination"]: r for r in _section(shared(F.QWEN_AIRLINE))["terminations"]}
    assert set(rows) == {"user_stop", "agent_error", "too_many_errors"}
    assert (rows["agent_error"]["simulations"], rows["agent_error"]["reward_by_rule"]) == (9, 9)
    assert rows["too_many_errors"]["ended_by"] == "harness (error cap)"
    assert rows["user_stop"]["ended_by"] == "user simulator"
    assert (rows["user_stop"]["pass"], rows["user_stop"]["fail"]) == (9, 31)


def test_telecom_reward_basis_and_deciding_components() -> None:
    tasks = raw(F.GPT_TELECOM)["tasks"]
    hand = Counter("+".join(sorted(t["evaluation_criteria"]["reward_basis"])) for t in tasks)
    assert hand == {"ENV_ASSERTION": 28, "ACTION+ENV_ASSERTION": 12}
    r = _section(shared(F.GPT_TELECOM))["reward"]
    assert {b["basis"]: b["tasks"] for b in r["basis"]} == dict(hand)
    sims = raw(F.GPT_TELECOM)["simulations"]
    hand_fail = Counter("+".join(sorted(k for k, v in s["reward_info"]["reward_breakdown"].items()
                                        if v < 1))
                        for s in sims if s["reward_info"]["reward"] < 1)
    got = {d["decided_by"]: d["episodes"] for d in r["decided_by"] if d["outcome"] == "fail"}
    assert got == dict(hand_fail)


def test_action_checks_disagreeing_with_the_reward_are_counted() -> None:
    sims = raw(F.GPT_AIRLINE)["simulations"]
    checked = [s for s in sims if s["reward_info"]["action_checks"]]
    unmatched_pass = sum(1 for s in checked if s["reward_info"]["reward"] == 1
                         and not all(c["action_match"] for c in s["reward_info"]["action_checks"]))
    matched_fail = sum(1 for s in checked if s["reward_info"]["reward"] == 0
                       and all(c["action_match"] for c in s["reward_info"]["action_checks"]))
    a = _section(shared(F.GPT_AIRLINE))["reward"]["action_checks"]
    assert a["with_action_checks"] == len(checked)
    assert a["pass_with_unmatched_actions_action_not_in_basis"] == unmatched_pass
    assert a["fail_with_all_actions_matched_action_not_in_basis"] == matched_fail
    assert a["pass_with_unmatched_actions_action_in_basis"] == 0  # ACTION is in no basis here


def test_share_of_rewards_resting_on_an_nl_assertion(tmp_path: Path) -> None:
    data = copy.deepcopy(raw(F.GPT_AIRLINE))
    for task in data["tasks"][:3]:
        task["evaluation_criteria"]["reward_basis"].append("NL_ASSERTION")
    nl = _section(write(tmp_path, "nl.json", data))["reward"]["nl_assertions"]
    assert (nl["resting_on_nl_assertion"], nl["graded"]) == (3, 20)
    assert nl["share"] == pytest.approx(3 / 20)
    plain = _section(shared(F.GPT_AIRLINE))["reward"]["nl_assertions"]
    assert plain["share"] == 0.0 and plain["judged_outside_basis"] == 20


def test_do_nothing_share_and_first_screen_headline() -> None:
    sims = raw(F.QWEN_AIRLINE)["simulations"]
    passed = {s["task_id"] for s in sims if s["reward_info"]["reward"] == 1.0}
    passable = passed | {"2", "3"}  # a stated verdict: every pass plus two failures

    def verdicts(domain: str, defs: dict[str, Any]) -> dict[str, dict[str, Any]]:
        assert domain == "airline" and len(defs) == 50
        return {t: {"passed": t in passable, "decided_by": "stated"} for t in defs}

    t = _section(shared(F.QWEN_AIRLINE), evaluator=verdicts)
    dn = t["do_nothing"]
    assert dn["passable"] == {"tasks": 11, "episodes": 11, "graded": 11, "passes": 9}
    assert dn["not_passable"]["passes"] == 0 and dn["pass_rate_where_doing_nothing_fails"] == 0
    assert dn["all_passes_on_passable"]
    assert t["headlines"][0] == {"code": "all_passes_do_nothing_passable", "passes": 9,
                                 "passable_tasks": 11}


def test_gpt_airline_passes_do_not_all_rest_on_do_nothing_tasks() -> None:
    def verdicts(domain: str, defs: dict[str, Any]) -> dict[str, dict[str, Any]]:
        return {t: {"passed": t in ("6", "13"), "decided_by": "stated"} for t in defs}

    dn = _section(shared(F.GPT_AIRLINE), evaluator=verdicts)["do_nothing"]
    sims = {s["task_id"]: s["reward_info"]["reward"] for s in raw(F.GPT_AIRLINE)["simulations"]}
    rest = [r for t, r in sims.items() if t not in ("6", "13")]
    assert dn["pass_rate_where_doing_nothing_fails"] == pytest.approx(sum(rest) / len(rest))
    assert not dn["all_passes_on_passable"]


def test_ungraded_episodes_give_bounds_and_three_denominators(tmp_path: Path) -> None:
    data = copy.deepcopy(raw(F.GPT_AIRLINE))
    for s in [s for s in data["simulations"] if s["reward_info"]["reward"] == 0][:4]:
        s["termination_reason"], s["reward_info"] = "infrastructure_error", None
    dropped = next(s for s in data["simulations"] if s["reward_info"])
    data["simulations"].remove(dropped)  # one task never runs
    t = _section(write(tmp_path, "infra.json", data))
    passes = sum(1 for s in data["simulations"] if s["reward_info"]
                 and s["reward_info"]["reward"] == 1)
    present, graded = 19, 15  # by hand: 20 tasks, one dropped, four without a reward
    assert t["denominators"]["planned"] == 20
    assert (t["denominators"]["simulations_present"], t["denominators"]["graded"]) == (
        present, graded)
    assert t["never_ran"] == {"planned_entries_absent": 1, "tasks_never_run": 1,
                              "tasks": [dropped["task_id"]], "tasks_listed": 1}
    assert t["bounds"]["lower"] == pytest.approx(passes / 20)
    assert t["bounds"]["upper"] == pytest.approx(passes / 20 + (20 - graded) / 20)
    assert t["pass_1"]["graded"] == pytest.approx(passes / graded)
    assert t["reasons"] == {"infra_error": 4, "never_ran": 1}
    assert {"code": "ungraded", "episodes": 5} in t["headlines"]


def test_custom_top_level_claim_agrees_or_is_a_finding(tmp_path: Path) -> None:
    sims = raw(F.GPT_AIRLINE)["simulations"]
    ok = write(tmp_path, "ok.json", {"pass_rate": 0.5, "passed": 10, "total_tasks": 20,
                                     "domain": "airline", "simulations": sims})
    rep = _section(ok)["reported"]
    assert rep["applicable"] and rep["findings"] == 0
    assert rep["rows"][0]["agrees_with"] == ["planned", "simulations_present", "graded"]
    bad = write(tmp_path, "bad.json", {"pass_rate": 0.55, "passed": 11, "total_tasks": 20,
                                       "domain": "airline", "simulations": sims})
    t = _section(bad)
    rep = t["reported"]
    assert rep["findings"] == 2 and rep["passed"] == {"reported": 11, "recomputed": 10,
                                                      "finding": True}
    assert rep["rows"][0]["reported"] == 0.55 and rep["rows"][0]["recomputed"]["planned"] == 0.5
    assert {"code": "reported_disagrees", "findings": 2} in t["headlines"]


@pytest.mark.parametrize("bad", [None, -5.0, "0.02", 1e308])
def test_a_simulation_without_a_usable_cost_is_unknown_not_free(tmp_path: Path,
                                                                 bad: Any) -> None:
    # Before, the other 19 costs were summed and divided by 20 simulations (and by the
    # passes), reading the missing one as 0; a negative cost was summed (total -4.24, a
    # negative cost per pass); a claim was then compared with that understated average.
    # 1e308 was taken as a known cost (a user share of 2e-309; two of them overflowed the sum).
    from agentmetrology.report.archive_report import render_archive_report

    data = copy.deepcopy(raw(F.GPT_AIRLINE))
    data["simulations"][0]["agent_cost"] = bad
    others = math.fsum(s["agent_cost"] for s in data["simulations"][1:])
    path = write(tmp_path, "gap-airline.json", data)
    doc = audit_archive(load_archive(path), evaluator=_no_verdicts,
                        claim=("submission.json", {"results": {"airline": {"cost": 0.04}}}))
    c = doc["tau2"]["cost"]
    assert c["agent"]["missing"] == 1 and c["agent"]["total"] == pytest.approx(others)
    assert not c["unpriced"]
    for key in ("agent_per_simulation", "total_per_simulation", "agent_per_pass",
                "total_per_pass", "user_share"):
        assert c[key] is None, key
    claim = doc["tau2"]["reported"]["cost"]
    assert not claim["comparable"] and not claim["finding"]
    assert "Simulations with no usable cost recorded: 1 agent, 0 user simulator" in (
        render_archive_report(doc)[0])


def test_a_missing_cost_leaves_its_messages_out_of_the_sum_it_is_checked_against(
        tmp_path: Path) -> None:
    # Before, the recorded total left simulation 0 out (agent_cost -5) and the message sum
    # kept it: 0.7558 against 0.7833 with 0 simulations disagreeing, and the first screen said
    # "the cost is priced".
    from agentmetrology.report.archive_report import render_archive_report

    data = copy.deepcopy(raw(F.GPT_AIRLINE))
    data["simulations"][0]["agent_cost"] = -5.0
    rest = data["simulations"][1:]
    doc = audit_archive(load_archive(write(tmp_path, "neg-airline.json", data)),
                        evaluator=_no_verdicts)
    agent = doc["tau2"]["cost"]["agent"]
    msgs = math.fsum(m["cost"] for s in rest for m in s["messages"] if m["role"] == "assistant")
    assert agent["summed"] == 19 and agent["missing"] == 1
    assert agent["total"] == pytest.approx(math.fsum(s["agent_cost"] for s in rest), abs=1e-12)
    assert agent["messages_total"] == pytest.approx(msgs, abs=1e-12)
    assert agent["disagreeing_simulations"] == 0
    md = render_archive_report(doc)[0]
    assert "| agent | 19 | 0.7558 | 0.7558 | 0 |" in md
    assert "the cost is priced" not in md
    assert "some simulations record no usable cost" in md


def test_a_malformed_simulation_is_a_cost_unknown_not_a_smaller_run(tmp_path: Path) -> None:
    # Before, a simulation kept ungraded as malformed (a key named twice) was left out of the
    # cost section altogether: 19 costs over 19 simulations, 0.03978 a simulation, read as the
    # 20-simulation run's average with nothing said.
    from agentmetrology.report.archive_report import render_archive_report

    text = json.dumps(raw(F.GPT_AIRLINE)).replace('"reward": 1.0,',
                                                  '"reward": 1.0, "reward": 0.0,', 1)
    path = tmp_path / "dup-airline.json"
    path.write_text(text, encoding="utf-8")
    doc = audit_archive(load_archive(path), evaluator=_no_verdicts)
    assert doc["coverage"]["overall"]["reasons"] == {"malformed_record": 1}
    c = doc["tau2"]["cost"]
    assert c["simulations"] == 20
    for side in ("agent", "user_simulator"):
        assert c[side]["missing"] == 1 and c[side]["summed"] == 19
    for key in ("agent_per_simulation", "total_per_simulation", "agent_per_pass",
                "total_per_pass", "user_share"):
        assert c[key] is None, key
    md = render_archive_report(doc)[0]
    assert "of the 20 simulations audited" in md and "(over" not in md


def test_cost_averages_name_their_denominators() -> None:
    from agentmetrology.report.archive_report import render_archive_report

    doc = audit_archive(load_archive(shared(F.GPT_AIRLINE)), evaluator=_no_verdicts)
    md = render_archive_report(doc)[0]
    assert ("Agent cost per pass 0.07833 (over 10 passes); agent and simulator per pass "
            "0.1011; agent cost per simulation 0.03916 (over 20 simulations)") in md


def test_submission_claim_percentages_cost_and_the_denominator_that_explains_it(
        tmp_path: Path) -> None:
    data = copy.deepcopy(raw(F.GPT_AIRLINE))
    for s in [s for s in data["simulations"] if s["reward_info"]["reward"] == 0][:4]:
        s["reward_info"] = None  # 16 graded, 10 passes: 62.5% over graded, 50% over planned
    path = write(tmp_path, "sub-airline.json", data)
    agent = math.fsum(s["agent_cost"] for s in data["simulations"]) / 20
    claim = {"results": {"airline": {"pass_1": 62.5, "cost": agent}}}
    rep = _section(path, claim=("submission.json", claim))["reported"]
    row = rep["rows"][0]
    assert row["reported"] == 0.625 and row["finding"]
    assert row["agrees_with"] == ["graded"] and row["denominators"]["graded"] == 16
    # the pass fraction the 4 ungraded episodes would need to reach the claim: (20/4)(0.625-0.5)
    assert row["unresolved_pass_fraction_to_reach"] == pytest.approx(0.625)
    assert rep["cost"]["agrees_with"] == ["agent"] and not rep["cost"]["finding"]
    assert "error" not in rep and rep["findings"] == 1


def test_costs_beyond_any_run_are_unknown_never_an_overflow(tmp_path: Path) -> None:
    # Before, every simulation's agent_cost 1e308 raised OverflowError out of the audit (a
    # traceback), and one message cost 1e308 made the file "cannot be read".
    data = copy.deepcopy(raw(F.GPT_AIRLINE))
    for s in data["simulations"]:
        s["agent_cost"] = 1e308
    for m in data["simulations"][1]["messages"]:
        m["cost"] = 1e308
    c = _section(write(tmp_path, "huge-airline.json", data))["cost"]
    assert c["agent"]["missing"] == 20 and c["agent"]["total"] is None
    assert c["agent_per_simulation"] is None and c["user_share"] is None
    # simulation 1's messages carry no usable cost: its user side disagrees with its total
    users = [m["cost"] for i, s in enumerate(data["simulations"]) if i != 1
             for m in s["messages"] if m["role"] == "user"]
    assert c["user_simulator"]["missing"] == 0
    assert c["user_simulator"]["messages_total"] == pytest.approx(math.fsum(users))
    assert c["user_simulator"]["disagreeing_simulations"] == 1


@pytest.mark.parametrize(("written", "passes", "planned", "finding"), [
    (13.6, 3, 22, False), (13.7, 3, 22, True), (14.0, 7, 50, False), (14.1, 7, 50, True)])
def test_a_percent_claim_keeps_the_rounding_of_its_written_decimal(
        tmp_path: Path, written: float, passes: int, planned: int, finding: bool) -> None:
    # 13.6 / 100 * 100 is 13.600000000000001: the tolerance was taken from that, 5e-17, so a
    # claim rounded to one decimal (3 of 22 = 13.64%) was a finding; it is half of 0.1 point.
    data = copy.deepcopy(raw(F.QWEN_AIRLINE))
    data["tasks"], data["simulations"] = data["tasks"][:planned], data["simulations"][:planned]
    for i, s in enumerate(data["simulations"]):
        s["task_id"], s["reward_info"]["reward"] = data["tasks"][i]["id"], float(i < passes)
    from agentmetrology.report.archive_report import render_archive_report

    path = write(tmp_path, "claim-airline.json", data)
    for claim in ({"results": {"airline": {"pass_1": written}}}, {"pass_rate": written}):
        doc = audit_archive(load_archive(path), claim=("submission.json", claim),
                            evaluator=_no_verdicts)
        row = doc["tau2"]["reported"]["rows"][0]
        assert row["recomputed"]["planned"] == pytest.approx(passes / planned)
        assert row["tolerance"] == pytest.approx(0.0005) and row["finding"] is finding
        # the report shows the rounding as it is (at 3 decimals 0.0005 read 0.001)
        assert f"| pass^1 | {written / 100:g} | {passes / planned:.3f} | 0.0005 |" in (
            render_archive_report(doc)[0])


@pytest.mark.parametrize(("written", "tolerance", "finding"), [
    (14, 0.005, False), (14.0, 0.0005, True), (13.6, 0.0005, False), (15, 0.005, True)])
def test_an_integer_claim_is_rounded_to_the_unit(tmp_path: Path, written: float,
                                                 tolerance: float, finding: bool) -> None:
    # Before, a claim written `14` (3 of 22 = 13.64%, rounded to the unit) was read as 14.0
    # and given 0.05 points of rounding: a finding; written as an integer it is half a point.
    data = copy.deepcopy(raw(F.QWEN_AIRLINE))
    data["tasks"], data["simulations"] = data["tasks"][:22], data["simulations"][:22]
    for i, s in enumerate(data["simulations"]):
        s["task_id"], s["reward_info"]["reward"] = data["tasks"][i]["id"], float(i < 3)
    path = write(tmp_path, "claim-airline.json", data)
    for claim in ({"results": {"airline": {"pass_1": written}}}, {"pass_rate": written}):
        doc = audit_archive(load_archive(path), claim=("submission.json", claim),
                            evaluator=_no_verdicts)
        (row,) = doc["tau2"]["reported"]["rows"]
        assert (row["reported"], row["tolerance"], row["finding"]) == (
            pytest.approx(written / 100), pytest.approx(tolerance), finding)

def test_a_simulation_of_a_task_outside_the_task_set_is_named(tmp_path: Path) -> None:
    # Before, its episode joined the planned count (21 for the file's 20 tasks) while the
    # report said "Planned = the file's tasks x 1 trial(s)", naming it nowhere.
    from agentmetrology.report.archive_report import render_archive_report

    data = copy.deepcopy(raw(F.GPT_AIRLINE))
    data["simulations"][0]["task_id"] = "zzz"
    doc = audit_archive(load_archive(write(tmp_path, "foreign-airline.json", data)),
                        evaluator=_no_verdicts)
    t = doc["tau2"]
    assert t["denominators"]["planned"] == 21 and t["file"]["ran_not_in_domain"] == ["zzz"]
    assert ("Tasks ran that the task set does not hold (`zzz`): their simulations are counted "
            "in the planned episodes beside it.") in render_archive_report(doc)[0]


def test_a_claimed_number_that_is_no_number_is_said_never_agreed_with(tmp_path: Path) -> None:
    # Before, {"pass_1": "55.0"} gave "applicable, 0 findings" and an empty table: a claim
    # that could not be read read as one that agrees; a top level's "55" vanished alike.
    from agentmetrology.report.archive_report import render_archive_report

    claim = {"results": {"airline": {"pass_1": "55.0", "cost": "0.5"}}}
    rep = _section(shared(F.GPT_AIRLINE), claim=("submission.json", claim))["reported"]
    assert not rep["applicable"] and rep["reason"] == (
        'no reported number could be read (results.airline.pass_1: "55.0"; '
        'results.airline.cost: "0.5")')
    sims = raw(F.GPT_AIRLINE)["simulations"]
    path = write(tmp_path, "top-airline.json", {"pass_rate": "55", "passed": 10.5,
                                                "total_tasks": 20, "domain": "airline",
                                                "simulations": sims})
    doc = audit_archive(load_archive(path), evaluator=_no_verdicts)
    rep = doc["tau2"]["reported"]
    assert rep["applicable"] and rep["rows"] == [] and rep["findings"] == 0
    assert rep["unreadable"] == ['pass_rate: "55"', "passed: 10.5"]
    assert ("Claimed but not readable as numbers of their kind, so not compared: "
            '`pass_rate: "55"`, `passed: 10.5`.') in render_archive_report(doc)[0]


@pytest.mark.parametrize(("pass_1", "cost"), [(-5, -1), (250.0, 1e300), (101, -0.0001)])
def test_a_rate_or_cost_out_of_its_range_is_unreadable_not_a_disagreement(
        pass_1: float, cost: float) -> None:
    # Before, a claimed pass^1 of -5 (%) was compared as -0.05 and a cost of -1 as a cost:
    # two "findings" of disagreement with a claim that is no rate and no cost at all.
    claim = {"results": {"airline": {"pass_1": pass_1, "cost": cost}}}
    rep = _section(shared(F.GPT_AIRLINE), claim=("submission.json", claim))["reported"]
    assert not rep["applicable"] and rep["reason"] == (
        f"no reported number could be read (results.airline.pass_1: {json.dumps(pass_1)}; "
        f"results.airline.cost: {json.dumps(cost)})")
    top = {"pass_rate": -0.5, "passed": 10, "total_tasks": 20}
    rep = _section(shared(F.GPT_AIRLINE), claim=("--reported x.json", top))["reported"]
    assert rep["unreadable"] == ["pass_rate: -0.5"] and rep["rows"] == []


def test_submission_without_the_domain_is_not_applicable(tmp_path: Path) -> None:
    claim = ("submission.json", {"results": {"retail": {"pass_1": 50.0}}})
    rep = _section(shared(F.GPT_AIRLINE), claim=claim)["reported"]
    assert not rep["applicable"] and "airline" in rep["reason"]


def test_pass_k_with_several_trials_matches_by_hand(tmp_path: Path) -> None:
    data, second = two_trials(F.GPT_AIRLINE, 2)
    for s in second[:6]:  # flip six rewards in the second trial
        s["reward_info"]["reward"] = 1.0 - s["reward_info"]["reward"]
    per_task: dict[str, list[float]] = {}
    for s in data["simulations"]:
        per_task.setdefault(s["task_id"], []).append(s["reward_info"]["reward"])
    pass1 = sum(sum(v) for v in per_task.values()) / 40
    pass2 = sum(1 for v in per_task.values() if v == [1.0, 1.0]) / 20
    assert (pass1, pass2) == (0.45, 0.3)  # four passes lost, two gained, six tasks pass twice
    path = write(tmp_path, "two.json", data)
    claim = {"results": {"airline": {"pass_1": 45.0, "pass_2": 30.0, "pass_3": 20.0}}}
    t = _section(path, claim=("submission.json", claim))
    assert t["pass_k"] == pytest.approx([pass1, pass2])
    rows = t["reported"]["rows"]
    assert [r["finding"] for r in rows] == [False, False, True]  # pass^3 needs three trials
    assert rows[2]["unsupported"] == ("the file's simulations give no pass^3 (no task has 3 "
                                      "trials), so the claim rests on runs the file does not "
                                      "hold")
    assert t["reported"]["unsupported"] == 1 and "unsupported" not in rows[1]
    assert rows[1]["recomputed_planned"] == pytest.approx(pass2)
    from agentmetrology.report.archive_report import render_archive_report

    report = render_archive_report(audit_archive(
        load_archive(path), claim=("submission.json", claim), evaluator=_no_verdicts))[0]
    assert ("pass^3 is claimed without support: the file's simulations give no pass^3 (no "
            "task has 3 trials), so the claim rests on runs the file does not hold.") in report
    claim["results"]["airline"]["pass_2"] = 32.5
    wrong = _section(path, claim=("submission.json", claim))["reported"]["rows"][1]
    assert wrong["finding"] and wrong["reported"] == 0.325


def test_a_user_simulator_the_file_does_not_name_reads_not_recorded(tmp_path: Path) -> None:
    # Before, a file with no info.user_info read "user simulator `None`", a name it never gave.
    from agentmetrology.report.archive_report import render_archive_report

    data = copy.deepcopy(raw(F.GPT_AIRLINE))
    del data["info"]["user_info"]
    doc = audit_archive(load_archive(write(tmp_path, "nouser-airline.json", data)),
                        evaluator=_no_verdicts)
    md = render_archive_report(doc)[0]
    assert "Agent `gpt-4.1` on the `airline` domain, user simulator not recorded (" in md
    assert "`None`" not in md


@pytest.mark.parametrize(("written", "tolerance", "finding"), [
    (0.3, 0.05, False), (0.4, 0.05, False), (0.29, 0.005, True)])
def test_a_claim_half_its_last_decimal_away_agrees_compared_as_the_decimal_written(
        tmp_path: Path, written: float, tolerance: float, finding: bool) -> None:
    # Before, the claim was read as a binary float: 0.3 is 0.29999999999999998 and 0.4 is
    # 0.40000000000000002, so 7 passes of 20 (0.35, exactly half of 0.1 from either) were a
    # finding, though the rule (and docs/archive.md) says only a larger difference is one.
    data = copy.deepcopy(raw(F.GPT_AIRLINE))
    for s in [s for s in data["simulations"] if s["reward_info"]["reward"] == 1.0][:3]:
        s["reward_info"]["reward"] = 0.0
    rep = _section(write(tmp_path, "seven-airline.json", data),
                   claim=("--reported c.json", {"pass_rate": written}))["reported"]
    (row,) = rep["rows"]
    assert row["recomputed"]["planned"] == 0.35 and row["tolerance"] == tolerance
    assert row["finding"] is finding and rep["findings"] == int(finding)
    assert row["agrees_with"] == ([] if finding else ["planned", "simulations_present",
                                                      "graded"])


def test_a_percent_claim_reads_as_written_and_pass_k_compares_exactly(tmp_path: Path) -> None:
    # Before, 58.75 / 100 left the pass fraction the unresolved episodes would need at
    # 2.220446049250313e-16 instead of 0, pass_2 written 2 (2% rounded to the unit: 1.5 to
    # 2.5) was a finding against pass^2 = 1/40 = 2.5% exactly, and 58.2 read 0.5820000000000001.
    data, second = two_trials(F.GPT_TELECOM, 2)
    first = data["simulations"][:40]
    keep = next(i for i, s in enumerate(first) if s["reward_info"]["reward"] == 1.0)
    for i, s in enumerate(second):
        s["reward_info"]["reward"] = float(i == keep)
    second[-1]["reward_info"] = None  # one ungraded episode: 79 graded of 80 planned
    path = write(tmp_path, "two-telecom.json", data)
    claim = {"results": {"telecom": {"pass_1": 23.75, "pass_2": 2}}}
    rows = _section(path, claim=("submission.json", claim))["reported"]["rows"]
    assert rows[0]["recomputed"]["planned"] == 0.2375 and rows[0]["reported"] == 0.2375
    assert rows[0]["unresolved_pass_fraction_to_reach"] == 0.0 and not rows[0]["finding"]
    assert rows[1]["recomputed_planned"] == pytest.approx(0.025) and rows[1]["reported"] == 0.02
    assert rows[1]["tolerance"] == 0.005 and rows[1]["finding"] is False
    claim = {"results": {"telecom": {"pass_1": 58.2, "pass_2": 2.4}}}
    rows = _section(path, claim=("submission.json", claim))["reported"]["rows"]
    assert rows[0]["reported"] == 0.582 and rows[1]["reported"] == 0.024
    assert rows[1]["finding"] is True
