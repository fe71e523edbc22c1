"""`agm stats` stays honest under faults and bad input: measurement failures are excluded and
counted, non-numbers and non-finite values are refused with the line, p-values never print as
0.0000, and tables never abbreviate a number at 80 columns."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentmetrology.cli.stats_cmd import fmt_p, stats_app
from agentmetrology.results import values as result_values
from support.results_rows import row, write_faulty, write_rows

runner = CliRunner()


def _invoke(*args: str, columns: int = 200) -> tuple[int, str, str]:
    result = runner.invoke(stats_app, list(args), env={"COLUMNS": str(columns)})
    return result.exit_code, result.stdout, result.stderr


def _summ(
    path: Path, *extra: str, group: str = "agent", columns: int = 200
) -> tuple[int, str, str]:
    return _invoke(
        "summarize",
        str(path),
        "--value",
        "ground_truth.f1",
        "--group",
        group,
        *extra,
        columns=columns,
    )


def _cmp(path: Path, *extra: str, columns: int = 200) -> tuple[int, str, str]:
    return _invoke(
        "compare",
        str(path),
        "--value",
        "ground_truth.f1",
        "--group",
        "agent",
        "--a",
        "rule",
        "--b",
        "llm",
        "--pair-by",
        "task,seed",
        *extra,
        columns=columns,
    )


# --------------------------------------------------------------------------- item 1


@pytest.fixture
def faulty(tmp_path: Path) -> Path:
    return write_faulty(tmp_path / "faulty.jsonl")


def test_measurement_failures_are_reported_in_the_table(faulty: Path) -> None:
    code, out, err = _summ(faulty)
    assert code == 0, err
    assert "excluded 6 rows: 5 measurement failure, 1 value null" in out
    assert "agent=llm: excluded 4 rows: 3 measurement failure, 1 value null" in out
    assert "agent=rule: excluded 1 row: 1 measurement failure" in out
    assert "agent=ghost: no usable value, excluded 1 row: 1 measurement failure" in out


def test_compare_reports_pairs_dropped_because_a_side_was_excluded(tmp_path: Path) -> None:
    rows = [row("rule", "t1", s, 0.5) for s in range(6)]
    rows += [row("llm", "t1", s, 1.0) for s in range(4)]
    rows += [
        row("llm", "t1", 4, 0.0, measurement_failure="infra_error"),  # B excluded
        row("llm", "t1", 5, None),  # B null
        row("rule", "t1", 9, None, status="UNKNOWN"),  # A excluded, no B at all
    ]
    path = write_rows(tmp_path / "pairs.jsonl", rows)
    code, out, err = _cmp(path, "--json")
    assert code == 0, err
    doc = json.loads(out)
    pairs = doc["pairs"]
    assert (pairs["complete"], pairs["incomplete"]) == (4, 0)
    assert (pairs["dropped_excluded"], pairs["excluded_a"], pairs["excluded_b"]) == (3, 1, 2)
    # A key lists its columns sorted by name (seed, task), as `pair_by` echoes them.
    assert pairs["examples_dropped_excluded"] == [["4", "t1"], ["5", "t1"], ["9", "t1"]]
    assert doc["excluded_by_group"]["b"]["by_reason"]["measurement failure"]["count"] == 1
    assert doc["excluded_by_group"]["b"]["by_reason"]["value null"]["count"] == 1
    assert doc["result"]["difference"]["value"] == 0.5  # the infra 0.0 is not a pair
    code, out, _ = _cmp(path)
    assert code == 0
    assert "3 dropped because a row was excluded (1 in A, 2 in B)" in out
    assert "B (llm): excluded 2 rows: 1 measurement failure, 1 value null" in out


# --------------------------------------------------------------------------- items 9 and 10


def _one_bad_line(tmp_path: Path, raw_line: str, name: str = "bad.jsonl") -> Path:
    good = [json.dumps(row(agent, "t1", 0, 0.5)) for agent in ("rule", "llm")]
    path = tmp_path / name
    path.write_text("\n".join([*good, raw_line]) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("raw_value", "message"),
    [
        ("1e400", "line 3: column 'ground_truth.f1' is not a finite number (inf"),
        ("1" + "0" * 400, "line 3: column 'ground_truth.f1' is not a finite number"),
        ("1" + "0" * 5000, "line 3: unreadable JSON number"),
        ("NaN", "line 3: column 'ground_truth.f1' is not a finite number (nan"),
        ("-Infinity", "line 3: column 'ground_truth.f1' is not a finite number (-inf"),
        ('"0.5"', "line 3: column 'ground_truth.f1' holds the string '0.5', not a number"),
        ('"n/a"', "line 3: column 'ground_truth.f1' holds the string 'n/a'"),
        ("[0.5]", "line 3: column 'ground_truth.f1' holds a list ([0.5]), not a number"),
        ("1e308", "line 3: column 'ground_truth.f1' is 1e+308; values must lie within +/-1e+100"),
    ],
)
def test_hostile_values_exit_2_with_the_line(tmp_path: Path, raw_value: str, message: str) -> None:
    line = '{"agent": "rule", "task": "t1", "seed": 7, "ground_truth": {"f1": ' + raw_value + "}}"
    path = _one_bad_line(tmp_path, line)
    for run in (_summ, _cmp):
        code, _, err = run(path)
        assert code == 2, err
        assert message in err
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_csv_non_finite_and_text_values_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    for cell, message in (("nan", "is not a finite number"), ("oops", "holds 'oops'")):
        path.write_text(f"agent,score\na,0.5\na,{cell}\n", encoding="utf-8")
        code, _, err = _invoke("summarize", str(path), "--value", "score", "--group", "agent")
        assert code == 2 and f"line 3: column 'score' {message}" in err


def test_deeply_nested_json_exits_2(tmp_path: Path) -> None:
    deep = '{"agent": "rule", "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    nested = '{"agent": "rule", "x": ' + '{"a": ' * 40 + "1" + "}" * 40 + "}"
    for raw, message in ((deep, "nested too deeply"), (nested, "nested more than 32 levels")):
        path = _one_bad_line(tmp_path, raw)
        code, _, err = _summ(path)
        assert code == 2, err
        assert f"line 3: JSON {message}" in err
        assert len(err.strip().splitlines()) == 1
    array = tmp_path / "deep.json"
    array.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    code, _, err = _summ(array)
    assert code == 2 and "nested too deeply" in err


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--resamples", "1000000000"], "--resamples 1000000000 is above the limit of 1,000,000"),
        (["--draws", "10000000"], "--draws 10000000 is above the limit of 1,000,000"),
    ],
)
def test_huge_resamples_and_draws_are_capped(faulty: Path, option: list[str], message: str) -> None:
    code, _, err = _cmp(faulty, *option)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
    if option[0] == "--resamples":
        code, _, err = _summ(faulty, *option)
        assert code == 2 and message in err


def test_json_booleans_are_read_as_1_or_0_and_reported(tmp_path: Path) -> None:
    rows = [row("rule", "t1", 0, True), row("rule", "t1", 1, False), row("rule", "t1", 2, 0.5)]
    path = write_rows(tmp_path / "b.jsonl", rows)
    code, out, err = _summ(path, "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["groups"][0]["mean"]["value"] == 0.5
    assert doc["coerced"] == {
        "count": 2,
        "by_reason": {"boolean read as 1 (true) or 0 (false)": {"count": 2, "lines": [1, 2]}},
    }
    code, out, _ = _summ(path)
    assert "coerced 2 value(s): boolean read as 1 (true) or 0 (false) (line(s) 1, 2)" in out


def test_an_overflowing_statistic_is_refused_not_printed_as_a_dash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Lift the up-front bound to reach the second guard: the statistic itself is checked.
    monkeypatch.setattr(result_values, "MAX_MAGNITUDE", math.inf)
    rows = [row("rule", "t1", s, 1e308) for s in range(3)]
    rows += [row("llm", "t1", s, -1e308) for s in range(3)]
    path = write_rows(tmp_path / "big.jsonl", rows)
    code, _, err = _summ(path)
    assert code == 2, err
    assert "statistic mean.value is not finite" in err
    assert len(err.strip().splitlines()) == 1
    code, _, err = _cmp(path)
    assert code == 2 and "statistic difference.value is not finite" in err


def test_large_but_allowed_values_print_in_scientific_notation(tmp_path: Path) -> None:
    rows = [row("rule", "t1", s, v) for s, v in enumerate([2e99, 3e99, 4e99])]
    path = write_rows(tmp_path / "big.jsonl", rows)
    code, out, err = _summ(path, columns=80)
    assert code == 0, err
    assert "3.000e+99" in out and "…" not in out
    assert max(len(line) for line in out.splitlines()) <= 80


# --------------------------------------------------------------------------- item 16


def test_analysis_seed_and_the_deprecated_seed_alias(faulty: Path) -> None:
    code, new, err = _summ(faulty, "--json", "--analysis-seed", "7")
    assert code == 0 and err == ""
    code, old, err = _summ(faulty, "--json", "--seed", "7")
    assert code == 0
    assert json.loads(old) == json.loads(new)
    assert json.loads(new)["parameters"]["analysis_seed"] == 7
    assert err.strip() == "agm stats: warning: --seed is deprecated; use --analysis-seed"
    code, _, err = _summ(faulty, "--seed", "7", "--analysis-seed", "8")
    assert code == 2 and "disagree" in err
    for command in ("summarize", "compare"):
        code, out, _ = _invoke(command, "--help", columns=200)
        assert "--analysis-seed" in out
        assert re.search(r"--seed\b", out) is None  # hidden
    code, _, err = _summ(faulty, "--seeds", "3")
    assert code == 2 and "No such option" in err


# --------------------------------------------------------------------------- item 17


def test_fmt_p_never_prints_zero() -> None:
    assert fmt_p(0.0) == "< 1e-4"
    assert fmt_p(9.99e-5) == "< 1e-4"
    assert fmt_p(1e-4) == "0.0001"
    assert fmt_p(0.28906) == "0.2891"


def test_tiny_p_values_print_as_below_1e_4_and_mcnemar_is_explained(tmp_path: Path) -> None:
    rows = [row("rule", f"t{s % 6}", s, 0.0) for s in range(40)]
    rows += [row("llm", f"t{s % 6}", s, 1.0) for s in range(40)]
    path = write_rows(tmp_path / "sep.jsonl", rows)
    code, out, err = _cmp(path, "--json")
    assert code == 0, err
    doc = json.loads(out)
    p = doc["result"]["sign_flip"]["p_value"]
    assert p == pytest.approx(1 / 100_001) and p < 1e-4
    assert doc["result"]["mcnemar"]["p_value"] < 1e-4
    code, out, _ = _cmp(path)
    assert "0.0000" not in out
    assert "sign-flip p" in out and "< 1e-4 (Monte-Carlo, 100000 sign vectors)" in out
    assert "McNemar tests unclustered pass/fail flips (value >= 0.9)" in out
    assert "sign-flip tests paired differences, pair by pair" in out
    code, out, _ = _cmp(path, "--cluster", "task")
    assert "sign-flip tests clustered paired differences (whole task clusters" in out
    assert "(exact, 64 sign vectors, clustered by task)" in out


# --------------------------------------------------------------------------- item 14


LONG = "anthropic/claude-3-5-sonnet-20241022"


@pytest.fixture
def wide(tmp_path: Path) -> Path:
    values = {
        "rule": [1.0, 0.81, 1.0, 0.5, 0.6, 0.7],
        "llm": [1.0, 0.0, 1.0, 0.92, 0.95, 1.0],
        LONG: [0.9, 0.95, 0.85, 0.875, 0.99, 0.8],
        "x": [-0.25, 0.125, -0.5, 0.0, 0.33, -0.125],
    }
    rows = [  # 3 tasks: a task-cluster bootstrap over fewer gives no interval to print
        row(agent, f"task-{s % 3}", s, v)
        for agent, vals in values.items()
        for s, v in enumerate(vals)
    ]
    return write_rows(tmp_path / "wide.jsonl", rows)


def _f3(value: float) -> str:
    return f"{value:.3f}"


def _assert_fits(out: str) -> None:
    assert "…" not in out and "..." not in out
    assert max(len(line) for line in out.splitlines()) <= 80


def _summary_numbers(group: dict[str, Any]) -> dict[str, list[str]]:
    """The numbers of one group's row, by table column."""
    return {
        "n": [str(group["n"])],
        "rank mean": [str(group["rank_mean"])],
        "rank worst": [str(group["rank_worst"])],
        "mean": [_f3(group["mean"]["value"])],
        # none over 1 or 2 runs (stats.bootstrap): the cell says `no interval`, a line why
        "CI": [_f3(v) for v in group["mean"]["interval"] or []],
        "worst": [_f3(group["worst"]["value"])],
        "CVaR@0.2": [_f3(group["cvar"]["value"])],
        "Rel@0.9": [_f3(group["reliability"]["value"])],
        "gap": [_f3(group["gap"]["value"])],
    }


