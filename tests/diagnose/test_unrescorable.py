"""A store whose mutated pair names a task its environment lacks (a hand-edited store).

Rescoring and the agent's operations need the environment made again for the recorded task,
data profile and base condition; a pair whose side cannot be is a measurement failure: counted
as unmeasured with its reason in diagnose.json, the terminal summary and report.md, and left
out of every number, never a traceback.
"""

from __future__ import annotations

import html
import itertools
import json
from pathlib import Path

from typer.testing import CliRunner

from agentmetrology.cli.main import app
from agentmetrology.records import EpisodeKey, Event
from support import stores
from support.fake_openai import FakeOpenAI, text

WHY = "not rescorable: its task is not a task of environment 'comtrade'"


def _store(root: Path) -> Path:
    """Record one pair on a comtrade task and one on a task comtrade does not have."""
    keys = [EpisodeKey("c", "t", task, 0, condition, "L2", 0)
            for task in ("T1_single_page", "T0_not_a_task") for condition in ("clean", "mut:alias")]
    with stores.open_store(root) as st:
        st.register_campaign("c", "p" * 64, {"name": "c"}, stores.bindings(keys))
        run = st.begin_run("c", "inline")
        admitted = {a.key: a for a in st.pending("c")}
        for k in keys:
            events = [Event(0, "agent", "tool_call", "list_sources", {}, {"r": 1}, 0.1)]
            ep = stores.episode(k, events=events, sub=stores.submission())
            scored = [stores.assessment("ground_truth_f1", "FAIL", 0.0,
                                         detail={"f1_exact": 0.0}),
                      stores.assessment("shape_judge", "PARTIAL", 50.0)]
            st.record_episode(st.start_attempt(admitted[k], run, "inline"), ep, scored)
        st.end_run(run, "done")
    return root


def test_a_pair_that_cannot_be_rescored_is_unmeasured_with_its_reason(tmp_path: Path) -> None:
    store = _store(tmp_path / "s")
    res = CliRunner().invoke(app, ["diagnose", str(store), "--out", str(tmp_path / "o")])
    assert res.exit_code == 0 and res.exception is None, res.output
    assert f"unmeasured pairs excluded: {WHY} (1)" in " ".join(res.stdout.split())
    doc = json.loads((tmp_path / "o" / "diagnose.json").read_text())
    assert doc["pairs"] == {"total": 2, "complete": 1, "half_finished": 0, "unmeasured": 1,
                            "unmeasured_reasons": {WHY: 1}}
    groups = list(doc["groups"].values())
    assert [(g["pairs"], g["complete"], g["unmeasured"]) for g in groups] == [(2, 1, 1)]
    assert f"unmeasured 1, excluded: {WHY} (1))" in (tmp_path / "o" / "report.md").read_text()


def test_a_judge_is_shown_only_originals_its_environment_has(tmp_path: Path) -> None:
    store = _store(tmp_path / "s")
    with FakeOpenAI(itertools.repeat(lambda body: text("PASS"), 100)) as srv:
        res = CliRunner().invoke(app, ["diagnose", str(store), "--out", str(tmp_path / "o"),
                                       "--judge-model", "j", "--base-url", srv.base_url,
                                       "--judge-calls", "1", "--json"])
    assert res.exit_code == 0 and res.exception is None, res.output
    ja = json.loads(res.stdout)["judge_audit"]
    assert (ja["episodes"], ja["cells"]) == (1, 4)  # T1_single_page's original, four views


def test_the_viewer_s_pair_page_says_why_such_a_pair_is_not_rescored(tmp_path: Path) -> None:
    # Before, /pair of this pair ended in a 404 carrying a raw KeyError (an unknown profile or
    # condition: a server traceback); now a 404 saying why.
    from starlette.testclient import TestClient

    from agentmetrology.view import create_app, detect_source

    client = TestClient(create_app(detect_source(_store(tmp_path / "s"))),
                        base_url="http://127.0.0.1")
    page = client.get("/pair", params={"campaign": "c", "target": "t", "task": "T0_not_a_task",
                                       "seed": 0, "condition": "mut:alias", "level": "L2",
                                       "repeat": 0})
    assert page.status_code == 404 and html.escape(WHY) in page.text
    ok = client.get("/pair", params={"campaign": "c", "target": "t", "task": "T1_single_page",
                                     "seed": 0, "condition": "mut:alias", "level": "L2",
                                     "repeat": 0})
    assert ok.status_code == 200
