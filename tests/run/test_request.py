"""A run request is checked once: every bad input is one UserError naming the option typed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentmetrology.agents.llm.client import HTTP_CLIENT_ENV
from agentmetrology.envs.registry import get_env
from agentmetrology.records.errors import UserError
from agentmetrology.run.adhoc import run_request
from agentmetrology.run.request import make_request

LLM = {"agent": "llm:m", "base_url": "http://127.0.0.1:9/v1"}


@pytest.mark.parametrize(("given", "option"), [
    ({"task": None}, "--task"),
    ({"task": "T99"}, "--task"),
    ({"task": " , "}, "--task"),
    ({"task": "T3_duplicates, T3_duplicates"}, "--task"),  # was run twice: weighed double
    ({"seeds": "x"}, "--seeds"),
    ({"seeds": "3-1"}, "--seeds"),
    ({"limit": 0}, "--limit"),
    ({**LLM, "task": "T3_duplicates,T4_rate_limit_429", "seeds": "0-2", "limit": 4}, "--limit"),
    ({"profile": "zz"}, "--profile"),
    ({"level": "L7"}, "--level"),
    ({"condition": "weird"}, "--condition"),
    ({"condition": "mut:nope"}, "--condition"),
    ({"agent": "nope"}, "--agent"),
    ({"agent": "llm:"}, "--agent"),
    ({"agent": "llm:a b"}, "--agent"),  # a model name with `/` is valid (test_model_names)
    ({**LLM, "base_url": "ftp://x"}, "--base-url"),
    ({**LLM, "base_url": "http://user:pw@127.0.0.1:9/v1"}, "--base-url"),
    ({**LLM, "api_key_env": "1BAD"}, "--api-key-env"),
    ({**LLM, "api_key_env": "sk-abcdefabcdefabcdefabcdefabcdefabcdef"}, "--api-key-env"),
    ({**LLM, "api_key_env": "AGM_TEST_KEY_NOT_SET"}, "--api-key-env"),
    ({**LLM, "price": "a,b"}, "--price"),
    ({**LLM, "price": "1"}, "--price"),
    ({**LLM, "task": "all", "seeds": "0-99999", "repeats": 1000}, "--epochs"),
])
def test_each_bad_input_is_one_user_error_naming_its_option(
        given: dict[str, Any], option: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGM_TEST_KEY_NOT_SET", raising=False)
    args: dict[str, Any] = {"task": "T3_duplicates", **given}
    with pytest.raises(UserError) as caught:
        make_request("comtrade", **args)
    message = str(caught.value)
    assert option in message
    assert "\n" not in message
    # Never a place in a campaign file the user never wrote.
    assert "targets[" not in message and "<agm run" not in message


def test_a_credential_in_the_endpoint_is_refused_in_command_line_words() -> None:
    with pytest.raises(UserError) as caught:
        make_request("comtrade", task="T1_single_page", agent="llm:m",
                     base_url="http://user:pw@127.0.0.1:9/v1")
    assert str(caught.value) == (
        "--base-url: base_url holds a password (user:password@host); never write a credential "
        "on a command line: remove it, give --api-key-env VARIABLE and export VARIABLE")


def test_an_unknown_environment_names_the_known_ones() -> None:
    with pytest.raises(UserError, match=r"'nope'.*comtrade"):
        make_request("nope", task="T1")


def test_an_unusable_llm_client_is_refused_before_anything_runs(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(HTTP_CLIENT_ENV, "curl")
    with pytest.raises(UserError, match=r"unknown LLM HTTP client 'curl' \(AGM_LLM_CLIENT\)"):
        make_request("comtrade", task="T1_single_page", **LLM)


def test_a_good_request_holds_what_runs() -> None:
    req = make_request("comtrade", task="T3_duplicates,T4_rate_limit_429", seeds="5-9",
                       limit=2, repeats=2, condition="clean")
    # The first 2 samples (task-major, as Inspect's --limit) are the first task's seeds 5, 6.
    assert (req.tasks, req.seeds, req.agent, req.level, req.profile, req.repeats) == (
        ("T3_duplicates",), (5, 6), "rule", "L2", "seeded", 2)
    assert req.count == 4 and req.limit is None
    assert not req.is_llm and req.target is None
    assert list(req.episodes())[:3] == [("T3_duplicates", 5, 0), ("T3_duplicates", 5, 1),
                                        ("T3_duplicates", 6, 0)]
    assert make_request("comtrade", task="all").tasks == tuple(get_env("comtrade").tasks)


def test_an_llm_request_holds_its_campaign_target(tmp_path: Path) -> None:
    req = make_request("comtrade", task="T1_single_page", store=tmp_path, price="1,2",
                       max_retries=0, **LLM)
    assert req.is_llm and req.target is not None
    assert (req.target.name, req.target.model, req.target.base_url, req.target.max_retries,
            req.target.price) == ("llm:m", "m", LLM["base_url"], 0,
                                  {"input_per_m": 1.0, "output_per_m": 2.0})


def test_an_agent_that_cannot_act_at_the_level_is_refused_before_any_episode() -> None:
    req = make_request("comtrade", task="T3_duplicates", agent="l1:always-retry", level="L0")
    rows: list[dict[str, Any]] = []
    with pytest.raises(UserError, match="--level: agent 'l1:always-retry' acts only at L1"):
        run_request(req, rows.append)
    assert rows == []


def test_each_episode_builds_its_policy_once(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = get_env("comtrade")
    built: list[object] = []
    real = spec.agents["rule"]

    def counting() -> Any:
        built.append(policy := real())
        return policy

    monkeypatch.setitem(spec.agents, "rule", counting)
    out = run_request(make_request("comtrade", task="T3_duplicates", seeds="0-2"))
    assert len(out.rows) == 3 and len(built) == 3  # no policy built only to read its levels


def test_the_default_endpoint_without_its_key_is_refused_before_anything_runs(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(UserError) as caught:
        make_request("comtrade", task="T3_duplicates", agent="llm:fake-model")
    assert str(caught.value) == (
        "--agent llm:fake-model: the endpoint api.openai.com needs an API key and "
        "OPENAI_API_KEY is not set; export it, name another variable with --api-key-env, or "
        "point --base-url at your server")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-real-0123456789")
    assert make_request("comtrade", task="T3_duplicates", agent="llm:fake-model").is_llm
