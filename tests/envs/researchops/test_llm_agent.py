"""`agm run researchops --agent llm:MODEL` against a fake OpenAI-compatible endpoint on loopback."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentmetrology.cli.main import app
from support.fake_openai import FakeOpenAI, Reply, tool_calls, usage

STEPS: list[tuple[str, dict[str, Any]]] = [
    ("retrieve_document", {"name": "optimizer_guide"}),
    ("inspect_logs", {}),
    ("edit_config", {"key": "optimizer.lr", "value": 0.1}),
    ("run_experiment", {}),
    ("submit_report", {"report": "Diagnosis: learning rate too high. Set optimizer.lr to 0.1; "
                                 "the experiment confirms it.",
                       "evidence": ["doc:optimizer_guide", "logs", "experiment"]}),
]


def scripted_model(body: dict[str, Any]) -> Reply:
    """A fake model that makes the next call of STEPS (one per tool result it has seen)."""
    done = sum(1 for m in body["messages"] if m["role"] == "tool")
    name, args = STEPS[min(done, len(STEPS) - 1)]
    return tool_calls((name, args, f"call_{done}"), use=usage(500, 40))


def test_an_llm_agent_runs_researchops(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("AGM_RO_KEY", "sk-test-ro")
    with FakeOpenAI(itertools.repeat(scripted_model, 20)) as srv:
        result = CliRunner().invoke(app, [
            "run", "researchops", "--task", "lr_1", "--seeds", "0", "--agent", "llm:fake",
            "--base-url", srv.base_url, "--api-key-env", "AGM_RO_KEY", "--store",
            str(tmp_path / "store"), "--json"])
        first = srv.requests[0]
    assert result.exit_code == 0, result.stderr
    row = json.loads(result.stdout)
    assert row["termination"] == "submitted" and row["agent"] == "llm:fake"
    assert row["task_quality"]["H"] == 1.0 and row["task_quality"]["status"] == "PASS"
    assert row["composite_verifier"]["tools"] == 0.8  # 4 of 5: it never called read_config
    system, user = first["messages"][0]["content"], first["messages"][1]["content"]
    assert system.startswith("You are a research-operations agent")
    assert user.startswith("Task lr_1: Fix a wrong learning rate") and "submit_report" in user
    assert [t["function"]["name"] for t in first["tools"]] == [
        "retrieve_document", "read_config", "edit_config", "run_experiment", "inspect_logs",
        "submit_report"]
