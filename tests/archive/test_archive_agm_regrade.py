"""`agm archive regrade`, `archive audit --format agm` and `archive compare` on two stores."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentmetrology.archive.regrade import regrade_store
from agentmetrology.cli.main import app
from agentmetrology.records.canonical import canonical_json
from archive.agm_fixtures import RECORDED, build_store

runner = CliRunner()


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_store(tmp_path_factory.mktemp("agm") / "store")


def _demote_rule_passes(root: Path, n: int) -> None:
    """Rewrite `n` stored ground-truth PASS rows of target `rule` as FAIL 0.0 (an old grader)."""
    con = sqlite3.connect(root / "ledger.sqlite")
    with con:
        ids = [r[0] for r in con.execute(
            "SELECT s.rowid FROM assessments s JOIN administrations a ON a.id = s.administration "
            "WHERE a.target='rule' AND s.scorer='ground_truth_f1' AND s.status='PASS' "
            "ORDER BY s.rowid LIMIT ?", (n,))]
        con.executemany("UPDATE assessments SET status='FAIL', score=0.0 WHERE rowid=?",
                        [(i,) for i in ids])
    con.close()


def test_regrade_of_an_untouched_store_reports_no_change(store: Path) -> None:
    doc = regrade_store(store)
    assert doc["store"]["recorded"] == RECORDED and doc["scorers_changed"] == 0
    for name in ("ground_truth_f1", "shape_judge"):
        s = doc["scorers"][name]
        assert (s["score_changed"], s["status_changed"], s["compared"]) == (0, 0, RECORDED)
        assert (s["transitions"]["n01"], s["transitions"]["n10"]) == (0, 0)
        assert s["transitions"]["flip_fraction"] == 0.0
        assert s["rank"]["strict_reversals"] == 0 and s["version_changed"] is False
    assert "equals current" in doc["version_note"]
    assert canonical_json(regrade_store(store)) == canonical_json(doc)  # deterministic


def test_regrade_counts_stored_grades_the_current_scorer_disagrees_with(tmp_path: Path) -> None:
    root = build_store(tmp_path / "old")
    _demote_rule_passes(root, 3)
    gt = regrade_store(root)["scorers"]["ground_truth_f1"]
    assert (gt["score_changed"], gt["status_changed"]) == (3, 3)
    assert (gt["transitions"]["n01"], gt["transitions"]["n10"], gt["transitions"]["net_count"]) == \
        (3, 0, 3)
    assert gt["transitions"]["flip_fraction"] == 3 / RECORDED
    assert len(gt["changed_episodes"]) == 3


def test_cli_audit_regrade_and_compare_on_stores(store: Path, tmp_path: Path) -> None:
    res = runner.invoke(app, ["archive", "audit", str(store), "--out", str(tmp_path / "a"),
                              "--format", "agm", "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["archive"]["format"] == "agm" and doc["archive"]["episodes"] == RECORDED
    assert doc["inputs"][0]["name"] == "ledger.sqlite"
    assert doc["coverage"]["recovery"]["validation"]["agreement"] == 1.0
    assert doc["provenance"]["grader_labelled_events"] == 0
    assert (tmp_path / "a" / "report.html").is_file()
    res = runner.invoke(app, ["archive", "audit", str(store), "--out", str(tmp_path / "b")])
    assert res.exit_code == 0 and "recovered by replay" in res.stdout  # auto-detected
    res = runner.invoke(app, ["archive", "regrade", str(store), "--out", str(tmp_path / "r")])
    assert res.exit_code == 0, res.output
    assert json.loads((tmp_path / "r" / "regrade.json").read_text())["scorers_changed"] == 0
    assert "Stored vs current" in (tmp_path / "r" / "report.md").read_text()
    other = build_store(tmp_path / "other")
    _demote_rule_passes(other, 2)
    res = runner.invoke(app, ["archive", "compare", str(other), str(store), "--out",
                              str(tmp_path / "c"), "--json"])
    assert res.exit_code == 0, res.output
    t = json.loads(res.stdout)["transitions"]
    assert (t["n01"], t["n10"], t["n"]) == (2, 0, RECORDED)


def test_cli_store_errors_exit_2(tmp_path: Path) -> None:
    res = runner.invoke(app, ["archive", "regrade", str(tmp_path), "--out", str(tmp_path / "o")])
    assert res.exit_code == 2 and "not an evidence store" in res.output
    assert "Traceback" not in res.output
    res = runner.invoke(app, ["archive", "audit", str(tmp_path), "--format", "agm", "--out",
                              str(tmp_path / "o")])
    assert res.exit_code == 2 and "Traceback" not in res.output


@pytest.mark.parametrize("of_store", [True, False])
def test_an_audit_of_a_store_runs_with_the_cyclic_collector_paused(
        store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, of_store: bool) -> None:
    """The audit of an evidence store pauses the cyclic collector while it imports and
    checks (nothing it builds is in a cycle; the collector's rescans of the growing heap were
    a fifth of its time) and resumes it after; an archive file's audit leaves it running."""
    import gc

    import agentmetrology.cli.archive_cmd as cmd

    seen: list[bool] = []
    original = cmd.audit_archive

    def spy(*args: object, **kwargs: object) -> object:
        seen.append(gc.isenabled())
        return original(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(cmd, "audit_archive", spy)
    if of_store:
        src = store
    else:
        src = tmp_path / "runs.jsonl"
        src.write_text(json.dumps({"task": "t1", "model": "m", "trial": 0,
                                   "grade": {"score": 1.0}}) + "\n")
    assert gc.isenabled()
    res = runner.invoke(app, ["archive", "audit", str(src), "--out", str(tmp_path / "o")])
    assert res.exit_code == 0, res.output
    assert seen == [not of_store] and gc.isenabled()

