"""`kill -9` of an LLM campaign loses at most the request in flight per running episode.

Which processes: the killed `campaign run` is a real process (what `kill -9` ends); the rerun
that resumes its store and the `campaign status` after it run `cli.main.main` in this process
(`support.agm_runs.run_main`: the same argv, stdout, stderr and exit code), which saves ~0.5 s of
imports each.
"""

from __future__ import annotations

import itertools
import json
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from agentmetrology.run.campaign.execute import Budget
from agentmetrology.run.campaign.spec import Limits
from agentmetrology.store import EvidenceStore
from run.campaign.campaign_fixtures import kill_9_when, query, write
from support.agm_runs import run_main
from support.fake_models import careful_model
from support.fake_openai import FakeOpenAI, Reply

CONCURRENCY = 4
CAMPAIGN = f"""
[campaign]
name = "killed-llm"
tasks = ["T3_duplicates"]
seeds = "0-19"
levels = ["L2"]
concurrency = {CONCURRENCY}

[limits]
max_steps = 30

[[targets]]
name = "m"
kind = "llm"
model = "fake-model"
base_url = "{{base_url}}"
max_retries = 0
price = {{{{ input_per_m = 1.0, output_per_m = 2.0, cached_per_m = 0.5 }}}}
"""
# careful_model's usage: 1000 prompt tokens (400 cached) and 50 completion tokens.
REQUEST_COST = (600 * 1.0 + 400 * 0.5 + 50 * 2.0) / 1e6


def _slow(body: dict[str, Any]) -> Reply:
    return {**careful_model(body), "delay": 0.005}  # keeps the run going long enough to kill


def _args(file: Path, store: Path) -> list[str]:
    return ["campaign", "run", str(file), "--store", str(store), "--quiet"]


def _command(file: Path, store: Path) -> list[str]:
    """The killed run: `campaign run` in a process of its own."""
    return [sys.executable, "-m", "agentmetrology.cli.campaign_cmd", *_args(file, store)[1:]]


def _counts(store: Path) -> tuple[int, int]:
    """Return (recorded episodes, requests of episodes not yet recorded)."""
    try:
        rows = query(store, "SELECT (SELECT COUNT(*) FROM episodes), (SELECT COUNT(*) FROM "
                            "billable_attempts b WHERE NOT EXISTS (SELECT 1 FROM episodes e "
                            "WHERE e.attempt = b.attempt))")
    except sqlite3.OperationalError:
        return 0, 0  # the ledger (or its tables) is not created yet
    return rows[0][0], rows[0][1]


def test_killed_llm_run_keeps_every_answered_request_in_the_ledger(tmp_path: Path) -> None:
    store = tmp_path / "s"
    with FakeOpenAI(itertools.repeat(_slow, 5000)) as srv:
        file = write(tmp_path, CAMPAIGN.format(base_url=srv.base_url))
        def ready() -> bool:
            episodes, in_flight = _counts(store)
            return episodes >= 3 and in_flight >= CONCURRENCY

        kill_9_when(_command(file, store), ready, timeout=120)
        time.sleep(0.2)  # let the server finish the requests it was answering
        received = len(srv.requests)
        billed = query(store, "SELECT COUNT(*) FROM billable_attempts")[0][0]
        running = query(store, "SELECT COUNT(*) FROM attempts WHERE status = 'started'")[0][0]
        # Each running episode had at most one request in flight; every other one is recorded.
        assert 1 <= running <= CONCURRENCY
        assert 0 <= received - billed <= running, (received, billed, running)

        with EvidenceStore.open_readonly(store, scrub_env=False) as st:
            total = st.status("killed-llm").total
        unrecorded = query(store, "SELECT COUNT(*), TOTAL(cost) FROM billable_attempts b "
                                  "WHERE NOT EXISTS (SELECT 1 FROM episodes e "
                                  "WHERE e.attempt = b.attempt)")[0]
        # Usually >= 1; under heavy load the running episodes may all have just been recorded
        # when the kill lands, and then there is nothing unrecorded to count (still exact).
        assert total.unrecorded_requests == unrecorded[0] >= 0
        assert total.unrecorded_cost == pytest.approx(unrecorded[1])
        # The status counts every billed request once: recorded episodes plus the killed ones.
        assert total.cost == pytest.approx(billed * REQUEST_COST) and total.cost_unknown == 0
        # A budget check in the next run starts from that total.
        over = Budget(Limits(max_cost=total.cost), total).exceeded()
        assert over is not None and over.startswith("budget: max_cost")

        rerun = run_main(_args(file, store))
        assert rerun.returncode == 0, rerun.stderr
        received = len(srv.requests)
    # After the resumed run: every key recorded once, the killed attempts' requests kept and
    # counted once beside the recorded episodes' own.
    billed_rows = query(store, "SELECT COUNT(*), TOTAL(cost) FROM billable_attempts")[0]
    status = run_main(["campaign", "status", "--store", str(store), "--json"])
    assert status.returncode == 0, status.stderr
    doc = json.loads(status.stdout)["campaigns"][0]["total"]
    assert doc["done"] == 20 and doc["interrupted_attempts"] == running
    assert received - billed_rows[0] <= running
    assert doc["cost"] == pytest.approx(billed_rows[1], abs=1e-6)
    assert doc["unrecorded_requests"] == unrecorded[0]
