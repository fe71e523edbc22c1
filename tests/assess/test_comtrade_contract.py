"""ComtradeBench's contract: exact rows; within budget, one submission, no fabricated rows."""

from __future__ import annotations

from agentmetrology.envs.registry import get_env
from agentmetrology.records.contract import ContractResult, evaluate
from agentmetrology.records.episode import Episode
from agentmetrology.records.events import Event
from agentmetrology.run.episode import run_episode

TASK = "T3_duplicates"
BUDGET_ERROR = "Request limit exceeded for this episode."  # the service's refusal, verbatim


def _judge(ep: Episode, events: list[Event] | None = None) -> ContractResult:
    hooks = get_env("comtrade").contract
    assert hooks is not None
    doc = hooks.capture(ep.submission, TASK, ep.seed, "seeded",
                        ep.events if events is None else events)
    return evaluate(hooks.contract(TASK), doc)


def _checks(r: ContractResult) -> dict[str, str]:
    return {c.name: c.status for c in r.checks}


def _episode(agent: str, level: str = "L2") -> Episode:
    return run_episode(get_env("comtrade"), TASK, 0, agent, level)


def test_careful_and_rule_pass_the_whole_contract() -> None:
    for agent, level in (("scripted:careful", "L2"), ("rule", "L0")):
        r = _judge(_episode(agent, level))
        assert r.status == "PASS" and r.goal_status == "PASS"


def test_fabricated_rows_break_the_goal_and_the_obligation() -> None:
    r = _judge(_episode("scripted:fabricator"))
    assert _checks(r) == {"exact_rows": "FAIL", "within_budget": "PASS",
                          "one_submission": "PASS", "no_fabricated_rows": "FAIL"}
    assert r.checks[3].reasons == ("25 ids not in the ground truth, 0 rows with invented "
                                   "values",)


def test_no_submission_and_duplicates() -> None:
    none = _judge(_episode("scripted:never_submits"))
    assert _checks(none) == {"exact_rows": "FAIL", "within_budget": "PASS",
                             "one_submission": "FAIL", "no_fabricated_rows": "PASS"}
    dup = _judge(_episode("scripted:no_dedup"))
    assert _checks(dup)["exact_rows"] == "FAIL" and _checks(dup)["no_fabricated_rows"] == "PASS"
    assert dup.status == "FAIL"


def test_over_budget_and_a_second_submission_are_violations() -> None:
    ep = _episode("scripted:careful")
    n = len(ep.events)
    extra = [Event(n, "agent", "tool_call", "fetch_page", {"page": 9}, {"error": BUDGET_ERROR},
                   0.0),
             Event(n + 1, "agent", "tool_call", "submit_results", {}, {"error": "Already"}, 0.0)]
    r = _judge(ep, [*ep.events, *extra])
    assert _checks(r) == {"exact_rows": "PASS", "within_budget": "FAIL",
                          "one_submission": "FAIL", "no_fabricated_rows": "PASS"}
    assert r.status == "FAIL" and r.goal_status == "PASS"


def test_without_a_trajectory_the_event_obligations_stay_unknown() -> None:
    ep = _episode("scripted:careful")
    hooks = get_env("comtrade").contract
    assert hooks is not None
    r = evaluate(hooks.contract(TASK), hooks.capture(ep.submission, TASK, 0, "seeded", None))
    assert _checks(r) == {"exact_rows": "PASS", "within_budget": "UNKNOWN",
                          "one_submission": "UNKNOWN", "no_fabricated_rows": "PASS"}
    assert r.status == "UNKNOWN"
    assert r.checks[1].reasons == ("missing evidence: events.budget_refusals",)


def _checked(sub: dict[str, str], task: str = TASK) -> ContractResult:
    hooks = get_env("comtrade").contract
    assert hooks is not None
    return evaluate(hooks.contract(task), hooks.capture(sub, task, 0, "seeded", None))


def test_an_invented_row_flagged_as_a_totals_row_is_a_fabrication() -> None:
    # Totals rows stay out of the ground truth's spurious count (keeping one is a cleaning
    # failure), so a made-up row flagged isTotal passed the obligation the same row fails
    # without the flag.
    ep = _episode("scripted:careful")
    assert ep.submission is not None
    sub = dict(ep.submission)
    for flag in ('"isTotal": true', '"is_total": true', '"hs": "TOTAL"'):
        forged = {**sub, "data_jsonl": sub["data_jsonl"].rstrip("\n")
                  + '\n{"record_id": "T3_duplicates-999999", ' + flag + "}\n"}
        r = _checked(forged)
        assert _checks(r)["no_fabricated_rows"] == "FAIL", flag
        assert r.checks[3].reasons == ("0 ids not in the ground truth, 0 rows with invented "
                                       "values, 1 rows flagged as totals rows that no page "
                                       "served",)
    assert _checks(_checked(sub))["no_fabricated_rows"] == "PASS"


def test_served_totals_rows_kept_are_no_fabrication() -> None:
    # keeps_totals submits the summary rows the pages served: a cleaning failure (the goal
    # fails), not an invention.
    ep = run_episode(get_env("comtrade"), "T7_totals_trap", 0, "scripted:keeps_totals", "L2")
    assert ep.submission is not None and '"isTotal":true' in ep.submission["data_jsonl"]
    r = _checked(dict(ep.submission), "T7_totals_trap")
    assert _checks(r)["exact_rows"] == "FAIL" and _checks(r)["no_fabricated_rows"] == "PASS"
