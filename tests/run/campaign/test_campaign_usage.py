"""Campaigns over an endpoint whose token counts cannot be billed: the budget stops (never a
negative total), every request is recorded (never an overflow), and resuming pays nothing."""

from __future__ import annotations

import csv
import itertools
import json
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pyarrow.parquet as pq
from starlette.testclient import TestClient
from typer.testing import CliRunner

from agentmetrology.cli.campaign_cmd import campaign_app
from agentmetrology.cli.main import app as cli
from agentmetrology.records import BillableAttempt, EpisodeKey
from agentmetrology.run.campaign import parse_campaign, run_campaign
from agentmetrology.run.campaign.execute import Budget
from agentmetrology.run.campaign.spec import Limits
from agentmetrology.store import Counts, EpisodeEvidence, EvidenceStore
from agentmetrology.view import create_app, detect_source
from run.campaign.campaign_fixtures import query
from run.campaign.test_campaign_faults import llm_only
from support.fake_models import careful_model, reporting
from support.fake_openai import FakeOpenAI, Reply

runner = CliRunner()


def test_cached_above_prompt_stops_a_cost_capped_campaign(tmp_path: Path) -> None:
    # At these prices each request would cost (1000 - 5000) * 1 + 5000 * 0.5 + 50 * 2 < 0.
    use = {"prompt_tokens": 1000, "completion_tokens": 50,
           "prompt_tokens_details": {"cached_tokens": 5000}}
    text = llm_only("URL").replace("max_cost = 5", "max_cost = 0.001")
    with FakeOpenAI(itertools.repeat(reporting(use), 400)) as srv:
        config = parse_campaign(text.replace("URL", srv.base_url))
        with EvidenceStore.open(tmp_path / "s", scrub_env=False) as st:
            result = run_campaign(config, st)
    m = result.status.targets["m"]
    assert m.submitted == 1 and m.cost_unknown == 1
    assert result.stop_reason is not None and "cannot be checked" in result.stop_reason
    costs = query(tmp_path / "s", "SELECT cost FROM billable_attempts")
    assert costs and all(c is None for (c,) in costs)


def test_huge_token_counts_are_recorded_and_resuming_pays_nothing(tmp_path: Path) -> None:
    huge = 10 ** 30
    use = {"prompt_tokens": huge, "completion_tokens": 50}
    text = llm_only("URL").replace("max_cost = 5\n", "").replace('seeds = "0-9"', 'seeds = "0"')
    with FakeOpenAI(itertools.repeat(reporting(use), 400)) as srv:
        config = parse_campaign(text.replace("URL", srv.base_url))
        for _ in range(2):  # the second run finds the episode recorded: no request
            with EvidenceStore.open(tmp_path / "s", scrub_env=False) as st:
                result = run_campaign(config, st)
        sent = len(srv.requests)
    m = result.status.targets["m"]
    assert result.status.complete and m.submitted == 1 and m.cost_unknown == 1
    rows = query(tmp_path / "s", "SELECT input_tokens, output_tokens, cost FROM "
                                 "billable_attempts")
    assert len(rows) == sent and all(r == (None, 50, None) for r in rows)
    (doc,) = json.loads(runner.invoke(campaign_app, ["status", "--store", str(tmp_path / "s"),
                                                     "--json"]).stdout)["campaigns"]
    assert doc["targets"]["m"]["cost"] is None  # never a known 0.0000
    ((digest,),) = query(tmp_path / "s", "SELECT episode_digest FROM episodes")
    with EvidenceStore.open(tmp_path / "s", scrub_env=False) as st:
        episode = st.get_json(digest)
    problems = episode["meta"]["policy_notes"]["usage_problems"]
    assert problems[0]["reported"]["prompt_tokens"] == str(huge)


def test_the_budget_treats_a_negative_cost_as_unknown() -> None:
    # Whatever reported it (another policy, an older client), a negative cost is not money back.
    budget = Budget(Limits(max_cost=1.0), Counts())
    budget.bill(1, BillableAttempt("r1", "p", "m", None, 100, 10, 0, -0.5, 0.1, "ok"))
    assert (budget.cost, budget.cost_unknown) == (0.0, 1)
    assert "cannot be checked" in (budget.exceeded() or "")
    ev = EpisodeEvidence(EpisodeKey("c", "m", "T", 0, "clean", "L2", 0), b"{}", None,
                         "submitted", "", -0.5, 100, 10, 1, 1, 1)
    budget.add(1, ev)
    assert (budget.cost, budget.cost_unknown) == (0.0, 1)


def _without_usage(body: dict[str, Any]) -> Reply:
    reply = careful_model(body)
    del reply["body"]["usage"]  # an endpoint that reports no token counts at all
    return reply


def test_unknown_token_counts_stop_a_token_capped_campaign(tmp_path: Path) -> None:
    # Counting unknown tokens as 0 would never reach max_tokens: every episode would run.
    text = llm_only("URL").replace("max_cost = 5", "max_tokens = 1_000_000")
    with FakeOpenAI(itertools.repeat(_without_usage, 400)) as srv:
        config = parse_campaign(text.replace("URL", srv.base_url))
        results = []
        for _ in range(2):  # the resumed run finds the unknown counts in the ledger
            with EvidenceStore.open(tmp_path / "s", scrub_env=False) as st:
                results.append(run_campaign(config, st))
        sent = len(srv.requests)
    first, resumed = results
    assert first.recorded == 1 and resumed.recorded == 0
    assert first.stop_reason == resumed.stop_reason == (
        f"budget: max_tokens 1000000 cannot be checked, {sent} request(s) have unknown token "
        "counts (the server reported none, or counts no bill can have)")
    assert resumed.status.targets["m"].not_launched == 9


