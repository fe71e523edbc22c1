"""ChatPolicy driven through the real `openai` client against a scripted server on loopback."""

from __future__ import annotations

import asyncio
import gc
import json
from collections.abc import Iterator
from typing import Any

import pytest

from agentmetrology.agents.llm import ChatPolicy, LLMTarget, Prices
from agentmetrology.agents.scaffolds.runner import run_episode_async
from agentmetrology.envs.comtrade import ComtradeEnv
from agentmetrology.envs.comtrade.scoring.ground_truth import ground_truth_f1
from agentmetrology.envs.comtrade.scoring.submission import submission_from_mapping
from agentmetrology.records import Episode, canonical_json
from agentmetrology.records.clock import FakeClock
from support.comtrade_runs import COMTRADE
from support.encodings import encodings
from support.fake_models import careful_model
from support.fake_openai import FakeOpenAI, http_error, text, tool_calls

# Every test here runs on both HTTP paths (lean and sdk): same behaviour, asserted on both.
pytestmark = pytest.mark.usefixtures("both_http_clients")

KEY_ENV = "AGM_TEST_LLM_KEY"
SECRET = "sk-test-SECRET1234567890abcdefXYZ"
PRICED = Prices(input_per_m=1.0, output_per_m=2.0, cached_per_m=0.5)


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv(KEY_ENV, SECRET)
    yield


def run_llm(script: list[Any], *, task: str = "T3_duplicates", level: str = "L2",
            model: str = "gpt-4o-mini", prices: Prices = PRICED, max_retries: int = 4,
            decoding: dict[str, Any] | None = None, timeout_s: float = 10.0,
            ) -> tuple[Episode, FakeOpenAI, FakeClock]:
    """Run one episode of ChatPolicy against a fake server; notes go into meta["llm"]."""
    clock = FakeClock()

    async def go(srv: FakeOpenAI) -> Episode:
        target = LLMTarget("llm:test", model, srv.base_url, KEY_ENV, decoding or {}, prices,
                           max_retries, timeout_s)
        policy = ChatPolicy(target, clock=clock)
        ep = await run_episode_async(COMTRADE, ComtradeEnv(task, 0), policy, level)
        await policy.aclose()
        ep.meta["llm"] = policy.notes()  # what the lead wires into every LLM episode
        return ep

    with FakeOpenAI(script) as srv:
        ep = asyncio.run(go(srv))
    return ep, srv, clock


def outcomes(ep: Episode) -> list[str]:
    return [a.outcome for a in ep.usage.attempts]


def test_full_l2_episode_reaches_f1_one() -> None:
    ep, srv, _ = run_llm([careful_model] * 12)
    assert ep.termination.kind == "submitted"
    sub = submission_from_mapping(ep.submission)
    assert ground_truth_f1(sub, "T3_duplicates", 0).score == 1.0
    assert [e.actor for e in ep.events] == ["agent"] * len(ep.events)
    assert len(ep.usage.attempts) == len(srv.requests) and set(outcomes(ep)) == {"ok"}
    a = ep.usage.attempts[0]
    assert (a.input_tokens, a.output_tokens, a.cached_tokens) == (1000, 50, 400)
    assert a.cost == pytest.approx((600 * 1.0 + 400 * 0.5 + 50 * 2.0) / 1e6)
    assert ep.usage.cost == pytest.approx(a.cost * len(ep.usage.attempts))
    assert len({a.attempt_id for a in ep.usage.attempts}) == len(ep.usage.attempts)
    assert a.request_id == "req_1" and a.provider.startswith("127.0.0.1:")
    assert srv.headers[0]["authorization"] == f"Bearer {SECRET}"  # the key was used...
    assert SECRET.encode() not in canonical_json(ep)  # ...and never recorded


