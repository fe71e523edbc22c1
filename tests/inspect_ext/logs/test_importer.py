"""Inspect AI `.eval` logs: a real log written by inspect-ai, and hand-built zips."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from agentmetrology.archive import ArchiveFormatError, audit_archive, detect_format, load_archive
from agentmetrology.inspect_ext.logs import importer as inspect_eval
from agentmetrology.inspect_ext.logs.importer import load_inspect, loads_tolerant

HAVE_INSPECT = importlib.util.find_spec("inspect_ai") is not None
HAVE_ZSTD = importlib.util.find_spec("zstandard") is not None


@pytest.fixture(scope="module")
def real_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Return the log inspect_log_writer.py writes, with inspect-ai, in a fresh process.

    It is written by the one process that writes every Inspect log the suite reads
    (support.inspect_logs: each Inspect process start costs seconds), in a folder of its own.
    """
    if not HAVE_INSPECT:
        pytest.skip("inspect-ai is not installed (pip install inspect-ai zstandard)")
    from support.inspect_logs import ARCHIVE_DEMO, shared_logs

    written = shared_logs(tmp_path_factory)[ARCHIVE_DEMO]
    (log,) = sorted(written.parent.glob("*.eval"))
    assert log == written
    return log


def test_real_inspect_log_counts_errored_and_unscored(real_log: Path) -> None:
    assert detect_format(real_log) == "inspect"
    archive = load_archive(real_log)
    assert len(archive.episodes) == 12  # 6 samples x 2 epochs, none dropped
    by = {(e.task, e.trial): e for e in archive.episodes}
    for epoch in (1, 2):
        assert by[("s1", epoch)].reason == "sample_error"
        assert "solver exploded" in by[("s1", epoch)].reason_detail
        assert by[("s2", epoch)].reason == "unscored"
        assert "NaN" in by[("s2", epoch)].reason_detail
        assert by[("s4", epoch)].reason == "unscored"
        assert by[("s0", epoch)].outcome == "pass" and by[("s5", epoch)].outcome == "fail"
    assert archive.notes["planned"] == 12 and archive.notes["headline_scorer"] == "odd_scorer"
    doc = audit_archive(archive, [("archive", real_log)])
    cov = doc["coverage"]["overall"]
    assert cov["counts"] == {"pass": 4, "fail": 2, "ungraded": 6, "invalid_replay": 0}
    assert cov["reasons"] == {"sample_error": 2, "unscored": 4}
    assert cov["score_graded_only"] == pytest.approx(4 / 6)  # what Inspect's accuracy shows
    assert cov["bounds"]["lower"] == pytest.approx(4 / 12)
    assert cov["bounds"]["upper"] == pytest.approx(10 / 12)


def test_real_inspect_log_provenance_and_spans(real_log: Path) -> None:
    doc = audit_archive(load_archive(real_log))
    prov = doc["provenance"]
    assert prov["applicable"] and prov["episodes_checked"] == 12
    assert prov["executed_calls"] == prov["archived_actions"] == 10
    assert prov["candidates"] == 0 and prov["unmatched_executed"] == 0
    cost = doc["cost"]
    assert cost["applicable"] and cost["model_spans"] == 20
    # every model event has a cost (inspect_log_writer.py: 10 calls of 0.0125, 10 of 0.0075)
    assert cost["weight"] == "cost" and cost["multiplicity"] == 1.0
    assert cost["all_spans"]["cost"] == 0.20000000000000007  # the float sum, in span order


def _sample(sid: str, value: object, error: str | None = None) -> bytes:
    rec: dict = {"id": sid, "epoch": 1, "scores": {} if value is None else
                 {"acc": {"value": value}}, "events": []}
    if error:
        rec["error"] = {"message": error}
    text = json.dumps(rec)
    return text.replace('"__NAN__"', "NaN").encode()


HEADER = {"status": "success", "eval": {
    "task": "demo", "model": "mockllm/model", "run_id": "R1",
    "dataset": {"samples": 4, "sample_ids": ["a", "b", "c", "d"]}, "config": {"epochs": 1},
    "scorers": [{"name": "acc"}]}}


def _members() -> dict[str, bytes]:
    return {"header.json": json.dumps(HEADER).encode(),
            "samples/a_epoch_1.json": _sample("a", "C"),
            "samples/b_epoch_1.json": _sample("b", "__NAN__"),
            "samples/c_epoch_1.json": _sample("c", None, "boom: api_key=supersecretvalue")}


@pytest.mark.skipif(not HAVE_ZSTD, reason="zstandard is not installed")
def test_handmade_zstd_log_with_bare_nan(tmp_path: Path, zip_writer: Callable) -> None:
    import zstandard

    log = tmp_path / "demo.eval"
    zip_writer(log, _members(), method=93, compress=zstandard.ZstdCompressor().compress)
    archive = load_inspect(log)
    by = {e.task: e for e in archive.episodes}
    assert by["a"].outcome == "pass"
    assert by["b"].reason == "unscored"
    assert by["c"].reason == "sample_error" and "supersecret" not in by["c"].reason_detail
    assert by["d"].reason == "not_in_archive"  # planned but absent: shown, not dropped
    audit_archive(archive)  # no NaN may reach archive.json


def test_stored_members_need_no_zstandard(tmp_path: Path, zip_writer: Callable) -> None:
    log = tmp_path / "plain.eval"
    zip_writer(log, _members(), method=0)
    assert len(load_inspect(log).episodes) == 4


def test_missing_zstandard_gives_clear_error(tmp_path: Path, zip_writer: Callable,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "z.eval"
    zip_writer(log, _members(), method=93, compress=lambda b: b)
    monkeypatch.setitem(sys.modules, "zstandard", None)  # import now raises ImportError
    with pytest.raises(ArchiveFormatError, match=re.escape(
            "install the 'zstandard' package with the optional extra, pip install "
            "'agentmetrology[archive]'")):
        load_inspect(log)


def test_nan_tolerant_loader() -> None:
    value = loads_tolerant(b'{"v": NaN, "w": Infinity}')
    assert value["v"] != value["v"] and value["w"] == float("inf")


def test_not_an_eval_zip(tmp_path: Path, zip_writer: Callable) -> None:
    z = tmp_path / "other.zip"
    zip_writer(z, {"hello.txt": b"hi"})
    with pytest.raises(ArchiveFormatError, match="not an Inspect"):
        detect_format(z)
    assert inspect_eval.looks_like_inspect(z) is False


def test_log_without_sample_files_reads_summaries(tmp_path: Path, zip_writer: Callable) -> None:
    summaries = [{"id": "a", "epoch": 1, "scores": {"acc": {"value": 1}}},
                 {"id": "b", "epoch": 1, "scores": {}, "error": "RuntimeError('x')"},
                 {"id": "c", "epoch": 1, "scores": {"acc": {"value": {"x": 1}}}}]
    log = tmp_path / "s.eval"
    zip_writer(log, {"header.json": json.dumps(HEADER).encode(),
                     "summaries.json": json.dumps(summaries).encode()}, method=8,
               compress=lambda b: zlib.compress(b)[2:-4])
    archive = load_inspect(log)
    by = {e.task: e for e in archive.episodes}
    assert by["a"].outcome == "pass" and by["b"].reason == "sample_error"
    assert by["c"].reason == "unsupported_score" and by["d"].reason == "not_in_archive"
    assert "summaries.json" in archive.notes["samples_from"]
