"""Equivalence labels against a margin: closed-interval edges, the flags beside the label.

Spec (docs/stats.md, "Paired comparisons"): `equivalent` if the 90% interval lies inside
[-m, m] (ends inclusive), otherwise `different` if the 95% interval excludes 0, otherwise
`inconclusive`. An interval that ends exactly at 0 contains 0.
"""

from __future__ import annotations

import numpy as np
import pytest

from agentmetrology import stats


@pytest.mark.parametrize(
    ("ci90", "ci95", "label"),
    [
        ((-0.05, 0.2), (0.0, 0.25), "inconclusive"),  # 95% ends at 0: 0 is inside
        ((-0.3, 0.05), (-0.35, 0.0), "inconclusive"),
        ((-0.2, 0.05), (-0.25, 0.1), "inconclusive"),  # only the upper end is inside [-m, m]
        ((-0.05, 0.2), (-0.01, 0.25), "inconclusive"),  # only the lower end is inside
        ((-0.1, -0.1), (-0.1, -0.1), "equivalent"),  # both ends on the margin
        ((0.1, 0.1), (0.1, 0.1), "equivalent"),
        ((0.15, 0.3), (1e-12, 0.35), "different"),
    ],
)
def test_label_edges(ci90: tuple[float, float], ci95: tuple[float, float], label: str) -> None:
    assert stats.equivalence_label(ci90, ci95, 0.1) == label


def _constant(difference: float, n: int = 8) -> stats.EquivalenceResult:
    """Return the equivalence of pairs whose every difference b - a is `difference`."""
    a = np.full(n, 0.5)
    return stats.equivalence(a, a + difference, margin=0.125)


@pytest.mark.parametrize(
    ("difference", "label", "excludes_zero", "within_margin"),
    [
        (0.125, "equivalent", True, True),  # every resample's mean is the margin itself
        (-0.125, "equivalent", True, True),
        (0.0, "equivalent", False, True),  # an interval [0, 0] does not exclude 0
        (0.25, "different", True, False),
        (-0.25, "different", True, False),
    ],
)
def test_constant_differences_sit_exactly_on_the_edges(
    difference: float, label: str, excludes_zero: bool, within_margin: bool
) -> None:
    result = _constant(difference)
    assert result.interval == result.interval90 == (difference, difference)
    assert (result.label, result.excludes_zero, result.within_margin) == (
        label, excludes_zero, within_margin)


def test_flags_of_an_interval_straddling_zero_and_the_lower_margin() -> None:
    # One large loss among zeros: the 90% interval reaches below -m, its upper end is 0.
    a = np.zeros(10)
    b = np.array([-0.6] + [0.0] * 9)
    result = stats.equivalence(a, b, margin=0.1, seed=0)
    assert result.interval90[0] < -0.1 and result.interval90[1] == 0.0
    assert (result.label, result.excludes_zero, result.within_margin) == (
        "inconclusive", False, False)
    # Spread on both sides of 0, upper end below 1: 0 is inside the 95% interval.
    mixed = stats.equivalence(a, np.linspace(-0.5, 0.5, 10), margin=0.1, seed=0)
    assert mixed.interval[0] < 0.0 < mixed.interval[1] < 1.0
    assert (mixed.label, mixed.excludes_zero, mixed.within_margin) == (
        "inconclusive", False, False)


def test_record_names_its_unit_and_defaults() -> None:
    a, b = np.linspace(0.0, 1.0, 12), np.linspace(0.05, 0.9, 12)
    pairs = stats.equivalence(a, b, resamples=20)
    assert pairs == stats.equivalence(a, b, margin=0.1, resamples=20, seed=0)
    assert pairs.interval != stats.equivalence(a, b, resamples=20, seed=1).interval
    assert pairs.method == "bootstrap equivalence over pairs: 90% in [-m, m] else 95% excludes 0"
    assert (pairs.n, pairs.margin, pairs.seed, pairs.resamples) == (12, 0.1, 0, 20)
    clustered = stats.equivalence(a, b, clusters=np.arange(12) // 3, resamples=20)
    assert clustered.method == (
        "bootstrap equivalence over clusters: 90% in [-m, m] else 95% excludes 0")
    assert clustered.n == 4


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"margin": float("nan")}, "margin must be a finite number, got nan"),
        ({"margin": 0.0}, "margin must be > 0, got 0.0"),
        ({"margin": -0.1}, "margin must be > 0, got -0.1"),
        ({"resamples": 0}, "resamples must be an integer >= 1, got 0"),
    ],
)
def test_refusals_name_the_argument(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError) as info:
        stats.equivalence([0.1, 0.2], [0.2, 0.3], **kwargs)  # type: ignore[arg-type]
    assert str(info.value) == message
    with pytest.raises(ValueError, match=r"^margin must be a finite number, got inf$"):
        stats.equivalence_label((0.0, 0.0), (0.0, 0.0), float("inf"))


def test_below_the_minimum_the_label_is_withheld_whatever_the_interval_says() -> None:
    # One pair, or five, with every difference alike: the bootstrap interval collapses onto
    # them and "excludes 0", while no exact sign-flip test on so few can reach p < 0.05
    # (least p 2 / 2**n: 0.0625 at n = 5). `agm stats compare` once labelled one pair
    # `different` beside its own sign-flip p of 1.0.
    from agentmetrology.stats.equivalence import INSUFFICIENT, SIGN_FLIP_MINIMUM

    assert SIGN_FLIP_MINIMUM == 6 and 2 / 2**5 > 0.05 > 2 / 2**6
    for n in (3, 5):
        r = stats.equivalence(np.zeros(n), np.ones(n), minimum=SIGN_FLIP_MINIMUM)
        assert r.label == INSUFFICIENT and r.excludes_zero and r.n == n
        assert r.method.endswith("; insufficient evidence below 6 pairs")
        assert stats.equivalence(np.zeros(n), np.ones(n)).label == "different"  # no minimum
    # Below 3 pairs there is no interval to read at all, minimum or not (stats.bootstrap).
    one = stats.equivalence(np.zeros(1), np.ones(1))
    assert (one.label, one.interval, one.excludes_zero) == (INSUFFICIENT, None, None)
    six = stats.equivalence(np.zeros(6), np.ones(6), minimum=SIGN_FLIP_MINIMUM)
    assert six.label == "different" and stats.sign_flip_test(
        np.zeros(6), np.ones(6)).p_value == pytest.approx(2 / 2**6)
    clustered = stats.equivalence(np.zeros(10), np.ones(10), clusters=[0, 0, 1, 1, 2, 2, 3, 3,
                                                                         4, 4],
                                  minimum=SIGN_FLIP_MINIMUM)
    assert clustered.label == INSUFFICIENT and clustered.n == 5  # units are the clusters
