"""Per-cell estimates as whole records: the spec's reference runs, defaults, refusals by name.

The records are what `agm stats summarize --json` and evidence carry, so every field is pinned:
value, n, interval (None: nothing resampled), the method string that states the rule, seed.
"""

from __future__ import annotations

import pytest

from agentmetrology import stats

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
