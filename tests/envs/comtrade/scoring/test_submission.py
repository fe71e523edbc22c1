"""Submissions and safe parsing: bad input becomes a problem or an unparsed line, never a raise.

Submission parts at their size limits, the reasons given for unreadable parts and odd
values, the count of lines that are not JSON, and the refusal of a missing directory."""

from __future__ import annotations

import errno
import json
import pickle
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentmetrology.envs.comtrade.scoring import submission
from agentmetrology.envs.comtrade.scoring.submission import (
    MAX_DATA_BYTES,
    MAX_METADATA_BYTES,
    NOT_JSON,
    WHOLE,
    Submission,
    SubmissionDirError,
    decode_part,
    make_submission,
    parse_json,
    parse_jsonl,
    parse_line,
    parse_lines,
    read_submission_dir,
    split_lines,
    submission_from_mapping,
    submission_root,
)
from agentmetrology.records import digest
from agentmetrology.runtime.rng import rng

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


def test_parse_json_reason_when_the_stack_is_short(monkeypatch: pytest.MonkeyPatch) -> None:
    # A shallow document (under _SHALLOW brackets) met with little stack left (a caller deep
    # in its own recursion): msgspec's RecursionError must not escape; json.loads' reason,
    # as without the fast path.
    text = "[" * 400 + "]" * 400

    def near_the_limit(parse: Callable[[str], Any]) -> Any:
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(_depth() + 100)  # room for 100 more frames, not 400 levels
        try:
            return parse(text)
        finally:
            sys.setrecursionlimit(limit)

    got = near_the_limit(parse_json)
    monkeypatch.setattr(submission, "_SHALLOW", 0)  # json.loads alone
    want = near_the_limit(parse_json)
    assert want[0] is None and want[1] is not None and "RecursionError" in want[1]
    assert got == want


def _depth() -> int:
    """Return the number of frames on the current stack."""
    frame, n = sys._getframe(), 0
    while frame is not None:
        frame, n = frame.f_back, n + 1
    return n



@pytest.mark.parametrize("text", [
    '{"a": 1, "a": 2}', "123456789012345678901234567890", "1e400", '{"x": -1e400}',
    '"\\ud800"', '"\ud800"', '{"\udfff": 1}', '{"a": NaN}', " {\"a\": 1}\n ", "\ufeff{}",
    "1.5e-400", "[1, 2",
    '{"a": -0.0, "b": 0.1, "c": 1E5, "d": 2.5e-3}', '"\u2028"', '{"a": 1}\x0c', "",
    '{"q": {"year": 2020, "hs": "87"}, "s": ["a", "b"], "t": true, "n": null}',
    "[" * 499 + "]" * 499, "[" * 499 + "{}" + "]" * 499, "[" * 2000 + "]" * 2000,
])
def test_parse_json_equals_json_loads(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # The msgspec fast path must give json.loads' value (and type) or json.loads' reason.
    got = parse_json(text)
    monkeypatch.setattr(submission, "_SHALLOW", 0)  # no document is shallow: json.loads alone
    want = parse_json(text)
    assert got[1] == want[1]
    assert json.dumps(got[0]) == json.dumps(want[0])
    assert type(got[0]) is type(want[0])


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