def _left_out(table: str) -> list[str]:
    shown = re.search(r"not shown at width 80: ([^(]*)\(", table.replace("\n", " "))
    return [] if shown is None else [h.strip() for h in shown.group(1).split(",")]


# The order columns go in when the width runs out (lowest priority first).
DROP_ORDER = ["gap", "Rel@0.9", "CVaR@0.2", "CI", "rank mean", "n"]


def test_summarize_at_80_columns_shows_every_number_and_name_whole(wide: Path) -> None:
    code, out, err = _summ(wide, "--json")
    assert code == 0, err
    doc = json.loads(out)
    code, table, _ = _summ(wide, columns=80)
    assert code == 0
    _assert_fits(table)
    left_out = _left_out(table)
    # The long name is an identifier: whole on one line (issue 39 item 4), so the columns that
    # no longer fit go, lowest priority first, and are named.
    assert any(LONG in line for line in table.splitlines()), table
    assert set(left_out) == set(DROP_ORDER[:len(left_out)])
    tokens = set(re.findall(r"-?\d+(?:\.\d+)?", table))
    for group in doc["groups"]:
        for column, numbers in _summary_numbers(group).items():
            if column not in left_out:
                assert set(numbers) <= tokens, (column, numbers, table)


def test_summarize_two_groups_at_80_columns_names_the_columns_left_out(wide: Path) -> None:
    code, out, err = _summ(wide, "--json", group="agent,task")
    assert code == 0, err
    doc = json.loads(out)
    code, table, _ = _summ(wide, group="agent,task", columns=80)
    assert code == 0
    _assert_fits(table)
    left_out = _left_out(table)
    # Only the lowest-priority columns go, and the output names them.
    assert left_out and set(left_out) == set(DROP_ORDER[:len(left_out)])
    assert any(LONG in line for line in table.splitlines()), table
    tokens = set(re.findall(r"-?\d+(?:\.\d+)?", table))
    for group in doc["groups"]:
        for column, numbers in _summary_numbers(group).items():
            if column not in left_out:
                assert set(numbers) <= tokens, (column, numbers, table)
    # Each group holds 2 runs: no interval (it printed the two runs as one), and why.
    assert all(g["mean"]["interval"] is None for g in doc["groups"])
    flat = " ".join(table.split())
    assert flat.count("a bootstrap over 2 values has 3 distinct resamples, an interval needs "
                      "at least 3 values") == len(doc["groups"])