def test_the_budget_counts_requests_without_token_counts_as_unknown() -> None:
    budget = Budget(Limits(max_tokens=1000), Counts())
    budget.bill(1, BillableAttempt("r1", "p", "m", None, 100, 10, 0, 0.1, 0.1, "ok"))
    assert budget.exceeded() is None
    budget.bill(1, BillableAttempt("r2", "p", "m", None, None, None, None, None, 0.1, "timeout"))
    assert "max_tokens 1000 cannot be checked, 1 request(s)" in (budget.exceeded() or "")
    assert Budget(Limits(max_tokens=1000), Counts(tokens_unknown=2)).exceeded() == (
        "budget: max_tokens 1000 cannot be checked, 2 request(s) have unknown token counts "
        "(the server reported none, or counts no bill can have)")


def test_unknown_token_counts_are_never_shown_as_known(tmp_path: Path) -> None:
    # One request of the episode reports no usage: the ledger's episode row sums the known
    # counts, a lower bound, so every output says the totals are unknown (never that sum).
    text = llm_only("URL").replace("max_cost = 5\n", "").replace('seeds = "0-9"', 'seeds = "0"')
    with FakeOpenAI(itertools.chain([_without_usage], itertools.repeat(careful_model,
                                                                       400))) as srv:
        config = parse_campaign(text.replace("URL", srv.base_url))
        with EvidenceStore.open(tmp_path / "s", scrub_env=False) as st:
            result = run_campaign(config, st)
        sent = len(srv.requests)
    store = tmp_path / "s"
    assert result.status.complete and sent > 2
    known = query(store, "SELECT SUM(input_tokens), SUM(output_tokens) FROM billable_attempts")
    ((tin, tout),) = known
    assert tin > 0 and tout > 0  # the other requests' counts are known
    assert query(store, "SELECT input_tokens, output_tokens FROM episodes") == [(tin, tout)]
    (doc,) = json.loads(runner.invoke(campaign_app, ["status", "--store", str(store),
                                                     "--json"]).stdout)["campaigns"]
    for counts in (doc["targets"]["m"], doc["total"]):
        assert counts["input_tokens"] is None and counts["output_tokens"] is None
        assert (counts["input_tokens_known"], counts["output_tokens_known"]) == (tin, tout)
        assert counts["tokens_unknown"] == 1
    assert result.status.total.tokens_unknown == 1
    # agm export: the token columns are null, as the cost is when a price is unknown.
    out = tmp_path / "e.jsonl"
    res = runner.invoke(cli, ["export", str(store), "--format", "jsonl", "--out", str(out)])
    assert res.exit_code == 0, res.output
    (row,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert row["input_tokens"] is None and row["output_tokens"] is None
    assert row["model_attempts"] == sent
    csv_out, parquet_out = tmp_path / "e.csv", tmp_path / "e.parquet"
    for f, fmt in ((csv_out, "csv"), (parquet_out, "parquet")):
        assert runner.invoke(cli, ["export", str(store), "--format", fmt, "--out",
                                   str(f)]).exit_code == 0
    (cells,) = list(csv.DictReader(csv_out.read_text().splitlines()))
    assert cells["input_tokens"] == cells["output_tokens"] == ""
    table = pq.read_table(parquet_out).to_pylist()
    assert [(r["input_tokens"], r["output_tokens"]) for r in table] == [(None, None)]
    # The viewer's episode page gives the known sums as a lower bound, and how many are unknown.
    ((task, condition, level),) = query(store, "SELECT task, condition, level FROM "
                                               "administrations")
    page = TestClient(create_app(detect_source(store)), base_url="http://127.0.0.1").get(
        "/episode?" + urlencode({"campaign": "llm", "target": "m", "task": task, "seed": 0,
                                 "condition": condition, "level": level, "repeat": 0}))
    assert page.status_code == 200
    assert (f"at least {tin} input and {tout} output tokens (1 request with unknown token "
            "counts)") in page.text


def test_known_token_counts_are_shown_as_they_are(tmp_path: Path) -> None:
    text = llm_only("URL").replace("max_cost = 5\n", "").replace('seeds = "0-9"', 'seeds = "0"')
    with FakeOpenAI(itertools.repeat(careful_model, 400)) as srv:
        config = parse_campaign(text.replace("URL", srv.base_url))
        with EvidenceStore.open(tmp_path / "s", scrub_env=False) as st:
            run_campaign(config, st)
    store = tmp_path / "s"
    ((tin, tout),) = query(store, "SELECT input_tokens, output_tokens FROM episodes")
    (doc,) = json.loads(runner.invoke(campaign_app, ["status", "--store", str(store),
                                                     "--json"]).stdout)["campaigns"]
    m = doc["targets"]["m"]
    assert (m["input_tokens"], m["output_tokens"], m["tokens_unknown"]) == (tin, tout, 0)
    out = tmp_path / "e.jsonl"
    assert runner.invoke(cli, ["export", str(store), "--out", str(out)]).exit_code == 0
    (row,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert (row["input_tokens"], row["output_tokens"]) == (tin, tout) and tin > 0
