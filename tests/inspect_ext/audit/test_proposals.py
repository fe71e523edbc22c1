"""LLM-assisted proposals: labelled, evidence checked, prose guarded, probes executed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentmetrology.audit.proposals import (
    REJECTED,
    Endpoint,
    ProposalError,
    propose_ownership,
)
from agentmetrology.cli.audit_inspect_cmd import inspect_app
from agentmetrology.report.proposal_guard import passes
from support.fake_openai import FakeOpenAI, http_error, text

TASKS = Path(__file__).resolve().parent / "tasks" / "toy_tasks.py"
HARNESS = "def run(agent):\n    for attempt in range(3):  # retry\n        out = agent()\n" \
          "    return submit(out)\n"


def _ep(srv: FakeOpenAI) -> Endpoint:
    return Endpoint("fake", srv.base_url, "agm-no-key")


def test_ownership_proposal_keeps_valid_evidence_and_guards_prose(tmp_path):
    src = tmp_path / "harness.py"
    src.write_text(HARNESS)
    answer = {"decisions": {
        "retry": {"owner": "harness", "evidence": [{"file": "harness.py", "line": 2},
                                                   {"file": "harness.py", "line": 99},
                                                   {"file": "other.py", "line": 1}],
                  "rationale": "the loop retries 3 times"},
        "submission": {"owner": "harness", "evidence": [{"file": "harness.py", "line": 4}],
                       "rationale": "it submits after 7 tries"},
        "pagination": {"owner": "robot"}}}
    with FakeOpenAI([text(json.dumps(answer))]) as srv:
        doc = propose_ownership(_ep(srv), [src], passes)
    d = doc["decisions"]
    assert doc["label"] == "proposal" and doc["confirmed"] is False
    assert d["retry"]["evidence"] == [{"file": "harness.py", "line": 2}]
    assert doc["evidence_dropped"] == 2  # a line past the file, a file not given
    assert d["retry"]["rationale"] == "the loop retries 3 times"  # 3 is in the source
    assert d["submission"]["rationale"] == REJECTED  # 7 appears nowhere it was shown
    assert doc["rationales_rejected"] == 1
    assert d["pagination"]["status"] == "no proposal"  # an owner that is neither


def test_without_a_guard_prose_is_withheld(tmp_path):
    src = tmp_path / "h.py"
    src.write_text(HARNESS)
    answer = {"decisions": {"retry": {"owner": "harness", "evidence": [], "rationale": "loop"}}}
    with FakeOpenAI([text(json.dumps(answer))]) as srv:
        doc = propose_ownership(_ep(srv), [src])
    assert doc["decisions"]["retry"]["rationale"] == REJECTED
    assert doc["decisions"]["retry"]["status"] == "proposal without evidence"


def test_endpoint_failure_is_one_proposal_error(tmp_path):
    src = tmp_path / "h.py"
    src.write_text(HARNESS)
    with FakeOpenAI([http_error(500, "down")]) as srv, pytest.raises(ProposalError,
                                                                     match="endpoint failed"):
        propose_ownership(_ep(srv), [src])


def test_proposed_probes_are_executed_against_the_real_scorer(tmp_path):
    pytest.importorskip("inspect_ai", reason="needs the `inspect` extra")
    answer = {"probes": [
        {"sample": "b", "name": "superstring", "output": "420", "degraded": True,
         "rationale": "contains the answer"},
        {"sample": "b", "name": "other", "output": "41", "degraded": True, "rationale": ""},
        {"sample": "zz", "name": "ghost", "output": "1", "degraded": True}]}
    out = tmp_path / "p.json"
    with FakeOpenAI([text(json.dumps(answer))]) as srv:
        res = CliRunner().invoke(inspect_app, ["propose", "probes", f"{TASKS}@includes_task",
                                               "--model", "fake", "--base-url", srv.base_url,
                                               "--out", str(out)])
    assert res.exit_code == 0, res.output
    doc = json.loads(out.read_text())
    by = {p["name"]: p for p in doc["probes"]}
    assert doc["dropped"] == 1  # a sample that was not shown
    # includes() passes "420" for target "42": the proposal is confirmed as a criterion gap
    assert (by["superstring"]["finding"], by["superstring"]["score"]) == ("degraded = correct",
                                                                          1.0)
    assert by["other"]["finding"] == "separated"
    assert all(p["label"] == "proposal" for p in doc["probes"])
    assert "proposals (labelled, no verdict changed)" in res.output
