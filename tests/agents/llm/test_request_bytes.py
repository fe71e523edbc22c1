"""The exact request bytes the lean path sends, pinned: speed work must not change one byte.

Each scenario runs a ChatPolicy episode against an in-process scripted model (the transport is
replaced, so the bytes compared are those handed to aiohttp). The digests below were computed
on the code before the request body was built from per-message bytes and tool results were
encoded without `json.dumps` (commit 30976eb); they are the bodies of that code, not of the
code under test.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pytest

from agentmetrology.agents.llm import ChatPolicy, LLMTarget, Prices
from agentmetrology.agents.llm import body as body_module
from agentmetrology.agents.llm import client as client_module
from agentmetrology.agents.llm.body import Conversation, RequestTemplate
from agentmetrology.agents.llm.lean import encode_body
from agentmetrology.agents.scaffolds.runner import run_episode_async
from agentmetrology.envs.comtrade import ComtradeEnv
from agentmetrology.records import canonical_json
from agentmetrology.records.clock import FakeClock
from support.comtrade_runs import COMTRADE
from support.fake_models import careful_model
from support.fake_openai import Reply, http_error, text, tool_calls

KEY_ENV = "AGM_TEST_BYTES_KEY"
SECRET = "sk-test-BYTES-0123456789abcdefXYZ"
PRICED = Prices(input_per_m=1.0, output_per_m=2.0, cached_per_m=0.5)


class ScriptedTransport:
    """Stands in for LeanTransport: records every body and answers from a script."""

    def __init__(self, script: list[Reply | Callable[[dict[str, Any]], Reply]],
                 bodies: list[bytes]) -> None:
        self.script, self.bodies = script, bodies

    async def post(self, body: bytes) -> tuple[int, Mapping[str, str], bytes]:
        self.bodies.append(body)
        reply = self.script.pop(0) if self.script else http_error(400, "script exhausted")
        if callable(reply):
            reply = reply(json.loads(body))
        headers = {"x-request-id": f"req_{len(self.bodies)}", **reply.get("headers", {})}
        return int(reply["status"]), headers, json.dumps(reply["body"]).encode()

    async def aclose(self) -> None:
        pass


def episode_bodies(monkeypatch: pytest.MonkeyPatch, script: list[Any], *, task: str,
                   level: str, model: str = "gpt-4o-mini",
                   decoding: dict[str, Any] | None = None,
                   requests: list[tuple[dict[str, Any], bytes | None]] | None = None,
                   ) -> tuple[list[bytes], bytes]:
    """Return the bodies one episode sends on the lean path, and the episode's canonical JSON;
    `requests` gets the (kwargs, body) of every ChatClient.complete call."""
    bodies: list[bytes] = []
    transport = ScriptedTransport(list(script), bodies)
    monkeypatch.setattr(client_module.ChatClient, "_transport", lambda self: transport)
    complete = client_module.ChatClient.complete

    async def recording(self: Any, kwargs: dict[str, Any], *, body: bytes | None = None) -> Any:
        if requests is not None:
            requests.append((json.loads(json.dumps(kwargs)), body))
        return await complete(self, kwargs, body=body)

    monkeypatch.setattr(client_module.ChatClient, "complete", recording)

    async def go() -> bytes:
        target = LLMTarget("llm:bytes", model, "http://127.0.0.1:9/v1", KEY_ENV,
                           decoding or {}, PRICED, 2, 10.0)
        policy = ChatPolicy(target, clock=FakeClock(), http_client="lean",
                            timer=iter(range(10_000)).__next__)
        ep = await run_episode_async(COMTRADE, ComtradeEnv(task, 0), policy, level)
        ep.meta["llm"] = policy.notes()
        await policy.aclose()
        return canonical_json(ep)

    return bodies, asyncio.run(go())


def _leaky(body: dict[str, Any]) -> Reply:
    return tool_calls(("get_task_info", {"note": f"Bearer {SECRET}"}, "leak"))


SCENARIOS: dict[str, dict[str, Any]] = {
    "l2_careful_decoding": dict(script=[careful_model] * 14, task="T3_duplicates", level="L2",
                                decoding={"temperature": 0, "seed": 3, "max_tokens": 64}),
    "l2_retries_and_errors": dict(
        script=[http_error(429, "slow", headers={"retry-after": "1"}),
                tool_calls(("fetch_page", '{"page": 1', "bad"), ("fetch_page", "[1]", "list")),
                tool_calls(("fetch_page", {"page": 2}, "a"), ("fetch_page", {"page": 1}, "b")),
                _leaky, tool_calls(("get_task_info", {}), content="thinking: é ✓ \u2028"),
                text("done")],
        task="T4_rate_limit_429", level="L2"),
    "l1_questions": dict(script=[text("RETRY"), text("I think we should **skip** it."),
                                 text("RETRY")] * 3, task="T8_mixed_faults", level="L1"),
    "l0_pages": dict(script=[tool_calls(("fetch_page", {"page": p})) for p in range(1, 9)]
                     + [text("done")], task="T10_constrained_budget", level="L0"),
    "o_series_quirks": dict(script=[careful_model] * 14, task="T3_duplicates", level="L2",
                            model="o3-mini", decoding={"temperature": 0.2, "top_p": 0.9,
                                                       "max_tokens": 256, "seed": 7}),
}

# Per scenario, at commit 30976eb: the number of bodies, the sha256 of the bodies joined by a
# newline, and the sha256 of the episode's canonical JSON (attempts, costs, notes, redaction).
PINNED: dict[str, tuple[int, str, str]] = {
    "l0_pages": (8,
        "de1578a3b47525ccece96bb610fa6727e7f3994095db4f3a8a353cec35ac73bb",
        "5b72975bfe919b54550a783a37e30dd3e36f9dfa9e5926c259c193bc2c9a6149"),
    # The model skips page 2: since the L1 harness stopped logging complete=true after a
    # skipped page, its run log ends complete=false (the only change to this episode).
    "l1_questions": (2,
        "4db266fcfe41ad49ae67e58f691f39ddbaa5600d89a4c68fbc5dac599354237c",
        "b2e2157e3bf40d842661856c9de871378598efe06c103f00d04a5ccc98ff6bbe"),
    "l2_careful_decoding": (5,
        "0705c7c9a16b40a389de4a70f3152bf19da162bdf7cbb3a978d974acf278b43e",
        "67e358ebbc474cc07852c65d9949000260ce471adfc95ae87ab7648806886181"),
    "l2_retries_and_errors": (6,
        "1b9ec92d8cc7ec5ffb166b477b6ecdb5cb66aa17f5c97faa1b3676b72a48231b",
        "1e76ba9b696cb3ad903c84d6d34f48e5c30701f34a4a70f85b3cab78e536e2f1"),
    "o_series_quirks": (5,
        "5e5d7718349e0bec688362354123d63f4dd052244bcccce975b62a60662bf307",
        "97ba0b12bc5517e234b1c3d43b64a77acdf382a009368f5ff5c328f8f63f9cbe"),
}

# Per scenario, the digest of the episode's transcript document (the episode binds it).
PINNED_TRANSCRIPTS: dict[str, str] = {
    "l0_pages":
        "95ea1c4376824a83823ae74a1eb7ba62805828ef0e85bb924dbd0fece5edc431",
    "l1_questions":
        "f7ca13d49a1e6e11e040b768e73b6ad84d306ebd1523eba0493e4b9c6c18c294",
    "l2_careful_decoding":
        "6a27529b76daff92dd9a88e1b364abc038f15fb2428da50b425d653afdccd748",
    "l2_retries_and_errors":
        "069ca6f01559e20a4bbfab58db4c6231e03ad051517069fce153ce564e652057",
    "o_series_quirks":
        "24791376f57531cb524df3aaaa3ddde177758cb13257ae80a90c3c8972c51f62",
}


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv(KEY_ENV, SECRET)
    yield


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_request_bodies_are_byte_identical_to_the_pinned_ones(
        monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    bodies, episode = episode_bodies(monkeypatch, **SCENARIOS[name])
    digest = hashlib.sha256(b"\n".join(bodies)).hexdigest()
    # The episode binds its transcript's digest since transcripts are kept; without that one
    # field it is byte for byte the pinned episode, and the transcript has its own pin.
    plain = json.loads(episode)
    transcript = plain["digests"].pop("transcript")
    assert (len(bodies), digest, hashlib.sha256(canonical_json(plain)).hexdigest()) \
        == PINNED[name]
    assert transcript == PINNED_TRANSCRIPTS[name]
    assert all(SECRET.encode() not in b for b in bodies)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_each_body_is_the_plain_encoding_of_its_request(
        monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    # Independent of the pins: a body is what encoding its parsed request in one go gives, and
    # every tool result in it reads exactly as json.dumps(result, ensure_ascii=False) writes it.
    bodies, _ = episode_bodies(monkeypatch, **SCENARIOS[name])
    for body in bodies:
        request = json.loads(body)
        assert encode_body(request) == body
        for m in request["messages"]:
            if m["role"] == "tool":
                assert json.dumps(json.loads(m["content"]), ensure_ascii=False) == m["content"]


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_the_joined_body_is_the_encoding_of_the_request_arguments(
        monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    # What the SDK path sends (kwargs) and what the lean path sends (body) are one request.
    requests: list[tuple[dict[str, Any], bytes | None]] = []
    bodies, _ = episode_bodies(monkeypatch, **SCENARIOS[name], requests=requests)
    assert requests and all(body is not None for _, body in requests)
    assert [encode_body(kwargs) for kwargs, _ in requests] == [body for _, body in requests]
    assert set(bodies) == {body for _, body in requests}  # retries resend the same bytes


def _conversation(*contents: str) -> Conversation:
    return Conversation([{"role": "user", "content": c} for c in contents])


@pytest.mark.parametrize("kwargs", [
    {"model": "m", "messages": []},
    {"model": "m", "messages": [], "tools": [{"type": "function", "function": {"name": "f"}}]},
    {"model": "m", "messages": [], "extra_body": {"temperature": 0.2, "seed": 7}},
    # extra_body overriding a key keeps its place (dict.update), as encode_body does
    {"model": "m", "messages": [], "extra_body": {"model": "other", "top_k": 5}},
    {"messages": [], "model": "m"},  # another key order is kept too
    {"model": "m"},  # no messages key at all: appended after the others
])
def test_a_template_body_is_encode_body_of_its_kwargs(kwargs: dict[str, Any]) -> None:
    conv = _conversation()
    template = RequestTemplate(kwargs)
    for content in ("hello", 'quotes " and \\ and ✓', "\u2028 \x00 control"):
        assert template.body(conv) == encode_body(template.kwargs(conv))
        conv.append({"role": "user", "content": content})
    assert template.body(conv) == encode_body(template.kwargs(conv))
    assert json.loads(template.body(conv))["messages"] == conv.messages


def test_a_request_that_cannot_be_split_is_encoded_whole() -> None:
    conv = _conversation("a", "b")
    mark = body_module._MARK
    for kwargs in ({"model": "m", "messages": [], "extra_body": {"messages": ["x"]}},
                   {"model": mark, "messages": []}):
        template = RequestTemplate(kwargs)
        assert template._split is None
        assert template.body(conv) == encode_body(template.kwargs(conv))
    assert json.loads(RequestTemplate({"model": "m", "extra_body": {"messages": ["x"]}})
                      .body(conv))["messages"] == ["x"]  # extra_body wins, as on the wire


def test_kwargs_are_fresh_containers_each_request() -> None:
    conv = _conversation("a")
    template = RequestTemplate({"model": "m", "messages": [], "extra_body": {"seed": 1}})
    first, second = template.kwargs(conv), template.kwargs(conv)
    assert first == second and first["messages"] is not conv.messages
    first["extra_body"]["seed"] = 2
    first["messages"].append({"role": "user", "content": "changed"})
    assert template.kwargs(conv) == second  # a caller changing its copy changes nothing here