def test_each_retry_is_its_own_attempt_with_backoff_on_the_clock() -> None:
    script = [http_error(429, "slow down", headers={"retry-after": "3"}), http_error(503),
              tool_calls(("get_task_info", {})), text("done")]
    ep, _, clock = run_llm(script)
    assert outcomes(ep) == ["rate_limited", "server_error", "ok", "ok"]
    assert [a.request_id for a in ep.usage.attempts] == ["req_1", "req_2", "req_3", "req_4"]
    assert [a.attempt_id for a in ep.usage.attempts] == ["r001.1", "r001.2", "r001.3", "r002.1"]
    waits = [r["wait_s"] for r in ep.meta["llm"]["retries"]]
    assert waits == [3.0, 2.0]  # retry-after honoured, then exponential (1 s * 2^1)
    assert clock.now() == pytest.approx(5.0)  # waited on the fake clock, never really slept
    assert ep.usage.attempts[0].cost == 0.0 and ep.usage.attempts[0].input_tokens == 0
    assert ep.termination.kind == "agent_error"  # stopped without submitting: the agent's doing


def test_exhausted_retry_budget_ends_as_infra_error() -> None:
    ep, srv, _ = run_llm([http_error(500)] * 3 + [text("never reached")], max_retries=2)
    assert ep.termination.kind == "infra_error"
    assert ep.termination.is_measurement_failure
    assert "retry budget exhausted" in ep.termination.detail
    assert outcomes(ep) == ["server_error"] * 3 and len(srv.requests) == 3


def test_rejected_request_is_a_configuration_infra_error() -> None:
    ep, _, _ = run_llm([http_error(400, "unknown parameter: foo")])
    assert ep.termination.kind == "infra_error"
    assert "configuration error" in ep.termination.detail
    assert outcomes(ep) == ["bad_request"]


def test_timeout_is_an_attempt_with_unknown_cost(recwarn: pytest.WarningsRecorder) -> None:
    slow = {**text("late"), "delay": 1.0}
    ep, _, _ = run_llm([slow, text("done")], timeout_s=0.3)
    # noted in the episode, not warned; the CLI prints one notice per run. (The garbage
    # collector may surface another test's unclosed socket here: that is not this test's.)
    assert not [w for w in recwarn.list if issubclass(w.category, UserWarning)
                and not issubclass(w.category, pytest.PytestWarning)]
    assert any("no token counts" in w for w in ep.meta["llm"]["warnings"])
    first = ep.usage.attempts[0]
    assert outcomes(ep) == ["timeout", "ok"]
    assert first.input_tokens is None and first.cost is None
    assert ep.usage.cost is None  # possibly billed upstream: unknown, never a silent 0


# Garbage from earlier tests on this worker (an httpx client collected after its event loop
# closed) surfaces as these two categories during whichever test runs next; they say nothing
# about this episode (seen in CI: four of them, none from agentmetrology).
FOREIGN_WARNINGS = (ResourceWarning, pytest.PytestUnraisableExceptionWarning)


def test_unknown_price_gives_null_cost_and_a_note(recwarn: pytest.WarningsRecorder) -> None:
    gc.collect()  # let earlier tests' garbage warn before this episode, not during it
    recwarn.clear()
    ep, _, _ = run_llm([tool_calls(("get_task_info", {})), text("done")], prices=Prices())
    raw = [w for w in recwarn.list if not issubclass(w.category, FOREIGN_WARNINGS)]
    assert not raw, [str(w.message) for w in raw]  # no raw Python warning
    assert [a.cost for a in ep.usage.attempts] == [None, None]
    assert ep.usage.cost is None
    assert ep.usage.attempts[0].input_tokens == 100  # tokens are still counted
    assert any("null" in w for w in ep.meta["llm"]["warnings"])


def test_quirks_applied_and_recorded_for_a_reasoning_model() -> None:
    decoding = {"temperature": 0.2, "top_p": 0.9, "max_tokens": 256, "seed": 7}
    ep, srv, _ = run_llm([text("done")], model="o3-mini", decoding=decoding)
    body = srv.requests[0]
    assert body["max_completion_tokens"] == 256 and body["seed"] == 7
    assert not {"temperature", "top_p", "max_tokens"} & set(body)
    applied = {(q["action"], q["param"]) for q in ep.meta["llm"]["quirks_applied"]}
    assert applied == {("renamed", "max_tokens"), ("dropped", "temperature"),
                       ("dropped", "top_p")}
    assert ep.meta["llm"]["request_params"] == {"max_completion_tokens": 256, "seed": 7}
    _, srv2, _ = run_llm([text("done")], model="gpt-4o-mini", decoding=decoding)
    assert srv2.requests[0]["temperature"] == 0.2 and srv2.requests[0]["max_tokens"] == 256