def test_compare_at_80_columns_shows_every_number_whole(wide: Path) -> None:
    code, out, err = _cmp(wide, "--json", "--cluster", "task")
    assert code == 0, err
    r = json.loads(out)["result"]
    code, table, _ = _cmp(wide, "--cluster", "task", columns=80)
    assert code == 0
    _assert_fits(table)
    numbers = [
        _f3(r["difference"]["value"]),
        *map(_f3, r["difference"]["interval"]),
        *map(_f3, r["equivalence"]["interval90"]),
        _f3(r["cliffs_delta"]["value"]),
        *map(_f3, r["cliffs_delta"]["interval"]),
        _f3(r["flips"]["net"]),
        _f3(r["flips"]["value"]),
        fmt_p(r["sign_flip"]["p_value"]),
        fmt_p(r["mcnemar"]["p_value"]),
        str(r["n_units"]),
        str(r["flips"]["n01"]),
        str(r["flips"]["n10"]),
    ]
    tokens = set(re.findall(r"-?\d+(?:\.\d+)?", table))
    for number in numbers:
        assert number in tokens, (number, table)


def test_a_nonzero_difference_never_prints_as_zero_beside_its_verdict(tmp_path: Path) -> None:
    # B beats A by 1e-4 to 4e-4 on every task: 'different' at margin 0.0001, p = 2/256.
    ups = [1e-4, 2e-4, 3e-4, 1e-4, 2e-4, 4e-4, 1e-4, 2e-4]
    rows = [row("rule", f"t{i}", 0, 0.5) for i in range(8)]
    rows += [row("llm", f"t{i}", 0, 0.5 + d) for i, d in enumerate(ups)]
    path = write_rows(tmp_path / "tiny.jsonl", rows)
    code, out, err = _cmp(path, "--margin", "0.0001", columns=80)
    assert code == 0, err
    assert "mean difference   │ 0.0002 95% CI [0.000137, 0.000275]" in out
    text = " ".join(out.replace("│", " ").split())
    assert ("equivalence different (margin 0.0001; 90% CI [0.00015, 0.000262], "
            "95% CI [0.000137, 0.000275])") in text


