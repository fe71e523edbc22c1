"""Providers' model names hold `/` (openrouter's meta-llama/llama-3.1-8b-instruct): they work in
`agm run --agent llm:MODEL`, `--model PROVIDER/MODEL` and campaign files, and the model string
reaches the endpoint exactly as written."""

import itertools
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from agentmetrology.cli.campaign_cmd import campaign_app
from agentmetrology.cli.main import app
from agentmetrology.run.adhoc import campaign_name
from agentmetrology.run.request import make_request
from run.campaign.campaign_fixtures import model_free, with_llm, write
from support.fake_models import careful_model
from support.fake_openai import FakeOpenAI

MODEL = "meta-llama/llama-3.1-8b-instruct"
KEY_ENV = "AGM_NAMES_KEY"


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test-NAMES-0123456789abcdef")


def _run(base_url: str, store: Path, *spelling: str) -> Result:
    return CliRunner().invoke(app, [
        "run", "comtrade", "--task", "T3_duplicates", "--seeds", "0-1", *spelling,
        "--level", "L2", "--base-url", base_url, "--api-key-env", KEY_ENV,
        "--store", str(store), "--json"])


def test_agm_run_sends_a_model_name_with_slashes_as_written(tmp_path: Path) -> None:
    store = tmp_path / "store"
    with FakeOpenAI(itertools.repeat(careful_model, 200)) as srv:
        result = _run(srv.base_url, store, "--agent", f"llm:{MODEL}")
        sent = len(srv.requests)
        # --model openrouter/MODEL with the same endpoint is the same run: it resumes.
        again = _run(srv.base_url, store, "--model", f"openrouter/{MODEL}")
        assert len(srv.requests) == sent > 0
        models = {body["model"] for body in srv.requests}
    assert result.exit_code == 0, result.stderr
    assert models == {MODEL}
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["agent"] for r in rows] == [f"llm:{MODEL}"] * 2
    assert all(r["ground_truth"]["f1"] == 1.0 for r in rows)
    assert again.exit_code == 0 and again.stdout == result.stdout


def test_the_quick_run_campaign_name_stays_a_safe_name() -> None:
    request = make_request("comtrade", task="T3_duplicates", agent=f"llm:{MODEL}",
                           base_url="http://127.0.0.1:9/v1")
    name = campaign_name(request)
    assert name.startswith("run-meta-llama-llama-3.1-8b-instruct-") and "/" not in name


def test_a_campaign_target_named_after_a_model_with_slashes_runs(tmp_path: Path) -> None:
    text = model_free(tasks='["T3_duplicates"]', seeds="0")
    with FakeOpenAI(itertools.repeat(careful_model, 200)) as srv:
        text = with_llm(text, name=f"llm:{MODEL}", base_url=srv.base_url, key_env=KEY_ENV)
        file = write(tmp_path, text.replace('model = "fake-model"', f'model = "{MODEL}"'))
        checked = CliRunner().invoke(campaign_app, ["validate", str(file)])
        run = CliRunner().invoke(campaign_app, ["run", str(file), "--store",
                                                str(tmp_path / "s")])
        models = {body["model"] for body in srv.requests}
    assert checked.exit_code == 0, checked.stderr
    assert run.exit_code == 0, run.stderr
    assert models == {MODEL}
    status = CliRunner().invoke(campaign_app, ["status", "--campaign", "mf", "--store",
                                               str(tmp_path / "s"), "--json"])
    assert status.exit_code == 0, status.stderr
    (campaign,) = json.loads(status.stdout)["campaigns"]
    grades = campaign["scores"][f"llm:{MODEL}"]["ground_truth_f1"]
    assert campaign["complete"] and grades["statuses"] == {"PASS": 2}  # at L0 and L2


def test_a_target_name_is_still_checked() -> None:
    result = CliRunner().invoke(app, ["run", "comtrade", "--task", "T3_duplicates",
                                      "--agent", "llm:a b", "--base-url",
                                      "http://127.0.0.1:9/v1"])
    assert result.exit_code == 2
    assert "--agent: 'llm:a b' is not a valid target name (letters, digits, . _ : + - /)" in \
        result.stderr
