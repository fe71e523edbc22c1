"""Streamed scoring (read_streamed_dir) gives exactly the in-memory scorers' assessments.

The pinned numbers were computed by the in-memory scorers before the scorers tallied lines in
batches (commit a6e03dd), on the same 20,000-line submission.

read_streamed_dir's view of a submission directory, part by part: the problems (named and
in file order, as read_submission_dir records them), the evidence digest when data.jsonl
cannot be read, and the batches of parsed lines."""

from __future__ import annotations

import errno
import json
import random
from pathlib import Path
from typing import Any

import pytest

from agentmetrology.envs.comtrade import faults
from agentmetrology.envs.comtrade.generator import generate_rows
from agentmetrology.envs.comtrade.payload import build_metadata
from agentmetrology.envs.comtrade.scoring import judge_rows, streamed
from agentmetrology.envs.comtrade.scoring.ground_truth import ground_truth_f1
from agentmetrology.envs.comtrade.scoring.judge import shape_judge
from agentmetrology.envs.comtrade.scoring.streamed import read_streamed_dir
from agentmetrology.envs.comtrade.scoring.submission import read_submission_dir
from agentmetrology.envs.comtrade.tasks import TASKS, get_task
from agentmetrology.records.canonical import digest
from agentmetrology.runtime.rng import string_seed

TASK, SEED, LINES = "T2_multi_page", 3, 20_000


def _lines() -> list[str]:
    """Return the 20,000 data lines: missing, wrong-valued, duplicated, odd and spurious rows."""
    rows = generate_rows(TASK, SEED)
    kept = rows[:2000]  # 345 genuine rows missing
    out: list[str] = []
    for r in kept[:300]:  # first occurrence with a wrong value, the right row comes later
        out.append(json.dumps({**r, "tradeValue": r["tradeValue"] + 1}))
    out.append(json.dumps({**kept[300], "year": str(kept[300]["year"])}))  # type, not value
    out += [json.dumps(r) for r in kept[301:]]
    out += [json.dumps(r) for r in kept[:300]]  # now duplicates
    out += [json.dumps(r) + "\r" for r in kept[:50]]  # CRLF duplicates
    for i in range(40):  # totals rows; ids 0-19 come back later as ordinary rows
        out.append(json.dumps({**rows[i], "record_id": f"{TASK}-TOTAL-{i:04d}", "hs": "TOTAL",
                               "isTotal": True}))
    out += ["", "   ", "not json", "[1, 2]", '{"record_id": 7}', '{"year": 2020}',
            '{"record_id": "nan-row", "qty": NaN}', "\t"]
    out += [json.dumps({**rows[i], "record_id": f"{TASK}-TOTAL-{i:04d}"}) for i in range(20)]
    out.append(json.dumps({**rows[0], "partner": "Côte d’Ivoire\u2028", "record_id": "x-1"},
                          ensure_ascii=False))
    i = 0
    while len(out) < LINES:
        r = rows[i % len(rows)]
        extra = {"netWgt": -1} if i % 7 == 0 else {"quantity": None} if i % 11 == 0 else {}
        out.append(json.dumps({**r, **extra, "record_id": f"{TASK}-F{i:06d}"}))
        i += 1
    return out


