"""Bad input raises ValueError naming the argument at fault."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from agentmetrology import stats

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
