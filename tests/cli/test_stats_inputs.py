"""`agm stats` refuses inputs it cannot read safely with one line and exit status 2: a named
pipe (which would block), an over-long line, and a lone surrogate in a JSON string."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentmetrology.cli.stats_cmd import stats_app
from agentmetrology.results import limits

runner = CliRunner()


def _one_line_error(*args: str) -> str:
    result = runner.invoke(stats_app, list(args), env={"COLUMNS": "200"})
    assert result.exit_code == 2, result.output
    err = result.stderr
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    return err


def test_a_named_pipe_is_refused_naming_the_file(tmp_path: Path) -> None:
    fifo = tmp_path / "runs.jsonl"
    os.mkfifo(fifo)
    for command in (["summarize", str(fifo), "--value", "v", "--group", "agent"],
                    ["compare", str(fifo), "--value", "v", "--group", "agent", "--a", "x",
                     "--b", "y", "--pair-by", "task"]):
        err = _one_line_error(*command)
        assert err == f"agm stats: error: {fifo}: is a named pipe, not a regular file; save " \
                      "the results to a file first, or pipe them to stdin with -\n"


def test_an_over_long_line_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_LINE_CHARS", 40)
    path = tmp_path / "runs.jsonl"
    path.write_text('{"agent": "a", "v": 1}\n{"agent": "b", "v": 1, "x": "' + "y" * 40 + '"}\n')
    err = _one_line_error("summarize", str(path), "--value", "v", "--group", "agent")
    assert f"{path} line 2: longer than 40 characters, the limit of one row" in err


def test_an_over_large_file_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_FILE_BYTES", 10)
    path = tmp_path / "runs.jsonl"
    path.write_text('{"agent": "a", "v": 1}\n')
    err = _one_line_error("summarize", str(path), "--value", "v", "--group", "agent")
    assert f"{path}: 23 bytes is above the limit of 10 bytes for a results table" in err


def test_a_lone_surrogate_is_refused_not_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_text('{"agent": "a\\ud800", "v": 1}\n{"agent": "b", "v": 0.5}\n')
    err = _one_line_error("summarize", str(path), "--value", "v", "--group", "agent")
    assert f"{path} line 1: a JSON string holds the lone surrogate \\ud800" in err


@pytest.mark.parametrize(("option", "names", "twice"), [
    ("--value", "score,score", "score"), ("--b", "b, b", "b"), ("--pair-by", "task,seed,task",
                                                                  "task")])
def test_a_name_listed_twice_is_refused(tmp_path: Path, option: str, names: str,
                                        twice: str) -> None:
    # Before, `--value score,score` (or `--b b,b`) compared the same pair twice and the Holm
    # adjustment over the two doubled its p (0.061 -> 0.123).
    table = tmp_path / "r.csv"
    table.write_text("task,seed,agent,score\nt1,0,a,1\nt1,0,b,0\nt2,0,a,0\nt2,0,b,1\n")
    given = {"--value": "score", "--b": "b", "--pair-by": "task,seed", option: names}
    err = _one_line_error("compare", str(table), "--group", "agent", "--a", "a", "--range",
                          "0,1", *(x for kv in given.items() for x in kv))
    assert err == f"agm stats: error: {option} {names!r} names {twice} more than once; name " \
                  "each once\n"


def test_a_header_naming_a_column_twice_is_refused(tmp_path: Path) -> None:
    # Before, `agent,score,score` read the last cell of the two as the score, silently.
    table = tmp_path / "r.csv"
    table.write_text("agent,score,score\na,1,0\nb,0,1\n")
    err = _one_line_error("summarize", str(table), "--value", "score", "--group", "agent",
                          "--range", "0,1")
    assert err == f"agm stats: error: {table} line 1: the header names 'score' more than " \
                  "once; name each column once\n"


@pytest.mark.parametrize(("name", "text", "line", "key"), [
    ("r.jsonl", '{"agent": "a", "score": 0.5}\n{"agent": "a", "score": 0.1, "score": 0.9}\n',
     2, "score"),
    ("r.json", '[{"agent": "a", "score": 0.5},\n {"agent": "a", "x": {"k": 1, "k": 2}, '
     '"score": 1}]', 2, "k"),
])
def test_a_json_object_naming_a_key_twice_is_refused(tmp_path: Path, name: str, text: str,
                                                     line: int, key: str) -> None:
    # Before, `{"score": 0.1, "score": 0.9}` was read as a score of 0.9, silently (JSON readers
    # keep the last value), and a nested key twice the same way.
    table = tmp_path / name
    table.write_text(text)
    err = _one_line_error("summarize", str(table), "--value", "score", "--group", "agent",
                          "--range", "0,1")
    assert err == f"agm stats: error: {table} line {line}: a JSON object names {key!r} more " \
                  "than once (only the last value would be read); give each key once\n"


@pytest.mark.parametrize(("name", "text", "cells"), [
    ("r.csv", "agent,score\na,0.5\na,0.1,0.9\n", "3 cells"),
    ("r.csv", "agent,score\na,0.5\na\n", "1 cell"),
    ("r.tsv", "agent\tscore\na\t0.5\na\t0.1\t0.9\n", "3 cells"),
])
def test_a_csv_row_with_more_or_fewer_cells_than_the_header_is_refused(
        tmp_path: Path, name: str, text: str, cells: str) -> None:
    # Before, `a,0.1,0.9` under `agent,score` dropped the cell 0.9 silently (exit 0), and `a`
    # alone was read as a missing score, excluded as "value null".
    table = tmp_path / name
    table.write_text(text)
    err = _one_line_error("summarize", str(table), "--value", "score", "--group", "agent",
                          "--range", "0,1")
    assert err == f"agm stats: error: {table} line 3: {cells}, but the header names 2 " \
                  "columns; give each row one cell per column (quote a cell that holds the " \
                  "delimiter)\n"


def test_a_family_member_without_pairs_names_its_group_and_what_to_leave_out(
        tmp_path: Path) -> None:
    # The message said "0 only in B" of group C, and not why A vs B was not given either.
    rows = [{"agent": g, "seed": s, "score": None if g == "c" else 0.1 * s}
            for g in "abc" for s in range(8)]
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    err = _one_line_error("compare", str(path), "--value", "score", "--group", "agent", "--a",
                          "a", "--b", "b,c", "--pair-by", "seed")
    assert err.strip() == (
        "agm stats: error: no complete pairs of 'a' and 'c' by seed (0 only in 'a', 0 only in "
        "'c', 8 dropped because a row was excluded: excluded 8 rows: 8 value null); the family "
        "of 2 comparisons (every --value x --b) is Holm-adjusted together, so none is given: "
        "leave --b 'c' out")
    err = _one_line_error("compare", str(path), "--value", "score", "--group", "agent", "--a",
                          "a", "--b", "c", "--pair-by", "seed")
    assert err.strip().endswith("8 value null)")  # one comparison: no family
