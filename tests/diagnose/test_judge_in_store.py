"""The judges' requests are kept in the store they judged, sealed in its chain, apart from any
agent's cost (issue: "the judge's requests recorded as billable attempts in the store")."""

from __future__ import annotations

import itertools
import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentmetrology.cli.main import app
from agentmetrology.store import EvidenceStore
from diagnose.test_judge_audit import CAMPAIGN
from support.agm_runs import agm
from support.fake_openai import FakeOpenAI, text
from support.stores import record_campaign


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return record_campaign(tmp_path_factory.mktemp("judge-kept"), CAMPAIGN, "s")


def _judge(store: Path, out: Path) -> dict:
    with FakeOpenAI(itertools.repeat(lambda body: text("PASS"), 1000)) as srv:
        res = CliRunner().invoke(app, ["diagnose", str(store), "--out", str(out),
                                       "--judge-model", "j", "--base-url", srv.base_url,
                                       "--judge-calls", "1", "--json"])
    assert res.exit_code == 0, res.stderr
    return json.loads(res.stdout)["judge_audit"]


def _calls(store: Path) -> list[dict]:
    s = EvidenceStore.open_readonly(store)
    try:
        return s.grader_calls()
    finally:
        s.close()


def test_every_judge_request_is_a_sealed_grader_call(recorded: Path, tmp_path: Path) -> None:
    store = tmp_path / "s"
    shutil.copytree(recorded, store)
    before = json.loads(agm("campaign", "status", "--store", str(store), "--json").stdout)[
        "campaigns"]
    ja = _judge(store, tmp_path / "o")
    assert ja["recorded_in_store"]["recorded"] == 32
    assert ja["recorded_in_store"]["not_recorded"] == 0
    calls = _calls(store)
    assert len(calls) == 32 and {c["grader"] for c in calls} == {"llm:j"}
    assert {c["purpose"] for c in calls} == {"diagnose judge audit"}
    views = {c["subject"].split(" view=")[1].split(" ")[0] for c in calls}
    assert views == {"original", "repeat", "alias", "format"}
    assert all(c["billing_id"].startswith(ja["recorded_in_store"]["run"] + ":") for c in calls)
    assert agm("evidence", "verify", str(store)).returncode == 0
    status = agm("campaign", "status", "--store", str(store))
    assert "grader llm:j: 32 requests (0 failed), cost" in status.stdout
    doc = json.loads(agm("campaign", "status", "--store", str(store), "--json").stdout)
    assert doc["graders"]["llm:j"]["requests"] == 32
    assert doc["campaigns"] == before  # a grader's requests are no campaign's cost
    # A second audit adds its own requests (its request numbers restart; its run id differs).
    _judge(store, tmp_path / "o2")
    assert len(_calls(store)) == 64
    assert agm("evidence", "verify", str(store)).returncode == 0


def test_an_edited_grader_call_fails_verification(recorded: Path, tmp_path: Path) -> None:
    store = tmp_path / "s"
    shutil.copytree(recorded, store)
    _judge(store, tmp_path / "o")
    with sqlite3.connect(store / "ledger.sqlite") as c:
        c.execute("UPDATE grader_calls SET cost = 0 WHERE id = 1")
    res = agm("evidence", "verify", str(store))
    assert res.returncode != 0
    assert "grader_calls" in res.stdout + res.stderr
