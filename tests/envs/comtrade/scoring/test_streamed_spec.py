"""read_streamed_dir's view of a submission directory, part by part: the problems (named and
in file order, as read_submission_dir records them), the evidence digest when data.jsonl
cannot be read, and the batches of parsed lines."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from agentmetrology.envs.comtrade.scoring import streamed
from agentmetrology.envs.comtrade.scoring.streamed import read_streamed_dir
from agentmetrology.envs.comtrade.scoring.submission import read_submission_dir
from agentmetrology.records.canonical import digest

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
