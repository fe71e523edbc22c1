"""Evidence stores for the store audit: scripted and rule targets, and LLM targets played by
fake models over the fake OpenAI-compatible server (loopback only).

Campaign `aud` (T4, T5, T8 x seeds 0-2):
- `careful` (scripted, L0 and L2) and `always-retry` (rule `l1:always-retry`, L1): fixed rules;
- `retry-llm` (L1): a model that answers RETRY to every fault (a degenerate decision channel);
- `varied-llm` (L1): RETRY on even pages, SKIP on odd ones (its decision varies);
- `llm-a`, `llm-b` (L0 and L2): the same careful fake model, so at L0 (harness owns every
  decision) their payloads are byte-identical: 9 pairs of 9.
Campaign `short` (same cells, L0 only): `llm-short`, which asks for page 1 only.
Campaign `broken` (T4 x seeds 0-1, L2): `broken-llm` against a refused port, two measurement
failures (infra_error).
LLM episodes run on a fake clock (the harness writes the elapsed time into the L0 metadata;
with the real clock no two L0 payloads would be byte-identical).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from agentmetrology.records.clock import FakeClock
from support.fake_models import careful_model
from support.fake_openai import FakeOpenAI, Reply, text, tool_calls, usage
from support.stores import record_into

KEY_ENV = "AGM_AUDIT_STORE_TEST_KEY"
TASKS = '["T4_rate_limit_429", "T5_server_error_500", "T8_mixed_faults"]'
HEAD = """
[campaign]
name = "{name}"
tasks = {tasks}
seeds = "{seeds}"
levels = {levels}
concurrency = 4

[limits]
max_steps = 30
"""
SCRIPTED = """
[[targets]]
name = "careful"
kind = "scripted"
agent = "scripted:careful"
levels = ["L0", "L2"]

[[targets]]
name = "always-retry"
kind = "rule"
agent = "l1:always-retry"
levels = ["L1"]
"""


def llm(name: str, model: str, levels: list[str], base_url: str = "BASE",
        extra: str = "") -> str:
    """Return an llm target table."""
    return (f'\n[[targets]]\nname = "{name}"\nkind = "llm"\nmodel = "{model}"\n'
            f'base_url = "{base_url}"\napi_key_env = "{KEY_ENV}"\nlevels = {json.dumps(levels)}\n'
            'price = { input_per_m = 1.0, output_per_m = 2.0 }\n' + extra)


def fake_model(body: dict[str, Any]) -> Reply:
    """Play the model the request names (see the module docstring)."""
    model = body["model"]
    if model == "always-retry":
        return text("RETRY")
    if model == "varies":
        match = re.search(r"page (\d+)", body["messages"][-1]["content"])
        assert match is not None
        return text("RETRY" if int(match.group(1)) % 2 == 0 else "SKIP")
    if model == "page-one":
        pages = sum(1 for m in body["messages"] if m.get("role") == "tool")
        if pages == 0:
            return tool_calls(("fetch_page", {"page": 1}), use=usage())
        return text("done")
    return careful_model(body)


def build_store(store: Path) -> None:
    """Record the three campaigns of the module docstring into `store`."""
    head = HEAD.format(tasks=TASKS, seeds="0-2", levels='["L0", "L1", "L2"]', name="{name}")
    with pytest.MonkeyPatch.context() as mp, FakeOpenAI([fake_model] * 3000) as srv:
        mp.setenv(KEY_ENV, "sk-test-0123456789abcdefAUDITstore")
        mp.setattr("agentmetrology.run.campaign.llm.RealClock", FakeClock)
        mp.setattr("agentmetrology.run.campaign.llm.FastForwardClock", FakeClock)
        record_into(store, (head.format(name="aud") + SCRIPTED
                     + llm("retry-llm", "always-retry", ["L1"])
                     + llm("varied-llm", "varies", ["L1"])
                     + llm("llm-a", "careful-a", ["L0", "L2"])
                     + llm("llm-b", "careful-b", ["L0", "L2"])).replace("BASE", srv.base_url))
        record_into(store, (head.format(name="short")
                     + llm("llm-short", "page-one", ["L0"])).replace("BASE", srv.base_url))
        broken = HEAD.format(name="broken", tasks='["T4_rate_limit_429"]', seeds="0-1",
                             levels='["L2"]')
        record_into(store, broken + llm("broken-llm", "x", ["L2"], "http://127.0.0.1:9/v1",
                                 "max_retries = 0\n"))


def build_model_free_store(store: Path, environment: str = "comtrade") -> None:
    """Record a model-free campaign (the two fixed rules of `aud`) of `environment`."""
    if environment == "comtrade":
        toml = HEAD.format(name="mf", tasks=TASKS, seeds="0-1",
                           levels='["L0", "L1", "L2"]') + SCRIPTED
    else:
        toml = (HEAD.format(name="ro", tasks='["seed_4"]', seeds="0-1", levels='["L2"]')
                .replace("[campaign]", f'[campaign]\nenvironment = "{environment}"')
                + '\n[[targets]]\nname = "careful"\nkind = "scripted"\n'
                  'agent = "scripted:careful"\n')
    record_into(store, toml)
