"""`agm campaign status` of a campaign one of whose targets never reached its endpoint: the
target has its scores and score rows (null, every episode excluded, and why), in the JSON and
in the table, as a target measured in part has. Before, it had neither: `--json` could not tell
"measured, every episode failed" from "no such target".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentmetrology.cli.campaign_cmd import campaign_app
from run.campaign.campaign_fixtures import write

runner = CliRunner()

CAMPAIGN = """
[campaign]
name = "half"
tasks = ["T1_single_page"]
seeds = "0-1"
levels = ["L2"]
concurrency = 1

[limits]
max_steps = 30

[[targets]]
name = "rule"
kind = "rule"

[[targets]]
name = "m"
kind = "llm"
model = "fake-model"
base_url = "http://127.0.0.1:{port}/v1"
max_retries = 0
price = {{ input_per_m = 1.0, output_per_m = 2.0 }}
"""
SCORERS = ("ground_truth_f1", "shape_judge")


@pytest.fixture
def store(tmp_path: Path, refusing_port: int) -> Path:
    """A complete campaign: `rule` measured, both episodes of `m` refused (infra_error)."""
    file = write(tmp_path, CAMPAIGN.format(port=refusing_port))
    res = runner.invoke(campaign_app, ["run", str(file), "--store", str(tmp_path / "s"),
                                       "--quiet"])
    assert res.exit_code == 1, res.output  # complete, and a target measured nothing
    return tmp_path / "s"


def _why(port: int) -> str:
    return (f"infra_error: connection refused by 127.0.0.1:{port}: retry budget exhausted for "
            "model 'fake-model' after 1 attempt (connection_error)")


def test_the_json_has_null_scores_and_score_rows_for_the_unmeasured_target(
        store: Path, refusing_port: int) -> None:
    res = runner.invoke(campaign_app, ["status", "--store", str(store), "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    excluded = {"count": 2, "by_reason": {"measurement failure": {
        "count": 2, "details": {_why(refusing_port): 2}}}}
    assert doc["campaigns"][0]["scores"]["m"] == {
        sc: {"n": 0, "statuses": {}, "scored": 0, "mean_score": None, "excluded": excluded}
        for sc in SCORERS}
    rows = {(r["subject"]["target"], r["evaluator"]["name"]): r for r in doc["score_rows"]}
    assert sorted(rows) == [(t, sc) for t in ("m", "rule") for sc in SCORERS]
    for sc in SCORERS:
        assert rows[("m", sc)]["score"] is None
        assert rows[("m", sc)]["counts"] == {"planned": 2, "graded": 0, "ungraded": 2,
                                             "invalid": 0, "success": 0, "failure": 0}


def test_the_table_says_why_the_target_has_no_score(store: Path, refusing_port: int) -> None:
    res = runner.invoke(campaign_app, ["status", "--store", str(store)],
                        env={"COLUMNS": "400"})
    assert res.exit_code == 0, res.output
    said = [line for line in res.stdout.splitlines() if "no measured score" in line]
    assert said == ["m: no measured score: all 2 recorded episodes excluded: 2 measurement "
                    f"failures ({_why(refusing_port)})"]
