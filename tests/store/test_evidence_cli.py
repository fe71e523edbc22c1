"""`agm evidence verify|seal|qualify` and the banner of reports built from unqualified stores."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import store.tamper_fixtures as tf
from agentmetrology.cli.main import app
from archive.tau2_files import GPT_AIRLINE, shared

runner = CliRunner()
HERE = Path(__file__).resolve().parent
OLD = HERE.parent / "fixtures" / "pre_plugin_store"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, bytes]]]:
    store = tf.record_store(tmp_path_factory.mktemp("evidence"))
    yield store, tf.snapshot(store)


@pytest.fixture
def store(recorded: tuple[Path, dict[str, bytes]], tmp_path: Path) -> Path:
    """A fresh copy of the recorded store."""
    copy = tmp_path / "store"
    copy.mkdir()
    tf.restore(copy, recorded[1])
    return copy


def agm(*args: str) -> tuple[int, str, str]:
    r = runner.invoke(app, list(args))
    return r.exit_code, r.stdout, r.stderr


def _status(store: Path) -> tuple[int, dict, str]:  # type: ignore[type-arg]
    code, out, err = agm("campaign", "status", "--store", str(store), "--json")
    return code, json.loads(out), err


def test_the_issue_relabel_is_caught_everywhere(store: Path, tmp_path: Path) -> None:
    """One SQL UPDATE relabels the non-passing episodes as infrastructure errors: before, mean
    F1 became 1.000 and nothing noticed; now verify fails and every report carries the banner."""
    code, before, err = _status(store)
    assert code == 0 and before["evidence"]["result"] == "qualified" and "UNQUALIFIED" not in err
    f1 = before["campaigns"][0]["scores"]["no_dedup"]["ground_truth_f1"]
    assert f1["statuses"] == {"PARTIAL": 3, "PASS": 9} and f1["mean_score"] == 0.977273
    tf.apply(store, tf.sql(tf.RELABEL), reseal=False)
    code, after, err = _status(store)
    assert after["campaigns"][0]["scores"]["no_dedup"]["ground_truth_f1"]["mean_score"] == 1.0
    assert after["evidence"]["result"] == "invalid_binding"
    assert after["evidence"]["problem_kinds"] == {"row_changed": 3,
                                                 "row_disagrees_with_evidence": 6}
    assert "UNQUALIFIED EVIDENCE (invalid_binding)" in err
    assert all(not r["evidence"]["qualified"] for r in after["score_rows"])
    code, out, err = agm("evidence", "verify", str(store))
    assert code == 1 and "row_changed: episodes administration=" in out
    code, out, err = agm("archive", "audit", str(store), "--out", str(tmp_path / "a"))
    assert code == 0 and "UNQUALIFIED EVIDENCE" in err
    report = (tmp_path / "a" / "report.md").read_text()
    assert report.startswith("> **UNQUALIFIED EVIDENCE (invalid_binding)")
    assert "UNQUALIFIED EVIDENCE" in (tmp_path / "a" / "report.html").read_text()
    code, out, err = agm("archive", "regrade", str(store), "--out", str(tmp_path / "r"))
    assert code == 0 and "UNQUALIFIED EVIDENCE" in err
    assert (tmp_path / "r" / "report.md").read_text().startswith("> **UNQUALIFIED EVIDENCE")
    # `agm export` wrote every relabelled row with nothing on stderr but its count
    code, out, err = agm("export", str(store))
    assert code == 0 and '"termination": "infra_error"' in out
    assert "UNQUALIFIED EVIDENCE (invalid_binding)" in err
    # printed after the rows, which went elsewhere: never "Numbers below"
    flat = " ".join(err.split())
    assert "The rows exported are not qualified" in flat and "Numbers below" not in flat


def test_verify_and_hash_only_on_a_resealed_edit(store: Path) -> None:
    tf.apply(store, tf.scope(0, "episode_blob"), reseal=True)
    code, out, _ = agm("evidence", "verify", str(store), "--json")
    doc = json.loads(out)
    assert code == 1 and doc["result"] == "invalid_binding" and doc["mode"] == "full"
    assert "scope_mismatch" in doc["problem_kinds"]
    code, out, _ = agm("evidence", "verify", str(store), "--hash-only", "--json")
    assert code == 0 and json.loads(out)["result"] == "qualified"


def test_an_older_layout_is_never_qualified_and_seal_is_explicit(tmp_path: Path) -> None:
    old = tmp_path / "old"
    shutil.copytree(OLD, old)
    before = tf.snapshot(old)
    code, out, err = agm("evidence", "verify", str(old))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "unsealed ledger (older layout)" in err
    code, out, err = agm("evidence", "qualify", str(tmp_path), "--store", str(old))
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert tf.snapshot(old) == before  # refused commands and verify change nothing
    code, doc, err = _status(old)
    assert code == 0 and doc["evidence"]["result"] == "unsealed"
    assert "store is unsealed (older layout)" in err
    assert doc["score_rows"][0]["evidence"]["qualification"] == "unsealed"
    code, out, _ = agm("evidence", "seal", str(old))
    assert code == 0 and "sealed" in out
    code, out, _ = agm("evidence", "verify", str(old), "--json")
    doc = json.loads(out)
    assert code == 0 and doc["result"] == "qualified" and doc["migrated_at"]
    assert doc["notes"][0].startswith("sealed by migration at ")
    code, out, _ = agm("evidence", "seal", str(old))
    assert code == 0 and "already sealed; nothing changed" in out


@pytest.mark.parametrize("make", ["missing", "file", "not_sqlite", "empty_dir"])
def test_not_a_store_is_one_line_exit_2(tmp_path: Path, make: str) -> None:
    path = tmp_path / "x"
    if make == "file":
        path.write_text("hello")
    elif make == "not_sqlite":
        path.mkdir()
        (path / "ledger.sqlite").write_text("not a database")
    elif make == "empty_dir":
        path.mkdir()
    for args in (["evidence", "verify", str(path)], ["evidence", "seal", str(path)],
                 ["evidence", "verify", str(path), "--hash-only"]):
        code, out, err = agm(*args)
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, (args, err)
        assert err.startswith("error:")
    assert not (tmp_path / "x" / "blobs").exists()


def test_qualify_a_report(store: Path, tmp_path: Path) -> None:
    out_dir = tmp_path / "audit"
    assert agm("archive", "audit", str(store), "--out", str(out_dir))[0] == 0
    code, out, _ = agm("evidence", "qualify", str(out_dir), "--store", str(store), "--json")
    doc = json.loads(out)
    assert code == 0 and doc["result"] == "qualified", doc["problems"]
    assert doc["report_evidence_digest"] == doc["store_evidence_digest"]
    # A score row edited in the report no longer hashes to its id.
    report = json.loads((out_dir / "archive.json").read_text())
    report["score_rows"][0]["score"] = 1.0
    edited = tmp_path / "edited"
    edited.mkdir()
    (edited / "archive.json").write_text(json.dumps(report))
    code, out, _ = agm("evidence", "qualify", str(edited), "--store", str(store), "--json")
    assert code == 1 and [p["kind"] for p in json.loads(out)["problems"]] == \
        ["score_row_changed"]
    # The store rewritten and resealed: the report's evidence digest is not in its chain.
    tf.apply(store, tf.sql(tf.RELABEL), reseal=True)
    code, out, _ = agm("evidence", "qualify", str(out_dir), "--store", str(store), "--json")
    kinds = [p["kind"] for p in json.loads(out)["problems"]]
    assert code == 1 and kinds == ["evidence_digest_mismatch", "store_not_qualified"]
    # the detail names both causes: a report of another store was "the ledger was rewritten"
    assert "the report is of another store (give it with --store), or this ledger was " \
        "rewritten" in json.loads(out)["problems"][0]["detail"]


def test_a_report_whose_rendered_numbers_were_edited_does_not_qualify(
        store: Path, tmp_path: Path) -> None:
    # Before, only the JSON's binding and score rows were checked: report.md with its stored
    # score replaced qualified. The JSON records each rendered file's digest as written.
    audit, regrade = tmp_path / "audit", tmp_path / "regrade"
    assert agm("archive", "audit", str(store), "--out", str(audit))[0] == 0
    assert agm("archive", "regrade", str(store), "--out", str(regrade))[0] == 0
    for out_dir in (audit, regrade):
        code, out, _ = agm("evidence", "qualify", str(out_dir), "--store", str(store), "--json")
        assert code == 0 and json.loads(out)["result"] == "qualified"
        assert not json.loads(out)["notes"]
    recorded = json.loads((audit / "archive.json").read_text())["rendered"]
    assert recorded == {n: hashlib.sha256((audit / n).read_bytes()).hexdigest()
                        for n in ("report.html", "report.md")}
    for out_dir, name in ((audit, "report.md"), (audit, "report.html"), (regrade, "report.md")):
        edited = tmp_path / f"edited-{out_dir.name}-{name}"
        shutil.copytree(out_dir, edited)
        text = (edited / name).read_text(encoding="utf-8")
        assert "0.0" in text  # the report's counts and scores: one is changed below
        (edited / name).write_text(text.replace("0.0", "0.9", 1), encoding="utf-8")
        code, out, _ = agm("evidence", "qualify", str(edited), "--store", str(store), "--json")
        problems = json.loads(out)["problems"]
        assert code == 1 and [p["kind"] for p in problems] == ["report_text_changed"]
        assert problems[0]["detail"].startswith(f"{name} was changed after it was written")


def test_a_report_json_that_does_not_render_its_files_is_noted_never_accused(
        store: Path, tmp_path: Path) -> None:
    # The JSON edited in a number its files show, or rendered by another agm's renderer: this
    # agm cannot tell the two apart, so it notes it (a report must stay qualifiable after an
    # upgrade); the files themselves still hash to what the JSON records.
    audit = tmp_path / "audit"
    assert agm("archive", "audit", str(store), "--out", str(audit))[0] == 0
    report = json.loads((audit / "archive.json").read_text())
    report["coverage"]["overall"]["score_stored"] = 0.25  # a number outside the score rows
    (audit / "archive.json").write_text(json.dumps(report))
    code, out, _ = agm("evidence", "qualify", str(audit), "--store", str(store), "--json")
    doc = json.loads(out)
    assert code == 0 and doc["result"] == "qualified" and doc["notes"] == [
        "this agm does not render archive.json into the files it records: it was rendered by "
        "another agm, or edited after it was written (only its binding and score rows are "
        "checked against the store)"]
    del report["rendered"]  # a report written before the digests were recorded
    (audit / "archive.json").write_text(json.dumps(report))
    (audit / "report.html").unlink()
    code, out, _ = agm("evidence", "qualify", str(audit), "--store", str(store), "--json")
    doc = json.loads(out)
    assert code == 0 and doc["notes"] == [
        "report.md not checked: archive.json records no digest of the files rendered from it "
        "(written before agm recorded them)"]


def test_recompute_catches_a_forged_number_that_every_other_check_passes(
        store: Path, tmp_path: Path) -> None:
    # A number edited in archive.json, the files rendered again and their digests recorded:
    # binding, score rows and rendered files all agree, so qualify passes it; recomputing the
    # audit from the store at the report's chain length does not.
    from agentmetrology.archive.report_qualify import read_report
    from agentmetrology.report.archive_files import write_archive_audit
    from agentmetrology.report.recompute import recomputed

    audit, forged, regrade = tmp_path / "audit", tmp_path / "forged", tmp_path / "regrade"
    assert agm("archive", "audit", str(store), "--out", str(audit))[0] == 0
    code, out, _ = agm("evidence", "qualify", str(audit), "--store", str(store), "--recompute",
                       "--json")
    assert code == 0 and json.loads(out)["notes"] == [
        "recomputed from the store: every section of the report is equal"]
    assert json.loads(out)["numbers_rederived"] is True
    forged.mkdir()
    doc = json.loads((audit / "archive.json").read_text())
    true_value = doc["coverage"]["overall"]["score_stored"]
    doc["coverage"]["overall"]["score_stored"] = 0.999
    del doc["rendered"]
    write_archive_audit(doc, forged)
    code, out, _ = agm("evidence", "qualify", str(forged), "--store", str(store), "--json")
    assert code == 0 and json.loads(out)["result"] == "qualified"  # what the forger counts on
    # ... and what it says plainly now (before, nothing said the numbers were not re-derived)
    assert json.loads(out)["numbers_rederived"] is False
    code, out, _ = agm("evidence", "qualify", str(forged), "--store", str(store))
    assert code == 0 and " ".join(out.split()) == (
        f"{forged / 'archive.json'}: qualified numbers NOT re-derived from the store: qualify "
        "checked the report's binding to it, not the numbers the report derives from the "
        "evidence (a number edited, its files rendered again, passes); `--recompute` "
        "re-derives them (one audit of the store)")
    code, out, _ = agm("evidence", "qualify", str(forged), "--store", str(store), "--recompute",
                       "--json")
    got = json.loads(out)
    assert code == 1 and [p["kind"] for p in got["problems"]] == ["report_recomputed_differs"]
    assert got["problems"][0]["detail"] == (
        "recomputed from the store, archive.json differs: coverage.overall.score_stored: "
        f"0.999 in the report, {true_value!r} recomputed")
    # a store that grew since (or shrank) is not recomputed: another state, only noted
    path, report = read_report(audit)
    length = report["evidence"]["chain_length"]
    assert recomputed(path, report, store, {"chain_length": length + 3})[:2] == ([], [
        f"not recomputed: the store's chain is {length + 3} entries long, the report's was "
        f"{length}; a recomputed audit would cover another state"])
    assert agm("archive", "regrade", str(store), "--out", str(regrade))[0] == 0
    code, out, _ = agm("evidence", "qualify", str(regrade), "--store", str(store), "--json")
    assert json.loads(out)["numbers"].endswith(
        "; `--recompute` re-derives them (one regrade of the store)")
    # an audit of a results file, not of a store: nothing here derives it again
    tau2 = tmp_path / "tau2"
    assert agm("archive", "audit", str(shared(GPT_AIRLINE)), "--out", str(tau2))[0] == 0
    code, out, _ = agm("evidence", "qualify", str(tau2), "--store", str(store), "--json")
    assert json.loads(out)["numbers"].endswith(
        "; they cannot be re-derived here: archive.json is not a report of an evidence store "
        "(schema 'agentmetrology.archive-audit/1')")


@pytest.mark.parametrize(("edit", "why"), [
    (lambda d: d.__setitem__("evidence", 5), "its evidence is not a JSON object"),
    (lambda d: d["evidence"].__setitem__("evidence_digest", 5),
     "its evidence digest is not a string"),
    (lambda d: d.__setitem__("score_rows", "abc"),
     "its score_rows are not a list of JSON objects"),
    (lambda d: d.__setitem__("score_rows", [1]), "its score_rows are not a list of JSON objects"),
])
def test_a_report_of_the_wrong_shape_is_refused_in_one_line(
        store: Path, tmp_path: Path, edit: Any, why: str) -> None:
    # `"evidence": 5` was an AttributeError traceback.
    audit = tmp_path / "audit"
    assert agm("archive", "audit", str(store), "--out", str(audit))[0] == 0
    doc = json.loads((audit / "archive.json").read_text())
    edit(doc)
    (audit / "archive.json").write_text(json.dumps(doc))
    code, out, err = agm("evidence", "qualify", str(audit), "--store", str(store))
    assert code == 2 and "Traceback" not in out + err
    assert " ".join((out + err).split()) == (
        f"error: {audit / 'archive.json'}: not a report: {why} (edited, or not written by agm)")


def test_recompute_leaves_a_store_that_does_not_qualify_to_its_problems(
        store: Path, tmp_path: Path) -> None:
    audit = tmp_path / "audit"
    assert agm("archive", "audit", str(store), "--out", str(audit))[0] == 0
    blob = next(p for p in (store / "blobs").rglob("*") if p.is_file())
    blob.chmod(0o644)
    blob.write_bytes(b"tampered")
    code, out, _ = agm("evidence", "qualify", str(audit), "--store", str(store), "--recompute",
                       "--json")
    got = json.loads(out)
    assert code == 1 and "store_not_qualified" in [p["kind"] for p in got["problems"]]
    assert "not recomputed: the store does not qualify now" in got["notes"]


def test_qualify_a_report_after_a_rollback_below_its_head(store: Path, tmp_path: Path) -> None:
    out_dir = tmp_path / "audit"
    assert agm("archive", "audit", str(store), "--out", str(out_dir))[0] == 0
    report = json.loads((out_dir / "archive.json").read_text())
    conn = sqlite3.connect(store / "ledger.sqlite")
    (length,) = conn.execute("SELECT MAX(seq) FROM chain").fetchone()
    (last,) = conn.execute("SELECT head FROM chain WHERE seq=?", (length,)).fetchone()
    # the report records the head it was built from, at its length
    assert (report["evidence"]["chain_length"], report["evidence"]["evidence_digest"]) == (
        length, last)
    # a report naming a head of the chain at another length is not this store's
    report["evidence"]["chain_length"] = 1
    other = tmp_path / "other"
    other.mkdir()
    (other / "archive.json").write_text(json.dumps(report))
    code, out, _ = agm("evidence", "qualify", str(other), "--store", str(store), "--json")
    assert code == 1 and [p["kind"] for p in json.loads(out)["problems"]] == [
        "evidence_digest_mismatch"]
    # the run's end unwound: an earlier, self-consistent ledger, below the report's head
    (tbl,) = conn.execute("SELECT tbl FROM chain WHERE seq=?", (length,)).fetchone()
    assert tbl == "runs"
    conn.execute("DELETE FROM chain WHERE seq=?", (length,))
    conn.execute("UPDATE runs SET ended_at=NULL, outcome=NULL WHERE id=(SELECT MAX(id) FROM runs)")
    conn.commit()
    conn.close()
    code, out, _ = agm("evidence", "qualify", str(out_dir), "--store", str(store), "--json")
    doc = json.loads(out)
    assert code == 1 and [p["kind"] for p in doc["problems"]] == [
        "evidence_digest_mismatch", "store_not_qualified"]
    assert [p["kind"] for p in doc["store_qualification"]["problems"]] == ["chain_truncated"]


def test_verify_changes_nothing(store: Path) -> None:
    tf.apply(store, tf.blob_deleted("submission_digest"), reseal=False)
    before = tf.snapshot(store)
    code, out, _ = agm("evidence", "verify", str(store), "--json")
    assert code == 1 and json.loads(out)["result"] == "unavailable"
    assert tf.snapshot(store) == before
    conn = sqlite3.connect(store / "ledger.sqlite")
    assert conn.execute("SELECT COUNT(*) FROM chain").fetchone()[0] > 0
    conn.close()


def test_recompute_never_calls_files_it_does_not_render_re_derived(
        store: Path, tmp_path: Path) -> None:
    # A number edited in report.md and the file's new digest written into archive.json: the
    # JSON recomputes equal, and `--recompute` said "every section of the report is equal"
    # and numbers_rederived true while report.md showed a score no evidence gives. An earlier
    # build's renderer gives the same picture for an honest report (the package version,
    # 0.1.0 throughout, does not pin the renderer), so it is neither an accusation nor a pass:
    # the files are said not re-derived and numbers_rederived is false.
    audit, forged = tmp_path / "audit", tmp_path / "forged"
    assert agm("archive", "audit", str(store), "--out", str(audit))[0] == 0
    shutil.copytree(audit, forged)
    text = (forged / "report.md").read_text(encoding="utf-8")
    assert "0.0" in text
    text = text.replace("0.0", "0.9", 1)
    (forged / "report.md").write_text(text, encoding="utf-8")
    doc = json.loads((forged / "archive.json").read_text())
    doc["rendered"]["report.md"] = hashlib.sha256(text.encode()).hexdigest()
    (forged / "archive.json").write_text(json.dumps(doc))
    code, out, _ = agm("evidence", "qualify", str(forged), "--store", str(store), "--json")
    assert code == 0 and json.loads(out)["numbers_rederived"] is False
    code, out, _ = agm("evidence", "qualify", str(forged), "--store", str(store), "--recompute",
                       "--json")
    got = json.loads(out)
    assert code == 0 and got["problems"] == [] and got["numbers_rederived"] is False
    assert ("the files rendered from archive.json (report.md, report.html) were not "
            "re-derived: this agm renders the recomputed sections differently (another "
            "build's renderer, or the files were edited and their digests recorded again); "
            "read the numbers from archive.json, or write the report again to check its "
            "files") in got["notes"]
    assert "recomputed from the store: every section of the report is equal" in got["notes"]
    code, out, _ = agm("evidence", "qualify", str(audit), "--store", str(store), "--recompute",
                       "--json")
    assert code == 0 and json.loads(out)["numbers_rederived"] is True  # as written: re-derived
