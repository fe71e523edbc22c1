"""Score rows: one immutable row per reported score; a correction is a new row linked to it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

import store.tamper_fixtures as tf
from agentmetrology.archive.score_row import regrade_rows, score_row
from agentmetrology.cli.main import app
from agentmetrology.records.canonical import digest

runner = CliRunner()
HEX = set("0123456789abcdef")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    yield tf.record_store(tmp_path_factory.mktemp("rows"))


def _json(*args: str) -> dict:  # type: ignore[type-arg]
    r = runner.invoke(app, list(args))
    assert r.exit_code == 0, r.stderr
    return dict(json.loads(r.stdout))


def _is_digest(value: object) -> bool:
    return isinstance(value, str) and len(value) == 64 and set(value) <= HEX


def test_campaign_status_rows(store: Path) -> None:
    doc = _json("campaign", "status", "--store", str(store), "--json")
    rows = {(r["subject"]["target"], r["evaluator"]["name"]): r for r in doc["score_rows"]}
    assert len(rows) == 6  # three targets x two scorers
    r = rows[("no_dedup", "ground_truth_f1")]
    assert r["counts"] == {"planned": 12, "graded": 12, "ungraded": 0, "invalid": 0,
                           "success": 9, "failure": 0}
    assert r["score"] == 0.977273 and r["evaluator"]["version"] == "1.1.0"
    assert r["evidence"] == {"kind": "evidence-store", "qualification": "qualified",
                             "qualified": True, "digest": doc["evidence"]["evidence_digest"]}
    assert _is_digest(r["task_revision"]) and _is_digest(r["pricing_table"])
    assert r["grading_boundary"].startswith("graded = PASS, FAIL or PARTIAL")
    assert r["corrects"] is None and r["diff"] == []
    content = {k: v for k, v in r.items() if k != "row_id"}
    assert r["row_id"] == digest(content)  # the id is the content: an edit changes it


def test_audit_and_regrade_rows(store: Path, tmp_path: Path) -> None:
    audit = _json("archive", "audit", str(store), "--out", str(tmp_path / "a"), "--json")
    overall = audit["score_rows"][0]
    assert overall["subject"]["cell"] == "overall"
    cov = audit["coverage"]["overall"]
    assert overall["counts"] == {"planned": 36, "graded": cov["graded"],
                                 "ungraded": cov["counts"]["ungraded"],
                                 "invalid": cov["counts"]["invalid_replay"],
                                 "success": cov["counts"]["pass"],
                                 "failure": cov["counts"]["fail"]}
    assert len(audit["score_rows"]) == 1 + len(audit["coverage"]["cells"])
    assert overall["evidence"]["digest"] == audit["evidence"]["evidence_digest"]
    regrade = _json("archive", "regrade", str(store), "--out", str(tmp_path / "r"), "--json")
    # Nothing changed since grading: one row per scorer, no correction.
    assert [(r["evaluator"]["name"], r["corrects"]) for r in regrade["score_rows"]] == \
        [("ground_truth_f1", None), ("shape_judge", None)]
    assert regrade["score_rows"][0]["counts"]["planned"] == 36


def test_a_foreign_archive_binds_its_input_files(tmp_path: Path) -> None:
    f = tmp_path / "eps.jsonl"
    f.write_text(json.dumps({"task": "t1", "model": "m", "grade": 1.0, "trial": 0}) + "\n")
    doc = _json("archive", "audit", str(f), "--out", str(tmp_path / "o"), "--json")
    row = doc["score_rows"][0]
    assert "evidence" not in doc
    assert row["evidence"]["kind"] == "files" and _is_digest(row["evidence"]["digest"])
    assert row["evidence"]["qualified"] is None and row["task_revision"] is None


def _pair(stored: tuple[str, float], current: tuple[str, float], version: str = "1.0.0"
          ) -> dict[str, object]:
    return {"stored_status": stored[0], "stored_score": stored[1], "stored_version": "1.0.0",
            "current_status": current[0], "current_score": current[1],
            "current_version": version}


def test_a_correction_is_a_new_linked_row() -> None:
    same = [({"episode_id": f"e{i}", "infra": False}, _pair(("PASS", 1.0), ("PASS", 1.0)))
            for i in range(3)]
    store = {"source": "s", "campaigns": ["c"]}
    rows = regrade_rows("gt", "1.0.0", same, 4, store, {}, None, 10)
    assert len(rows) == 1 and rows[0]["counts"] == {
        "planned": 4, "graded": 3, "ungraded": 1, "invalid": 0, "success": 3, "failure": 0}
    changed = [*same[:2], ({"episode_id": "e2", "infra": False},
                           _pair(("PASS", 1.0), ("FAIL", 0.0), "2.0.0"))]
    old, new = regrade_rows("gt", "2.0.0", changed, 4, store, {}, None, 10)
    assert old == rows[0]  # the stored row is untouched
    assert new["corrects"] == old["row_id"] and new["row_id"] != old["row_id"]
    assert new["diff"] == [{"episode": "e2", "stored": ["PASS", 1.0], "current": ["FAIL", 0.0]}]
    assert new["score"] == 0.666667 and new["evaluator"]["version"] == "2.0.0"
    assert new["counts"]["failure"] == 1


def test_row_id_is_the_content_digest() -> None:
    kw = dict(subject={"x": 1}, scorer={"name": "s", "version": "1"}, value=0.5,
              evidence={"digest": None}, task_revision=None, pricing=None, boundary="b",
              counts={"planned": 2, "graded": 1, "ungraded": 1, "invalid": 0})
    a, b = score_row(**kw), score_row(**{**kw, "value": 0.6})  # type: ignore[arg-type]
    assert a["row_id"] != b["row_id"] and a == score_row(**kw)  # type: ignore[arg-type]
