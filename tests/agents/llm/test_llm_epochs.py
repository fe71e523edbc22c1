"""`agm run ENV --model provider/name --epochs K`: K repeats of a quick LLM run, resumable."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

from typer.testing import CliRunner

from agentmetrology.cli.main import app
from agentmetrology.run.adhoc import campaign_config, campaign_name
from agentmetrology.run.request import RunRequest, make_request
from support.fake_models import careful_model
from support.fake_openai import FakeOpenAI

runner = CliRunner()


def _run(epochs: int = 1) -> RunRequest:
    return make_request("comtrade", task="T1_single_page,T3_duplicates", seeds="0,1",
                        agent="llm:qwen2.5:7b", base_url="http://127.0.0.1:11434/v1",
                        repeats=epochs)


def test_one_epoch_keeps_the_campaign_name_and_plan() -> None:
    # The name and file a quick run had before --epochs existed: its store still resumes.
    assert campaign_name(_run()) == "run-qwen2.5-7b-db1b6f952140"
    assert campaign_config(_run()).repeats == 1
    three = _run(3)
    assert campaign_name(three) != campaign_name(_run())  # another plan, so another campaign
    config = campaign_config(three)
    assert (config.repeats, config.tasks, config.seeds) == (3, ("T1_single_page", "T3_duplicates"),
                                                           (0, 1))


def test_epochs_give_one_row_per_repeat_and_resume(tmp_path: Path) -> None:
    store = tmp_path / "s"
    with FakeOpenAI(itertools.repeat(careful_model, 300)) as srv:
        args = ["run", "comtrade", "--task", "T3_duplicates", "--seeds", "0,1", "--model",
                "openai/x", "--epochs", "3", "--base-url", srv.base_url, "--store", str(store),
                "--json"]
        first = runner.invoke(app, args)
        sent = len(srv.requests)
        again = runner.invoke(app, args)
        assert len(srv.requests) == sent > 0  # every repeat recorded: nothing paid twice
    assert first.exit_code == 0, first.stderr
    rows = [json.loads(line) for line in first.stdout.splitlines()]
    assert [(r["seed"], r["repeat"]) for r in rows] == [(s, r) for s in (0, 1) for r in range(3)]
    assert {r["agent"] for r in rows} == {"llm:x"}
    assert [r["ground_truth"]["f1"] for r in rows] == [1.0] * 6
    # The fake model is deterministic, so every repeat of a seed submits the same rows.
    assert len({r["submission_sha256"] for r in rows if r["seed"] == 0}) == 1
    assert again.stdout == first.stdout


def test_the_table_shows_the_repeat(tmp_path: Path) -> None:
    with FakeOpenAI(itertools.repeat(careful_model, 100)) as srv:
        res = runner.invoke(app, ["run", "comtrade", "--task", "T1_single_page", "--model",
                                  "openai/x", "--epochs", "2", "--base-url", srv.base_url,
                                  "--store", str(tmp_path / "s")], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.stderr
    assert "repeat" in res.stdout
    lines = [line for line in res.stdout.splitlines() if "T1_single_page" in line]
    assert len(lines) == 2
