"""Every path that records into a store leaves a store that passes its own full verification.

Inline, process and LLM campaigns here; the store of `agm serve mcp` driven by the official
`mcp` SDK client is verified in `tests/serve/test_mcp_server.py` (a real `agm` process over
stdio), the Ray backend's in `tests/run/campaign/test_campaign_ray_llm.py` (it needs the module's
Ray instance).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from agentmetrology.run.campaign import parse_campaign, run_campaign
from agentmetrology.store import EvidenceStore
from agentmetrology.store.verify import verify_store
from run.campaign.campaign_fixtures import model_free, with_llm
from support import fake_openai as fake


def _qualified(store: Path) -> None:
    q = verify_store(store, mode="full")
    assert q.qualified, [p.text() for p in q.problems]
    assert verify_store(store, mode="ledger").qualified


@pytest.mark.parametrize("backend", ["inline", "process"])
def test_a_model_free_campaign_store_verifies(tmp_path: Path, backend: str) -> None:
    config = parse_campaign(model_free(tasks='["T3_duplicates"]', seeds="0"))
    with EvidenceStore.open(tmp_path / "s", scrub_env=False) as st:
        result = run_campaign(config, st, backend=backend, workers=2)
    assert result.status.complete
    _qualified(tmp_path / "s")
    with sqlite3.connect(tmp_path / "s" / "ledger.sqlite") as c:
        # no model: nothing billed, so the cost is known to be zero (the episodes' digests,
        # pinned elsewhere, are unchanged)
        assert {r[0] for r in c.execute("SELECT cost FROM episodes")} == {0.0}


def test_an_llm_campaign_store_verifies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def model(body: dict[str, Any]) -> Any:
        pages = sum(1 for m in body["messages"] if m.get("role") == "tool")
        return fake.tool_calls(("fetch_page", {"page": pages + 1}), use=fake.usage(1000, 50))

    monkeypatch.setenv("AGM_TEST_KEY", "sk-test-0123456789abcdefSECRETvalue")
    text = model_free(tasks='["T3_duplicates"]', seeds="0")
    with fake.FakeOpenAI([model] * 60) as srv:
        config = parse_campaign(with_llm(text, base_url=srv.base_url))
        with EvidenceStore.open(tmp_path / "s", scrub_env=False) as st:
            assert run_campaign(config, st).status.complete
    _qualified(tmp_path / "s")
