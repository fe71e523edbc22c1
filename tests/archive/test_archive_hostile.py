"""Archives that would give wrong numbers or tracebacks: scores outside [0, 1] or of the wrong
type, duplicated zip members, sample ids that read alike, non-finite costs, lone surrogates and
lines too long to hold."""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentmetrology.archive import ArchiveFormatError, audit_archive, load_archive
from agentmetrology.archive.importers import jsonl as jsonl_mod
from agentmetrology.archive.importers.jsonl import load_jsonl
from agentmetrology.cli.main import app
from agentmetrology.inspect_ext.logs.importer import load_inspect

HEADER = {"status": "success", "eval": {
    "task": "demo", "model": "m", "run_id": "R1",
    "dataset": {"samples": 3, "sample_ids": ["a", "b", "c"]}, "config": {"epochs": 1},
    "scorers": [{"name": "acc"}]}}


class Members(list[tuple[str, bytes]]):
    """Zip members in order, a name possibly twice (write_zip reads them through items())."""

    def items(self) -> Members:
        return self


def _deflate(data: bytes) -> bytes:
    return zlib.compress(data, 9)[2:-4]


def _sample(sid: Any, value: Any) -> bytes:
    return json.dumps({"id": sid, "epoch": 1, "scores": {"acc": {"value": value}},
                       "events": []}).encode()


def _eval(path: Path, zip_writer: Callable, samples: dict[str, bytes],
          header: dict[str, Any] | None = None) -> Path:
    members = Members([("header.json", json.dumps(header or HEADER).encode())])
    members += [(f"samples/{k}_epoch_1.json", v) for k, v in samples.items()]
    zip_writer(path, members, method=8, compress=_deflate)
    return path


def test_inspect_bool_and_out_of_range_values_are_not_scores(tmp_path: Path,
                                                             zip_writer: Callable) -> None:
    path = _eval(tmp_path / "s.eval", zip_writer,
                 {"a": _sample("a", True), "b": _sample("b", 7), "c": _sample("c", 1)})
    by = {e.task: e for e in load_inspect(path).episodes}
    assert by["a"].outcome == "ungraded" and by["a"].reason == "unsupported_score"
    assert "a boolean is not a score" in by["a"].reason_detail
    assert by["b"].outcome == "ungraded" and by["b"].reason == "score_out_of_range"
    assert "7 is outside the declared range [0, 1]" in by["b"].reason_detail
    assert by["c"].outcome == "pass"
    overall = audit_archive(load_archive(path))["coverage"]["overall"]
    assert overall["counts"] == {"pass": 1, "fail": 0, "ungraded": 2, "invalid_replay": 0}
    assert overall["reasons"]["score_out_of_range"] == 1 and overall["planned"] == 3


def test_zip_with_a_member_named_twice_is_refused(tmp_path: Path, zip_writer: Callable) -> None:
    other = {**HEADER, "eval": {**HEADER["eval"], "model": "other"}}
    members = Members([("header.json", json.dumps(HEADER).encode()),
                       ("header.json", json.dumps(other).encode()),
                       ("samples/a_epoch_1.json", _sample("a", "C"))])
    zip_writer(tmp_path / "d.eval", members, method=8, compress=_deflate)
    with pytest.raises(ArchiveFormatError, match=r"header\.json.*more than once"):
        load_inspect(tmp_path / "d.eval")


def test_sample_ids_that_read_alike_are_not_merged(tmp_path: Path, zip_writer: Callable) -> None:
    header = {**HEADER, "eval": {**HEADER["eval"],
                                 "dataset": {"samples": 2, "sample_ids": [1, "1"]}}}
    with pytest.raises(ArchiveFormatError, match="sample_ids holds 1 and '1'"):
        load_inspect(_eval(tmp_path / "h.eval", zip_writer, {"x": _sample(1, "C")}, header))
    header = {**HEADER, "eval": {**HEADER["eval"], "dataset": {"samples": 1, "sample_ids": [1]}}}
    path = _eval(tmp_path / "s.eval", zip_writer,
                 {"1": _sample(1, "C"), "1s": _sample("1", "I")}, header)
    archive = load_inspect(path)
    assert len(archive.episodes) == 1 and archive.episodes[0].outcome == "pass"
    assert any("a second sample with id 1, epoch 1" in p.message for p in archive.problems)


