"""JSON Lines rows parsed with one decoder for the whole file, and the row walk skipped where
it can refuse nothing: the rows and every refusal are those of a parse per line."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from agentmetrology.results import TableError, read_results
from agentmetrology.results.limits import MAX_DEPTH


def _read(tmp_path: Path, text: str) -> tuple[tuple[object, ...], tuple[int, ...]]:
    path = tmp_path / "r.jsonl"
    path.write_text(text, encoding="utf-8")
    table = read_results(path)
    return table.rows, table.line_numbers


def _refusal(tmp_path: Path, text: str) -> str:
    path = tmp_path / "r.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(TableError) as info:
        read_results(path)
    return str(info.value)


def test_rows_equal_a_parse_per_line(tmp_path: Path) -> None:
    r = random.Random(3)
    lines = [json.dumps({"agent": r.choice("ab"), "seed": i, "v": r.random(),
                         "gt": {"f1": r.random(), "status": r.choice(["PASS", "FAIL"])},
                         "tags": [r.randint(0, 9) for _ in range(r.randint(0, 3))],
                         "note": r.choice(["", "x \u00e9 y", "{[{[", "\\u"])})
             for i in range(300)]
    rows, numbers = _read(tmp_path, "\n".join(lines) + "\n\n")
    assert list(rows) == [json.loads(line) for line in lines]
    assert list(numbers) == list(range(1, 301))


def test_a_key_twice_after_clean_rows_is_refused_on_its_line(tmp_path: Path) -> None:
    # The marks are counted for the whole file: each line starts from none, so a repeated key
    # on line 3 is refused there, and a clean row after a refused one is never blamed.
    text = '{"a": 1}\n{"b": {"c": 2}}\n{"a": 1, "x": {"k": 1, "k": 2}}\n'
    assert _refusal(tmp_path, text).endswith(
        "line 3: a JSON object names 'k' more than once (only the last value would be read); "
        "give each key once")


def test_brackets_inside_strings_alone_do_not_refuse_a_row(tmp_path: Path) -> None:
    # More brackets than MAX_DEPTH send the row through the full walk, which finds it flat.
    note = "[{" * MAX_DEPTH
    rows, _ = _read(tmp_path, json.dumps({"agent": "a", "note": note, "v": 1}) + "\n")
    assert rows[0]["note"] == note  # type: ignore[index]


def test_nesting_past_the_limit_is_still_refused(tmp_path: Path) -> None:
    row = '{"v": 1, "x": ' + "[" * MAX_DEPTH + "]" * MAX_DEPTH + "}\n"
    assert f"line 2: JSON nested more than {MAX_DEPTH} levels deep" in _refusal(
        tmp_path, '{"v": 0}\n' + row)
    ok = '{"v": 1, "x": ' + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1) + "}\n"
    assert len(_read(tmp_path, ok)[0]) == 1


def test_a_bom_on_a_later_line_is_refused_as_a_parse_per_line_refuses_it(tmp_path: Path) -> None:
    message = _refusal(tmp_path, '{"v": 0}\n\ufeff{"v": 1}\n')
    assert message.endswith("line 2: not valid JSON (Unexpected UTF-8 BOM (decode using "
                            "utf-8-sig))")


def test_a_column_name_is_one_string_for_every_row(tmp_path: Path) -> None:
    # Held once, not once a row: a million rows kept a million copies of each name before.
    rows, _ = _read(tmp_path, '{"agent": "a", "gt": {"f1": 1}}\n{"gt": {"f1": 0}, "agent": "b"}\n')
    first, second = (list(r) for r in rows)  # type: ignore[call-overload]
    assert first[0] is second[1] and first[1] is second[0]
    assert next(iter(rows[0]["gt"])) is next(iter(rows[1]["gt"]))  # type: ignore[index]
