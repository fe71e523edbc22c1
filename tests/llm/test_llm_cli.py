"""`agm run comtrade --agent llm:MODEL --base-url URL` against a fake endpoint on loopback."""

import itertools
import json

import pytest
from typer.testing import CliRunner

from agentmetrology.cli.main import app
from support.fake_models import careful_model
from support.fake_openai import FakeOpenAI

SECRET = "sk-test-CLI-SECRET-0123456789abcdef"


def test_llm_agent_runs_from_the_cli(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGM_CLI_KEY", SECRET)
    with FakeOpenAI(itertools.repeat(careful_model, 200)) as srv:
        result = CliRunner().invoke(app, [
            "run", "comtrade", "--task", "T3_duplicates,T4_rate_limit_429", "--seeds", "0-1",
            "--agent", "llm:gpt-4o-mini", "--level", "L2", "--base-url", srv.base_url,
            "--api-key-env", "AGM_CLI_KEY", "--json"])
        headers = list(srv.headers)
    assert result.exit_code == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(rows) == 4
    assert all(r["ground_truth"]["f1"] == 1.0 and r["agent"] == "llm:gpt-4o-mini" for r in rows)
    assert SECRET not in result.stdout
    assert any(SECRET in json.dumps(h) for h in headers)  # the key was really sent


def test_llm_agent_with_unreachable_endpoint_is_an_infra_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    result = CliRunner().invoke(app, [
        "run", "comtrade", "--task", "T1_single_page", "--agent", "llm:m", "--level", "L2",
        "--base-url", "http://127.0.0.1:9/v1", "--max-retries", "0", "--json"])
    assert result.exit_code == 0, result.stderr
    row = json.loads(result.stdout)
    assert row["termination"] == "infra_error"