def test_taubench_rewards_outside_zero_one_are_invalid(tmp_path: Path) -> None:
    rows = [{"task_id": t, "trial": 0, "reward": r, "traj": [],
             "info": {"reward_info": {"reward": r}}} for t, r in ((0, 5), (1, -3), (2, 1.0))]
    f = tmp_path / "gpt-4o-airline.json"
    f.write_text(json.dumps(rows))
    by = {e.task: e for e in load_archive(f).episodes}
    for task, shown in (("0", "5"), ("1", "-3")):
        assert by[task].grade is None and by[task].reason == "score_out_of_range"
        assert f"reward {shown} is outside the declared range [0, 1]" in by[task].reason_detail
    assert by["2"].outcome == "pass"


def test_jsonl_grades_outside_zero_one_are_invalid(tmp_path: Path) -> None:
    f = tmp_path / "g.jsonl"
    f.write_text("\n".join(json.dumps(x) for x in (
        {"task": "a", "model": "m", "grade": 7},
        {"task": "b", "model": "m", "grade": {"score": -1}},
        {"task": "c", "model": "m", "grade": 1})) + "\n")
    doc = audit_archive(load_archive(f))["coverage"]["overall"]
    assert doc["counts"]["pass"] == 1 and doc["counts"]["ungraded"] == 2
    assert doc["reasons"] == {"score_out_of_range": 2} and doc["planned"] == 3


@pytest.mark.parametrize(("cost", "message"), [
    (-1e308, "cost must be a number from 0 to"), (-0.5, "cost must be a number from 0 to"),
    (1e308, "cost must be a number from 0 to")])
def test_span_costs_out_of_range_are_refused_lines(tmp_path: Path, cost: float,
                                                   message: str) -> None:
    f = tmp_path / "c.jsonl"
    lines = [{"task": "t", "model": "m", "grade": 1}] + [
        {"span_id": f"s{i}", "kind": "llm", "cost": cost, "usage": {"input": i + 1}}
        for i in range(2)]
    f.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    archive = load_jsonl(f)
    assert archive.spans == [] and len(archive.problems) == 2
    assert message in archive.problems[0].message
    res = CliRunner().invoke(app, ["archive", "audit", str(f), "--out", str(tmp_path / "o")])
    assert res.exit_code == 0 and res.exception is None, res.output


def test_a_lone_surrogate_is_a_refused_line(tmp_path: Path) -> None:
    f = tmp_path / "u.jsonl"
    f.write_text('{"task": "t", "model": "m\\ud800", "grade": 1}\n'
                 '{"task": "t", "model": "m", "grade": 1}\n'
                 '{"task": "t2", "model": "\\ud83d\\ude00", "grade": 1}\n')
    archive = load_jsonl(f)
    assert [e.model for e in archive.episodes] == ["m", "\U0001f600"]  # a pair is one character
    (problem,) = archive.problems
    assert problem.line == 1 and "lone surrogate" in problem.message
    res = CliRunner().invoke(app, ["archive", "audit", str(f), "--out", str(tmp_path / "o")])
    assert res.exit_code == 0 and res.exception is None, res.output


def test_a_line_over_the_limit_is_skipped_without_reading_it_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsonl_mod, "MAX_LINE_BYTES", 1000)
    f = tmp_path / "l.jsonl"
    f.write_text(json.dumps({"task": "t", "model": "m", "pad": "x" * 5000, "grade": 1}) + "\n"
                 + json.dumps({"task": "t2", "model": "m", "grade": 1}) + "\n")
    archive = load_jsonl(f)
    assert [e.task for e in archive.episodes] == ["t2"]
    (problem,) = archive.problems
    assert problem.line == 1 and "longer than 1,000 bytes" in problem.message


