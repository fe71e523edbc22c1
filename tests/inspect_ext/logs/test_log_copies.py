"""A log present twice in a directory (a copy, a re-download, one log under two names): every
number of the audit is the single log's. The copy's episodes are folded (detect), and so are its
spans, the cost check's billable events (archive/importers/span_repeats.py); a span two logs
record otherwise is not folded silently."""

from __future__ import annotations

import importlib.util
import json
import shutil
import zipfile
from pathlib import Path
from typing import Any

import pytest

from agentmetrology.archive import audit_archive, load_archive

# Every section of archive.json computed from the episodes and spans (not the load report).
SECTIONS = ("archive", "coverage", "pass_hat_k", "tasks", "cost", "provenance", "replay",
            "checks")
FOLDED = "span(s) repeated (the same span of the same episode as an earlier log's); skipped"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Return the real log inspect_log_writer.py writes (12 episodes, 20 model events with
    a cost each), from the suite's one Inspect process (support.inspect_logs)."""
    if importlib.util.find_spec("inspect_ai") is None:
        pytest.skip("inspect-ai is not installed (pip install inspect-ai zstandard)")
    from support.inspect_logs import ARCHIVE_DEMO, shared_logs

    return shared_logs(tmp_path_factory)[ARCHIVE_DEMO]


def _folder(where: Path, files: dict[str, Path]) -> Path:
    """Return a folder named `logs` (every audit's source reads alike) holding `files`."""
    logs = where / "logs"
    logs.mkdir(parents=True)
    for name, src in files.items():
        shutil.copyfile(src, logs / name)
    return logs


def _audit(folder: Path) -> dict[str, Any]:
    return audit_archive(load_archive(folder))


def test_a_copied_real_log_counts_its_cost_spans_and_episodes_once(demo: Path,
                                                                   tmp_path: Path) -> None:
    one = _audit(_folder(tmp_path / "one", {"run.eval": demo}))
    # ("run (copy).eval" sorts first: the log named run.eval is the repeat)
    two = _audit(_folder(tmp_path / "two", {"run.eval": demo, "run (copy).eval": demo}))
    for section in SECTIONS:
        assert two[section] == one[section], section
    cost = two["cost"]
    assert cost["weight"] == "cost" and cost["multiplicity"] == 1.0
    # 10 calls of 0.0125 and 10 of 0.0075, summed in span order
    assert cost["all_spans"] == cost["corrected"] == {
        "spans": 20, "input": 200, "output": 100, "cached": 0, "usage_unknown": 0,
        "cost": 0.20000000000000007}
    # Before: 40 spans read, 20 of them "repeated span ids" of the cost check
    assert (two["archive"]["spans"], cost["spans"], cost["model_spans"]) == (20, 20, 20)
    assert cost["alignment"]["duplicate_span_ids"] == 0
    assert (two["archive"]["episodes"], two["coverage"]["overall"]["planned"]) == (12, 12)
    notes = two["load"]["notes"]
    assert (notes["planned"], notes["spans_repeated"]) == (12, 20)  # planned was 24
    assert [(v["spans"], v["spans_repeated"]) for v in notes["logs"].values()] == [
        (20, 0), (20, 20)]
    problems = two["load"]["problems"]
    assert (one["load"]["problem_count"], two["load"]["problem_count"]) == (0, 13)
    assert problems[0] == f"run.eval: 20 {FOLDED}"
    assert problems[1].startswith("logs: episode ") and problems[1].endswith(" repeated; skipped")


def _model(uuid: str | None, cost: float, tokens: tuple[int, int] = (100, 20)) -> dict[str, Any]:
    usage = {"input_tokens": tokens[0], "output_tokens": tokens[1], "total_cost": cost}
    return {"event": "model", "model": "m", "output": {"choices": [], "usage": usage},
            **({} if uuid is None else {"uuid": uuid})}


def _log(path: Path, samples: dict[str, list[dict[str, Any]]], task: str = "demo") -> Path:
    """Write a hand-made `.eval` log of run R1 whose samples (all passing) hold `events`."""
    header = {"status": "success",
              "eval": {"model": "m", "task": task, "run_id": "R1", "solver": "s",
                       "scorers": [{"name": "acc"}], "dataset": {"sample_ids": list(samples)},
                       "config": {"epochs": 1}},
              "plan": {"steps": []}, "results": {"headline": {"scorer": "acc"}}}
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("header.json", json.dumps(header))
        for sid, events in samples.items():
            zf.writestr(f"samples/{sid}_epoch_1.json", json.dumps({
                "id": sid, "epoch": 1, "scores": {"acc": {"value": 1.0}}, "events": events}))
    return path


LOG = {"a": [_model("u1", 0.25), _model("u2", 0.5)], "b": [_model("u3", 0.125)]}


