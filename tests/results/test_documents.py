"""The summary and comparison documents of `agentmetrology.results` on small fixture files:
groups, ranks, exclusions per group and reason, and pairs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentmetrology.results import (
    ComparisonRequest,
    SummaryRequest,
    TableError,
    build_comparison,
    build_summary,
)
from support.results_rows import F1, run_record, write_faulty, write_runs


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    return write_runs(tmp_path / "runs.jsonl")


def _summary(path: Path, group_by: tuple[str, ...] = ("agent", "task"), **extra: Any) -> Any:
    return build_summary(
        SummaryRequest(source=str(path), value="ground_truth.f1", group_by=group_by, **extra)
    )


def _csv_summary(tmp_path: Path, text: str, group: str) -> Any:
    path = tmp_path / "results.csv"
    path.write_text(text, encoding="utf-8")
    return _summary(path, group_by=(group,))


def test_summarize_run_jsonl(runs: Path) -> None:
    doc = _summary(runs)
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
    assert _summary(runs) == _summary(runs)
    seeded = _summary(runs, analysis_seed=5)
    assert seeded["parameters"]["analysis_seed"] == 5
    assert seeded["groups"][0]["seed"] == 5
    assert seeded != _summary(runs)


def test_summarize_csv_with_non_numeric_values(tmp_path: Path) -> None:
    doc = _csv_summary(
        tmp_path,
        "model,task,ground_truth.f1\nA,x,0.9\nA,x,n/a\nA,x,\nB,x,0.5\nB,x,0.7\n,x,0.3\n",
        "model",
    )
    assert {g["group"]["model"]: g["n"] for g in doc["groups"]} == {"A": 1, "B": 2}
    reasons = doc["excluded"]["by_reason"]
    assert reasons["value null"] == {"count": 2, "lines": [3, 4]}
    assert reasons["missing model"] == {"count": 1, "lines": [7]}


def test_summarize_parquet_nested_fields(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    rows = [run_record(agent, task, 0, vals[0]) for (agent, task), vals in F1.items()]
    for row in rows:
        row["judge"] = {"status": "PASS", "total": 1.0}  # Parquet cannot store an empty struct
    path = tmp_path / "runs.parquet"
    pq.write_table(pa.Table.from_pylist(rows), path)
    doc = _summary(path)
    assert len(doc["groups"]) == 4
    assert doc["format"] == "parquet"


def test_measurement_failures_are_excluded_and_counted_per_group(tmp_path: Path) -> None:
    doc = _summary(write_faulty(tmp_path / "faulty.jsonl"), group_by=("agent",))
    by_group = {g["group"]["agent"]: g for g in doc["groups"]}
    # The failure rows are not zeros: the means are those of the measured rows only.
    assert by_group["llm"]["n"] == 4 and by_group["llm"]["mean"]["value"] == 0.75
    assert by_group["rule"]["n"] == 4 and by_group["rule"]["mean"]["value"] == 0.75
    assert by_group["llm"]["excluded"] == {
        "count": 4,
        "by_reason": {
            "measurement failure": {
                "count": 3,
                "lines": [9, 10, 11],
                "details": {
                    "infra_error: 503": 1,
                    "status INVALID": 1,
                    "termination infra_error": 1,
                },
            },
            "value null": {"count": 1, "lines": [12]},
        },
    }
    assert by_group["rule"]["excluded"]["by_reason"]["measurement failure"]["lines"] == [13]
    # A group with no measured row is listed with its exclusions, never scored.
    assert doc["groups_without_values"] == [
        {
            "group": {"agent": "ghost"},
            "excluded": {
                "count": 1,
                "by_reason": {
                    "measurement failure": {"count": 1, "lines": [14], "details": {"unscored": 1}}
                },
            },
        }
    ]
    assert doc["rows"] == {"read": 14, "used": 8, "excluded": 6}


def test_csv_status_column_beside_the_value_marks_a_failure(tmp_path: Path) -> None:
    doc = _csv_summary(
        tmp_path,
        "agent,ground_truth.f1,ground_truth.status\na,1.0,PASS\na,0.0,unknown\na,0.5,FAIL\n",
        "agent",
    )
    assert doc["groups"][0]["n"] == 2 and doc["groups"][0]["mean"]["value"] == 0.75
    assert doc["excluded"]["by_reason"]["measurement failure"]["lines"] == [3]


def test_compare_pairs_and_counts_incomplete(runs: Path) -> None:
    doc = build_comparison(ComparisonRequest(
        source=str(runs), group="agent", a="rule", bs=("llm",), values=("ground_truth.f1",),
        pair_by=("task", "seed"),
    ))
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


def test_a_negative_zero_is_read_as_zero(tmp_path: Path) -> None:
    # `-0` in a CSV cell or a JSON number is the score 0: the worst case and CVaR of a group
    # holding it were -0.0, printed "-0.000" and written -0.0, as if a run scored below 0.
    doc = _csv_summary(tmp_path, "model,ground_truth.f1\nA,-0\nA,1\nB,-0.0\n", "model")
    for group in doc["groups"]:
        for name in ("worst", "cvar", "mean"):
            assert str(group[name]["value"])[0] != "-", (group["group"], name, group[name])
    (tmp_path / "r.jsonl").write_text('{"m": "A", "v": -0.0}\n', encoding="utf-8")
    doc = build_summary(SummaryRequest(source=str(tmp_path / "r.jsonl"), value="v",
                                       group_by=("m",)))
    assert str(doc["groups"][0]["worst"]["value"]) == "0.0"


def test_a_groups_numbers_do_not_depend_on_the_order_of_its_rows(tmp_path: Path) -> None:
    # The same six runs in three orders: numpy's mean of them is 0.5229999999999999, 0.523 or
    # 0.5230000000000001 by order, so the groups were ranked 1, 2, 3 by a mean printed 0.523
    # for each, with three different bootstrap intervals.
    orders = {"a": (0.758, 0.421, 0.511, 0.405, 0.784, 0.259),
              "b": (0.758, 0.421, 0.259, 0.511, 0.405, 0.784),
              "c": (0.758, 0.421, 0.259, 0.511, 0.784, 0.405)}
    assert len({sum(v) for v in orders.values()}) > 1  # the float sums differ by order
    text = "".join(f"{g},{v}\n" for g, vs in orders.items() for v in vs)
    doc = _csv_summary(tmp_path, "model,ground_truth.f1\n" + text, "model")
    assert [g["rank_mean"] for g in doc["groups"]] == [1, 1, 1]
    for name in ("mean", "cvar", "worst", "reliability", "gap"):
        assert len({json.dumps(g[name], sort_keys=True) for g in doc["groups"]}) == 1, name


def test_a_termination_in_capitals_is_a_measurement_failure_too(tmp_path: Path) -> None:
    # The status beside a value is compared case-insensitively; the termination must be too,
    # or `INFRA_ERROR` (a hand-written table) would be scored as the agent's 0.
    path = tmp_path / "caps.jsonl"
    rows = [{"agent": "a", "ground_truth": {"f1": 1.0}, "termination": "submitted"},
            {"agent": "a", "ground_truth": {"f1": 0.0}, "termination": " INFRA_ERROR "},
            {"agent": "a", "ground_truth": {"f1": 0.0}, "termination": "Cancelled"}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    (group,) = _summary(path, group_by=("agent",))["groups"]
    assert group["n"] == 1 and group["mean"]["value"] == 1.0
    assert group["excluded"]["by_reason"]["measurement failure"]["details"] == {
        "termination cancelled": 1, "termination infra_error": 1}


@pytest.mark.parametrize("extra", [
    "b,0,0.0,infra_error\n",  # a failed attempt beside seed 0's scored row in B
    "b,0,,submitted\n",  # a null beside it
])
def test_a_second_row_for_a_pair_is_refused_when_either_is_excluded(tmp_path: Path,
                                                                    extra: str) -> None:
    # The excluded row had been dropped and the pair counted complete ("8 complete, 0 dropped
    # because a row was excluded") beside a row of the same key: which is the pair's value?
    rows = "".join(f"{g},{s},{v},submitted\n" for s in range(8) for g, v in (("a", 0.5),
                                                                               ("b", 0.6)))
    path = tmp_path / "dup.csv"
    path.write_text("agent,seed,score,termination\n" + rows + extra, encoding="utf-8")
    with pytest.raises(TableError, match=r"^line 18: a second row for pair 0 in one group "
                       r"\(the first is line 3\); add columns to --pair-by"):
        build_comparison(ComparisonRequest(source=str(path), group="agent", a="a", bs=("b",),
                                           values=("score",), pair_by=("seed",)))
