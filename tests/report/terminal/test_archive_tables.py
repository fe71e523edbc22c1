"""The archive audit's summary table: what it shows of pass^k."""

from __future__ import annotations

from agentmetrology.report.terminal.archive_tables import shown_k_rows


def _rows(n: int) -> list[dict[str, object]]:
    return [{"k": k, "stored": 1 / k, "upper": 1.0} for k in range(1, n + 1)]


def test_summary_shows_powers_of_two_and_the_last_k() -> None:
    assert [r["k"] for r in shown_k_rows(_rows(100))] == [1, 2, 4, 8, 16, 32, 64, 100]
    assert [r["k"] for r in shown_k_rows(_rows(64))] == [1, 2, 4, 8, 16, 32, 64]
    assert [r["k"] for r in shown_k_rows(_rows(3))] == [1, 2, 3]
    assert shown_k_rows([]) == []
