"""The viewer's graders pages: every judge run whose answers the store keeps, and one run's
verdicts beside what the judge wrote (before, a judge's answers were nowhere in the store, so a
counted verdict could not be checked against its text)."""

from __future__ import annotations

import itertools
import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from agentmetrology.cli.main import app
from agentmetrology.view import create_app, detect_source
from diagnose.test_judge_audit import CAMPAIGN
from support.fake_openai import FakeOpenAI, text
from support.stores import record_campaign
from view.view_fixtures import table_cells

BASE = "http://127.0.0.1"
# Two answers in turn: a verdict, then one no verdict can be read from (long, so it folds).
LONG = "I cannot decide; " * 30


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    root = tmp_path_factory.mktemp("graders-view")
    store = record_campaign(root, CAMPAIGN, "s")
    answers = itertools.cycle([lambda body: text("PASS"), lambda body: text(LONG)])
    with FakeOpenAI(itertools.islice(answers, 1000)) as srv:
        res = CliRunner().invoke(app, ["diagnose", str(store), "--out", str(root / "o"),
                                       "--judge-model", "j", "--base-url", srv.base_url,
                                       "--judge-calls", "1", "--json"])
    assert res.exit_code == 0, res.stderr
    return store, json.loads(res.stdout)["judge_audit"]


def _client(store: Path) -> TestClient:
    return TestClient(create_app(detect_source(store)), base_url=BASE)


def test_the_graders_page_counts_each_run_s_verdicts_and_requests(
        judged: tuple[Path, dict[str, Any]]) -> None:
    store, ja = judged
    client = _client(store)
    run = ja["recorded_in_store"]["run"]
    assert '<a href="/graders">1 judge run(s)</a>' in client.get("/").text
    rows = table_cells(client.get("/graders").text, "graders")
    # 8 episodes x 4 views x 1 call; every other answer is unreadable: never a pass or fail
    assert [r[:9] for r in rows] == [[run, "llm:j", "diagnose judge audit", "32", "16", "0",
                                      "0", "16", "32"]]
    assert ja["unknown_cells"] == 16


def test_a_run_s_page_shows_each_verdict_beside_the_answer_and_links_the_episode(
        judged: tuple[Path, dict[str, Any]]) -> None:
    store, ja = judged
    page = _client(store).get("/graders", params={"run": ja["recorded_in_store"]["run"]})
    assert page.status_code == 200
    rows = table_cells(page.text, "verdicts")
    assert len(rows) == 32
    first, second = rows[0], rows[1]
    assert first[2:5] == ["original", "0", "PASS"] and first[6] == "PASS"
    assert second[4] == "none" and second[5].startswith("unparseable verdict: 'I cannot")
    assert "<details><summary>" in page.text  # the long answer folds
    assert page.text.count('href="/episode?campaign=') == 32  # every episode linked


def test_an_unknown_run_is_a_404_and_a_store_without_verdicts_says_so(
        judged: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    store, _ = judged
    assert _client(store).get("/graders", params={"run": "nope"}).status_code == 404
    plain = tmp_path / "plain"
    shutil.copytree(store, plain)
    with sqlite3.connect(plain / "ledger.sqlite") as c:  # a store read since before verdicts
        c.execute("DROP TABLE grader_verdicts")
    page = _client(plain).get("/graders")
    assert page.status_code == 200 and "keeps no grader verdicts" in page.text
    assert "judge run(s)" not in _client(plain).get("/").text
