"""`inspect eval agentmetrology/comtrade` with Inspect's mock model, found by name through the
entry point: the episode runs through our runner, both scorers report, failures stay failures.

Processes: the logs come from the suite's one shared Inspect process (support.inspect_logs),
a fresh interpreter that finds our task only through the `inspect_ai` entry point; the
determinism test runs the same eval again, by name, in pytest's own process (another process,
which never ran it: a new Inspect process would cost seconds more)."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import EvalLog, EvalSample, read_eval_log

from agentmetrology import stats
from agentmetrology.envs.registry import get_env
from agentmetrology.records.canonical import canonical_json
from agentmetrology.run.episode import run_one
from support.agm_runs import isolated
from support.inspect_logs import L1_RUNS

GT, JUDGE = "comtrade/ground_truth_f1", "comtrade/shape_judge"
EPISODE = "agentmetrology:episode"


@pytest.fixture(scope="module")
def batch(inspect_logs: dict[str, Path]) -> dict[str, Path]:
    """Return the log path of every eval this module reads (support.inspect_logs.EVALS: one
    per behaviour on T3 seed 0, the L1 answers, the seeds grid and the T6 pager), written with
    the suite's other Inspect logs in one process (each Inspect process start costs seconds)."""
    return inspect_logs


@pytest.fixture(scope="module")
def logs(batch: dict[str, Path]) -> dict[str, EvalLog]:
    """Return the logs of one eval per behaviour (T3, seed 0)."""
    return {k: read_eval_log(str(batch[k])) for k in ("L2", "L0", "text", "malformed", "raise")}


def _sample(log: EvalLog) -> EvalSample:
    assert log.status == "success", log.error
    assert log.samples is not None and len(log.samples) == 1
    return log.samples[0]


def _episode(sample: EvalSample) -> dict[str, Any]:
    plain = sample.store[EPISODE]
    assert isinstance(plain, dict)
    return plain


def _reference(level: str) -> tuple[float | None, float | None]:
    ref = run_one(get_env("comtrade"), "T3_duplicates", 0, "rule", level)
    return ref.assessment("ground_truth_f1").score, ref.assessment("shape_judge").score


@pytest.mark.parametrize("level", ["L2", "L0"])
def test_a_correct_run_scores_ground_truth_and_judge(logs: dict[str, EvalLog], level: str) -> None:
    sample = _sample(logs[level])
    gt, judge = sample.scores[GT], sample.scores[JUDGE]  # type: ignore[index]
    assert gt.value == 1.0 and gt.answer == "PASS"
    assert judge.value == 98.0 and judge.answer == "PARTIAL"  # the judge: shape, not truth
    assert (gt.value, judge.value) == _reference(level)  # what `agm run` gives the rule agent
    assert gt.metadata is not None and judge.metadata is not None
    assert (gt.metadata["scorer"], gt.metadata["scorer_version"], gt.metadata["kind"]) == \
        ("ground_truth_f1", get_env("comtrade").scorer("ground_truth_f1").version, "outcome")
    assert (judge.metadata["scorer"], judge.metadata["kind"]) == ("shape_judge", "shape")
    ep = _episode(sample)
    assert ep["termination"]["kind"] == "submitted" and ep["level"] == level
    assert sample.metadata["seed"] == 0 and sample.metadata["task"] == "T3_duplicates"


def test_the_level_decides_who_submits(logs: dict[str, EvalLog]) -> None:
    actors = {lv: [(e["actor"], e["name"]) for e in _episode(_sample(logs[lv]))["events"]
                   if e["kind"] == "tool_call"]
              for lv in ("L2", "L0")}
    pages = [("agent", "fetch_page")] * 3
    assert actors["L2"] == [*pages, ("agent", "submit_results")]
    assert actors["L0"] == [*pages, ("harness", "submit_results")]  # the harness owns it at L0
    ep = _episode(_sample(logs["L0"]))
    assert ep["meta"]["ownership"]["retry"] == "harness"
    assert ep["meta"]["policy_notes"]["policy"] == "inspect-model"
    assert ep["usage"]["attempts"][0]["input_tokens"] == 10  # the mock model's stated usage
    assert len(ep["usage"]["attempts"]) == 3 == ep["meta"]["policy_notes"]["model_turns"]


def test_tool_events_carry_the_actor(logs: dict[str, EvalLog]) -> None:
    events = [e for e in _sample(logs["L0"]).events if e.event == "tool"]
    assert [(e.function, (e.metadata or {}).get("actor")) for e in events] == [  # type: ignore[union-attr]
        ("fetch_page", "agent"), ("fetch_page", "agent"), ("fetch_page", "agent"),
        ("submit_results", "harness")]


