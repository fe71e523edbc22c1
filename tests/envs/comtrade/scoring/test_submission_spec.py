"""Submission parts at their size limits, the reasons given for unreadable parts and odd
values, the count of lines that are not JSON, and the refusal of a missing directory."""

from __future__ import annotations

import errno
import pickle
from pathlib import Path

import pytest

from agentmetrology.envs.comtrade.scoring.submission import (
    MAX_METADATA_BYTES,
    NOT_JSON,
    SubmissionDirError,
    decode_part,
    make_submission,
    parse_json,
    parse_lines,
    read_submission_dir,
    submission_from_mapping,
    submission_root,
)

LIMIT = MAX_METADATA_BYTES  # 1 MiB: the smallest limit, so the cheapest to reach


def _meta_text(size: int) -> str:
    """Return a JSON object of exactly `size` ASCII bytes."""
    return '{"x": "' + "a" * (size - 9) + '"}'


def test_metadata_of_exactly_the_limit_is_read(tmp_path: Path) -> None:
    assert LIMIT == 1_048_576
    (tmp_path / "metadata.json").write_text(_meta_text(LIMIT))
    sub = read_submission_dir(tmp_path)
    assert dict(sub.problems) == {} and sub.metadata_json is not None
    assert len(sub.metadata_json) == LIMIT
    assert decode_part("metadata_json", _meta_text(LIMIT).encode()) == (_meta_text(LIMIT), None)
    assert make_submission(metadata_json=_meta_text(LIMIT)).problems == {}
    wide = "é" * (LIMIT // 2)  # exactly LIMIT bytes of UTF-8 in LIMIT / 2 characters
    assert make_submission(metadata_json=wide).problems == {}


def test_one_byte_over_the_limit_is_refused_with_the_size(tmp_path: Path) -> None:
    (tmp_path / "metadata.json").write_text(_meta_text(LIMIT + 1))
    assert dict(read_submission_dir(tmp_path).problems) == {"metadata_json": (
        "submission too large: metadata.json is 1,048,577 bytes (limit 1,048,576)")}
    assert decode_part("metadata_json", _meta_text(LIMIT + 1).encode()) == (None, (
        "submission too large: metadata.json is 1,048,577 bytes (limit 1,048,576)"))
    assert make_submission(metadata_json=_meta_text(LIMIT + 1)).problems == {"metadata_json": (
        "submission too large: metadata.json has 1,048,577 characters (limit 1,048,576 bytes)")}
    wide = "é" * (LIMIT // 2) + "a"
    assert make_submission(metadata_json=wide).problems == {"metadata_json": (
        "submission too large: metadata.json is 1,048,577 bytes (limit 1,048,576)")}


def test_a_file_too_large_whose_size_cannot_be_read(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "metadata.json").write_text(_meta_text(LIMIT + 1))
    opened: list[Path] = []
    real_open, real_stat = Path.open, Path.stat

    def open_(self: Path, *a: object, **k: object) -> object:
        opened.append(self)
        return real_open(self, *a, **k)  # type: ignore[arg-type]

    def stat(self: Path, *a: object, **k: object) -> object:
        if self in opened:  # the file vanished after it was read
            raise OSError(errno.ENOENT, "No such file or directory")
        return real_stat(self, *a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "open", open_)
    monkeypatch.setattr(Path, "stat", stat)
    assert dict(read_submission_dir(tmp_path).problems) == {"metadata_json": (
        "submission too large: metadata.json is more than the limit (limit 1,048,576)")}


@pytest.mark.parametrize(("exc", "why"), [
    (OSError(errno.EACCES, "Permission denied"), "Permission denied"),
    (OSError("gone"), "gone")])
def test_a_part_that_cannot_be_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                    exc: OSError, why: str) -> None:
    (tmp_path / "run.log").write_text("ok")

    def refuse(self: Path, *a: object, **k: object) -> object:
        raise exc

    monkeypatch.setattr(Path, "open", refuse)
    assert dict(read_submission_dir(tmp_path).problems) == {
        "run_log": f"run.log cannot be read ({why})"}


def test_parse_json_reasons() -> None:
    assert parse_json('{"a": 1}') == ({"a": 1}, None)
    assert parse_json("{") == (None, "not valid JSON (Expecting property name enclosed in "
                                     "double quotes at line 1 column 2)")
    msg = ("Exceeds the limit (4300 digits) for integer string conversion: value has 5000 "
           "digits; use sys.set_int_max_str_digits() to increase the limit")
    assert parse_json("1" * 5000) == (None, f"not valid JSON (ValueError: {msg[:120]})")
    value, reason = parse_json("[" * 100_000)
    assert value is None and reason is not None
    assert reason.startswith("not valid JSON (RecursionError: maximum recursion depth")


def test_lines_that_are_not_json_are_counted() -> None:
    parsed = parse_lines(["x", " 1 ", "", '{"a": [1, 2]}', "[1] 2", "NaN"])
    assert parsed.values[0] is NOT_JSON and parsed.values[3] is NOT_JSON
    assert parsed.values[1] == 1 and parsed.values[2] == {"a": [1, 2]}
    assert parsed.not_json == 2 and parsed.lines == 5
    assert repr(NOT_JSON) == "NOT_JSON" and pickle.loads(pickle.dumps(NOT_JSON)) is NOT_JSON


def test_a_submission_that_is_not_a_mapping() -> None:
    assert submission_from_mapping([1]).problems == {"submission": "submission is list, not an "
                                                                   "object"}
    assert submission_from_mapping(None) is None


def test_a_missing_submission_directory(tmp_path: Path) -> None:
    with pytest.raises(SubmissionDirError) as exc:
        submission_root(tmp_path / "nope")
    assert str(exc.value) == (f"submission directory {str(tmp_path / 'nope')!r} does not "
                              "exist or is not a directory")
