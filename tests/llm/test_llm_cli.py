"""`agm run comtrade --agent llm:MODEL --base-url URL` against a fake endpoint on loopback."""

import itertools
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from agentmetrology.cli.main import app
from support.fake_models import careful_model
from support.fake_openai import FakeOpenAI

SECRET = "sk-test-CLI-SECRET-0123456789abcdef"


def _run(srv_url: str, store: Path, *extra: str) -> Result:
    return CliRunner().invoke(app, [
        "run", "comtrade", "--task", "T3_duplicates,T4_rate_limit_429", "--seeds", "0-1",
        "--agent", "llm:gpt-4o-mini", "--level", "L2", "--base-url", srv_url,
        "--api-key-env", "AGM_CLI_KEY", "--store", str(store), *extra])


def test_llm_agent_runs_from_the_cli_into_a_store(monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path) -> None:
    monkeypatch.setenv("AGM_CLI_KEY", SECRET)
    store = tmp_path / "store"
    with FakeOpenAI(itertools.repeat(careful_model, 200)) as srv:
        result = _run(srv.base_url, store, "--json")
        headers = list(srv.headers)
        sent = len(srv.requests)
        again = _run(srv.base_url, store, "--json")  # resumes: nothing left to pay for
        assert len(srv.requests) == sent
    assert result.exit_code == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(rows) == 4
    assert all(r["ground_truth"]["f1"] == 1.0 and r["agent"] == "llm:gpt-4o-mini" for r in rows)
    assert all(r["model_attempts"] > 0 and r["input_tokens"] > 0 for r in rows)
    assert again.exit_code == 0 and again.stdout == result.stdout
    assert SECRET not in result.stdout
    assert any(SECRET in json.dumps(h) for h in headers)  # the key was really sent
    for path in store.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path


def test_llm_agent_with_unreachable_endpoint_is_an_infra_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, [
        "run", "comtrade", "--task", "T1_single_page", "--agent", "llm:m", "--level", "L2",
        "--base-url", "http://127.0.0.1:9/v1", "--max-retries", "0", "--store",
        str(tmp_path / "s"), "--json"])
    assert result.exit_code == 0, result.stderr
    row = json.loads(result.stdout)
    assert row["termination"] == "infra_error"
