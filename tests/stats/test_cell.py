"""Per-cell statistics: CVaR rule, reliability, gap, Wilson, the cell summary and table.

Per-cell estimates as whole records: the spec's reference runs, defaults, refusals by name.

The records are what `agm stats summarize --json` and evidence carry, so every field is pinned:
value, n, interval (None: nothing resampled), the method string that states the rule, seed.
"""

from __future__ import annotations

import json

import pytest

from agentmetrology import stats


def test_cvar_count_rounds_away_float_noise() -> None:
    assert 0.14 * 50 > 7  # the float product is 7.000000000000001
    assert stats.cvar_count(0.14, 50) == 7
    assert stats.cvar_count(0.2, 10) == 2
    assert stats.cvar_count(0.25, 10) == 3  # ceil(2.5)
    assert stats.cvar_count(0.01, 10) == 1  # never fewer than one run
    assert stats.cvar_count(1.0, 7) == 7


def test_cvar_takes_the_lowest_values_and_ties_do_not_matter() -> None:
    assert stats.cvar([5, 1, 3, 1, 9], alpha=0.4).value == 1.0
    assert stats.cvar([0.5, 0.2, 0.2, 0.9], alpha=0.75).value == pytest.approx(0.3)
    assert stats.cvar([3, 1, 2], alpha=1.0).value == pytest.approx(2.0)


def test_reliability_is_inclusive_at_tau() -> None:
    assert stats.reliability_at([0.9, 0.89, 1.0, 0.5], tau=0.9).value == 0.5
    assert stats.reliability_at([0.9, 0.89, 1.0, 0.5], tau=0.95).value == 0.25


def test_reliability_gap_static_versus_hardest() -> None:
    assert stats.reliability_gap([0.8, 1.0], hardest=[0.3, 0.7]).value == pytest.approx(0.6)


def test_wilson_edges() -> None:
    zero = stats.wilson(0, 10)
    full = stats.wilson(10, 10)
    assert zero.interval is not None and zero.interval[0] == 0.0
    assert full.interval is not None and full.interval[1] == 1.0
    assert stats.wilson(5, 10, confidence=0.99).interval != stats.wilson(5, 10).interval


def test_summarize_cell_fields() -> None:
    s = stats.summarize_cell([1, 1, 1, 1, 0, 0.81, 1, 1, 0.81, 0.81], seed=3)
    assert s.n == 10
    assert s.mean.value == pytest.approx(0.843)
    assert s.cvar.value == pytest.approx(0.405)
    assert s.reliability.value == pytest.approx(0.6)
    assert s.gap.value == pytest.approx(0.843)
    assert s.mean.interval is not None and s.mean.interval[0] <= 0.843 <= s.mean.interval[1]
    json.dumps(s.to_dict(), allow_nan=False)


def test_reliability_table_sorts_by_mean_and_shows_worst_rank() -> None:
    groups = {
        ("steady",): [0.7, 0.7, 0.7, 0.7],
        ("spiky",): [1.0, 1.0, 1.0, 0.0],  # best mean, worst floor
        ("weak",): [0.5, 0.5, 0.6, 0.4],
    }
    rows = stats.reliability_table(groups)
    assert [r.key for r in rows] == [("spiky",), ("steady",), ("weak",)]
    assert [r.rank_mean for r in rows] == [1, 2, 3]
    assert [r.rank_worst for r in rows] == [3, 1, 2]


def test_reliability_table_ties_share_rank_and_groups_are_independent() -> None:
    rows = stats.reliability_table({"x": [0.5, 0.5], "y": [0.5, 0.5], "z": [0.1, 0.2]})
    assert [r.rank_mean for r in rows] == [1, 1, 3]
    alone = stats.reliability_table({"z": [0.1, 0.2]})
    # Each group restarts the seeded stream: its interval does not depend on other groups.
    assert alone[0].summary.mean.interval == rows[2].summary.mean.interval


def test_records_serialise_without_nan() -> None:
    record = stats.agreement(["a", "a"], ["a", "a"])  # kappa undefined
    data = record.to_dict()
    assert data["value"] is None
    json.dumps(data, allow_nan=False)
    estimate = stats.Estimate(value=float("nan"), interval=(float("-inf"), 1.0), n=1, method="x")
    assert estimate.to_dict()["value"] is None
    assert estimate.to_dict()["interval"] == [None, 1.0]


