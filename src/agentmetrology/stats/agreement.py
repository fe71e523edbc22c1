"""Agreement between two raters on the same items: raw agreement and Cohen's kappa."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from .results import AgreementResult
from .validate import as_labels


def agreement(
    rater_a: Sequence[Any] | npt.NDArray[Any], rater_b: Sequence[Any] | npt.NDArray[Any]
) -> AgreementResult:
    """Return raw agreement and Cohen's kappa of two raters' labels (any hashable labels)."""
    first = rater_a.tolist() if isinstance(rater_a, np.ndarray) else list(rater_a)
    second = rater_b.tolist() if isinstance(rater_b, np.ndarray) else list(rater_b)
    if not first:
        raise ValueError("rater_a must not be empty")
    if len(first) != len(second):
        raise ValueError(
            f"rater_a and rater_b must rate the same items, got {len(first)} and {len(second)}"
        )
    n = len(first)
    # One shared coding so that equal labels of the two raters get equal codes.
    codes = as_labels(first + second, "rater labels", 2 * n)
    ca, cb = codes[:n], codes[n:]
    k = int(codes.max()) + 1
    confusion = np.bincount(ca * k + cb, minlength=k * k).reshape(k, k) / n
    observed = float(np.trace(confusion))
    expected = float(confusion.sum(axis=1) @ confusion.sum(axis=0))
    # Kappa is 0/0 when both raters use one and the same label throughout: undefined, not 1.
    kappa = None if expected >= 1.0 else (observed - expected) / (1.0 - expected)
    return AgreementResult(
        value=kappa,
        raw_agreement=observed,
        expected_agreement=expected,
        n=n,
        categories=k,
    )
