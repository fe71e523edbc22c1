"""Registered environments as verifiers environments, driven by verifiers' own `evaluate`.

The model is the fake OpenAI-compatible server on 127.0.0.1 (tests/support/fake_openai.py),
reached through the openai SDK client verifiers drives; its replies are tool calls. The reward
is the rubric's, compared with what `agm run` scores for the same moves.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from openai import AsyncOpenAI

from agentmetrology.envs import registry
from agentmetrology.run.adhoc import run_request
from agentmetrology.run.episode import run_one
from agentmetrology.run.request import make_request
from support.fake_models import careful_model
from support.fake_openai import FakeOpenAI, Reply, http_error, text, tool_calls


def load_environment(*args: Any, **kwargs: Any) -> Any:
    """The adapter's `load_environment`, imported at the first call, not at collection: it
    imports verifiers (~4 s of CPU), which every xdist worker would otherwise pay."""
    from agentmetrology.adapters.verifiers_env import load_environment as load

    return load(*args, **kwargs)


Model = Callable[[dict[str, Any]], Reply]


def evaluate(env: Any, model: Model, n: int = 60) -> tuple[list[dict[str, Any]], FakeOpenAI]:
    """Run verifiers' evaluate against the fake server; return the outputs and the server."""
    with FakeOpenAI(itertools.repeat(model, n)) as srv:
        client = AsyncOpenAI(base_url=srv.base_url, api_key="test-key", max_retries=0)
        res = asyncio.run(env.evaluate(client, "fake-model", state_columns=["agm"]))
    return list(res["outputs"]), srv


def replay(env: str, agent: str, task: str, seed: int) -> Model:
    """Return a fake model that makes `agent`'s recorded tool calls, one per turn, then stops."""
    ep = run_one(registry.get_env(env), task, seed, agent, "L2").episode
    calls = [(e.name, e.args) for e in ep.events
             if e.actor == "agent" and e.kind in ("tool_call", "intercepted")]

    def model(body: dict[str, Any]) -> Reply:
        turn = sum(1 for m in body["messages"] if m["role"] == "assistant")
        if turn >= len(calls):
            return text("done")
        return tool_calls((calls[turn][0], calls[turn][1], f"call_{turn}"))
    return model


def half_model(body: dict[str, Any]) -> Reply:
    """The careful model, but its submission keeps only every other row."""
    reply = careful_model(body)
    call = reply["body"]["choices"][0]["message"]["tool_calls"][0]["function"]
    if call["name"] == "submit_results":
        args = json.loads(call["arguments"])
        lines = args["data_jsonl"].split("\n")[::2]
        args.update(data_jsonl="\n".join(lines),
                    metadata_json=json.dumps({"row_count": len(lines)}))
        call["arguments"] = json.dumps(args)
    return reply


def test_the_reward_is_ground_truth_f1() -> None:
    env = load_environment("comtrade", tasks=["T3_duplicates"], seeds=[7], level="L2")
    (out,), _ = evaluate(env, careful_model)
    assert out["reward"] == 1.0 and out["metrics"]["measured"] == 1.0
    assert out["agm"]["status"] == "PASS" and out["agm"]["scorer"] == "ground_truth_f1"
    assert out["stop_condition"] == "has_final_env_response"
    tools = [t["function"]["name"] for t in out["oai_tools"]]
    assert tools == ["get_task_info", "fetch_page", "submit_results"]


def test_a_partial_submission_earns_its_f1_as_agm_run_scores_it(tmp_path: Path) -> None:
    env = load_environment("comtrade", tasks=["T3_duplicates"], seeds=[7], level="L2")
    (out,), _ = evaluate(env, half_model)
    with FakeOpenAI(itertools.repeat(half_model, 60)) as srv:
        (row,) = run_request(make_request(
            "comtrade", task="T3_duplicates", seeds="7", agent="llm:fake-model",
            base_url=srv.base_url, max_retries=0, store=tmp_path / "store")).rows
    f1 = row["ground_truth"]["f1"]
    assert 0.0 < f1 < 1.0
    assert out["reward"] == f1 and out["agm"]["status"] == "PARTIAL"
    assert out["agm"]["submission_sha256"] == row["submission_sha256"]


def test_a_fabricating_model_earns_zero_though_the_judge_gives_more() -> None:
    env = load_environment("comtrade", tasks=["T3_duplicates"], seeds=[7], level="L2")
    (out,), _ = evaluate(env, replay("comtrade", "scripted:fabricator", "T3_duplicates", 7))
    assert out["reward"] == 0.0
    judge = {a["scorer"]: a for a in out["agm"]["assessments"]}["shape_judge"]
    assert judge["score"] == 98.7


