"""An LLM campaign's store for the viewer tests: one L2 episode of a fake model that says what
it does and reasons before it does it, its first request answered 429 then retried."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from run.campaign.campaign_fixtures import LLM_TARGET
from support import fake_openai as fake
from support.fake_models import careful_model
from support.stores import record_into

KEY = "sk-test-0123456789abcdefTRANSCRIPTkey"
CAMPAIGN = """
[campaign]
name = "tx"
tasks = ["T3_duplicates"]
seeds = "0"
levels = ["L2"]

[limits]
max_steps = 30
"""


def talking_model(body: dict[str, Any]) -> Any:
    """The careful fake model, saying what it does and thinking before it does it."""
    reply = careful_model(body)
    n = len(body["messages"])
    message = reply["body"]["choices"][0]["message"]
    message["content"] = f"Step {n}: <calling> {message['tool_calls'][0]['function']['name']}"
    message["reasoning_content"] = f"reasoning at {n}"
    return reply


def build_llm_store(root: Path) -> tuple[Path, list[dict[str, Any]]]:
    """A store of one L2 LLM episode (one 429 retried); the requests the server received."""
    os.environ["AGM_TEST_KEY"] = KEY
    try:
        script: list[Any] = [fake.http_error(429, "slow down"), *[talking_model] * 30]
        with fake.FakeOpenAI(script) as srv:
            text = CAMPAIGN + LLM_TARGET.format(name="fake-llm", base_url=srv.base_url,
                                                key_env="AGM_TEST_KEY")
            record_into(root, text)
            requests = [dict(r) for r in srv.requests]
    finally:
        os.environ.pop("AGM_TEST_KEY", None)
    return root, requests
