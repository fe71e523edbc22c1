"""Requests are checked once when they are made, and every refusal is a UserError."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentmetrology.records.errors import UserError
from agentmetrology.results import (
    ComparisonRequest,
    StatisticsRefused,
    SummaryRequest,
    TableError,
    build_comparison,
    build_summary,
)
from support.results_rows import write_runs


def _comparison(**changes: Any) -> ComparisonRequest:
    fields: dict[str, Any] = {
        "source": "runs.jsonl", "group": "agent", "a": "rule", "bs": ("llm",),
        "values": ("ground_truth.f1",), "pair_by": ("task", "seed"),
    }
    return ComparisonRequest(**{**fields, **changes})


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"resamples": 1_000_001}, "--resamples 1000001 is above the limit of 1,000,000"),
        ({"draws": 1_000_001}, "--draws 1000001 is above the limit of 1,000,000"),
        ({"factor": "agent"}, "--factor 'agent' must be one of the --pair-by columns (task, seed)"),
        ({"group": "agent,task"}, "--group for compare takes one column"),
        ({"bs": ()}, "--b needs column or group names, got []"),
        ({"pair_by": ("task", " ")}, "--pair-by needs column or group names"),
    ],
)
def test_a_comparison_request_is_checked_when_made(
    changes: dict[str, object], message: str
) -> None:
    with pytest.raises(TableError) as info:
        _comparison(**changes)
    assert message in str(info.value)


def test_a_comparison_request_holds_its_pair_key_columns_sorted_by_name() -> None:
    # The pairs are sorted by key, so the key's column order had chosen the bootstrap's draws.
    assert _comparison(pair_by=("task", "seed")).pair_by == ("seed", "task")
    assert _comparison(pair_by=("seed", "task")).spec("v", "llm").pair_by == ("seed", "task")


def test_a_summary_request_is_checked_when_made() -> None:
    with pytest.raises(TableError, match="--resamples 2000000 is above"):
        SummaryRequest(source="-", value="v", group_by=("g",), resamples=2_000_000)
    with pytest.raises(TableError, match="--group needs column or group names"):
        SummaryRequest(source="-", value="v", group_by=())


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"tau": 1.5}, "tau must be in"),
        ({"alpha": 0.0}, "alpha must be in"),
        ({"analysis_seed": -3}, "seed must be a non-negative integer, got -3"),
        ({"confidence": 2.0}, "confidence"),
    ],
)
def test_the_statistics_refusals_are_user_errors(
    tmp_path: Path, changes: dict[str, float], message: str
) -> None:
    runs = str(write_runs(tmp_path / "runs.jsonl"))
    request = SummaryRequest(source=runs, value="ground_truth.f1", group_by=("agent",), **changes)
    with pytest.raises(StatisticsRefused, match=message) as info:
        build_summary(request)
    assert isinstance(info.value, UserError)


def test_a_comparison_refusal_is_a_user_error(tmp_path: Path) -> None:
    runs = str(write_runs(tmp_path / "runs.jsonl"))
    with pytest.raises(StatisticsRefused, match="margin must be > 0"):
        build_comparison(_comparison(source=runs, margin=-1.0))
    with pytest.raises(TableError, match="--b group 'gpt' not found"):
        build_comparison(_comparison(source=runs, bs=("gpt",)))
