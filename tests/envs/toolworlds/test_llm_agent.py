"""`agm run transaction --agent llm:MODEL` against a fake OpenAI-compatible endpoint on loopback."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentmetrology.cli.main import app
from support.fake_openai import FakeOpenAI, Reply, tool_calls, usage
from support.toolworld_checks import expected

KEY = {"order_id": "O1", "amount": 25, "idempotency_key": "llm-1"}
STEPS: list[tuple[str, dict[str, Any]]] = [
    ("get_task", {}),
    ("refund", KEY),  # the declared fault: committed, then a timeout
    ("refund", {**KEY, "idempotency_key": "llm-2"}),  # a new key: a second refund
    ("get_order", {"order_id": "O1", "fresh": True}),
    ("finish", {"answer": 50}),
]


def scripted_model(body: dict[str, Any]) -> Reply:
    """A fake model that makes the next call of STEPS (one per tool result it has seen)."""
    done = sum(1 for m in body["messages"] if m["role"] == "tool")
    name, args = STEPS[min(done, len(STEPS) - 1)]
    return tool_calls((name, args, f"call_{done}"), use=usage(300, 30))


def test_an_llm_agent_is_held_to_the_contract(monkeypatch: pytest.MonkeyPatch,
                                              tmp_path: Path) -> None:
    monkeypatch.setenv("AGM_TW_KEY", "sk-test-tw")
    with FakeOpenAI(itertools.repeat(scripted_model, 20)) as srv:
        result = CliRunner().invoke(app, [
            "run", "transaction", "--task", "refund", "--seeds", "0", "--agent", "llm:fake",
            "--condition", "recipe:amount=25", "--base-url", srv.base_url, "--api-key-env",
            "AGM_TW_KEY", "--store", str(tmp_path / "store"), "--json"])
        first = srv.requests[0]
    assert result.exit_code == 0, result.stderr
    row = json.loads(result.stdout)
    assert row["termination"] == "submitted" and row["condition"] == "recipe:amount=25"
    assert row["goal"] == {"version": "1.0.0", "status": "FAIL", "score": 0.0,
                           "reasons": ["order O1 refunded 50, requested 25"]}
    assert row["contract"]["checks"] == expected(
        "transaction", "refund", {"refunded_exactly": "FAIL", "single_settlement": "FAIL"})
    assert [t["function"]["name"] for t in first["tools"]] == [
        "get_task", "get_order", "refund", "credit_customer", "update_order", "get_ticket",
        "update_ticket", "patch_ticket", "edit_document", "send_mail", "schedule_event",
        "finish"]
