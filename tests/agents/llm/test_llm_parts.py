"""Quirks, redaction, parsing and the agent spec: the LLM policy's pure parts."""

from __future__ import annotations

import pytest

from agentmetrology.agents.llm import (
    QUIRKS,
    Quirk,
    apply_quirks,
    parse_agent_spec,
    redact,
    redact_value,
    target_from_spec,
)
from agentmetrology.agents.llm.client import (
    PLACEHOLDER_KEY,
    classify_status,
    provider_of,
    resolve_api_key,
    retry_after_s,
)
from agentmetrology.agents.llm.policy import parse_arguments
from agentmetrology.agents.llm.redact import REDACTED, env_secrets
from agentmetrology.agents.llm.target import LLMTarget
from agentmetrology.agents.llm.turns import parse_decision
from agentmetrology.records.errors import InfraError


@pytest.mark.parametrize("model", ["o1", "o3-mini", "o4-mini-2025-04-16", "openai/o3",
                                   "gpt-5", "gpt-5-mini"])
def test_reasoning_models_get_max_completion_tokens_and_no_sampling(model: str) -> None:
    params, applied = apply_quirks(model, {"temperature": 0, "max_tokens": 9, "stop": ["x"]})
    assert params == {"max_completion_tokens": 9}
    assert {a["param"] for a in applied} == {"temperature", "max_tokens", "stop"}


@pytest.mark.parametrize("model", ["gpt-4o-mini", "ollama/llama3.1:8b", "qwen2.5:7b",
                                   "gpt-5-chat-latest", "omni-model"])
def test_other_models_are_left_alone(model: str) -> None:
    params = {"temperature": 0.3, "max_tokens": 9, "top_p": 1.0}
    assert apply_quirks(model, params) == (params, [])


def test_explicit_new_name_wins_and_exclusive_pairs_drop_the_second() -> None:
    params, applied = apply_quirks("o3", {"max_tokens": 9, "max_completion_tokens": 20})
    assert params == {"max_completion_tokens": 20}
    assert applied[0]["action"] == "dropped" and applied[0]["param"] == "max_tokens"
    params, _ = apply_quirks("claude-sonnet-4-5", {"temperature": 0.1, "top_p": 0.9})
    assert params == {"temperature": 0.1}
    table = (*QUIRKS, Quirk("custom", r"^my-model$", drop=("seed",)))
    assert apply_quirks("my-model", {"seed": 1}, table)[0] == {}


def test_redact_common_key_shapes_and_auth_contexts() -> None:
    samples = ["sk-proj-abcdefghijklmnop1234", "sk-ant-api03-abcdefghijkl",
               "Authorization: Bearer abc.def.ghi-jklmnop", "api_key=0123456789abcdef0123",
               '"x-api-key": "QUJDREVGR0hJSktMTU5PUA=="', "https://user:hunter22@host/v1",
               "https://h/v1?key=AIzaSyA-1234567890abcdefghijklmnopqrstu"]
    for s in samples:
        out = redact(s)
        assert REDACTED in out, s
    assert "hunter22" not in redact(samples[5])
    assert redact("api_key=0123456789abcdef0123").startswith("api_key=")


def test_redact_keeps_digests_record_ids_and_short_placeholders() -> None:
    digest = "a" * 64
    text = f"record T3_duplicates-000001 digest {digest} task-abcdefghijklmnop"
    assert redact(text) == text
    assert redact("ollama is fine", ["ollama"]) == "ollama is fine"


