import json

import pytest

from agentmetrology.envs.comtrade import TASKS, ground_truth_ids
from agentmetrology.envs.comtrade.policies.registry import agent_names, make_agent
from agentmetrology.envs.comtrade.spec import OWNERSHIP, SPEC
from agentmetrology.records import canonical_json
from support.comtrade_runs import run

# Profiles that differ only in decisions the harness owns at L0.
HARNESS_OWNED_ONLY = ["scripted:careful", "scripted:no_dedup", "scripted:keeps_totals",
                      "scripted:single_pass", "scripted:empty_submit", "scripted:fabricator",
                      "scripted:never_submits"]


def test_ownership_map_is_data() -> None:
    assert set(OWNERSHIP["L0"].values()) == {"harness"}
    assert SPEC.model_owned("L1") == ("retry",)
    assert SPEC.model_owned("L2") == ("retry", "pagination", "dedup", "totals_drop", "reemission",
                                 "submission")


@pytest.mark.parametrize("seed", range(5))
def test_l0_payloads_identical_across_profiles(seed: int) -> None:
    digests = {a: run("T3_duplicates", seed, a, "L0")[0].digests["submission"]
               for a in HARNESS_OWNED_ONLY}
    assert len(set(digests.values())) == 1, digests


def test_l2_profiles_separate() -> None:
    subs = {a: tuple(run("T3_duplicates", s, a, "L2")[0].digests.get("submission")
                     for s in range(5)) for a in HARNESS_OWNED_ONLY}
    assert len(set(subs.values())) >= 5


def test_l0_harness_writes_the_documented_payload() -> None:
    ep, _ = run("T4_rate_limit_429", 0, "scripted:careful", "L0", "legacy")
    sub = ep.submission
    assert sub is not None
    log = sub["run_log"].splitlines()
    assert log[0] == "task_id=T4_rate_limit_429"
    assert "retry status=429 attempt=1 wait_s=2" in log
    assert log[-2:] == ["retry_count=1", "complete=true"]
    meta = json.loads(sub["metadata_json"])
    assert meta["row_count"] == 30 and meta["request_count"] == 4
    assert meta["execution_time_seconds"] == 2.0  # the injected clock's backoff, no sleeping
    assert meta["dedup_key"] == ["year", "reporter", "partner", "flow", "hs", "record_id"]
    assert set(meta) >= {"task_id", "query", "schema", "totals_handling", "request_stats"}
    ids = {json.loads(x)["record_id"] for x in sub["data_jsonl"].splitlines()}
    assert ids == ground_truth_ids("T4_rate_limit_429", 0, "legacy")


def test_l0_intercepts_a_models_own_submission() -> None:
    ep, _ = run("T3_duplicates", 0, "scripted:fabricator", "L0")
    kinds = [(e.actor, e.kind, e.name) for e in ep.events]
    assert ("harness", "tool_call", "submit_results") in kinds
    assert not any(k == ("agent", "tool_call", "submit_results") for k in kinds)


def test_l0_retries_page_zero_three_times() -> None:
    ep, _env = run("T3_duplicates", 1, "scripted:off_by_one", "L0")
    zero = [e for e in ep.events if e.kind == "tool_call" and e.args.get("page") == 0]
    assert [e.actor for e in zero[:4]] == ["agent", "harness", "harness", "harness"]
    assert all(e.result["status"] == 422 for e in zero)


def test_l1_decisions_are_model_events() -> None:
    for agent, expected in [("l1:always-retry", "RETRY"), ("l1:always-skip", "SKIP")]:
        ep, _ = run("T4_rate_limit_429", 0, agent, "L1", "legacy")
        decisions = [e for e in ep.events if e.kind == "decision"]
        assert [(d.actor, d.result) for d in decisions] == [("agent", expected)]
        fetches = [e for e in ep.events if e.kind == "tool_call" and e.name == "fetch_page"]
        assert all(e.actor == "harness" for e in fetches)
    ep, _ = run("T4_rate_limit_429", 0, "l1:always-skip", "L1", "legacy")
    lines = ep.submission["data_jsonl"].splitlines()  # type: ignore[index]
    assert len(lines) == 20  # skipping loses page 2
    # ... and the run log says so: it ended complete=true after "skip status=429 page=2"
    log = ep.submission["run_log"].splitlines()  # type: ignore[index]
    assert "skip status=429 page=2" in log and log[-1] == "complete=false"
    ep, _ = run("T4_rate_limit_429", 0, "l1:always-retry", "L1", "legacy")
    assert ep.submission["run_log"].splitlines()[-1] == "complete=true"  # type: ignore[index]