def test_the_metrics_of_a_run(logs: dict[str, EvalLog]) -> None:
    results = logs["L2"].results
    assert results is not None
    by_name = {s.name: s for s in results.scores}
    gt = by_name[GT]
    assert gt.scored_samples == 1 and gt.unscored_samples == 0
    # One sample: no bootstrap interval (stats.bootstrap), so no ci_low/ci_high; they read
    # 1.0 and 1.0, the one value as certainty.
    assert {k: m.value for k, m in gt.metrics.items()} == {
        "mean": 1.0, "worst": 1.0, "worst_excluded": 0, "cvar": 1.0, "cvar_excluded": 0,
        "reliability": 1.0, "reliability_excluded": 0, "ci_mean": 1.0, "ci_excluded": 0}
    assert "reliability" not in by_name[JUDGE].metrics  # a 0-100 shape score has no tau


def test_text_without_tool_calls_is_a_scored_agent_failure(logs: dict[str, EvalLog]) -> None:
    sample = _sample(logs["text"])
    ep = _episode(sample)
    assert ep["termination"]["kind"] == "agent_error"  # an agent failure, not a measurement one
    assert ep["submission"] is None
    gt = sample.scores[GT]  # type: ignore[index]
    ref = run_one(get_env("comtrade"), "T3_duplicates", 0, "scripted:never_submits", "L2")
    truth = ref.assessment("ground_truth_f1")
    assert truth.score is not None  # a missing submission is a real, scored failure
    assert (gt.value, gt.answer) == (truth.score, truth.status)
    assert ep["meta"]["policy_notes"]["handling"][0]["event"] == "text_without_tool_call"


def test_unparseable_tool_calls_run_no_tool(logs: dict[str, EvalLog]) -> None:
    sample = _sample(logs["malformed"])
    ep = _episode(sample)
    assert [e for e in ep["events"] if e["kind"] == "tool_call"] == []
    notes = ep["meta"]["policy_notes"]
    assert [h["event"] for h in notes["handling"]] == ["malformed_tool_arguments"] * 3 + \
        ["gave_up"]
    assert ep["termination"]["kind"] == "agent_error"
    assert sample.scores[GT].value == 0.0  # type: ignore[index]


def test_a_provider_failure_is_unscored_not_zero(logs: dict[str, EvalLog]) -> None:
    sample = _sample(logs["raise"])
    ep = _episode(sample)
    assert ep["termination"]["kind"] == "infra_error"
    assert "provider down (simulated)" in ep["termination"]["detail"]
    for name in (GT, JUDGE):
        score = sample.scores[name]  # type: ignore[index]
        assert isinstance(score.value, float) and math.isnan(score.value)  # Score.unscored
        assert score.metadata is not None and score.metadata["status"] == "UNKNOWN"
        assert "measurement failure (infra_error)" in (score.explanation or "")
    results = logs["raise"].results
    assert results is not None
    gt = next(s for s in results.scores if s.name == GT)
    assert (gt.scored_samples, gt.unscored_samples) == (0, 1)
    assert "worst" not in gt.metrics and "mean" in gt.metrics
    assert math.isnan(gt.metrics["mean"].value)  # Inspect's own mean: undefined, not 0


def test_an_inspect_episode_binds_its_transcript(logs: dict[str, EvalLog]) -> None:
    from agentmetrology.inspect_ext.task.solver import TRANSCRIPT_KEY
    from agentmetrology.records.canonical import sha256_hex

    sample = _sample(logs["L2"])
    ep, kept = _episode(sample), sample.store[TRANSCRIPT_KEY]
    doc = kept["document"]
    assert ep["digests"]["transcript"] == kept["digest"] == sha256_hex(canonical_json(doc))
    assert doc["messages"] == [sha256_hex(canonical_json(m)) for m in kept["messages"]]
    assert doc["tools"] == sha256_hex(canonical_json(kept["tools"]))
    system, task = kept["messages"][:2]
    assert (system["role"], task["role"]) == ("system", "user")
    assert system["content"] == sample.messages[0].text and "id" not in system
    exchanges = doc["exchanges"]
    turns = ep["meta"]["policy_notes"]["model_turns"]
    assert [x["request"] for x in exchanges] == list(range(1, turns + 1))
    assert [a for x in exchanges for a in x["attempts"]] == \
        [a["attempt_id"] for a in ep["usage"]["attempts"]]
    calls = [c["function"]["name"] for x in exchanges for c in x["response"]["tool_calls"]]
    assert calls == [e["name"] for e in ep["events"]
                     if e["kind"] == "tool_call" and e["actor"] == "agent"]
    # Each request sent the conversation so far: the next one extends it.
    for before, after in itertools.pairwise(exchanges):
        assert after["messages"][:len(before["messages"])] == before["messages"]
    assert exchanges[0]["response"]["usage"]["prompt_tokens"] == 10  # the mock's usage
    # A provider failure: the request stays in the transcript, with no response.
    failed = _sample(logs["raise"]).store[TRANSCRIPT_KEY]["document"]["exchanges"]
    assert [(x["attempts"], x["response"]) for x in failed] == [([], None)]


