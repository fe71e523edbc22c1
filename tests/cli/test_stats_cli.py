"""`agm stats summarize` / `agm stats compare` against small fixture files."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentmetrology.cli.stats_cmd import stats_app
from support.results_rows import run_record, write_runs

runner = CliRunner()
ENV = {"COLUMNS": "200"}


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    return write_runs(tmp_path / "runs.jsonl")


def _invoke(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(stats_app, list(args), env=ENV)
    return result.exit_code, result.stdout, result.stderr


def test_summarize_table_output(runs: Path) -> None:
    code, out, _ = _invoke(
        "summarize", str(runs), "--value", "ground_truth.f1", "--group", "agent,task"
    )
    assert code == 0
    assert "rank worst" in out and "CVaR@0.2" in out and "Rel@0.9" in out
    assert "llm" in out and "rule" in out
    assert "excluded 1 row: 1 value null" in out
    assert "value null: 1 row (line(s) 17)" in out
    assert "agent=llm, task=t2: excluded 1 row: 1 value null" in out


def test_summarize_reads_stdin(runs: Path) -> None:
    result = runner.invoke(
        stats_app,
        ["summarize", "-", "--value", "ground_truth.f1", "--group", "agent", "--json"],
        input=runs.read_text(encoding="utf-8"),
    )
    assert result.exit_code == 0, result.stderr
    assert len(json.loads(result.stdout)["groups"]) == 2


def test_parquet_without_pyarrow_says_how_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "runs.parquet"
    path.write_bytes(b"PAR1 not really")
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    code, _, err = _invoke("summarize", str(path), "--value", "v", "--group", "g")
    assert code == 2
    assert "pip install pyarrow" in err


def _compare_json(path: Path, *extra: str) -> dict[str, object]:
    code, out, err = _invoke(
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
        "--json",
        *extra,
    )
    assert code == 0, err
    return json.loads(out)


def test_compare_reports_dropped_pairs_and_clusters(runs: Path, tmp_path: Path) -> None:
    text = runs.read_text(encoding="utf-8")
    extra = json.dumps(run_record("rule", "t3", 0, 0.4))  # only in A
    path = tmp_path / "more.jsonl"
    path.write_text(text + extra + "\n", encoding="utf-8")
    doc = _compare_json(path, "--cluster", "task")
    assert doc["pairs"]["incomplete"] == 1 and doc["pairs"]["only_a"] == 1
    # A key lists its columns sorted by name (seed, task), as `pair_by` echoes them.
    assert doc["pair_by"] == ["seed", "task"]
    assert doc["pairs"]["examples_only_a"] == [["0", "t3"]]
    assert doc["result"]["unit"] == "cluster" and doc["result"]["n_units"] == 2
    code, out, _ = _invoke(
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
        "--cluster",
        "task",
    )
    assert code == 0
    assert "8 complete, 1 incomplete dropped" in out
    assert "equivalence" in out and "sign-flip p" in out
    # 2 clusters: no bootstrap interval (3 distinct resamples: "95% CI" was the two cluster
    # means), and the table says why, once
    note = ("no interval: 2 clusters; a bootstrap over 2 clusters has 3 distinct resamples, an "
            "interval needs at least 3 clusters")
    result = doc["result"]
    for est in ("difference", "equivalence", "cliffs_delta"):
        assert result[est]["interval"] is None and result[est]["interval_note"] == note
    assert f"│ intervals │ {note}" in " ".join(out.split())
    assert "mean difference" in out and "CI [" not in out and "(no interval)" in out
    assert "(margin 0.1; no interval)" in out


CMP = "compare {runs} --value ground_truth.f1 --group agent --a rule"
SUM = "summarize {runs} --value ground_truth.f1 --group agent"


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ("summarize {missing} --value v --group g", "no such file"),
        ("summarize {runs} --value nope --group agent", "unknown column 'nope'"),
        ("summarize {runs} --value ground_truth.f1 --group agent,", "--group"),
        (f"{SUM} --tau 1.5", "tau must be in"),
        (f"{SUM} --alpha 0", "alpha must be in"),
        (f"{SUM} --analysis-seed -3", "seed must be"),
        ("summarize {runs} --value task --group agent", "column 'task' holds the string 't1'"),
        ("summarize {bad} --value v --group g", "line 2: not valid JSON"),
        ("summarize {binary} --value v --group g", "not UTF-8"),
        ("summarize {dir} --value v --group g", "is a directory"),
        (f"{CMP} --b gpt --pair-by task,seed", "--b group 'gpt' not found"),
        (f"{CMP} --b llm --pair-by task", "add columns to --pair-by"),
        (f"{CMP} --b rule --pair-by task,seed", "different groups"),
        (f"{CMP} --b llm --pair-by task,seed --cluster zone", "unknown column 'zone'"),
        (f"{CMP} --b llm --pair-by task,seed --margin -1", "margin must be > 0"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    runs: Path, tmp_path: Path, command: str, message: str
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"a": 1}\n{"a": \n', encoding="utf-8")
    binary = tmp_path / "binary.csv"
    binary.write_bytes(b"\xff\xfe\x00\x81garbage")
    paths = {
        "runs": runs,
        "missing": tmp_path / "missing.csv",
        "bad": bad,
        "binary": binary,
        "dir": tmp_path,
    }
    code, _, err = _invoke(*command.format(**{k: str(v) for k, v in paths.items()}).split())
    assert code == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_markup_like_names_are_printed_verbatim(tmp_path: Path) -> None:
    path = tmp_path / "odd.csv"
    path.write_text("agent,score\n[bold]x[/],0.5\n[bold]x[/],0.7\ny[,0.2\n", encoding="utf-8")
    code, out, err = _invoke("summarize", str(path), "--value", "score", "--group", "agent")
    assert code == 0, err
    assert "[bold]x[/]" in out and "y[" in out


# 12 pairs (task x seed) on which the bootstrap's draws had followed the --pair-by spelling.
_ORDER_A = [0.64, 0.27, 0.04, 0.02, 0.81, 0.91, 0.61, 0.73, 0.54, 0.94, 0.82, 0.0]
_ORDER_B = [0.49, 0.33, -0.0, 0.03, 0.84, 0.96, 0.73, 0.91, 0.61, 1.16, 0.83, 0.12]


def test_compare_does_not_depend_on_the_order_of_the_pair_by_columns(tmp_path: Path) -> None:
    lines = ["agent,task,seed,score"]
    for i, (a, b) in enumerate(zip(_ORDER_A, _ORDER_B, strict=True)):
        lines += [f"A,t{i % 3},{i // 3},{a}", f"B,t{i % 3},{i // 3},{b}"]
    path = tmp_path / "order.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    outs = []
    for key in ("task,seed", "seed,task"):
        code, out, err = _invoke("compare", str(path), "--value", "score", "--group", "agent",
                                 "--a", "A", "--b", "B", "--pair-by", key, "--json")
        assert code == 0, err
        outs.append(out)
    # task,seed had read 'different', CI [0.001, 0.110]; seed,task 'equivalent'.
    assert outs[0] == outs[1]
    doc = json.loads(outs[0])
    assert doc["pair_by"] == ["seed", "task"]
    assert doc["result"]["equivalence"]["label"] == "equivalent"
    assert doc["result"]["equivalence"]["interval"] == pytest.approx([-2.08333e-05, 0.1075208],
                                                                      rel=1e-5)


def test_compare_names_the_exclusions_of_every_b_group(tmp_path: Path) -> None:
    """With --b B1,B2 the footer named only B1's excluded rows: B2's null was said nowhere."""
    rows = [{"agent": agent, "task": "t", "seed": seed, "v": value}
            for seed in range(6)
            for agent, value in (("a", 0.5), ("b1", 0.6), ("b2", None if seed == 0 else 0.7))]
    path = tmp_path / "runs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    code, out, _ = _invoke("compare", str(path), "--value", "v", "--group", "agent", "--a", "a",
                           "--b", "b1,b2", "--pair-by", "task,seed")
    assert code == 0
    footer = out.splitlines()[-3:]
    assert footer == ["A (a): excluded 0 rows", "B (b1): excluded 0 rows",
                      "B (b2): excluded 1 row: 1 value null"]


def test_summarize_prints_no_blank_glossary_line_when_its_columns_are_dropped(
        runs: Path) -> None:
    """When CVaR, Rel and gap are all dropped (README example at 80 columns) the glossary line
    was printed empty."""
    result = runner.invoke(stats_app, ["summarize", str(runs), "--value", "ground_truth.f1",
                                       "--group", "agent,task"], env={"COLUMNS": "64"})
    assert result.exit_code == 0
    assert "not shown at width 64: CVaR@0.2, Rel@0.9, gap" in result.stdout
    assert "" not in result.stdout.splitlines()