def test_malformed_arguments_become_an_error_observation() -> None:
    script = [tool_calls(("fetch_page", '{"page": 1', "bad"), ("fetch_page", "[1]", "list")),
              tool_calls(("fetch_page", {"page": 1}, "good")), text("done")]
    ep, srv, _ = run_llm(script)
    fetches = [e for e in ep.events if e.name == "fetch_page"]
    assert [e.args for e in fetches] == [{"page": 1}]  # only the well-formed call ran
    sent = {m["tool_call_id"]: m for m in srv.requests[1]["messages"] if m["role"] == "tool"}
    assert "not valid JSON" in sent["bad"]["content"]
    assert "must be a JSON object" in sent["list"]["content"]
    echoed = srv.requests[1]["messages"][2]["tool_calls"]
    assert [c["function"]["arguments"] for c in echoed] == ["{}", "{}"]
    handling = ep.meta["llm"]["handling"]
    malformed = [h for h in handling if h["event"] == "malformed_tool_arguments"]
    assert [h["call_id"] for h in malformed] == ["bad", "list"]
    assert {h["handling"] for h in malformed} == {"error_observation"}
    assert handling[-1]["event"] == "text_without_tool_call"
    assert handling[-1]["handling"] == "end_turn"


def test_arguments_no_record_can_hold_are_refused_and_the_episode_goes_on() -> None:
    # A lone surrogate escape decodes to a str no UTF-8 record holds: the finished episode
    # could not be encoded (UnicodeEncodeError), so a campaign recorded nothing, a failed attempt
    # retried and billed again on every rerun. Nesting of some 400 levels raised RecursionError
    # in the policy: the episode ended as agent_error there. Both are now malformed arguments.
    deep = '{"a":' * 500 + "1" + "}" * 500
    script = [tool_calls(("fetch_page", '{"page": "\\ud800"}', "lone"),
                         ("fetch_page", deep, "deep"), ("fetch_page", {"page": 1}, "ok")),
              text("done")]
    ep, srv, _ = run_llm(script)
    assert (ep.termination.kind, ep.termination.detail) == (
        "agent_error", "agent stopped without submitting")  # the model's own text turn
    assert [e.args for e in ep.events if e.name == "fetch_page"] == [{"page": 1}]
    handling = ep.meta["llm"]["handling"]
    malformed = [(h["call_id"], h["error"]) for h in handling
                 if h["event"] == "malformed_tool_arguments"]
    assert malformed == [
        ("lone", "arguments hold a lone surrogate ('\\ud800'), which is not text"),
        ("deep", "arguments are nested deeper than 64 levels")]
    sent = {m["tool_call_id"]: m for m in srv.requests[1]["messages"] if m["role"] == "tool"}
    assert "lone surrogate" in sent["lone"]["content"] and "deeper" in sent["deep"]["content"]
    canonical_json(ep)  # the whole record encodes



def test_what_a_model_sent_as_unusable_arguments_is_kept_as_it_wrote_it() -> None:
    # Arguments that are not JSON or not an object never reach the tools (no event): the
    # handling note quotes their text (its first 500 characters) and the transcript keeps the
    # response as returned, the text whole, so nothing the model sent is lost.
    long_bad = '{"page": ' + "9" * 800
    written = {"bad": long_bad, "list": "[1, 2]", "null": "null", "str": '"p"'}
    ep, _, _ = run_llm([tool_calls(*((("fetch_page", a, c)) for c, a in written.items())),
                        text("done")])
    assert not [e for e in ep.events if e.name == "fetch_page"]
    notes = {h["call_id"]: h for h in ep.meta["llm"]["handling"]
             if h["event"] == "malformed_tool_arguments"}
    assert {c: h["arguments"] for c, h in notes.items()} == {
        **written, "bad": long_bad[:500]}
    assert notes["list"]["error"] == "arguments must be a JSON object, got list"
    assert ep.transcript is not None
    response = ep.transcript.exchanges[0].response
    assert response is not None
    assert {c["id"]: c["function"]["arguments"] for c in response["tool_calls"]} == written


def test_repeated_malformed_responses_end_the_turn() -> None:
    ep, srv, _ = run_llm([tool_calls(("fetch_page", "{oops"))] * 5)
    assert len(srv.requests) == 3
    assert ep.meta["llm"]["handling"][-1]["event"] == "gave_up"
    assert ep.termination.kind == "agent_error" and ep.usage.tool_calls == 0