def test_seeds_make_task_by_seed_samples(batch: dict[str, Path]) -> None:
    log = read_eval_log(str(batch["seeds"]))
    assert log.samples is not None
    got = [(s.id, s.metadata["task"], s.metadata["seed"]) for s in log.samples]
    assert sorted(got) == sorted((f"{t}:s{s}", t, s) for t in ("T1_single_page", "T3_duplicates")
                                 for s in range(3))


def test_the_same_outputs_give_the_same_episode(batch: dict[str, Path], tmp_path: Path) -> None:
    from inspect_ext.inspect_mock import main as run_mock_eval

    def record(path: Path) -> dict[str, Any]:
        ep = _episode(_sample(read_eval_log(str(path))))
        for a in ep["usage"]["attempts"]:
            a["latency_s"] = 0.0  # measured wall time of the model call, not the episode
        return ep

    # Two processes: nothing carries over from the first run (the shared batch's first eval:
    # the rule agent on T3 seed 0 at L2) to the same eval, by name, in this test's process,
    # which has run other tests but never that eval.
    a = record(batch["L2"])
    with isolated(None):  # Inspect's .env loading and root-logger setup stay in this test
        written = run_mock_eval({
            "env": "comtrade", "behaviour": "agent:rule", "log_dir": str(tmp_path / "b"),
            "task_args": {"task": "T3_duplicates", "seeds": "0", "level": "L2"}})
    b = record(Path(written.removeprefix("file://")))
    assert canonical_json(a) == canonical_json(b)
    assert json.dumps(a["events"], sort_keys=True) == json.dumps(b["events"], sort_keys=True)


@pytest.fixture(scope="module")
def l1_logs(batch: dict[str, Path]) -> dict[str, EvalLog]:
    """Return the L1 logs of a model answering each of L1_RUNS's texts."""
    return {a: read_eval_log(str(batch[f"L1:{a}"])) for a in L1_RUNS}


@pytest.mark.parametrize(("answer", "rule"), list(L1_RUNS.items()))
def test_at_l1_the_model_answers_the_harness_question(l1_logs: dict[str, EvalLog], answer: str,
                                                      rule: str) -> None:
    sample = _sample(l1_logs[answer])
    ep = _episode(sample)
    ref = run_one(get_env("comtrade"), "T4_rate_limit_429", 0, rule, "L1")
    decisions = [(e["actor"], e["result"]) for e in ep["events"] if e["kind"] == "decision"]
    assert decisions == [(e.actor, e.result) for e in ref.episode.events
                         if e.kind == "decision"]
    assert decisions and all(actor == "agent" for actor, _ in decisions)
    assert {a for _, a in decisions} == {answer.split(",")[0]}
    calls = [e for e in ep["events"] if e["kind"] == "tool_call"]
    assert calls and all(e["actor"] == "harness" for e in calls)  # the harness pages at L1
    assert sample.scores[GT].value == ref.assessment("ground_truth_f1").score  # type: ignore[index]
    answers = ep["meta"]["policy_notes"]["l1_answers"]
    assert len(answers) == len(decisions) and answers[0]["parsed"] == "first_word"


def test_metrics_over_seeds_are_our_statistics(batch: dict[str, Path]) -> None:
    # T6 at L0: the harness submits what the model paged; F1 varies with the seed.
    log = read_eval_log(str(batch["pager"]))
    assert log.status == "success" and log.samples is not None and log.results is not None
    spec = get_env("comtrade")
    ref = {s: run_one(spec, "T6_page_drift", s, "rule", "L0") for s in range(4)}
    got = {s.metadata["seed"]: s.scores[GT].value for s in log.samples}  # type: ignore[index]
    assert got == {s: r.assessment("ground_truth_f1").score for s, r in ref.items()}
    values = [got[s] for s in range(4)]
    assert len(set(values)) > 1
    est = stats.bootstrap_ci(values, "mean", seed=0)
    assert est.interval is not None
    gt = next(s for s in log.results.scores if s.name == GT)
    metrics = {k: m.value for k, m in gt.metrics.items()}
    assert metrics == pytest.approx({
        "mean": stats.mean(values).value, "worst": min(values), "worst_excluded": 0,
        "cvar": stats.cvar(values, 0.2).value, "cvar_excluded": 0,
        "reliability": stats.reliability_at(values, 0.9).value, "reliability_excluded": 0,
        "ci_mean": est.value, "ci_low": est.interval[0], "ci_high": est.interval[1],
        "ci_excluded": 0}, rel=0, abs=1e-12)
    assert metrics["worst"] == min(values) and metrics["ci_low"] == est.interval[0]
