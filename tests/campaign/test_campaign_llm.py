"""An llm target through the real LLM policy against a fake OpenAI-compatible server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentmetrology.run.campaign import parse_campaign, run_campaign
from agentmetrology.store import EvidenceStore
from campaign.campaign_fixtures import files_containing, model_free, with_llm
from support import fake_openai as fake

KEY = "sk-test-0123456789abcdefSECRETvalue"


def test_llm_campaign_over_loopback_records_costs_and_never_the_key(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tool_calls, usage = fake.tool_calls, fake.usage

    def model(body: dict[str, Any]) -> Any:
        # Ask for the next page each turn; at L0 the harness submits after the last one.
        pages = sum(1 for m in body["messages"] if m.get("role") == "tool")
        return tool_calls(("fetch_page", {"page": pages + 1}), use=usage(1000, 50))

    monkeypatch.setenv("AGM_TEST_KEY", KEY)
    text = model_free(tasks='["T3_duplicates"]', seeds="0-2")
    with fake.FakeOpenAI([model] * 60) as srv:
        text = with_llm(text, base_url=srv.base_url, concurrency=3)
        text = text.replace('levels = ["L0", "L2"]', 'levels = ["L0"]')
        config = parse_campaign(text)
        with EvidenceStore.open(tmp_path / "s", scrub_env=False) as st:
            result = run_campaign(config, st)
        assert srv.headers and srv.headers[0]["authorization"] == f"Bearer {KEY}"
    llm = result.status.targets["fake-llm"]
    assert result.status.complete and llm.submitted == 3
    requests = len(srv.requests)
    assert llm.input_tokens == 1000 * requests and llm.output_tokens == 50 * requests
    assert llm.cost == pytest.approx(requests * (1000 * 1.0 + 50 * 2.0) / 1e6)
    assert not files_containing(tmp_path / "s", KEY.encode())