def test_a_different_label_its_own_test_does_not_confirm_is_said_so(tmp_path: Path) -> None:
    # 8 tasks, B - A = .12, -.02, .09, -.04, -.02, .26, .28, .12: the bootstrap's 95% interval
    # excludes 0 (the spec's 'different'), the exact sign-flip p is 16/256 = 0.0625.
    ups = [0.12, -0.02, 0.09, -0.04, -0.02, 0.26, 0.28, 0.12]
    rows = [row("rule", f"t{i}", 0, 0.5) for i in range(8)]
    rows += [row("llm", f"t{i}", 0, 0.5 + d) for i, d in enumerate(ups)]
    path = write_rows(tmp_path / "disagree.jsonl", rows)
    code, out, err = _cmp(path, columns=80)
    assert code == 0, err
    text = " ".join(out.replace("│", " ").split())
    assert "equivalence different (margin 0.1;" in text
    assert ("ground_truth.f1: llm - rule reads 'different' from the bootstrap interval, but "
            "the sign-flip test does not reject (Holm p 0.0625): the difference is not "
            "confirmed; more units would tell") in text
    # a difference the test confirms carries no such note
    rows = [row("rule", f"t{i}", 0, 0.5) for i in range(8)]
    rows += [row("llm", f"t{i}", 0, 0.5 + abs(d)) for i, d in enumerate(ups)]
    code, out, _ = _cmp(write_rows(tmp_path / "agree.jsonl", rows), columns=80)
    assert code == 0 and "equivalence different" in " ".join(out.replace("│", " ").split())
    assert "not confirmed" not in out
