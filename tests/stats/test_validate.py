"""Bad input raises ValueError naming the argument at fault.

Input checks: the message names the argument at fault, and labels get codes in sorted order
whatever their container (list or array, of ints, strings, floats or mixed types).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from agentmetrology import stats
from agentmetrology.stats.validate import as_binary, as_labels

CASES: list[tuple[Callable[[], Any], str]] = [
    (lambda: stats.mean([]), "values must not be empty"),
    (lambda: stats.mean([1.0, float("nan")]), r"values must be finite; values\[1\]"),
    (lambda: stats.mean([[1.0, 2.0]]), "values must be one-dimensional"),
    (lambda: stats.mean(["x"]), "values must be numeric"),
    (lambda: stats.cvar([1.0], alpha=0.0), r"alpha must be in \(0, 1\]"),
    (lambda: stats.cvar([1.0], alpha=1.5), "alpha"),
    (lambda: stats.reliability_at([1.0], tau=-0.1), r"tau must be in \[0, 1\]"),
    (lambda: stats.reliability_at([1.0], tau=float("nan")), "tau"),
    (lambda: stats.bootstrap_ci([1.0, 2.0], confidence=1.0), "confidence"),
    (lambda: stats.bootstrap_ci([1.0, 2.0], resamples=0), "resamples"),
    (lambda: stats.bootstrap_ci([1.0, 2.0], seed=-1), "seed"),
    (lambda: stats.bootstrap_ci([1.0, 2.0], seed=1.5), "seed"),  # type: ignore[arg-type]
    (lambda: stats.bootstrap_ci([1.0, 2.0], "median"), "statistic"),
    (lambda: stats.paired_bootstrap([1.0, 2.0], [1.0]), "a and b must have the same length"),
    (lambda: stats.sign_flip_test([1.0], [np.inf]), "b must be finite"),
    (lambda: stats.sign_flip_test([1.0], [2.0], exact_limit=30), "exact_limit"),
    (lambda: stats.sign_flip_test([1.0], [2.0], draws=0), "draws"),
    (lambda: stats.wilson(5, 3), "k must be <= n"),
    (lambda: stats.wilson(1, 0), "n must be"),
    (lambda: stats.sign_test(-1, 2), "n_up"),
    (lambda: stats.mcnemar(1, -2), "n10"),
    (lambda: stats.holm([]), "p_values must not be empty"),
    (lambda: stats.holm([0.2, 1.2]), r"p_values must all lie in \[0, 1\]"),
    (lambda: stats.holm([0.2], alpha=0), "alpha"),
    (lambda: stats.equivalence([1.0], [1.0], margin=0), "margin must be > 0"),
    (lambda: stats.flips([0, 1, 2], [0, 1, 1]), "a must contain only 0/1"),
    (lambda: stats.flips([0, 1], [0]), "a and b must have the same length"),
    (lambda: stats.cluster_bootstrap([1.0, 2.0], ["a"]), "clusters must have one label"),
    (lambda: stats.cluster_bootstrap([1.0, 2.0], ["a", None]), "clusters must not contain"),
    (lambda: stats.agreement([], []), "rater_a must not be empty"),
    (lambda: stats.agreement([1], [1, 2]), "rater_a and rater_b"),
    (lambda: stats.paired_power(0.5, 0.0, 10), "sd must be > 0"),
    (lambda: stats.paired_power(0.5, 1.0, 1), "n must be an integer >= 2"),
    (lambda: stats.paired_power(0.5, 1.0, 10, alpha=1.0), "alpha"),
    (lambda: stats.paired_power(0.5, 1.0, 10, test="z"), "test must be one of"),
    (lambda: stats.paired_power(float("inf"), 1.0, 10), "effect"),
    (lambda: stats.eta_squared(np.zeros((3, 2))), "table must be 3-D"),
    (lambda: stats.eta_squared(np.zeros((1, 2, 2))), "table needs >= 2 tasks"),
    (lambda: stats.reversals([1.0, 2.0], [1.0]), "before and after"),
    (lambda: stats.reliability_table({}), "groups must not be empty"),
    (lambda: stats.compare_paired([1.0], [1.0], tau=2.0), "tau"),
]


@pytest.mark.parametrize(("call", "message"), CASES)
def test_validation_messages_name_the_argument(call: Callable[[], Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: stats.flips(["x"], [1]), "a must be numeric: could not convert string to "
                                          "float: 'x'"),
        (lambda: stats.flips([1], []), "b must not be empty"),
        (lambda: stats.paired_bootstrap([], [1.0]), "a must not be empty"),
        (lambda: stats.paired_bootstrap([1.0], [np.nan]), "b must be finite; b[0] is nan"),
        (lambda: stats.equivalence([1.0], [1.0], margin="x"),  # type: ignore[arg-type]
         "margin must be a finite number, got 'x'"),
        (lambda: stats.equivalence([1.0], [1.0], margin=True),
         "margin must be a finite number, got True"),
        (lambda: stats.cluster_bootstrap([1.0, 2.0], np.array([1])),
         "clusters must have one label per value: got 1, need 2"),
        (lambda: stats.cluster_bootstrap([1.0, 2.0], np.array([1.0, np.nan])),
         "clusters must not contain missing labels (None or NaN)"),
        (lambda: stats.cluster_bootstrap([1.0, 2.0], np.array([1.0, np.nan], np.float32)),
         "clusters must not contain missing labels (None or NaN)"),
        (lambda: stats.bootstrap_ci([1.0], confidence=0), "confidence must be in (0, 1), got 0"),
    ],
)
def test_messages_name_the_argument(call: Callable[[], Any], message: str) -> None:
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value) == message


def test_binary_values_are_integers() -> None:
    out = as_binary([True, 0.0, 1], "x")
    assert out.dtype == np.int64 and out.tolist() == [1, 0, 1]


@pytest.mark.parametrize(
    ("labels", "codes"),
    [
        ([10, 9, 10, 100, 2], [2, 1, 2, 3, 0]),  # numeric order, not string order
        (["b", "a", "b"], [1, 0, 1]),
        ([0.5, 1.5, 0.5], [0, 1, 0]),  # float labels are fine when not NaN
        ([True, False, True], [1, 0, 1]),
    ],
)
def test_codes_follow_sorted_label_order_for_lists_and_arrays(
    labels: list[Any], codes: list[int]
) -> None:
    assert as_labels(labels, "x", len(labels)).tolist() == codes
    assert as_labels(np.array(labels), "x", len(labels)).tolist() == codes


def test_mixed_label_types_sort_by_type_name_then_text() -> None:
    labels = [1, "f", 2.5, "b", "e", "a", "d", "c", 1]
    # float 2.5 < int 1 < str a..f
    assert as_labels(labels, "x", len(labels)).tolist() == [1, 7, 0, 3, 6, 2, 5, 4, 1]
    as_object = np.array(labels, dtype=object)
    assert as_labels(as_object, "x", len(labels)).tolist() == [1, 7, 0, 3, 6, 2, 5, 4, 1]


@pytest.mark.parametrize(
    ("labels", "message"),
    [
        (np.array([[1], [2]]), "clusters must be one-dimensional, got shape (2, 1)"),
        (np.array([["a", "b"]]), "clusters must be one-dimensional, got shape (1, 2)"),
        ([[1], [2]], "clusters must hold hashable labels: unhashable type: 'list'"),
    ],
)
def test_labels_that_are_not_one_hashable_per_value_are_refused(
    labels: Any, message: str
) -> None:
    # These raised TypeError (a traceback) before; bad input is a ValueError naming the argument.
    with pytest.raises(ValueError) as info:
        stats.cluster_bootstrap([1.0, 2.0], labels)
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: stats.cvar([1.0], alpha=True), "alpha must be in (0, 1], got True"),
        (lambda: stats.reliability_at([1.0], tau="0.5"), "tau must be in [0, 1], got '0.5'"),
        (lambda: stats.reliability_at([1.0], tau=None), "tau must be in [0, 1], got None"),
        (lambda: stats.bootstrap_ci([1.0], confidence=np.float32(0.5)), None),
        (lambda: stats.cvar([1.0, 2.0], alpha=np.int64(1)), None),
    ],
)
def test_fractions_are_real_numbers_not_booleans_or_text(
    call: Callable[[], Any], message: str | None
) -> None:
    if message is None:  # numpy scalars are numbers
        call()
        return
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value) == message