def test_a_named_pipe_is_refused(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "p.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(ArchiveFormatError, match="not a file"):
        load_archive(fifo, "jsonl")


def test_escape_sequences_reach_neither_the_screen_nor_the_reports(tmp_path: Path) -> None:
    f = tmp_path / "esc.jsonl"
    f.write_text("\n".join(json.dumps(x) for x in (
        {"task": "m\x1b[5m", "model": "m\x1b]0;title\x07", "grade": None,
         "reason": "grader_never_ran", "reason_detail": "boom\x1b[2J\x9b1m"},
        {"task": "t", "model": "m", "grade": 1, "scaffold": "s\u202eevil"})) + "\n")
    out = tmp_path / "o"
    res = CliRunner().invoke(app, ["archive", "audit", str(f), "--out", str(out)])
    assert res.exit_code == 0, res.output
    for text in (res.stdout, res.stderr, (out / "report.md").read_text(),
                 (out / "report.html").read_text()):
        assert not any(c in text for c in "\x1b\x07\x9b\u202e"), text
    assert "boom\\x1b[2J" in (out / "report.md").read_text()
    bad = tmp_path / "x\x1b[5m.jsonl"
    bad.write_text("not json\n")
    res = CliRunner().invoke(app, ["archive", "audit", str(bad), "--out", str(out)])
    assert res.exit_code == 2 and "\x1b" not in res.stderr and "x\\x1b[5m" in res.stderr


def test_a_taubench_file_over_the_limit_is_refused_before_reading(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentmetrology.archive.importers import taubench

    monkeypatch.setattr(taubench, "MAX_FILE_BYTES", 1000)
    f = tmp_path / "gpt-4o-airline.json"
    f.write_text(json.dumps([{"task_id": 0, "reward": 1, "info": {}, "traj": [],
                              "pad": "x" * 5000}]))
    for fmt in ("auto", "taubench"):
        with pytest.raises(ArchiveFormatError, match="above the limit of 1,000 bytes"):
            load_archive(f, fmt)


def test_archive_text_cannot_write_markdown_into_report_md(tmp_path: Path) -> None:
    # Before, a newline in a task id, model or reason broke report.md's table rows and a blank
    # line ended a paragraph, so the text after it was read as Markdown of the report's own
    # (a heading saying anything); a reason detail's `<img src=...>` or link, outside a code
    # span, was rendered by a Markdown viewer (GitHub loads the image).
    from agentmetrology.report.archive_report import render_archive_report

    evil = "t\n\n# All episodes verified\n<img src=https://example.invalid/x.png>"
    f = tmp_path / "md.jsonl"
    f.write_text("\n".join(json.dumps(x) for x in (
        {"task": evil, "model": "m\n| forged | row |", "grade": None, "reason": "own\ncode",
         "reason_detail": "see [here](https://example.invalid)\n\n## Passed <b>x</b>"},
        {"task": "u", "model": "m\n| forged | row |", "grade": 1.0})) + "\n")
    md = render_archive_report(audit_archive(load_archive(f), [("archive", f)]))[0]
    lines = md.splitlines()
    assert not [x for x in lines if x.startswith("#") and ("verified" in x or "Passed" in x)]
    assert not [x for x in lines if x.startswith("<img") or x.startswith("| forged")]
    tables = [x for x in lines if x.startswith("| ")]
    heads = {x.count(" | ") for x in tables}
    assert all(x.endswith(" |") for x in tables) and len(tables) >= 6, heads
    # outside code spans, no tag or link of the archive's own survives
    plain = "".join(part for i, part in enumerate(md.split("`")) if i % 2 == 0)
    assert "<img" not in plain and "<b>" not in plain and "](https://" not in plain
    assert "t\\n\\n# All episodes verified" in md


def test_an_empty_file_is_named_empty(tmp_path: Path) -> None:
    # Before: "unrecognised archive format (expected a tau-bench or tau2 JSON file, ...)", as
    # if it held something of another kind.
    f = tmp_path / "run.json"
    f.write_bytes(b"")
    with pytest.raises(ArchiveFormatError, match=r"^run.json: an empty file: no episode to "):
        load_archive(f)
    res = CliRunner().invoke(app, ["archive", "audit", str(f), "--out", str(tmp_path / "o")])
    assert res.exit_code == 2 and res.stderr.count("\n") == 1 and "an empty file" in res.stderr


def test_a_log_copied_twice_into_a_directory_is_not_counted_twice(
        tmp_path: Path, zip_writer: Callable) -> None:
    # Before, two copies of one log (a re-download beside the first) made every sample two
    # episodes of one run: 4 passes of 6, and a pass^2 of 0.667 for tasks that ran once.
    logs = tmp_path / "logs"
    logs.mkdir()
    samples = {"a": _sample("a", 1.0), "b": _sample("b", 0.0), "c": _sample("c", 1.0)}
    _eval(logs / "run.eval", zip_writer, samples)
    _eval(logs / "run-copy.eval", zip_writer, samples)
    doc = audit_archive(load_archive(logs))
    cov = doc["coverage"]["overall"]
    assert (doc["archive"]["episodes"], cov["counts"]["pass"], cov["counts"]["fail"]) == (3, 2, 1)
    assert [r["k"] for r in doc["pass_hat_k"][0]["rows"]] == [1]
    assert doc["load"]["problem_count"] == 3
    assert doc["load"]["problems"][0] == "logs: episode R1/a/1: task a trial 1 repeated; skipped"
    # a second log of the same run that disagrees: which result counts is not identified
    _eval(logs / "run-other.eval", zip_writer, {"a": _sample("a", 0.0)})
    doc = audit_archive(load_archive(logs))
    cov = doc["coverage"]["overall"]
    # (its samples b and c, planned but absent there, leave the other logs' records as they are)
    assert (cov["counts"]["pass"], cov["counts"]["fail"]) == (1, 1)
    assert cov["reasons"] == {"malformed_record": 1}


def test_two_tasks_of_one_run_are_not_folded_into_one(tmp_path: Path,
                                                      zip_writer: Callable) -> None:
    # An Inspect run of two tasks gives both one run id and sample ids 1..N each; the fold of
    # copied logs took task B's samples for repeats of task A's (ungraded, or dropped).
    logs = tmp_path / "logs"
    logs.mkdir()
    for name, value in (("task_a", 1.0), ("task_b", 0.0)):
        header = {**HEADER, "eval": {**HEADER["eval"], "task": name, "dataset": {
            "samples": 2, "sample_ids": [1, 2]}}}
        _eval(logs / f"{name}.eval", zip_writer,
              {"1": _sample(1, value), "2": _sample(2, value)}, header)
    archive = load_archive(logs)
    # (each task named by its Inspect task too: both number their samples 1 and 2)
    assert sorted((e.meta["inspect_task"], e.task, e.outcome) for e in archive.episodes) == [
        ("task_a", "task_a/1", "pass"), ("task_a", "task_a/2", "pass"),
        ("task_b", "task_b/1", "fail"), ("task_b", "task_b/2", "fail")]
    assert archive.problems == []
    # Before, coverage read 2 tasks, each with 2 trials of mixed outcomes, and a pass^2 of 0
    # for samples that ran once.
    doc = audit_archive(archive)
    assert (doc["archive"]["tasks"], doc["tasks"]["counts"]["mixed"]) == (4, 0)
    assert [r["k"] for r in doc["pass_hat_k"][0]["rows"]] == [1]


def test_one_task_keeps_its_sample_ids(tmp_path: Path, zip_writer: Callable) -> None:
    path = _eval(tmp_path / "s.eval", zip_writer, {"a": _sample("a", 1.0)})
    assert sorted(e.task for e in load_archive(path).episodes) == ["a", "b", "c"]