def test_the_level_decides_who_owns_the_decisions() -> None:
    fabricator = replay("comtrade", "scripted:fabricator", "T3_duplicates", 7)
    rewards = {}
    for level in ("L0", "L2"):
        env = load_environment("comtrade", tasks=["T3_duplicates"], seeds=[7], level=level)
        (out,), _ = evaluate(env, fabricator)
        rewards[level] = out["reward"]
    assert rewards == {"L0": 1.0, "L2": 0.0}  # at L0 the harness owns the submission
    # At L1 the model gets no tools: the harness asks RETRY or SKIP and reads its text.
    env = load_environment("comtrade", tasks=["T4_rate_limit_429"], seeds=[3], level="L1")
    row = env.get_dataset()[0]
    assert json.loads(row["info"])["oai_tools"] == []
    assert "RETRY" in row["prompt"][-1]["content"] and row["prompt"][-1]["role"] == "user"
    (out,), srv = evaluate(env, lambda body: text("RETRY"))
    assert all("tools" not in r for r in srv.requests) and len(srv.requests) >= 1
    ran = run_one(registry.get_env("comtrade"), "T4_rate_limit_429", 3, "l1:always-retry", "L1")
    assert out["reward"] == ran.assessments[0].score
    assert out["agm"]["submission_sha256"] == ran.episode.digests["submission"]


def test_the_same_seed_gives_the_same_rollout() -> None:
    env = load_environment("comtrade", tasks=["T3_duplicates"], seeds=[7, 8], level="L2")
    first, _ = evaluate(env, careful_model, 100)
    again, _ = evaluate(env, careful_model, 100)
    assert [o["agm"] for o in first] == [o["agm"] for o in again]
    assert [o["completion"] for o in first] == [o["completion"] for o in again]
    assert first[0]["agm"]["submission_sha256"] != first[1]["agm"]["submission_sha256"]


def test_a_plugin_environment_through_the_same_adapter() -> None:
    env = load_environment("permission", seeds=[3])
    (good,), _ = evaluate(env, replay("permission", "scripted:within", "flag_overdue", 3))
    (bad,), _ = evaluate(env, replay("permission", "scripted:careless", "flag_overdue", 3))
    assert (good["reward"], good["agm"]["scorer"], good["agm"]["status"]) == (1.0, "goal", "PASS")
    assert (bad["reward"], bad["agm"]["status"]) == (0.0, "FAIL")


def test_an_invalid_measurement_is_nan_and_says_why(toy_sum: str) -> None:
    env = load_environment(toy_sum, tasks=["sum3"], seeds=[1])
    (out,), _ = evaluate(env, lambda body: tool_calls(("submit_total", {"total": "many"})))
    assert math.isnan(out["reward"]) and out["metrics"]["measured"] == 0.0
    assert (out["agm"]["status"], out["agm"]["reasons"]) == ("INVALID",
                                                            ["total is not an integer"])


def test_a_failing_endpoint_is_no_measurement_not_zero() -> None:
    env = load_environment("comtrade", tasks=["T3_duplicates"], seeds=[7], level="L2")
    (out,), _ = evaluate(env, lambda body: http_error(500, "boom"))
    assert math.isnan(out["reward"]) and out["metrics"]["measured"] == 0.0
    assert out["agm"]["status"] == "UNKNOWN" and out["agm"]["termination"] is None
    assert out["agm"]["reasons"][0].startswith("the rollout failed: ")


def test_a_rollout_cut_while_the_harness_asks_is_no_measurement_not_zero() -> None:
    # max_turns=1 at L1: the model answers the first question; the harness asks again.
    env = load_environment("comtrade", tasks=["T4_rate_limit_429"], seeds=[3], level="L1",
                           max_turns=1)
    (out,), _ = evaluate(env, lambda body: text("RETRY"))
    assert math.isnan(out["reward"]) and out["metrics"]["measured"] == 0.0
    assert out["agm"]["status"] == "UNKNOWN" and out["agm"]["termination"] is None
    assert "question was unanswered" in out["agm"]["reasons"][0]


