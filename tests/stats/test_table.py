"""summarize_cell and reliability_table are their parts: every argument reaches every part.

docs/stats.md: the row shows the mean with its bootstrap CI, the worst case, CVaR with its
bootstrap CI (from the same resamples as the mean), Reliability@tau (value >= tau, inclusive)
with a Wilson interval, and the gap; ranks are competition ranks, 1 = best.
"""

from __future__ import annotations

import numpy as np
import pytest

from agentmetrology import stats

RUNS = [1, 1, 1, 1, 0, 0.81, 1, 1, 0.81, 0.81]


def _expected(values: list[float], tau: float, alpha: float, confidence: float,
              resamples: int, seed: int) -> stats.CellSummary:
    """Return the summary assembled from the per-cell functions called one by one."""
    x = np.asarray(values, dtype=float)
    k = int(np.count_nonzero(x >= tau))
    same = {"confidence": confidence, "resamples": resamples, "seed": seed}
    return stats.CellSummary(
        n=x.size,
        mean=stats.bootstrap_ci(x, "mean", **same),
        worst=stats.worst(x),
        cvar=stats.bootstrap_ci(x, "cvar", alpha=alpha, **same),
        reliability=stats.Estimate(
            value=k / x.size, interval=stats.wilson(k, x.size, confidence).interval,
            n=x.size, method=f"reliability@{tau:g} with wilson interval",
            confidence=confidence),
        gap=stats.reliability_gap(x),
        alpha=alpha, tau=tau, seed=seed)


def test_summary_is_its_parts() -> None:
    # tau = 0.81 sits exactly on three runs: they pass, so all runs but the 0 count.
    result = stats.summarize_cell(RUNS, tau=0.81, alpha=0.3, confidence=0.8, resamples=300,
                                  seed=6)
    assert result == _expected(RUNS, 0.81, 0.3, 0.8, 300, 6)
    assert result.reliability.value == 0.9
    assert result.cvar.method == "percentile bootstrap of cvar"
    assert result.cvar.value == pytest.approx(0.54, abs=1e-12)  # 3 lowest: (0 + 0.81 + 0.81) / 3


def test_summary_defaults() -> None:
    default = stats.summarize_cell(RUNS, resamples=30)
    assert default == _expected(RUNS, 0.9, 0.2, 0.95, 30, 0)
    assert default.mean.interval != stats.summarize_cell(RUNS, resamples=30, seed=1).mean.interval
    assert stats.summarize_cell(RUNS, tau=0, resamples=30).reliability.value == 1.0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"tau": 1.2}, "tau must be in [0, 1], got 1.2"),
        ({"alpha": 0}, "alpha must be in (0, 1], got 0"),
        ({"alpha": 2}, "alpha must be in (0, 1], got 2"),
    ],
)
def test_summary_refusals(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError) as info:
        stats.summarize_cell(RUNS, **kwargs)  # type: ignore[arg-type]
    assert str(info.value) == message
    with pytest.raises(ValueError) as info:
        stats.reliability_table({"g": RUNS}, **kwargs)  # type: ignore[arg-type]
    assert str(info.value) == message


def test_table_rows_are_the_summaries_of_their_groups() -> None:
    groups = {"zero": [0.0, 0.0, 0.0], "half": [0.5, 0.4, 0.6], ("x", "y"): [0.9, 1.0, 0.0]}
    kw = {"tau": 0.5, "alpha": 0.5, "confidence": 0.9, "resamples": 40, "seed": 3}
    rows = stats.reliability_table(groups, **kw)  # type: ignore[arg-type]
    assert [r.key for r in rows] == [("x", "y"), ("half",), ("zero",)]
    for row in rows:
        values = groups[row.key if len(row.key) > 1 else row.key[0]]
        assert row.summary == stats.summarize_cell(values, **kw)  # type: ignore[arg-type]
    # A mean or worst case of exactly 0 ranks last, not as a missing value.
    assert [(r.rank_mean, r.rank_worst) for r in rows] == [(1, 2), (2, 1), (3, 2)]


def test_table_defaults_and_refusal() -> None:
    groups = {"a": RUNS, "b": [0.2, 0.4, 0.9]}
    default = stats.reliability_table(groups, resamples=25)
    assert default == stats.reliability_table(groups, tau=0.9, alpha=0.2, confidence=0.95,
                                              resamples=25, seed=0)
    assert default != stats.reliability_table(groups, resamples=25, seed=1)
    with pytest.raises(ValueError) as info:
        stats.reliability_table({})
    assert str(info.value) == "groups must not be empty"


def test_means_equal_up_to_rounding_share_a_rank() -> None:
    # (0.1 + 0.2) / 2 is 0.15000000000000002 and (0.3 + 0) / 2 is 0.15: all three means are
    # 0.15 and tie at rank 1, then sort by the worst case.
    rows = stats.reliability_table({"a": [0.1, 0.2], "b": [0.15, 0.15], "c": [0.3, 0.0]})
    assert [(r.key, r.rank_mean, r.rank_worst) for r in rows] == [
        (("b",), 1, 1), (("a",), 1, 2), (("c",), 1, 3)]
    # A real difference far above rounding still ranks.
    rows = stats.reliability_table({"a": [0.15], "b": [0.1500001]})
    assert [(r.key, r.rank_mean) for r in rows] == [(("b",), 1), (("a",), 2)]
