"""Cliff's delta on pairs: the value by its definition, the interval seeded and around it."""

from agentmetrology.stats import cliffs_delta_paired

A = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]
B = [0.2, 0.1, 0.5, 0.6, 0.5, 0.9, 0.8, 0.9]


def test_value_is_the_share_of_wins_minus_losses() -> None:
    # differences b - a: 6 up, 1 down, 1 tie -> (6 - 1) / 8
    r = cliffs_delta_paired(A, B, seed=3)
    assert r.value == (6 - 1) / 8 == 0.625


def test_interval_is_seeded_contains_the_value_and_is_pinned() -> None:
    r = cliffs_delta_paired(A, B, seed=3)
    assert r.interval[0] <= r.value <= r.interval[1]
    assert cliffs_delta_paired(A, B, seed=3).interval == r.interval  # bit-identical
    # the 2.5% and 97.5% quantiles of 2,000 pair resamples (seed 3); steps of 1/8
    assert tuple(r.interval) == (0.125, 1.0)
    assert cliffs_delta_paired(A, A, seed=3).interval == (0.0, 0.0)  # no difference at all
