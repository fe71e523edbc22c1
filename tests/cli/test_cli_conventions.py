"""Conventions users bring from other tools: --version, plain help metavars, -T task arguments,
--limit and --epochs, --model provider/name, and keys from ./.env."""

from __future__ import annotations

import itertools
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from agentmetrology import __version__
from agentmetrology.agents.llm.target import ModelSpec, parse_model_spec
from agentmetrology.cli.main import app
from agentmetrology.store.blobs import contents
from support.fake_models import careful_model
from support.fake_openai import FakeOpenAI

runner = CliRunner()
SECRET = "sk-test-DOTENV-0123456789abcdef"
# typer's type placeholders: <str>, <int>, <int range>, <float>, <path>, <bool> ...
PLACEHOLDER = re.compile(r"<[a-z][a-z ]*>")


def _rows(result: Any) -> list[dict[str, Any]]:
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_version() -> None:
    res = runner.invoke(app, ["--version"])
    assert res.exit_code == 0 and res.stdout == f"agm {__version__}\n"


def _command_paths(command: Any, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out = [prefix]
    for name, sub in (getattr(command, "commands", None) or {}).items():
        out += _command_paths(sub, (*prefix, name))
    return out


def test_no_help_text_shows_type_placeholders() -> None:
    paths = _command_paths(typer.main.get_command(app))
    assert ("run",) in paths and ("campaign", "status") in paths and ("export",) in paths
    assert len(paths) >= 25
    for path in paths:
        res = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "100"})
        assert res.exit_code == 0, (path, res.output)
        assert not PLACEHOLDER.findall(res.stdout), (path, PLACEHOLDER.findall(res.stdout))
    run_help = runner.invoke(app, ["run", "--help"], env={"COLUMNS": "100"}).stdout
    assert "--task TASK" in run_help and "-T, --task-arg KEY=VALUE" in run_help
    assert "--model PROVIDER/MODEL" in run_help and "  ENV  Environment" in run_help


def test_the_placeholder_check_can_fail() -> None:
    plain = typer.Typer(rich_markup_mode=None)

    @plain.command()
    def cmd(name: str = typer.Option("x", "--name")) -> None:
        """A command without the root group's metavars."""

    res = runner.invoke(plain, ["--help"])
    assert PLACEHOLDER.findall(res.stdout) == ["<str>"]  # the positive control


BASE = ["run", "comtrade", "--agent", "scripted:careful", "--json"]


def test_task_arguments_map_to_the_run_options() -> None:
    by_options = _rows(runner.invoke(app, [*BASE, "--task", "T3_duplicates", "--seeds", "1-2",
                                           "--level", "L0", "--condition", "stress:constant"]))
    by_t = _rows(runner.invoke(app, [*BASE, "-T", "task=T3_duplicates", "-T", "seed=1-2",
                                     "-T", "level=L0", "-T", "condition=stress:constant"]))
    assert by_t == by_options
    assert [(r["task"], r["seed"], r["level"], r["condition"]) for r in by_t] == [
        ("T3_duplicates", 1, "L0", "stress:constant"), ("T3_duplicates", 2, "L0",
                                                        "stress:constant")]
    same = _rows(runner.invoke(app, [*BASE, "--task", "T3_duplicates", "-T",
                                     "task=T3_duplicates", "--seeds", "1"]))
    assert len(same) == 1  # the same value twice is no conflict


@pytest.mark.parametrize(("args", "message"), [
    (["-T", "difficulty=hard"], "error: -T 'difficulty=hard': unknown task argument "
     "'difficulty'; valid: task, seeds, level, profile, condition (seed is accepted for seeds)"),
    (["-T", "task"], "error: -T 'task': expected KEY=VALUE, e.g. -T task=T3_duplicates"),
    (["--task", "T3_duplicates", "-T", "task=T4_rate_limit_429"],
     "error: --task T3_duplicates and -T task=T4_rate_limit_429 disagree; give one of them"),
    (["-T", "seeds=1", "-T", "seed=2"],
     "error: -T seeds given twice ('1' and '2'); give it once"),
    ([], "error: give the task: --task ID (or -T task=ID), a comma-separated list, or 'all'"),
    (["-T", "level=L9", "-T", "task=T3_duplicates"],
     "error: --level: unknown level 'L9'; comtrade has: L0, L1, L2"),
])
def test_bad_task_arguments_are_one_line(args: list[str], message: str) -> None:
    res = runner.invoke(app, [*BASE, *args])
    assert res.exit_code == 2
    assert res.stderr == message + "\n"


def test_limit_keeps_the_first_samples_as_inspect_does() -> None:
    two_tasks = [*BASE, "--task", "T3_duplicates,T4_rate_limit_429", "--seeds", "5-9"]
    rows = _rows(runner.invoke(app, [*two_tasks, "--limit", "2"]))
    assert [(r["task"], r["seed"]) for r in rows] == [("T3_duplicates", 5), ("T3_duplicates", 6)]
    rows = _rows(runner.invoke(app, [*two_tasks, "--limit", "7"]))  # into the second task
    assert [(r["task"], r["seed"]) for r in rows] == [
        *(("T3_duplicates", s) for s in range(5, 10)), ("T4_rate_limit_429", 5),
        ("T4_rate_limit_429", 6)]
    assert len(_rows(runner.invoke(app, [*two_tasks, "--limit", "99"]))) == 10  # all there is
    epochs = _rows(runner.invoke(app, [*two_tasks, "--limit", "1", "--epochs", "2"]))
    assert [(r["seed"], r["repeat"]) for r in epochs] == [(5, 0), (5, 1)]  # repeats aren't samples
    res = runner.invoke(app, [*BASE, "--task", "T3_duplicates", "--limit", "0"])
    assert res.exit_code == 2