def test_a_copy_that_records_a_span_otherwise_leaves_its_cost_unknown(tmp_path: Path) -> None:
    # Before, the first log's record of u2 was kept silently: the total read 0.875 with the
    # logs in this order and 1.125 with the names swapped.
    other = {**LOG, "a": [_model("u1", 0.25), _model("u2", 0.75)]}
    docs = []
    for first, second in ((LOG, other), (other, LOG)):
        logs = tmp_path / str(len(docs)) / "logs"
        logs.mkdir(parents=True)
        _log(logs / "a.eval", first)
        _log(logs / "b.eval", second)
        docs.append(_audit(logs))
    for section in SECTIONS:
        assert docs[0][section] == docs[1][section], section
    cost = docs[0]["cost"]
    # u2's cost and usage are unknown: no total cost, token sums a lower bound over u1 and u3
    assert cost["weight"] == "tokens" and cost["all_spans"] == {
        "spans": 3, "input": 200, "output": 40, "cached": 0, "usage_unknown": 1, "cost": None}
    assert docs[0]["coverage"]["overall"]["counts"]["pass"] == 2  # the episodes agree
    assert docs[0]["load"]["problems"][:2] == [
        "b.eval: span u2 of episode R1/a/1 repeated, kept with unknown usage and cost: recorded "
        "twice with different cost (input 100, output 20, cached 0, cost 0.5; input 100, "
        "output 20, cached 0, cost 0.75): which one counts is not identified",
        f"b.eval: 3 {FOLDED}"]
    # a third record changes nothing: which one counts is still not identified
    logs = tmp_path / "0" / "logs"
    _log(logs / "c.eval", LOG)
    third = _audit(logs)
    assert third["cost"] == cost
    assert third["load"]["problems"][2:4] == [
        docs[0]["load"]["problems"][0].replace("b.eval", "c.eval"), f"c.eval: 3 {FOLDED}"]


def test_a_span_a_log_repeats_within_itself_stays_the_cost_check_s(tmp_path: Path) -> None:
    # One log's own repeat of a span id is the cost check's finding (one billable event, a
    # repeated span id); its copy adds nothing to it.
    log = {"a": [_model("u1", 0.25), _model("u1", 0.25)]}
    single = tmp_path / "one" / "logs"
    single.mkdir(parents=True)
    _log(single / "a.eval", log)
    copied = tmp_path / "two" / "logs"
    copied.mkdir(parents=True)
    _log(copied / "a.eval", log)
    _log(copied / "b.eval", log)
    one, two = _audit(single), _audit(copied)
    for section in SECTIONS:
        assert two[section] == one[section], section
    assert (two["archive"]["spans"], two["cost"]["alignment"]["duplicate_span_ids"]) == (2, 1)
    assert two["cost"]["all_spans"]["cost"] == 0.25
    assert two["load"]["problems"][0] == f"b.eval: 2 {FOLDED}"


def test_model_events_without_uuid_of_two_tasks_of_one_run_are_two_spans(tmp_path: Path) -> None:
    # Before, an event without uuid was named by its episode id (run/sample/epoch) alone, which
    # the samples 1 of two tasks of one run share: the cost check kept one span of that id,
    # and the total read 0.5 (task_b's call uncounted).
    logs = tmp_path / "logs"
    logs.mkdir()
    _log(logs / "task_a.eval", {"1": [_model(None, 0.5)]}, task="task_a")
    _log(logs / "task_b.eval", {"1": [_model(None, 0.25)]}, task="task_b")
    doc = _audit(logs)
    cost = doc["cost"]
    assert (cost["all_spans"]["spans"], cost["all_spans"]["cost"]) == (2, 0.75)
    assert cost["alignment"]["duplicate_span_ids"] == 0
    # and a copy of one of them is folded by that id as it would be by a uuid
    _log(logs / "task_b (copy).eval", {"1": [_model(None, 0.25)]}, task="task_b")
    again = _audit(logs)
    for section in SECTIONS:
        assert again[section] == doc[section], section
    assert again["load"]["problems"][0] == f"task_b.eval: 1 {FOLDED}"


JSON_NOT_READ = ("not read: an Inspect log in JSON format, and only .eval logs are read "
                 "(`inspect log convert PATH --to eval --output-dir DIR` writes a log as .eval; "
                 "leave it out if it is a .eval log of this folder saved again)")


def test_the_log_saved_again_as_json_is_named_not_read(demo: Path, tmp_path: Path) -> None:
    # Inspect writes a log as .eval or as .json (inspect_log_writer.py writes both); only .eval
    # logs are read, so the .json copy adds nothing, but before it was passed over in silence
    # (and so were the samples of a run saved as .json alone).
    one = _audit(_folder(tmp_path / "one", {"run.eval": demo}))
    logs = _folder(tmp_path / "two", {"run.eval": demo, "run.json": demo.with_suffix(".json")})
    (logs / "notes.json").write_text('{"version": "of my notes"}')  # not an Inspect log
    two = _audit(logs)
    for section in SECTIONS:
        assert two[section] == one[section], section
    assert two["load"]["problems"] == [f"run.json: {JSON_NOT_READ}"]
    assert two["load"]["notes"]["json_logs_not_read"] == ["run.json"]


def test_a_folder_of_json_logs_only_says_so(demo: Path, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from agentmetrology.archive import ArchiveFormatError
    from agentmetrology.cli.main import app

    logs = _folder(tmp_path, {"run.json": demo.with_suffix(".json")})
    why = ("(it holds 1 Inspect log(s) in JSON format, e.g. run.json, which are not read: "
           "`inspect log convert PATH --to eval --output-dir DIR` writes a log as .eval)")
    with pytest.raises(ArchiveFormatError) as err:
        load_archive(logs)
    assert str(err.value) == ("logs: a directory that is neither an agm evidence store nor "
                              f"holds Inspect .eval logs {why}")
    res = CliRunner().invoke(app, ["archive", "audit", str(logs), "--out", str(tmp_path / "o")])
    assert res.exit_code == 2 and res.stderr.count("\n") == 1
    assert res.stderr.rstrip().endswith(f"nor holds Inspect .eval logs: {logs} {why}")
