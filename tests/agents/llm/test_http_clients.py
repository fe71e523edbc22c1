"""The two HTTP paths (lean: aiohttp+msgspec; sdk: openai): same requests, records, errors."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentmetrology.agents.llm import ChatPolicy, LLMTarget, Prices
from agentmetrology.agents.llm.client import HTTP_CLIENT_ENV, resolve_http_client
from agentmetrology.agents.llm.lean import (
    LeanTransport,
    _Pool,
    encode_body,
    endpoint_url,
    env_proxy,
)
from agentmetrology.agents.scaffolds.runner import run_episode_async
from agentmetrology.cli.main import app
from agentmetrology.envs.comtrade import ComtradeEnv
from agentmetrology.records import Episode, canonical_json
from agentmetrology.records.clock import FakeClock
from support.comtrade_runs import COMTRADE
from support.fake_models import careful_model
from support.fake_openai import FakeOpenAI, http_error, text, tool_calls

KEY_ENV = "AGM_TEST_HTTP_KEY"
SECRET = "sk-test-HTTPCLIENT-0123456789abcdef"
PRICED = Prices(input_per_m=1.0, output_per_m=2.0, cached_per_m=0.5)


def run(script: list[Any], http_client: str, *, task: str = "T3_duplicates",
        max_retries: int = 2) -> tuple[Episode, FakeOpenAI]:
    """Run one L2 episode on the given HTTP path against a scripted server."""

    async def go(srv: FakeOpenAI) -> Episode:
        target = LLMTarget("llm:m", "gpt-4o-mini", srv.base_url, KEY_ENV,
                           {"temperature": 0, "seed": 3}, PRICED, max_retries, 10.0)
        policy = ChatPolicy(target, clock=FakeClock(), http_client=http_client)
        ep = await run_episode_async(COMTRADE, ComtradeEnv(task, 0), policy, "L2")
        ep.meta["llm"] = policy.notes()
        await policy.aclose()
        return ep

    with FakeOpenAI(script) as srv:
        ep = asyncio.run(go(srv))
    return ep, srv


def _without_latency(ep: Episode, srv: FakeOpenAI) -> dict[str, Any]:
    """Return the episode as data without timings, the path's name and the server's port."""
    host = srv.base_url.split("/")[2]
    doc = json.loads(canonical_json(ep).decode().replace(host, "HOST"))
    for a in doc["usage"]["attempts"]:
        a.pop("latency_s")
    for notes in (doc["meta"]["llm"], doc["meta"]["policy_notes"]):
        notes.pop("http_client")
    return doc


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, SECRET)


def test_both_paths_send_the_same_requests_and_record_the_same_episode() -> None:
    script = [http_error(429, "slow down", headers={"retry-after": "2"}), *[careful_model] * 12]
    lean, lean_srv = run(list(script), "lean")
    sdk, sdk_srv = run(list(script), "sdk")
    assert lean.termination.kind == sdk.termination.kind == "submitted"
    assert lean_srv.requests == sdk_srv.requests  # the same JSON bodies on the wire
    assert [h["authorization"] for h in lean_srv.headers] == [f"Bearer {SECRET}"] * len(
        lean_srv.requests)
    # every recorded byte but timings
    assert _without_latency(lean, lean_srv) == _without_latency(sdk, sdk_srv)
    assert [a.outcome for a in lean.usage.attempts][:2] == ["rate_limited", "ok"]
    assert (lean.meta["llm"]["http_client"], sdk.meta["llm"]["http_client"]) == ("lean", "sdk")
    assert SECRET.encode() not in canonical_json(lean)


@pytest.mark.parametrize("http_client", ["lean", "sdk"])
@pytest.mark.parametrize("body", [b"this is not json", b'{"id": "x", "choices": []}'],
                         ids=["not-json", "no-choices"])
def test_an_unusable_200_is_a_retried_attempt_of_unknown_cost(http_client: str,
                                                              body: bytes) -> None:
    bad = {"status": 200, "body": body, "headers": {}}
    ep, srv = run([bad, bad, bad], http_client)
    assert [a.outcome for a in ep.usage.attempts] == ["invalid_response"] * 3
    assert len(srv.requests) == 3 and ep.usage.cost is None
    assert all(a.input_tokens is None and a.cost is None for a in ep.usage.attempts)
    assert ep.termination.kind == "infra_error"
    host = srv.base_url.split("/")[2]
    assert ep.termination.detail.startswith(
        f"unusable responses from {host}: retry budget exhausted for model 'gpt-4o-mini' "
        "after 3 attempts (invalid_response, invalid_response, invalid_response)")


def _shaped(message: dict[str, Any]) -> dict[str, Any]:
    return {"status": 200, "headers": {}, "body": {
        "id": "x", "usage": {"prompt_tokens": 100, "completion_tokens": 20},
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", **message}}]}}


WRONG_SHAPES = {
    "content-int": _shaped({"content": 7}),
    "content-list": _shaped({"content": [{"type": "text", "text": "hi"}]}),
    "arguments-object": _shaped({"content": None, "tool_calls": [
        {"id": "c", "type": "function",
         "function": {"name": "fetch_page", "arguments": {"page": 1}}}]}),
    "usage-string": {**_shaped({"content": "hi"}),
                     "body": {**_shaped({"content": "hi"})["body"], "usage": "lots"}},
    "nan-count": {"status": 200, "headers": {}, "body": (
        b'{"id": "x", "usage": {"prompt_tokens": NaN, "completion_tokens": 5}, "choices": '
        b'[{"index": 0, "message": {"role": "assistant", "content": "hi"}}]}')},
}


@pytest.mark.parametrize("http_client", ["lean", "sdk"])
@pytest.mark.parametrize("shape", list(WRONG_SHAPES))
def test_a_body_of_the_wrong_shape_is_an_invalid_response_on_both_paths(
        http_client: str, shape: str) -> None:
    # One decoder reads every 200 body, whichever path fetched it, and says where it is wrong.
    # The SDK does not validate types: on its path a list as content or an object as arguments
    # reached the policy and raised there, ending the episode as agent_error (the model's 0).
    ep, srv = run([WRONG_SHAPES[shape], text("done")], http_client)
    assert len(srv.requests) == 2
    assert [(a.outcome, a.input_tokens, a.cost) for a in ep.usage.attempts] == \
        [("invalid_response", None, None), ("ok", 100, 100 * 1e-6 + 20 * 2e-6)]
    assert ep.meta["llm"]["retries"][0]["outcome"] == "invalid_response"
    assert [h["event"] for h in ep.meta["llm"]["handling"]] == ["text_without_tool_call"]
    assert ep.termination.detail == "agent stopped without submitting"


def test_both_paths_record_a_body_of_the_wrong_shape_alike() -> None:
    script = [WRONG_SHAPES["content-list"], text("done")]
    lean, lean_srv = run(list(script), "lean")
    sdk, sdk_srv = run(list(script), "sdk")
    assert _without_latency(lean, lean_srv) == _without_latency(sdk, sdk_srv)


@pytest.mark.parametrize("http_client", ["lean", "sdk"])
def test_a_provider_error_message_reaches_the_detail_redacted(http_client: str) -> None:
    ep, _ = run([http_error(401, f"Incorrect API key provided: {SECRET}")], http_client)
    assert ep.termination.kind == "infra_error"
    assert "unauthorized" in ep.termination.detail
    assert "Incorrect API key provided: [REDACTED]" in ep.termination.detail
    assert [(a.outcome, a.request_id, a.cost) for a in ep.usage.attempts] == \
        [("unauthorized", "req_1", 0.0)]
    assert SECRET.encode() not in canonical_json(ep)


def test_tool_calls_parallel_and_malformed_are_read_the_same_on_both_paths() -> None:
    script = [tool_calls(("fetch_page", {"page": 2}, "a"), ("fetch_page", "{bad", "b")),
              text("done")]
    lean, lean_srv = run(list(script), "lean")
    sdk, sdk_srv = run(list(script), "sdk")
    assert lean_srv.requests == sdk_srv.requests
    assert _without_latency(lean, lean_srv) == _without_latency(sdk, sdk_srv)
    events = [h["event"] for h in lean.meta["llm"]["handling"]]
    assert events == ["parallel_tool_calls", "malformed_tool_arguments",
                      "text_without_tool_call"]


def test_the_http_client_is_chosen_by_argument_then_variable(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(HTTP_CLIENT_ENV, raising=False)
    assert resolve_http_client() == "lean"  # aiohttp is installed here: the measured default
    monkeypatch.setenv(HTTP_CLIENT_ENV, "SDK")
    assert resolve_http_client() == "sdk"
    assert resolve_http_client("lean") == "lean"
    monkeypatch.setenv(HTTP_CLIENT_ENV, "httpx")
    with pytest.raises(ValueError, match=r"unknown LLM HTTP client 'httpx' \(AGM_LLM_CLIENT\)"):
        resolve_http_client()


def test_an_unknown_http_client_is_one_line_and_exit_2_from_the_cli(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(HTTP_CLIENT_ENV, "curl")
    result = CliRunner().invoke(app, [
        "run", "comtrade", "--task", "T1_single_page", "--agent", "llm:m", "--level", "L2",
        "--base-url", "http://127.0.0.1:9/v1", "--store", str(tmp_path / "s")])
    assert result.exit_code == 2
    assert "unknown LLM HTTP client 'curl' (AGM_LLM_CLIENT); use lean or sdk" in result.stderr
    assert "Traceback" not in result.output


def test_endpoint_url_and_body_follow_the_sdk(monkeypatch: pytest.MonkeyPatch) -> None:
    assert endpoint_url("http://u:pw@127.0.0.1:8000/v1/") == \
        "http://127.0.0.1:8000/v1/chat/completions"
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert endpoint_url(None) == "https://api.openai.com/v1/chat/completions"
    # OPENAI_BASE_URL is never read: the endpoint is the target's, as recorded (the campaign
    # refuses to run such a target while the variable is set, see test_campaign_config.py)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://proxy.local/openai/v1")
    assert endpoint_url(None) == "https://api.openai.com/v1/chat/completions"
    body = encode_body({"model": "m", "messages": [], "extra_body": {"top_k": 5}})
    assert json.loads(body) == {"model": "m", "messages": [], "top_k": 5}


def test_the_sdk_path_ignores_openai_base_url_too(monkeypatch: pytest.MonkeyPatch) -> None:
    # The SDK would send a target without base_url to $OPENAI_BASE_URL while every attempt
    # recorded api.openai.com as its provider.
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv(KEY_ENV, SECRET)
    target = LLMTarget(name="m", model="m", api_key_env=KEY_ENV)
    client = ChatPolicy(target, http_client="sdk")._client
    sdk = client._client()
    assert client.provider == "api.openai.com"
    assert str(sdk.base_url) == "https://api.openai.com/v1/"


def test_the_proxy_comes_from_the_environment_unless_no_proxy_exempts_the_host(
        monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy",
                 "ALL_PROXY", "no_proxy", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    assert env_proxy("http://127.0.0.1:8000/v1/chat/completions") is None
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.local:3128")
    assert env_proxy("https://api.openai.com/v1/chat/completions") == "http://proxy.local:3128"
    assert env_proxy("http://10.0.0.1/v1/chat/completions") is None  # http: not https_proxy
    monkeypatch.setenv("NO_PROXY", "openai.com")
    assert env_proxy("https://api.openai.com/v1/chat/completions") is None


def test_transports_of_one_loop_share_one_pool_closed_by_the_last() -> None:
    async def go() -> tuple[bool, bool, bool, int]:
        a = LeanTransport("http://127.0.0.1:9/v1/chat/completions", "k", 5.0, "x")
        b = LeanTransport("http://127.0.0.1:9/v1/chat/completions", "k", 5.0, "x")
        shared = a.session is b.session
        session = a.session
        await a.aclose()
        open_after_one = not session.closed
        await b.aclose()
        return shared, open_after_one, session.closed, len(_Pool.sessions)

    assert asyncio.run(go()) == (True, True, True, 0)
