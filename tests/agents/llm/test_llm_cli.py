"""`agm run comtrade --agent llm:MODEL --base-url URL` against a fake endpoint on loopback."""

import itertools
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from agentmetrology.cli.main import app
from agentmetrology.store.blobs import contents
from support.fake_models import careful_model
from support.fake_openai import FakeOpenAI, http_error

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
            assert SECRET.encode() not in contents(path.read_bytes()), path


def test_llm_agent_with_unreachable_endpoint_is_an_infra_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, [
        "run", "comtrade", "--task", "T1_single_page", "--agent", "llm:m", "--level", "L2",
        "--base-url", "http://127.0.0.1:9/v1", "--max-retries", "0", "--store",
        str(tmp_path / "s"), "--json"])
    # Every episode failed for infrastructure: exit 1, the reason and the way out on stderr.
    assert result.exit_code == 1, result.stderr
    assert "connection_error" in result.stderr and "--retry-measurement-failures" in \
        result.stderr
    row = json.loads(result.stdout)
    assert row["termination"] == "infra_error"
    # A measurement failure is never a score: null F1 and judge, status UNKNOWN, and why.
    assert row["ground_truth"]["f1"] is None and row["ground_truth"]["status"] == "UNKNOWN"
    assert row["judge"]["total"] is None and row["judge"]["status"] == "UNKNOWN"
    assert "connection_error" in row["measurement_failure"]
    table = CliRunner().invoke(app, [
        "run", "comtrade", "--task", "T1_single_page", "--agent", "llm:m", "--level", "L2",
        "--base-url", "http://127.0.0.1:9/v1", "--max-retries", "0", "--store",
        str(tmp_path / "s")])
    assert "not measured because" in table.stdout and "UNKNOWN" in table.stdout
    assert table.stdout.count("UNKNOWN") == 4  # GT F1, recall, precision, judge: never a 0


def test_failed_llm_runs_are_retried_on_request(monkeypatch: pytest.MonkeyPatch,
                                                tmp_path: Path) -> None:
    monkeypatch.setenv("AGM_CLI_KEY", SECRET)
    store = tmp_path / "s"
    # The provider is down (HTTP 503 on every request) for the first run, then healthy.
    script = itertools.chain([http_error(503, "upstream down")],
                             itertools.repeat(careful_model, 200))
    with FakeOpenAI(script) as srv:
        args = ["run", "comtrade", "--task", "T1_single_page", "--agent", "llm:m",
                "--level", "L2", "--base-url", srv.base_url, "--api-key-env", "AGM_CLI_KEY",
                "--max-retries", "0", "--store", str(store), "--json"]
        first = CliRunner().invoke(app, args)
        assert first.exit_code == 1 and "503" in first.stderr
        assert "--retry-measurement-failures" in first.stderr
        cached = CliRunner().invoke(app, args)  # the failure is recorded, not re-paid ...
        assert cached.exit_code == 1 and json.loads(cached.stdout)["termination"] == \
            "infra_error"
        again = CliRunner().invoke(app, [*args, "--retry-measurement-failures"])
        assert again.exit_code == 0, again.stderr  # ... and measured again on request
        row = json.loads(again.stdout)
        assert row["termination"] == "submitted" and row["ground_truth"]["f1"] == 1.0
        assert "measurement_failure" not in row


def test_an_empty_model_name_is_refused() -> None:
    result = CliRunner().invoke(app, ["run", "comtrade", "--task", "T1_single_page",
                                      "--agent", "llm:", "--level", "L2"])
    assert result.exit_code == 2 and "model name" in result.stderr


def _no_usage(body: dict) -> dict:
    reply = careful_model(body)
    del reply["body"]["usage"]  # an endpoint that reports no token counts
    return reply


def test_unknown_token_counts_are_null_in_the_rows(monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path: Path) -> None:
    # The first request reports no usage: its episode's token totals are unknown (null, never
    # the sum of the known ones); the other episodes' are known.
    monkeypatch.setenv("AGM_CLI_KEY", SECRET)
    with FakeOpenAI(itertools.chain([_no_usage], itertools.repeat(careful_model, 200))) as srv:
        result = _run(srv.base_url, tmp_path / "store", "--json")
    assert result.exit_code == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    unknown = [r for r in rows if r["input_tokens"] is None]
    assert len(rows) == 4 and len(unknown) == 1
    assert unknown[0]["output_tokens"] is None and unknown[0]["cost"] is None
    assert all(r["input_tokens"] > 0 and r["output_tokens"] > 0 for r in rows
               if r is not unknown[0])


def test_an_episode_whose_attempt_failed_is_named_and_exits_1(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # An execution error outside the episode (here: encoding it) records no episode. agm run
    # printed an empty table and exited 0, saying nothing of the episode it had paid for.
    from agentmetrology.run.campaign import llm

    def broken(*args: object) -> object:
        raise RuntimeError("cannot encode\nsecond line")

    monkeypatch.setattr(llm, "encode", broken)
    monkeypatch.setenv("AGM_CLI_KEY", SECRET)
    with FakeOpenAI(itertools.repeat(careful_model, 200)) as srv:
        result = _run(srv.base_url, tmp_path / "s")
        json_run = _run(srv.base_url, tmp_path / "s", "--json")
    assert result.exit_code == json_run.exit_code == 1
    # Three failed alike, so the fourth was not launched (docs/campaigns.md, "A failing
    # endpoint stops the run early"); the stop reason is one line.
    assert result.stderr.splitlines() == [
        "stopped launching: target llm:gpt-4o-mini: RuntimeError: cannot encode (3 LLM "
        "episodes in a row failed this way and none succeeded; fix it and run again to "
        "resume); 1 episode(s) not launched",
        *(f"not recorded: {t} seed {s}: RuntimeError: cannot encode"
          for t, s in (("T3_duplicates", 0), ("T3_duplicates", 1), ("T4_rate_limit_429", 0))),
        "error: 3 episode(s) not recorded (their attempts failed, see above); run the same "
        "command to run them again"]
    assert json_run.stdout == ""
    monkeypatch.undo()
    monkeypatch.setenv("AGM_CLI_KEY", SECRET)
    with FakeOpenAI(itertools.repeat(careful_model, 200)) as srv:
        again = _run(srv.base_url, tmp_path / "s", "--json")
    assert again.exit_code == 0 and len(again.stdout.splitlines()) == 4
