"""`agm run ENV --agent llm:MODEL --price IN,OUT[,CACHED]` and the one unknown-cost notice.

Which processes: the unknown-cost notice with no Python warning runs in a real `agm` process on
both HTTP paths (PYTHONWARNINGS acts at interpreter start, and import-time warnings fire only in
a fresh process). The refusing endpoint (exit status 1) and the refused directory (exit status
2, one line) run in a real process on the lean path and in-process on the SDK path
(`support.agm_runs.run_main`: the same argv, stdout, stderr and exit code; the HTTP path is
chosen by the same environment variable), which saves a process and the SDK's imports each.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentmetrology.run.adhoc import campaign_config, campaign_name, run_request
from agentmetrology.run.llm_options import parse_price
from agentmetrology.run.request import RunRequest, make_request
from support.agm_runs import AgmResult, run_main
from support.fake_models import careful_model
from support.fake_openai import FakeOpenAI

# Every test here runs on both HTTP paths (lean and sdk): same behaviour, asserted on both.
pytestmark = pytest.mark.usefixtures("both_http_clients")


def agm_run(client: str, *args: str) -> AgmResult | subprocess.CompletedProcess[str]:
    """`agm ARGS`: in a real process on the lean path, in this process on the SDK path."""
    if client == "lean":
        return subprocess.run([sys.executable, "-m", "agentmetrology.cli.main", *args],
                              capture_output=True, text=True, timeout=120)
    return run_main(args)


def _run(price: tuple[float, float, float | None] | None = None,
         base_url: str = "http://127.0.0.1:11434/v1") -> RunRequest:
    return make_request("comtrade", task="T1_single_page,T3_duplicates", seeds="0-1",
                        agent="llm:qwen2.5:7b", base_url=base_url, price=price)


def test_price_is_validated() -> None:
    assert parse_price("0.15,0.60") == (0.15, 0.6, None)
    assert parse_price(" 3, 15 , 0.3") == (3.0, 15.0, 0.3)
    for bad, why in (("0.15", "expected INPUT_PER_M,OUTPUT_PER_M"),
                     ("1,2,3,4", "expected INPUT_PER_M,OUTPUT_PER_M"),
                     ("a,2", "the input price 'a' is not a number"),
                     ("1,-2", "the output price must be a finite number >= 0"),
                     ("1,2,nan", "the cached price must be a finite number >= 0"),
                     ("1,inf", "the output price must be a finite number >= 0")):
        with pytest.raises(ValueError, match=why):
            parse_price(bad)


def test_runs_without_a_price_keep_their_campaign_name() -> None:
    # The name this run had before --price existed: a store written then must resume.
    assert campaign_name(_run()) == "run-qwen2.5-7b-db1b6f952140"
    priced = _run((0.15, 0.6, None))
    assert campaign_name(priced) != campaign_name(_run())  # another target, so another plan
    assert campaign_name(_run((0.15, 0.6, None))) == campaign_name(
        make_request("comtrade", task="T1_single_page,T3_duplicates", seeds="0-1",
                     agent="llm:qwen2.5:7b", base_url="http://127.0.0.1:11434/v1",
                     price="0.15, 0.60"))  # the typed price names the same campaign
    target = campaign_config(priced).targets[0].llm_target()
    assert (target.prices.input_per_m, target.prices.output_per_m,
            target.prices.cached_per_m) == (0.15, 0.6, None)
    assert campaign_config(_run()).targets[0].price is None


def test_a_priced_quick_run_records_known_costs(tmp_path: Path) -> None:
    with FakeOpenAI(itertools.repeat(careful_model, 100)) as srv:
        run = make_request("comtrade", task="T1_single_page", agent="llm:m",
                           base_url=srv.base_url, max_retries=0, price=(1.0, 2.0, 0.5),
                           store=tmp_path / "s")
        outcome = run_request(run)
        rows = outcome.rows
        requests = len(srv.requests)
    assert outcome.stopped is None and len(rows) == 1
    assert rows[0]["cost"] == pytest.approx(requests * (600 * 1.0 + 400 * 0.5 + 50 * 2.0) / 1e6)


def test_an_unpriced_local_model_gets_one_notice_and_no_python_warning(tmp_path: Path) -> None:
    with FakeOpenAI(itertools.repeat(careful_model, 100)) as srv:
        res = subprocess.run(
            [sys.executable, "-m", "agentmetrology.cli.main", "run", "comtrade", "--task",
             "T1_single_page", "--seeds", "0-1", "--agent", "llm:m", "--base-url",
             srv.base_url, "--store", str(tmp_path / "s")],
            capture_output=True, text=True, timeout=120,
            env={**os.environ, "PYTHONWARNINGS": "default", "COLUMNS": "200"})
    assert res.returncode == 0, res.stderr
    assert "Warning" not in res.stderr and "warnings.warn" not in res.stderr
    notes = [line for line in res.stderr.splitlines() if line.startswith("note:")]
    assert notes == ["note: target llm:m: cost unknown for 2 episode(s) or unfinished "
                     "attempt(s): no complete price table (give --price "
                     "INPUT_PER_M,OUTPUT_PER_M[,CACHED_PER_M])"]


def test_a_refusing_endpoint_stops_a_quick_run_in_one_line(tmp_path: Path,
                                                           both_http_clients: str) -> None:
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    try:
        res = agm_run(both_http_clients, "run", "comtrade", "--task", "T1_single_page",
                      "--seeds", "0-5", "--agent", "llm:m", "--max-retries", "0",
                      "--base-url", f"http://127.0.0.1:{port}/v1", "--store",
                      str(tmp_path / "s"), "--json")
    finally:
        s.close()
    assert res.returncode == 1 and "Traceback" not in res.stderr
    assert len(res.stdout.splitlines()) == 3  # three episodes measured, then it stopped
    stopped = [line for line in res.stderr.splitlines() if line.startswith("stopped")]
    assert stopped == [f"stopped launching: target llm:m: connection refused by 127.0.0.1:"
                       f"{port} (3 LLM episodes in a row failed this way and none succeeded; "
                       "fix it and run again to resume); 3 episode(s) not launched"]


def test_a_non_empty_directory_is_not_adopted_by_agm_run(tmp_path: Path,
                                                         both_http_clients: str) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "report.html").write_text("x", encoding="utf-8")
    res = agm_run(both_http_clients, "run", "comtrade", "--task", "T1_single_page", "--agent",
                  "llm:m", "--base-url", "http://127.0.0.1:9/v1", "--store", str(out))
    assert res.returncode == 2
    assert res.stderr.strip().splitlines() == [
        f"error: {out} is not an evidence store (no ledger.sqlite) and is not empty; give a "
        "new or empty directory, or an existing store"]


def test_price_reaches_agm_run_from_the_command_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from agentmetrology.cli.main import app

    with FakeOpenAI(itertools.repeat(careful_model, 100)) as srv:
        res = CliRunner().invoke(app, [
            "run", "comtrade", "--task", "T1_single_page", "--agent", "llm:m", "--level", "L2",
            "--base-url", srv.base_url, "--store", str(tmp_path / "s"), "--max-retries", "0",
            "--price", "1,2,0.5", "--json"])
    assert res.exit_code == 0, res.stderr
    row = json.loads(res.stdout)
    assert isinstance(row["cost"], float) and row["cost"] > 0
    bad = CliRunner().invoke(app, ["run", "comtrade", "--task", "T1_single_page", "--agent",
                                   "llm:m", "--price", "1"])
    assert bad.exit_code == 2 and "INPUT_PER_M,OUTPUT_PER_M" in bad.stderr