def test_quota_aware_skips_when_budget_cannot_cover_the_rest() -> None:
    from agentmetrology.envs.comtrade.policies.l1_rules import L1Rule
    from agentmetrology.envs.comtrade.question import FaultNotice, fault_question
    from agentmetrology.runtime.drive import drive

    rule = L1Rule("quota-aware")
    tight = fault_question(FaultNotice(2, 429, "", 1, 10, 1, 3, 1))  # 1 left, 2 pages to go
    roomy = fault_question(FaultNotice(2, 429, "", 1, 10, 5, 3, 1))
    assert drive(rule.decide(tight)) == "SKIP" and drive(rule.decide(roomy)) == "RETRY"


def test_agents_reject_levels_they_cannot_act_at() -> None:
    with pytest.raises(ValueError, match="L1"):
        run("T1_single_page", 0, "l1:always-retry", "L2")
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("gpt-9")
    assert "scripted:careful" in agent_names()


@pytest.mark.parametrize("agent", ["rule", "scripted:careful", "scripted:off_by_one",
                                   "scripted:fabricator"])
@pytest.mark.parametrize("level", ["L0", "L2"])
def test_episodes_are_byte_identical_for_the_same_inputs(agent: str, level: str) -> None:
    for task in ("T6_page_drift", "T9_adaptive_adversary", "T8_mixed_faults"):
        a, _ = run(task, 3, agent, level)
        b, _ = run(task, 3, agent, level)
        assert canonical_json(a) == canonical_json(b)


def test_careful_at_l2_collects_every_row_on_every_task() -> None:
    for task in TASKS:
        for seed in (0, 1):
            ep, _env = run(task, seed, "scripted:careful", "L2")
            assert ep.termination.kind == "submitted", (task, ep.termination)
            ids = [json.loads(x)["record_id"]
                   for x in ep.submission["data_jsonl"].splitlines()]  # type: ignore[index]
            assert sorted(ids) == sorted(ground_truth_ids(task, seed)), task


def test_careful_refetches_a_page_it_gave_up_before_rotating() -> None:
    # T9 seed 19: page 5 fails its 4 attempts at intensity 1 (a 429 half the time). The
    # careful profile then re-fetched pages 1..5 in turn, page 5 one call in five, and
    # submitted 60 of 75 rows (F1 0.889) at the step limit; it now asks for the page it knows
    # is missing until it comes (pages that drift have no such page: it rotates as before).
    ep, _env = run("T9_adaptive_adversary", 19, "scripted:careful", "L2")
    ids = [json.loads(x)["record_id"]
           for x in ep.submission["data_jsonl"].splitlines()]  # type: ignore[index]
    assert sorted(ids) == sorted(ground_truth_ids("T9_adaptive_adversary", 19))
    log = ep.submission["run_log"].splitlines()  # type: ignore[index]
    skip = log.index("skip status=429 page=5")
    assert log[skip + 2] == "request=10 page=5 attempt=1"  # the missing page first


def test_never_submits_and_step_limit_terminations() -> None:
    ep, _ = run("T3_duplicates", 0, "scripted:never_submits", "L2")
    assert ep.submission is None and ep.termination.kind == "agent_error"
    assert "without submitting" in ep.termination.detail


def test_adversary_events_are_recorded_with_their_actor() -> None:
    ep, _ = run("T9_adaptive_adversary", 0, "scripted:careful", "L2")
    adv = [e for e in ep.events if e.actor == "adversary"]
    assert adv and all(e.kind == "perturbation" for e in adv)


def test_rule_log_format() -> None:
    ep, _ = run("T5_server_error_500", 0, "rule", "L2", "legacy")
    log = ep.submission["run_log"].splitlines()  # type: ignore[index]
    assert log[:3] == ["task_id=T5_server_error_500", "request=1 page=1", "page=1"]
    assert "retry status=500 attempt=1 wait_s=3" in log
    meta = json.loads(ep.submission["metadata_json"])  # type: ignore[index]
    assert "execution_time_seconds" not in meta