def test_the_rollouts_conversation_is_the_episodes_transcript() -> None:
    # What verifiers showed and the model wrote is kept: one exchange per model turn, bound by
    # the episode's digest (reported in the rollout's state column).
    env = load_environment("comtrade", tasks=["T3_duplicates"], seeds=[7], level="L2")
    (out,), srv = evaluate(env, careful_model)
    sha = out["agm"]["transcript_sha256"]
    assert isinstance(sha, str) and len(sha) == 64
    (again,), _ = evaluate(env, careful_model)
    assert again["agm"]["transcript_sha256"] == sha  # the same rollout, the same transcript
    (other,), _ = evaluate(env, half_model)
    assert other["agm"]["transcript_sha256"] != sha
    assert len(srv.requests) >= 2


def test_arguments_the_adapter_cannot_parse_are_kept_in_the_record() -> None:
    # The adapter hands arguments it cannot parse to the tools as the model wrote them, so
    # that "the record keeps them"; the record held {} (the call had no arguments, it said).
    from agentmetrology.adapters.session import EpisodeSession

    env = load_environment("comtrade", tasks=["T3_duplicates"], seeds=[7], level="L2")
    session = EpisodeSession(registry.get_env("comtrade"), "T3_duplicates", 7, "L2")
    written = ['{"page": 1', "[1, 2]", "null", '{"page": 1}']
    calls = [{"id": f"c{i}", "type": "function",
              "function": {"name": "fetch_page", "arguments": a}} for i, a in enumerate(written)]
    replies = asyncio.run(env.env_response(
        [{"role": "assistant", "content": "", "tool_calls": calls}],
        {"agm_session": session, "info": {}}))
    session.stop()
    assert session.episode is not None
    fetches = [e for e in session.episode.events if e.name == "fetch_page"]
    assert [e.args for e in fetches] == [{}, {}, {}, {"page": 1}]
    assert [e.result.get("arguments_sent") for e in fetches] == [*written[:3], None]
    assert "rows" in fetches[3].result
    assert json.loads(replies[1]["content"])["arguments_sent"] == "[1, 2]"  # the model sees it


def test_tool_calls_of_any_shape_are_answered_and_recorded_never_raised() -> None:
    # A turn's tool calls came in shapes the adapter read as dicts of JSON strings: arguments
    # already an object (some providers parse them) raised AttributeError ('dict' object has
    # no attribute 'strip'), as did a call that is no object or has no function object; the
    # rollout failed and nothing of the turn was recorded.
    from agentmetrology.adapters.session import EpisodeSession

    env = load_environment("comtrade", tasks=["T3_duplicates"], seeds=[7], level="L2")
    session = EpisodeSession(registry.get_env("comtrade"), "T3_duplicates", 7, "L2")
    calls = [{"id": "a", "function": {"name": "fetch_page", "arguments": {"page": 1}}},
             {"id": "b", "function": {"name": "fetch_page", "arguments": [1, 2]}},
             {"id": "c", "type": "function", "function": None},
             "fetch_page",
             {"id": "e", "function": {"name": "fetch_page", "arguments": 7}}]
    replies = asyncio.run(env.env_response(
        [{"role": "assistant", "content": "", "tool_calls": calls}],
        {"agm_session": session, "info": {}}))
    assert [r["tool_call_id"] for r in replies] == ["a", "b", "c", "", "e"]
    seen = [json.loads(r["content"]) for r in replies]
    assert "rows" in seen[0]
    assert seen[1]["error"] == "fetch_page: arguments must be a JSON object"
    assert seen[2]["error"].startswith("unknown tool ''")
    assert seen[3]["error"].startswith("unknown tool ''")
    assert seen[4]["error"] == "fetch_page: arguments must be a JSON object"
    session.stop()
    assert session.episode is not None
    events = [e for e in session.episode.events if e.kind == "tool_call"]
    assert [e.name for e in events] == ["fetch_page", "fetch_page", "", "", "fetch_page"]
    assert events[0].args == {"page": 1}
    # what was sent is kept beside each refusal
    assert [json.loads(r["content"]) for r in replies] == [
        json.loads(json.dumps(e.result)) for e in events]
    assert "fetch_page" in json.dumps(events[3].result) and "7" in json.dumps(events[4].result)


def test_tool_calls_that_are_not_a_list_are_one_malformed_call() -> None:
    from agentmetrology.adapters.session import EpisodeSession

    env = load_environment("comtrade", tasks=["T3_duplicates"], seeds=[7], level="L2")
    session = EpisodeSession(registry.get_env("comtrade"), "T3_duplicates", 7, "L2")
    replies = asyncio.run(env.env_response(
        [{"role": "assistant", "content": "", "tool_calls": "fetch_page"}],
        {"agm_session": session, "info": {}}))
    assert len(replies) == 1 and json.loads(replies[0]["content"])["error"].startswith(
        "unknown tool ''")
