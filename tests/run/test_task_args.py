"""`agm run`'s agent choice: `--model provider/name` as Inspect writes it, explicit endpoint
options winning (moved from tests/cli/test_cli_conventions.py)."""

from __future__ import annotations

from agentmetrology.run.task_args import choose_agent


def test_explicit_endpoint_options_win_over_the_provider() -> None:
    got = choose_agent(None, "anthropic/claude-x", "http://127.0.0.1:1/v1", "MY_KEY")
    assert (got.agent, got.base_url, got.api_key_env) == ("llm:claude-x",
                                                         "http://127.0.0.1:1/v1", "MY_KEY")
    assert choose_agent(None, None, None, None).agent == "rule"
