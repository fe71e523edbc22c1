"""Submissions and safe parsing: bad input becomes a problem or an unparsed line, never a raise."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

from agentmetrology.envs.comtrade.scoring.submission import (
    MAX_DATA_BYTES,
    MAX_METADATA_BYTES,
    NOT_JSON,
    WHOLE,
    Submission,
    SubmissionDirError,
    make_submission,
    parse_json,
    parse_jsonl,
    parse_line,
    read_submission_dir,
    split_lines,
    submission_from_mapping,
)
from agentmetrology.records import digest, rng

ROW = {"year": 2020, "reporter": "392", "record_id": "T3_duplicates-000000"}


def test_split_lines_drops_blank_lines_and_strips() -> None:
    assert split_lines("a\n\n  \r\n b \r\n") == ["a", "b"]
    assert split_lines("") == []


def test_split_lines_splits_on_newline_only() -> None:
    # U+2028 and U+0085 are legal unescaped inside a JSON string; splitlines() would cut there.
    line = json.dumps({"note": "a\u2028b\x85c", "record_id": "x"}, ensure_ascii=False)
    assert split_lines(line + "\n" + line) == [line, line]
    assert parse_jsonl(line).values == ({"note": "a\u2028b\x85c", "record_id": "x"},)


@pytest.mark.parametrize("line", [
    "{}", "[]", "1", "-0.5e3", '"s"', "true", "null", "NaN", json.dumps(ROW),
    '{"a": {"b": [1, 2, {"c": null}]}}',
])
def test_parse_line_accepts_what_json_loads_accepts(line: str) -> None:
    value = parse_line(line)
    assert value is not NOT_JSON
    assert json.dumps(value) == json.dumps(json.loads(line))


@pytest.mark.parametrize("line", [
    "{", "{}x", "{} {}", "{},{}", "[1,2", "'single'", '{"a":1,}', "tru", "1 2",
    '{"a": "\x01"}', "[" * 100_000, "9" * 5000,
])
def test_parse_line_rejects_what_json_loads_rejects(line: str) -> None:
    assert parse_line(line) is NOT_JSON


def test_parse_line_agrees_with_json_loads_on_random_strings() -> None:
    gen = rng(0, "test", "parse_line")
    alphabet = [*'{}[]",:0123456789.-eE truefalsn\\ab', "\u00e9", "\u2028"]
    valid = json.dumps(ROW)
    for _ in range(3000):
        if gen.random() < 0.5:  # mutate a valid row: the interesting near-misses
            chars = list(valid)
            for _ in range(int(gen.integers(1, 4))):
                chars[int(gen.integers(len(chars)))] = alphabet[int(gen.integers(len(alphabet)))]
            text = "".join(chars).strip()
        else:
            size = int(gen.integers(1, 30))
            text = "".join(alphabet[int(i)] for i in gen.integers(len(alphabet), size=size))
            text = text.strip()
        if not text:
            continue
        try:
            expected = json.dumps(json.loads(text))
        except ValueError:
            expected = None
        got = parse_line(text)
        assert (None if got is NOT_JSON else json.dumps(got)) == expected, text


def test_parse_jsonl_counts_lines_and_invalid_lines() -> None:
    parsed = parse_jsonl('{"a":1}\n\nnot json\n[1]\n  \n{"b":')
    assert parsed.lines == 4
    assert parsed.not_json == 2
    assert parsed.values[0] == {"a": 1}
    assert parsed.values[1] is NOT_JSON


def test_parse_json_reports_a_reason() -> None:
    assert parse_json('{"a": 1}') == ({"a": 1}, None)
    value, reason = parse_json("{nope")
    assert value is None and reason is not None and reason.startswith("not valid JSON")
    assert parse_json("[" * 100_000)[1] is not None  # RecursionError, caught


def test_make_submission_decodes_utf8_bytes() -> None:
    sub = make_submission("é".encode(), b"{}", None)
    assert sub.data_jsonl == "é"
    assert sub.metadata_json == "{}"
    assert sub.run_log is None
    assert sub.problems == {}


def test_non_utf8_bytes_become_a_problem_not_an_exception() -> None:
    sub = make_submission(b'{"a": 1}\n\xff\xfe', b"{}", b"log")
    assert sub.data_jsonl is None
    assert "not valid UTF-8" in sub.problems["data_jsonl"]
    assert "0xff at offset 9" in sub.problems["data_jsonl"]
    assert sub.problems_for("metadata_json") == []
    assert sub.problems_for("data_jsonl") == [sub.problems["data_jsonl"]]


def test_too_large_parts_are_problems() -> None:
    big = b"x" * (10 * 1024 * 1024)
    sub = make_submission(big, None, None)
    assert sub.data_jsonl is None
    assert sub.problems["data_jsonl"].startswith("submission too large")
    as_text = Submission(data_jsonl="x" * (MAX_DATA_BYTES + 1))
    assert as_text.problems["data_jsonl"].startswith("submission too large")
    # Non-ASCII text is measured in UTF-8 bytes, not characters.
    wide = Submission(metadata_json="é" * (MAX_METADATA_BYTES // 2 + 1))
    assert wide.problems["metadata_json"].startswith("submission too large")
    assert Submission(data_jsonl="x" * MAX_DATA_BYTES).problems == {}


def test_lone_surrogates_and_wrong_types_are_problems() -> None:
    sub = Submission(data_jsonl="ok\ud800")
    assert "lone surrogate" in sub.problems["data_jsonl"]
    odd = make_submission(["not", "text"], 5, None)
    assert "list, not text" in odd.problems["data_jsonl"]
    assert "int, not text" in odd.problems["metadata_json"]
    assert odd.data_jsonl is None and odd.metadata_json is None


def test_submission_from_mapping() -> None:
    assert submission_from_mapping(None) is None
    sub = submission_from_mapping({"data_jsonl": "a", "run_log": "b"})
    assert sub == Submission("a", None, "b")
    bad = submission_from_mapping(["a"])
    assert bad is not None and WHOLE in bad.problems
    assert bad.problems_for("run_log") == [bad.problems[WHOLE]]


def test_read_submission_dir(tmp_path: Path) -> None:
    (tmp_path / "data.jsonl").write_text(json.dumps(ROW) + "\n", encoding="utf-8")
    (tmp_path / "metadata.json").write_bytes(b"\xc3\x28")  # invalid UTF-8
    sub = read_submission_dir(tmp_path)
    assert sub.data_jsonl == json.dumps(ROW) + "\n"
    assert sub.metadata_json is None and "not valid UTF-8" in sub.problems["metadata_json"]
    assert sub.run_log is None and "run_log" not in sub.problems  # absent, not a problem


def test_read_submission_dir_oversize_and_odd_files(tmp_path: Path) -> None:
    with (tmp_path / "data.jsonl").open("wb") as fh:
        fh.truncate(MAX_DATA_BYTES + 1)  # sparse: no 8 MB write needed
    (tmp_path / "run.log").mkdir()
    sub = read_submission_dir(tmp_path)
    assert sub.problems["data_jsonl"].startswith("submission too large")
    assert "not a regular file" in sub.problems["run_log"]


def test_read_submission_dir_missing_directory_is_a_typed_error(tmp_path: Path) -> None:
    with pytest.raises(SubmissionDirError, match="does not exist"):
        read_submission_dir(tmp_path / "nope")


def test_digest_binds_the_three_parts() -> None:
    a = Submission("d", "m", "l")
    assert a.digest == Submission("d", "m", "l").digest
    assert a.digest != Submission("d", "m", "l2").digest
    assert Submission("d", "m", None).digest != Submission("d", "m", "").digest
    # The record the scaffolds digest as an episode's submission.
    assert a.digest == digest({"data_jsonl": "d", "metadata_json": "m", "run_log": "l"})


def test_parsed_data_is_parsed_once() -> None:
    sub = Submission(json.dumps(ROW))
    assert sub.parsed_data is sub.parsed_data
    assert Submission().parsed_data.lines == 0


def test_submission_pickles_with_its_parse() -> None:
    sub = Submission('{"a": 1}\nnope', "{}", "log")
    assert sub.parsed_data.not_json == 1
    back = pickle.loads(pickle.dumps(sub))
    assert back == sub and back.digest == sub.digest
    assert back.parsed_data.values[1] is NOT_JSON


@pytest.mark.parametrize("line", [
    '{"a":1,"a":2}', "NaN", "-Infinity", "[1e400]", "123456789012345678901234567890",
    '"\\ud800"', '{"a":1} x', '{"x":-0.0}', "1.5E3", "true", '{"a":"\u2028"}', '{"a":1}}',
    "[" * 3000 + "]" * 3000, '{"k": [1, 2.5, null, "s"]}', "'single'", "{}", "0x10",
])
def test_fast_parse_accepts_exactly_what_json_accepts(line: str) -> None:
    import json

    from agentmetrology.envs.comtrade.scoring.submission import NOT_JSON, parse_jsonl

    try:
        expected = json.loads(line)
    except (ValueError, RecursionError):
        expected = NOT_JSON
    (got,) = parse_jsonl(line).values
    assert repr(got) == repr(expected)
