"""The summary under `agm run`'s table: the outcome scorer per agent x level, failures excluded
and counted, never scored."""

from __future__ import annotations

from agentmetrology.run.summary import score_path, summarize_run
from support.comtrade_runs import COMTRADE


def _row(agent: str, f1: float | None, failure: str | None = None) -> dict:
    return {"agent": agent, "level": "L2", "ground_truth": {"f1": f1},
            "measurement_failure": failure}


def test_the_outcome_score_is_the_one_the_table_shows() -> None:
    assert score_path(COMTRADE) == ("ground_truth", "f1")


def test_failures_and_unscored_rows_are_excluded_and_counted() -> None:
    rows = [_row("a", 1.0), _row("a", 0.5), _row("a", 1.0, "timeout"), _row("a", None),
            _row("b", None, "crash")]
    a, b = summarize_run(COMTRADE, rows)
    assert (a.agent, a.level, a.excluded) == ("a", "L2", 2)
    assert a.summary is not None
    assert (a.summary.n, a.summary.mean.value, a.summary.worst.value) == (2, 0.75, 0.5)
    assert (b.agent, b.summary, b.excluded) == ("b", None, 1)