def test_parallel_calls_are_executed_in_order() -> None:
    script = [tool_calls(("fetch_page", {"page": 2}, "a"), ("fetch_page", {"page": 1}, "b")),
              text("done")]
    ep, srv, _ = run_llm(script)
    assert [e.args["page"] for e in ep.events if e.name == "fetch_page"] == [2, 1]
    assert len(srv.requests) == 2  # both results go back before the next completion
    tools = [m for m in srv.requests[1]["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tools] == ["a", "b"]
    assert [json.loads(m["content"])["page"] for m in tools] == [2, 1]
    parallel = [h for h in ep.meta["llm"]["handling"] if h["event"] == "parallel_tool_calls"]
    assert parallel and parallel[0]["handling"] == "execute_in_order"


def test_api_key_never_reaches_the_episode() -> None:
    leaky = {"data_jsonl": "", "metadata_json": "{}", "run_log": f"used key {SECRET}"}
    script = [tool_calls(("get_task_info", {"note": f"Bearer {SECRET}"})),
              tool_calls(("submit_results", leaky))]
    ep, srv, _ = run_llm(script)
    assert ep.termination.kind == "submitted"
    assert SECRET not in json.dumps(srv.requests[-1])  # the model never saw it either
    assert SECRET.encode() not in canonical_json(ep)
    assert ep.submission is not None and "[REDACTED]" in ep.submission["run_log"]
    ep2, _, _ = run_llm([http_error(401, f"Incorrect API key provided: {SECRET}")])
    assert ep2.termination.kind == "infra_error" and "unauthorized" in ep2.termination.detail
    assert SECRET.encode() not in canonical_json(ep2)
    assert b"SECRET1234" not in canonical_json(ep2)


def test_missing_key_variable_is_an_infra_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(KEY_ENV)
    ep, srv, _ = run_llm([text("never reached")])
    assert ep.termination.kind == "infra_error" and KEY_ENV in ep.termination.detail
    assert srv.requests == [] and ep.usage.attempts == []


def test_l1_decisions_are_asked_parsed_and_recorded() -> None:
    answers = [text("RETRY"), text("I think we should **skip** it."), text("RETRY")]
    ep, srv, _ = run_llm(answers * 3, task="T8_mixed_faults", level="L1")
    decisions = [e.result for e in ep.events if e.kind == "decision"]
    recorded = ep.meta["llm"]["l1_answers"]
    assert decisions and [r["decision"] for r in recorded] == decisions
    assert decisions[0] == "RETRY"
    assert all("tools" not in body for body in srv.requests)
    assert ep.termination.kind == "submitted"


def test_l1_unparseable_answer_is_skip_and_recorded() -> None:
    ep, _, _ = run_llm([text("hmm, hard to say")] * 3, task="T4_rate_limit_429", level="L1")
    recorded = ep.meta["llm"]["l1_answers"]
    assert recorded[0]["decision"] == "SKIP" and recorded[0]["parsed"] == "unparseable"
    assert next(e.result for e in ep.events if e.kind == "decision") == "SKIP"


def test_l0_model_picks_pages_and_the_harness_submits() -> None:
    script = [tool_calls(("fetch_page", {"page": p})) for p in (1, 2, 3)]
    ep, srv, _ = run_llm(script, level="L0")
    assert ep.termination.kind == "submitted" and len(srv.requests) == 3
    assert ground_truth_f1(submission_from_mapping(ep.submission), "T3_duplicates", 0).score == 1.0
    assert ep.events[-1].actor == "harness" and ep.events[-1].name == "submit_results"


def test_the_key_in_any_encoding_never_reaches_the_episode() -> None:
    # The model echoes the key base64'd at every offset, base32'd, in hex and percent-encoded,
    # in tool arguments and in its final text.
    echoed = encodings(SECRET)
    script = [tool_calls(("get_task_info", {"note": " ".join(echoed.values())})),
              text("done: " + " | ".join(echoed.values()))]
    ep, _, _ = run_llm(script)
    record = canonical_json(ep).decode()
    assert "[REDACTED]" in record
    assert not [name for name, form in echoed.items() if form.rstrip("=")[4:-4] in record]