def _write(root: Path, data: bytes) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "data.jsonl").write_bytes(data)
    task = get_task(TASK)
    meta = build_metadata(TASK, task.query.as_dict(), generate_rows(TASK, SEED),
                          totals_enabled=True, totals_dropped=40, request_count=6)
    (root / "metadata.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")
    (root / "run.log").write_text("task_id=T2_multi_page\nrequest=6 page=5\ninfo complete\n",
                                  encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def submission_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = ("\n".join(_lines()) + "\n").encode("utf-8")
    return _write(tmp_path_factory.mktemp("streamed"), data)


def _both(sub: Any) -> tuple[Any, Any]:
    return ground_truth_f1(sub, TASK, SEED), shape_judge(sub, TASK)


def test_streamed_scores_equal_the_in_memory_scores(submission_dir: Path) -> None:
    in_memory = _both(read_submission_dir(submission_dir))
    for batch in (997, 8192, 100_000):  # many batches, a few, one
        assert _both(read_streamed_dir(submission_dir, batch_lines=batch)) == in_memory


def test_streamed_scores_are_the_pinned_values(submission_dir: Path) -> None:
    gt, judge = _both(read_streamed_dir(submission_dir, batch_lines=997))
    assert gt.status == "PARTIAL"
    assert gt.components == {
        "f1": 0.1790350013427625, "recall": 0.8528784648187633,
        "precision": 0.10001500225033755, "matched": 2000, "f1_exact": 0.15209023364067678,
        "value_mismatches": 301, "truth": 2345, "lines": 19997, "duplicates": 370,
        "totals_rows": 40, "spurious": 17603, "unparsable": 4,
    }
    assert gt.score == gt.components["f1"]
    assert gt.reasons == (
        "345 of 2345 ground-truth records missing", "370 duplicate lines",
        "40 totals rows kept", "17603 ids not in the ground truth",
        "301 matched ids whose row values differ from the ground truth (see f1_exact)",
        "4 lines that are not a JSON object with a string record_id")
    assert judge.status == "PARTIAL" and judge.score == 65.2
    assert judge.components == {
        "completeness": 15.0, "correctness": 13.894384157623644, "robustness": 12.0,
        "efficiency": 6.300000000000001, "data_quality": 13.674706449210035,
        "observability": 4.335,
    }
    assert judge.reasons == ("gate: correctness < 21, efficiency and observability halved",)
    assert gt.evidence_digest == judge.evidence_digest == (
        "1e672544087a20550709f4db226b95287d21300d4e5bb03b53db242c0ca77fcb")


def test_bad_utf8_and_missing_data_match_the_directory_reader(tmp_path: Path) -> None:
    good = ("\n".join(_lines()[:500]) + "\n").encode("utf-8")
    bad = _write(tmp_path / "bad", good[:4000] + b"\xc3(" + good[4000:])
    streamed, in_memory = _both(read_streamed_dir(bad)), _both(read_submission_dir(bad))
    assert streamed == in_memory
    assert streamed[0].status == "INVALID"
    assert streamed[0].reasons == ("data.jsonl is not valid UTF-8 (byte 0xc3 at offset 4000)",)
    gone = _write(tmp_path / "gone", b"")
    (gone / "data.jsonl").unlink()
    assert _both(read_streamed_dir(gone)) == _both(read_submission_dir(gone))
    assert _both(read_streamed_dir(gone))[0].reasons == ("no submission: data.jsonl is missing",)
    (gone / "data.jsonl").mkdir()
    assert _both(read_streamed_dir(gone)) == _both(read_submission_dir(gone))
    assert _both(read_streamed_dir(gone))[0].reasons == ("data.jsonl is not a regular file",)


def test_a_line_over_the_limit_is_invalid_without_reading_it_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(streamed, "MAX_LINE_BYTES", 1000)
    good = ("\n".join(_lines()[:5]) + "\n").encode("utf-8")
    root = _write(tmp_path / "long", good + b'{"pad": "' + b"x" * 5000 + b'"}\n' + good)
    gt = _both(read_streamed_dir(root))[0]
    assert gt.status == "INVALID" and gt.score is None
    assert gt.reasons == ("data.jsonl line 6 is longer than 1,000 bytes, the limit for one "
                          "record",)


def test_shared_dedup_keys_count_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    # Past _SHARE_AFTER keys the key values go through a memo; equal values, equal counts.
    values = tuple(json.loads(line) if line.strip().startswith("{") else line
                   for line in _lines() if line.strip())
    key, schema = ["year", "reporter", "partner", "flow", "hs", "record_id"], ["year", "qty"]
    plain = judge_rows.tally(values, key, schema, 2020)
    monkeypatch.setattr(judge_rows, "_SHARE_AFTER", 10)
    shared = judge_rows.RowTally(key, schema, 2020)
    for start in range(0, len(values), 1000):
        shared.add(values[start:start + 1000])
    assert len(shared.keys) == len(plain.keys) == 19645
    assert shared._memo and not plain._memo  # the shared path ran
    assert shared.dedup_points() == plain.dedup_points()
    assert shared.valid_row_ratio() == plain.valid_row_ratio()
    assert shared.value_ranges() == plain.value_ranges()


@pytest.mark.parametrize("task_id", [t for t in TASKS if TASKS[t].drift] + ["T2_multi_page"])
def test_drift_tail_shuffle_is_random_shuffle(task_id: str) -> None:
    task = get_task(task_id)
    for counter in range(1, 40):
        full = list(range(task.rows))
        random.Random(string_seed(f"{task.task_id}:drift:{counter}:5")).shuffle(full)
        assert faults.drift_order(task, 5, "seeded", counter) == full
        for start in range(0, task.rows, task.page_size):
            tail = faults.drift_order(task, 5, "seeded", counter, start)
            assert tail[start:start + task.page_size] == full[start:start + task.page_size]


META, LOG = '{"task_id": "T1_single_page"}', "page=1 request=1 complete\n"


def _dir(root: Path, data: bytes | None, meta: bytes | None = META.encode(),
         log: bytes | None = LOG.encode()) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, raw in (("data.jsonl", data), ("metadata.json", meta), ("run.log", log)):
        if raw is not None:
            (root / name).write_bytes(raw)
    return root


def test_every_part_s_problem_is_kept_in_file_order(tmp_path: Path) -> None:
    root = _dir(tmp_path, b'{"a": 1}\n\xff\n', b'{"x": "\xc3"}', b"ok \xfe")
    s = read_streamed_dir(root)
    expected = {"data_jsonl": "data.jsonl is not valid UTF-8 (byte 0xff at offset 9)",
                "metadata_json": "metadata.json is not valid UTF-8 (byte 0xc3 at offset 7)",
                "run_log": "run.log is not valid UTF-8 (byte 0xfe at offset 3)"}
    assert dict(s.problems) == expected and list(s.problems) == list(expected)
    assert dict(read_submission_dir(root).problems) == expected
    assert s.data_path is None and not s.present("data_jsonl") and list(s.data_batches()) == []
    assert s.metadata_json is None and s.run_log is None
    assert s.digest == digest({"data_jsonl": None, "metadata_json": None, "run_log": None})
    assert s.problems_for("run_log") == [expected["run_log"]]
    assert s.problems_for("metadata_json", "data_jsonl") == [expected["data_jsonl"],
                                                             expected["metadata_json"]]
    assert s.problems_for() == []


def test_a_metadata_problem_alone(tmp_path: Path) -> None:
    s = read_streamed_dir(_dir(tmp_path, b'{"a": 1}\n', b"\xff"))
    assert dict(s.problems) == {"metadata_json":
                                "metadata.json is not valid UTF-8 (byte 0xff at offset 0)"}
    assert s.present("data_jsonl") and s.problems_for("data_jsonl") == []
    assert s.digest == read_submission_dir(tmp_path).digest


@pytest.mark.parametrize(("exc", "why"), [
    (OSError(errno.EACCES, "Permission denied"), "Permission denied"),
    (OSError("device gone"), "device gone")])
def test_a_data_file_that_cannot_be_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         exc: OSError, why: str) -> None:
    root = _dir(tmp_path, b'{"a": 1}\n')

    def scan(*_: object) -> tuple[str, str | None]:
        raise exc

    monkeypatch.setattr(streamed, "_scan", scan)
    s = read_streamed_dir(root)
    assert dict(s.problems) == {"data_jsonl": f"data.jsonl cannot be read ({why})"}
    assert s.data_path is None and s.metadata_json == META and s.run_log == LOG
    # the evidence is what could be read: no data, the other two texts
    assert s.digest == digest({"data_jsonl": None, "metadata_json": META, "run_log": LOG})


def test_batches_hold_batch_lines_parsed_lines(tmp_path: Path) -> None:
    root = _dir(tmp_path, b'{"a": 1}\n\n{"a": 2}\n[3]\nnot json\n')
    s = read_streamed_dir(root, batch_lines=2)
    assert s.batch_lines == 2
    batches = list(s.data_batches())
    # a batch is batch_lines lines of the file; its blank lines are dropped when parsed
    assert [len(b) for b in batches] == [1, 2, 1]
    assert batches[0] == ({"a": 1},) and batches[1] == ({"a": 2}, [3])
    assert read_streamed_dir(root).batch_lines == streamed.BATCH_LINES == 8192
    assert [len(b) for b in read_streamed_dir(root).data_batches()] == [4]