def test_estimates_are_frozen() -> None:
    est = stats.mean([1.0, 2.0])
    with pytest.raises(AttributeError):
        est.value = 3.0  # type: ignore[misc]


RUNS_B = [1, 1, 1, 1, 0, 0.81, 1, 1, 0.81, 0.81]  # docs/stats.md, "Reference values", second row


def _record(value: float, method: str, n: int = 10) -> dict[str, object]:
    """Return the to_dict() of an unresampled Estimate."""
    return {"value": value, "interval": None, "n": n, "method": method, "seed": None,
            "confidence": None, "resamples": None}


def test_mean_and_worst_records() -> None:
    assert stats.mean(RUNS_B).to_dict() == _record(pytest.approx(0.843, abs=1e-12), "mean")
    assert stats.worst(RUNS_B).to_dict() == _record(0.0, "worst (minimum)")
    assert stats.mean([2.0, 4.0, 9.0]).n == 3


def test_cvar_record_states_k_of_n_and_defaults_to_alpha_02() -> None:
    # n = 10, alpha = 0.2: the 2 lowest runs, 0 and 0.81, mean 0.405.
    expected = _record(pytest.approx(0.405, abs=1e-12), "cvar@0.2: mean of worst 2 of 10")
    assert stats.cvar(RUNS_B).to_dict() == expected
    # alpha = 0.25 of 10: ceil(2.5) = 3 runs, 0, 0.81, 0.81.
    three = stats.cvar(RUNS_B, alpha=0.25)
    assert three.method == "cvar@0.25: mean of worst 3 of 10"
    assert three.value == pytest.approx(1.62 / 3, abs=1e-12)
    assert stats.cvar([4.0, 1.0, 3.0], alpha=1.0).method == "cvar@1: mean of worst 3 of 3"


def test_reliability_record_and_default_tau_09() -> None:
    expected = _record(pytest.approx(0.6, abs=1e-12), "reliability@0.9: fraction of runs >= 0.9")
    assert stats.reliability_at(RUNS_B).to_dict() == expected
    half = stats.reliability_at(RUNS_B, tau=0.5)  # the spec's second tau: 0.81 passes too
    assert (half.value, half.method) == (0.9, "reliability@0.5: fraction of runs >= 0.5")
    assert stats.reliability_at(RUNS_B, tau=0).value == 1.0  # tau = 0 is allowed: all pass
    assert stats.reliability_at(RUNS_B, tau=1).value == 0.6  # a run exactly at tau passes


def test_reliability_gap_records_name_their_form() -> None:
    one = stats.reliability_gap(RUNS_B)
    assert one.to_dict() == _record(pytest.approx(0.843, abs=1e-12), "mean - worst")
    # n counts the static runs, whatever the number of runs at the hardest level.
    two = stats.reliability_gap([0.8, 1.0, 0.9], hardest=[0.3, 0.7])
    assert two.to_dict() == _record(
        pytest.approx(0.6, abs=1e-12), "mean(static) - worst(hardest level)", n=3
    )


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: stats.cvar(RUNS_B, alpha=0), "alpha must be in (0, 1], got 0"),
        (lambda: stats.cvar(RUNS_B, alpha=1.5), "alpha must be in (0, 1], got 1.5"),
        (lambda: stats.reliability_at(RUNS_B, tau=1.01), "tau must be in [0, 1], got 1.01"),
        (lambda: stats.reliability_at(RUNS_B, tau=-0.1), "tau must be in [0, 1], got -0.1"),
        (lambda: stats.mean([]), "values must not be empty"),
        (lambda: stats.worst([1.0, float("inf")]), "values must be finite; values[1] is inf"),
        (lambda: stats.reliability_gap([]), "static must not be empty"),
        (lambda: stats.reliability_gap([1.0], hardest=[]), "hardest must not be empty"),
        (
            lambda: stats.reliability_gap([float("nan")], hardest=[1.0]),
            "static must be finite; static[0] is nan",
        ),
    ],
)
def test_refusals_name_the_argument(call: object, message: str) -> None:
    with pytest.raises(ValueError) as info:
        call()  # type: ignore[operator]
    assert str(info.value) == message
