"""An llm target through the real LLM policy against a fake OpenAI-compatible server."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from agentmetrology.run.campaign import llm, parse_campaign, run_campaign
from agentmetrology.store import EvidenceStore
from run.campaign.campaign_fixtures import files_containing, model_free, query, with_llm
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


def test_the_l0_backoff_is_recorded_but_not_waited_and_the_model_waits_for_real(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # T4's injected 429s count requests, not seconds: the harness's 2/4/8 s backoff is written
    # into the episode's time (as on a fake clock) but costs the run no real time, while the
    # model's own retries get a real clock (a provider's rate limit is real).
    episode_clocks: list[llm.FastForwardClock] = []
    policy_clocks: list[Any] = []

    class Episodes(llm.FastForwardClock):
        def __init__(self) -> None:
            super().__init__()
            episode_clocks.append(self)

    class Policies(llm.RealClock):
        def __init__(self) -> None:
            super().__init__()
            policy_clocks.append(self)

    monkeypatch.setattr(llm, "FastForwardClock", Episodes)
    monkeypatch.setattr(llm, "RealClock", Policies)
    monkeypatch.setenv("AGM_TEST_KEY", KEY)

    def model(body: dict[str, Any]) -> Any:
        pages = sum(1 for m in body["messages"] if m.get("role") == "tool")
        return fake.tool_calls(("fetch_page", {"page": pages + 1}))

    text = model_free(tasks='["T4_rate_limit_429"]', seeds="0")
    with fake.FakeOpenAI([model] * 40) as srv:
        text = with_llm(text, base_url=srv.base_url).replace('levels = ["L0", "L2"]',
                                                             'levels = ["L0"]')
        with EvidenceStore.open(tmp_path / "s", scrub_env=False) as st:
            result = run_campaign(parse_campaign(text), st)
    ((digest,),) = query(tmp_path / "s", "SELECT e.episode_digest FROM episodes e JOIN "
                         "administrations a ON a.id = e.administration WHERE a.target = "
                         "'fake-llm'")
    with EvidenceStore.open_readonly(tmp_path / "s", scrub_env=False) as st:
        doc = json.loads(st.get_bytes(digest))
    assert result.status.targets["fake-llm"].submitted == 1
    assert len(episode_clocks) == len(policy_clocks) == 1
    assert type(policy_clocks[0]) is Policies  # a real clock for the model's retries
    events = doc["events"]
    retries = [i for i, e in enumerate(events) if e["actor"] == "harness"
               and e["name"] == "fetch_page"]
    assert retries, "T4 seed 0 at L0 gets at least one 429 that the harness retries"
    waits = [float(w) for w in re.findall(r"wait_s=([0-9.]+)", doc["submission"]["run_log"])]
    assert len(waits) == len(retries) and min(waits) >= 2
    # Each retry is stamped at least its wait after the refused request; the clock skipped
    # exactly the waits the harness logged, and nothing more.
    assert all(events[i]["t"] - events[i - 1]["t"] >= w for i, w in zip(retries, waits,
                                                                        strict=True))
    assert episode_clocks[0].skipped == sum(waits)
