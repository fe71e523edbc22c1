"""Model calls without token counts (a timed-out request, an event without usage) in an audit:
the token totals say they are lower bounds, in archive.json and in the report, end to end."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from agentmetrology.archive.importers.jsonl import parse_span, span_to_line
from agentmetrology.archive.model import TraceSpan
from agentmetrology.cli.main import app
from agentmetrology.run.campaign import parse_campaign, run_campaign
from agentmetrology.store import EvidenceStore
from run.campaign.test_campaign_faults import llm_only
from support.fake_models import careful_model
from support.fake_openai import FakeOpenAI, Reply


def _without_usage(body: dict[str, Any]) -> Reply:
    reply = careful_model(body)
    del reply["body"]["usage"]
    return reply


def test_an_audit_of_a_store_with_unknown_token_counts_says_they_are_lower_bounds(
        tmp_path: Path) -> None:
    text = llm_only("URL").replace("max_cost = 5\n", "").replace('seeds = "0-9"', 'seeds = "0"')
    with FakeOpenAI(itertools.chain([_without_usage], itertools.repeat(careful_model,
                                                                       400))) as srv:
        with EvidenceStore.open(tmp_path / "s", scrub_env=False) as st:
            run_campaign(parse_campaign(text.replace("URL", srv.base_url)), st)
        sent = len(srv.requests)
    res = CliRunner().invoke(app, ["archive", "audit", str(tmp_path / "s"), "--format", "agm",
                                   "--out", str(tmp_path / "out"), "--json"])
    assert res.exit_code == 0, res.output
    cost = json.loads((tmp_path / "out" / "archive.json").read_text())["cost"]
    assert cost["model_spans"] == sent and cost["all_spans"]["usage_unknown"] == 1
    assert cost["weight"] == "tokens" and cost["weight_unknown"] == 1
    report = (tmp_path / "out" / "report.md").read_text()
    assert f"≥ {cost['all_spans']['input']}" in report
    assert "1 model-call span(s) have no token counts" in report


def test_a_span_line_keeps_unknown_counts_unknown() -> None:
    unknown = TraceSpan("s", None, "model", usage_known=False)
    line = span_to_line(unknown)
    assert line["usage"] == {"input": None, "output": None, "cached": 0}
    assert parse_span(line) == unknown
    known = TraceSpan("k", None, "model", input_tokens=0, output_tokens=0)
    assert parse_span(span_to_line(known)) == known