def test_redact_literal_env_value_and_nested_data(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_ODD_KEY", "zz9-plural-z-alpha")
    secrets = env_secrets("MY_ODD_KEY", None, "UNSET_VARIABLE_X")
    assert secrets == ["zz9-plural-z-alpha"]
    data = {"a": ["x zz9-plural-z-alpha y", 3], "zz9-plural-z-alpha": None}
    assert redact_value(data, secrets) == {"a": [f"x {REDACTED} y", 3], REDACTED: None}


@pytest.mark.parametrize(("answer", "expected"), [
    ("RETRY", ("RETRY", "first_word")), ("skip.", ("SKIP", "first_word")),
    ("**Retry** - budget allows", ("RETRY", "first_word")),
    ("I would RETRY this page", ("RETRY", "only_keyword")),
    ("<think>should I skip? no</think>RETRY", ("RETRY", "first_word")),
    ("not SKIP but RETRY", ("SKIP", "ambiguous")), ("", ("SKIP", "unparseable")),
    ("skipping is bad", ("SKIP", "unparseable")),
])
def test_parse_decision(answer: str, expected: tuple[str, str]) -> None:
    assert parse_decision(answer) == expected


def test_parse_arguments() -> None:
    assert parse_arguments('{"page": 2}') == ({"page": 2}, None)
    assert parse_arguments("") == ({}, None) and parse_arguments(None) == ({}, None)
    assert parse_arguments('{"page": ')[1] is not None
    assert "JSON object" in (parse_arguments("[1, 2]")[1] or "")
    # 64 levels of nesting are executed, 65 are not; a lone surrogate is no text (a valid
    # pair is: 😀), NaN is a number the record keeps.
    assert parse_arguments('{"a":' * 63 + "[1]" + "}" * 63)[1] is None
    assert parse_arguments('{"a":' * 64 + "[1]" + "}" * 64) == (
        None, "arguments are nested deeper than 64 levels")
    assert parse_arguments("[" * 5000 + "]" * 5000) == (  # deeper than json.loads follows
        None, "arguments are nested deeper than 64 levels")
    assert parse_arguments('{"x": ' + "[" * 5000 + "]" * 5000 + "}") == (
        None, "arguments are nested deeper than 64 levels")
    assert parse_arguments('{"q": ["\\udc00x"]}') == (
        None, "arguments hold a lone surrogate ('\\udc00'), which is not text")
    assert parse_arguments('{"\\ud800": 1}')[1] == (
        "arguments hold a lone surrogate ('\\ud800'), which is not text")
    assert parse_arguments('{"q": "\\ud83d\\ude00"}') == ({"q": "\U0001f600"}, None)
    value, error = parse_arguments('{"page": NaN}')
    assert error is None and value is not None and value["page"] != value["page"]


def test_agent_spec_and_target() -> None:
    assert parse_agent_spec("rule") is None
    assert parse_agent_spec("llm:qwen2.5:7b") == "qwen2.5:7b"
    with pytest.raises(ValueError, match="model name"):
        parse_agent_spec("llm:")
    t = target_from_spec("llm:gpt-4o-mini", base_url="http://127.0.0.1:8000/v1",
                         api_key_env="X_KEY", decoding={"temperature": 0})
    assert (t.name, t.model, t.api_key_env) == ("llm:gpt-4o-mini", "gpt-4o-mini", "X_KEY")
    with pytest.raises(ValueError):
        target_from_spec("scripted:careful")


def test_status_classes_retry_after_and_provider() -> None:
    assert classify_status(429) == ("rate_limited", True)
    assert classify_status(502) == ("server_error", True)
    assert classify_status(401) == ("unauthorized", False)
    assert classify_status(418) == ("http_418", False)
    assert retry_after_s({"retry-after": "2"}) == 2.0
    assert retry_after_s({"retry-after-ms": "250"}) == 0.25
    assert retry_after_s({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) is None
    assert provider_of(LLMTarget("t", "m")) == "api.openai.com"
    assert provider_of(LLMTarget("t", "m", "https://u:p@Example.com:8443/v1")) == "example.com:8443"


def test_key_resolution(monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve_api_key(LLMTarget("t", "m", "http://127.0.0.1:1/v1")) == PLACEHOLDER_KEY
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(InfraError, match="OPENAI_API_KEY"):
        resolve_api_key(LLMTarget("t", "m"))  # api.openai.com needs a key
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    assert resolve_api_key(LLMTarget("t", "m")) == "sk-x"
