"""`agm stats summarize` / `agm stats compare` against small fixture files."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentmetrology.cli.stats_cmd import stats_app

runner = CliRunner()
ENV = {"COLUMNS": "200"}

F1 = {
    ("rule", "t1"): [1.0, 1.0, 0.81, 1.0],
    ("rule", "t2"): [0.5, 0.6, 0.7, 0.55],
    ("llm", "t1"): [1.0, 0.0, 1.0, 1.0],  # high mean, bad floor
    ("llm", "t2"): [0.9, 0.95, 1.0, 0.92],
}


def _run_record(agent: str, task: str, seed: int, f1: float | None) -> dict[str, object]:
    """One line of `agm run comtrade ... --json`."""
    return {
        "task": task,
        "seed": seed,
        "profile": "default",
        "agent": agent,
        "level": "L2",
        "termination": "submitted",
        "requests_used": 12,
        "rows_submitted": 40,
        "submission_sha256": "0" * 64,
        "ground_truth": {
            "f1": f1,
            "recall": f1,
            "precision": f1,
            "duplicates": 0,
            "totals_rows": 0,
            "spurious": 0,
        },
        "judge": {"status": "PASS", "total": f1, "breakdown": {}},
    }


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    path = tmp_path / "runs.jsonl"
    lines = [
        json.dumps(_run_record(agent, task, seed, f1))
        for (agent, task), values in F1.items()
        for seed, f1 in enumerate(values)
    ]
    lines.append(json.dumps(_run_record("llm", "t2", 9, None)))  # line 17: f1 missing
    lines.append("")  # blank lines are skipped
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _invoke(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(stats_app, list(args), env=ENV)
    return result.exit_code, result.stdout, result.stderr


def _summarize_json(path: Path, *extra: str) -> dict[str, object]:
    code, out, err = _invoke(
        "summarize",
        str(path),
        "--value",
        "ground_truth.f1",
        "--group",
        "agent,task",
        "--json",
        *extra,
    )
    assert code == 0, err
    return json.loads(out)


def test_summarize_run_jsonl(runs: Path) -> None:
    doc = _summarize_json(runs)
    groups = doc["groups"]
    assert isinstance(groups, list) and len(groups) == 4
    assert groups[0]["group"] == {"agent": "rule", "task": "t1"}
    means = [g["mean"]["value"] for g in groups]
    assert means == sorted(means, reverse=True)
    llm_t1 = next(g for g in groups if g["group"] == {"agent": "llm", "task": "t1"})
    assert llm_t1["worst"]["value"] == 0.0
    assert llm_t1["rank_worst"] == 4 and llm_t1["rank_mean"] < 4
    assert llm_t1["cvar"]["value"] == 0.0
    assert llm_t1["gap"]["value"] == pytest.approx(0.75)
    assert llm_t1["reliability"]["value"] == pytest.approx(0.75)
    assert doc["rows"] == {"read": 17, "used": 16, "excluded": 1}
    excluded = doc["excluded"]
    assert excluded["count"] == 1
    assert excluded["by_reason"]["value null"]["lines"] == [17]
    llm_t2 = next(g for g in groups if g["group"] == {"agent": "llm", "task": "t2"})
    assert llm_t2["excluded"] == {
        "count": 1,
        "by_reason": {"value null": {"count": 1, "lines": [17]}},
    }


def test_summarize_is_deterministic_and_seeded(runs: Path) -> None:
    assert _summarize_json(runs) == _summarize_json(runs)
    seeded = _summarize_json(runs, "--analysis-seed", "5")
    assert seeded["parameters"]["analysis_seed"] == 5
    assert seeded["groups"][0]["seed"] == 5
    assert seeded != _summarize_json(runs)


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


def test_summarize_csv_with_non_numeric_values(tmp_path: Path) -> None:
    path = tmp_path / "results.csv"
    path.write_text(
        "model,task,ground_truth.f1\nA,x,0.9\nA,x,n/a\nA,x,\nB,x,0.5\nB,x,0.7\n,x,0.3\n",
        encoding="utf-8",
    )
    code, out, err = _invoke(
        "summarize", str(path), "--value", "ground_truth.f1", "--group", "model", "--json"
    )
    assert code == 0, err
    doc = json.loads(out)
    assert {g["group"]["model"]: g["n"] for g in doc["groups"]} == {"A": 1, "B": 2}
    reasons = doc["excluded"]["by_reason"]
    assert reasons["value null"] == {"count": 2, "lines": [3, 4]}
    assert reasons["missing model"] == {"count": 1, "lines": [7]}


def test_summarize_reads_stdin(runs: Path) -> None:
    result = runner.invoke(
        stats_app,
        ["summarize", "-", "--value", "ground_truth.f1", "--group", "agent", "--json"],
        input=runs.read_text(encoding="utf-8"),
    )
    assert result.exit_code == 0, result.stderr
    assert len(json.loads(result.stdout)["groups"]) == 2


def test_summarize_parquet_nested_fields(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    rows = [_run_record(agent, task, 0, vals[0]) for (agent, task), vals in F1.items()]
    for row in rows:
        row["judge"] = {"status": "PASS", "total": 1.0}  # Parquet cannot store an empty struct
    path = tmp_path / "runs.parquet"
    pq.write_table(pa.Table.from_pylist(rows), path)
    doc = _summarize_json(path)
    assert len(doc["groups"]) == 4
    assert doc["format"] == "parquet"


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


def test_compare_pairs_and_counts_incomplete(runs: Path) -> None:
    doc = _compare_json(runs)
    assert doc["difference"] == "b - a"
    pairs = doc["pairs"]
    # llm/t2/seed 9 has no f1 -> excluded row; rule has no seed 9 anyway -> nothing dangling.
    assert (pairs["complete"], pairs["incomplete"]) == (8, 0)
    assert doc["excluded"]["count"] == 1
    result = doc["result"]
    a = F1[("rule", "t1")] + F1[("rule", "t2")]
    b = F1[("llm", "t1")] + F1[("llm", "t2")]
    assert result["difference"]["value"] == pytest.approx(sum(b) / 8 - sum(a) / 8)
    assert result["equivalence"]["label"] in {"equivalent", "different", "inconclusive"}
    assert result["sign_flip"]["exact"] is True
    assert result["unit"] == "pair"
    assert result["flips"]["n"] == 8


def test_compare_reports_dropped_pairs_and_clusters(runs: Path, tmp_path: Path) -> None:
    text = runs.read_text(encoding="utf-8")
    extra = json.dumps(_run_record("rule", "t3", 0, 0.4))  # only in A
    path = tmp_path / "more.jsonl"
    path.write_text(text + extra + "\n", encoding="utf-8")
    doc = _compare_json(path, "--cluster", "task")
    assert doc["pairs"]["incomplete"] == 1 and doc["pairs"]["only_a"] == 1
    assert doc["pairs"]["examples_only_a"] == [["t3", "0"]]
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