def test_epochs_are_repeats_recorded_as_the_repeat_index() -> None:
    rows = _rows(runner.invoke(app, [*BASE, "--task", "T3_duplicates", "--seeds", "0-1",
                                     "--epochs", "3"]))
    assert [(r["seed"], r["repeat"]) for r in rows] == [
        (0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
    assert {r["ground_truth"]["f1"] for r in rows} == {1.0}
    one = _rows(runner.invoke(app, [*BASE, "--task", "T3_duplicates"]))
    assert "repeat" not in one[0]  # rows without --epochs are as they always were
    table = runner.invoke(app, ["run", "comtrade", "--agent", "scripted:careful", "--task",
                                "T3_duplicates", "--epochs", "2"], env={"COLUMNS": "200"})
    assert [line.split("│")[-2].strip() for line in table.stdout.splitlines()
            if "T3_duplicates" in line] == ["0", "1"]


def test_epochs_key_the_episode() -> None:
    from agentmetrology.envs.registry import get_env
    from agentmetrology.run.episode import run_one

    scored = run_one(get_env("comtrade"), "T3_duplicates", 0, "rule", "L2", "seeded", "clean",
                     repeat=2)
    assert scored.episode.key.repeat == 2


@pytest.mark.parametrize(("text", "spec"), [
    ("openai/gpt-4o-mini", ModelSpec("openai", "gpt-4o-mini", None, None)),
    ("anthropic/claude-sonnet-4-5", ModelSpec("anthropic", "claude-sonnet-4-5",
                                              "https://api.anthropic.com/v1/",
                                              "ANTHROPIC_API_KEY")),
    ("ollama/qwen2.5:7b", ModelSpec("ollama", "qwen2.5:7b", "http://127.0.0.1:11434/v1", None)),
    ("openrouter/meta-llama/llama-3.1-8b-instruct",
     ModelSpec("openrouter", "meta-llama/llama-3.1-8b-instruct", "https://openrouter.ai/api/v1",
               "OPENROUTER_API_KEY")),
    ("openai-api/my-lab/m1", ModelSpec("my-lab", "m1", "http://lab:9/v1", "MY_LAB_API_KEY")),
])
def test_model_specs_as_inspect_writes_them(text: str, spec: ModelSpec) -> None:
    assert parse_model_spec(text, {"MY_LAB_BASE_URL": "http://lab:9/v1"}) == spec


@pytest.mark.parametrize(("args", "message"), [
    (["--model", "gpt-4o"], "error: --model 'gpt-4o': expected PROVIDER/MODEL, e.g. "
     "openai/gpt-4o-mini (providers: openai, anthropic, google, mistral, groq, together, "
     "deepseek, openrouter, ollama, vllm, openai-api/SERVICE)"),
    (["--model", "hf/x"], "error: --model 'hf/x': unknown provider 'hf'; known: openai, "
     "anthropic, google, mistral, groq, together, deepseek, openrouter, ollama, vllm, "
     "openai-api/SERVICE (or use --agent llm:MODEL --base-url URL)"),
    (["--model", "openai/m", "--agent", "rule"],
     "error: --agent rule and --model openai/m both name the agent; give one"),
])
def test_bad_model_arguments_are_one_line(args: list[str], message: str) -> None:
    res = runner.invoke(app, ["run", "comtrade", "--task", "T3_duplicates", *args])
    assert res.exit_code == 2
    assert res.stderr == message + "\n"


def test_model_openai_is_the_llm_agent_and_resumes_its_store(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("AGM_CLI_KEY", SECRET)
    store = tmp_path / "s"
    with FakeOpenAI(itertools.repeat(careful_model, 200)) as srv:
        common = ["run", "comtrade", "--task", "T3_duplicates", "--base-url", srv.base_url,
                  "--api-key-env", "AGM_CLI_KEY", "--store", str(store), "--json"]
        first = runner.invoke(app, [*common, "--model", "openai/gpt-4o-mini"])
        sent = len(srv.requests)
        again = runner.invoke(app, [*common, "--agent", "llm:gpt-4o-mini"])
        assert len(srv.requests) == sent > 0  # the same campaign: nothing paid twice
    rows = _rows(first)
    assert [(r["agent"], r["ground_truth"]["f1"]) for r in rows] == [("llm:gpt-4o-mini", 1.0)]
    assert again.stdout == first.stdout


def _agm(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "AGM_DOTENV_KEY"}
    return subprocess.run([sys.executable, "-m", "agentmetrology.cli.main", *args], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=300)


def test_the_key_comes_from_dotenv_and_is_never_printed_or_stored(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(f"# local keys\nAGM_DOTENV_KEY={SECRET}\n")
    with FakeOpenAI(itertools.repeat(careful_model, 200)) as srv:
        res = _agm(tmp_path, "run", "comtrade", "--task", "T3_duplicates", "--agent", "llm:m",
                   "--base-url", srv.base_url, "--api-key-env", "AGM_DOTENV_KEY", "--store",
                   "s", "--json")
        headers = list(srv.headers)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["ground_truth"]["f1"] == 1.0
    assert headers and all(SECRET in json.dumps(h) for h in headers)  # the key was sent
    assert SECRET not in res.stdout + res.stderr
    for path in (tmp_path / "s").rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in contents(path.read_bytes()), path


def test_a_malformed_dotenv_stops_the_cli_with_one_line(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(f"OK=1\n{SECRET}\n")
    res = _agm(tmp_path, "envs", "--json")
    assert res.returncode == 2
    assert res.stderr == f"error: {tmp_path / '.env'} line 2: expected NAME=VALUE\n"
    assert res.stdout == ""
