"""Reading a results table within its limits: only regular files, the file size capped before
reading, each line capped before parsing, and lone surrogates refused in one line.

The limits are lowered through read_results's parameters, so no test writes a large file."""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

import pytest

from agentmetrology.records.errors import UserError
from agentmetrology.results import TableError, limits, read_results
from agentmetrology.results.parsing import physical_lines

ROWS = '{"agent": "a", "v": 1}\n{"agent": "b", "v": 0.5}\n'


def _refused(path: str | Path, **limits_: int) -> str:
    with pytest.raises(TableError) as info:
        read_results(path, **limits_)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_the_limits_are_documented_constants() -> None:
    assert limits.MAX_FILE_BYTES == 256 * 1024 * 1024
    assert limits.MAX_LINE_CHARS == 1024 * 1024
    assert issubclass(TableError, UserError)


def test_a_named_pipe_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "runs.jsonl"
    os.mkfifo(fifo)
    message = _refused(fifo)
    assert message.startswith(f"{fifo}: is a named pipe, not a regular file")


def test_a_device_is_refused() -> None:
    assert _refused("/dev/null").startswith("/dev/null: is a character device")


def test_a_file_above_the_size_limit_is_refused_before_reading(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_text(ROWS, encoding="utf-8")
    size = path.stat().st_size
    assert len(read_results(path, max_file_bytes=size).rows) == 2
    message = _refused(path, max_file_bytes=size - 1)
    assert f"{size:,} bytes is above the limit of {size - 1:,} bytes" in message
    # The size is checked for Parquet too, before pyarrow reads anything.
    parquet = tmp_path / "runs.parquet"
    parquet.write_bytes(b"PAR1" + b"\0" * 100)
    assert "above the limit of 10 bytes" in _refused(parquet, max_file_bytes=10)


def test_stdin_above_the_size_limit_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    data = ROWS.encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    message = _refused("-", max_file_bytes=len(data) - 1)
    assert message.startswith(f"<stdin>: more than {len(data) - 1:,} bytes")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert read_results("-", max_file_bytes=len(data)).fmt == "jsonl"


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("runs.jsonl", '{"agent": "a", "v": 1}\n{"agent": "b", "v": 0.25, "note": "xxxxxxxx"}\n'),
        ("runs.csv", "agent,v,note\na,1,\nb,0.25,xxxxxxxxxxxxxxxxxxxxxxxx\n"),
        ("runs", '{"agent": "a", "v": 1}\n{"agent": "b", "v": 0.25, "note": "xxxxxxxx"}\n'),
    ],
)
def test_a_line_above_the_line_limit_is_refused_with_its_number(
    tmp_path: Path, name: str, text: str
) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    lengths = [len(line) for line in text.splitlines()]
    longest = lengths.index(max(lengths)) + 1  # the last line, longer than every other
    limit = max(lengths) - 1
    assert longest == len(lengths) and sorted(lengths)[-2] <= limit
    message = _refused(path, max_line_chars=limit)
    assert message == (
        f"{path} line {longest}: longer than {limit:,} characters, the limit of one row; "
        "a results table has one run per line"
    )
    assert len(read_results(path, max_line_chars=limit + 1).rows) == 2


def test_a_line_exactly_at_the_limit_with_crlf_is_read(tmp_path: Path) -> None:
    line = '{"agent": "a", "v": 1}'
    path = tmp_path / "runs.jsonl"
    path.write_bytes((line + "\r\n" + line + "\r\n").encode())
    table = read_results(path, max_line_chars=len(line))
    assert table.line_numbers == (1, 2)


class _Endless(io.TextIOBase):
    """A text stream of one line that never ends; counts the characters handed out."""

    given = 0

    def readline(self, size: int | None = -1) -> str:
        assert size is not None and size > 0  # an unbounded read would never return
        self.given += size
        return "x" * size


def test_a_line_without_end_is_refused_after_a_bounded_read() -> None:
    stream = _Endless()
    with pytest.raises(TableError, match="line 1: longer than 1,000 characters"):
        list(physical_lines(stream, "<endless>", 1000))
    assert stream.given == 1002


@pytest.mark.parametrize(
    ("line", "code"),
    [
        ('{"agent": "a\\ud800", "v": 1}', "\\ud800"),
        ('{"agent": "a", "v\\udc00": 1}', "\\udc00"),
        ('{"agent": "a", "tags": ["ok", {"x": "\\udfff"}], "v": 1}', "\\udfff"),
    ],
)
def test_a_lone_surrogate_is_a_one_line_error(tmp_path: Path, line: str, code: str) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_text('{"agent": "b", "v": 0}\n' + line + "\n", encoding="utf-8")
    message = _refused(path)
    assert message == (
        f"{path} line 2: a JSON string holds the lone surrogate {code}, which is not a "
        "character; write the character itself or a complete pair"
    )
    array = tmp_path / "runs.json"
    array.write_text('[{"agent": "b", "v": 0}, ' + line + "]", encoding="utf-8")
    assert f"{array} line 2: a JSON string holds the lone surrogate {code}" in _refused(array)


def test_escaped_characters_and_pairs_are_read(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_text('{"agent": "\\ud83d\\ude00 \\u00e9", "v": 1}\n', encoding="utf-8")
    assert read_results(path).rows[0]["agent"] == "\U0001f600 \u00e9"


def test_only_line_breaks_end_a_json_line(tmp_path: Path) -> None:
    # U+2028 is legal inside a JSON string; it does not end the row.
    path = tmp_path / "runs.jsonl"
    path.write_text('{"agent": "a\u2028b", "v": 1}\n{"agent": "c", "v": 0}\n', encoding="utf-8")
    table = read_results(path)
    assert [r["agent"] for r in table.rows] == ["a\u2028b", "c"]
    assert table.line_numbers == (1, 2)


def test_formats_are_sniffed_in_bounded_reads(tmp_path: Path) -> None:
    path = tmp_path / "runs"
    path.write_text("\n" * 70_000 + ROWS, encoding="utf-8")  # past the first sniffed chunk
    table = read_results(path)
    assert table.fmt == "jsonl" and table.line_numbers == (70_001, 70_002)
    path.write_text(" [" + ROWS.strip().replace("\n", ",") + "]", encoding="utf-8")
    assert read_results(path).fmt == "json"
    path.write_text("agent,v\na,1\n", encoding="utf-8")
    assert read_results(path).fmt == "csv"
    bom = tmp_path / "runs.csv"
    bom.write_bytes(b"\xef\xbb\xbfagent,v\na,1\n")
    assert read_results(bom).rows == ({"agent": "a", "v": "1"},)


def test_bytes_that_are_not_utf8_are_refused_wherever_they_are(tmp_path: Path) -> None:
    path = tmp_path / "runs.csv"
    path.write_bytes(b"agent,v\n" + b"a,1\n" * 20_000 + b"b,\xff\n")
    assert _refused(path) == f"{path}: not UTF-8 text (for Parquet use a .parquet suffix)"
    path = tmp_path / "runs.json"
    path.write_bytes(b"[" + b'{"v": 1},' * 10_000 + b'{"v": "\xff"}]')
    assert _refused(path) == f"{path}: not UTF-8 text (for Parquet use a .parquet suffix)"
