"""The full paired comparison of B against A that `agm stats compare` reports."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .bootstrap import DEFAULT_RESAMPLES
from .cluster import Labels, resampling_name
from .equivalence import DEFAULT_MARGIN, equivalence
from .flips import flips
from .paired import DEFAULT_DRAWS, cliffs_delta_paired, mcnemar, paired_bootstrap, sign_flip_test
from .results import (
    EquivalenceResult,
    Estimate,
    FlipResult,
    Record,
    TestResult,
    check_finite_record,
)
from .rounding import at_least
from .validate import FloatArray, as_pair, check_fraction


@dataclass(frozen=True)
class PairedComparison(Record):
    """Difference b - a with CIs, sign-flip p, Cliff's delta, equivalence and flips."""

    n_pairs: int
    n_units: int
    unit: str
    difference: Estimate
    equivalence: EquivalenceResult
    sign_flip: TestResult
    cliffs_delta: Estimate
    flips: FlipResult
    mcnemar: TestResult
    tau: float
    seed: int


def _difference(
    a: FloatArray,
    b: FloatArray,
    equiv: EquivalenceResult,
    clusters: Labels | None,
    strata: Labels | None,
    confidence: float,
) -> Estimate:
    """Return mean(b - a) with its interval, reusing the equivalence bootstrap at 95%."""
    if confidence != 0.95:
        return paired_bootstrap(
            a,
            b,
            clusters=clusters,
            strata=strata,
            confidence=confidence,
            resamples=equiv.resamples,
            seed=equiv.seed,
        )
    # Same seed, same resamples: the equivalence's 95% interval is the paired bootstrap's.
    return Estimate(
        value=equiv.value,
        interval=equiv.interval,
        n=equiv.n,
        method=f"{resampling_name(clusters, strata)} of mean(b - a)",
        seed=equiv.seed,
        confidence=confidence,
        resamples=equiv.resamples,
        interval_note=equiv.interval_note,
    )


def compare_paired(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    *,
    clusters: Labels | None = None,
    strata: Labels | None = None,
    margin: float = DEFAULT_MARGIN,
    tau: float = 0.9,
    confidence: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES,
    draws: int = DEFAULT_DRAWS,
    seed: int = 0,
    minimum: int = 0,
) -> PairedComparison:
    """Return every paired statistic of b vs a; units are clusters when `clusters` is given.

    Flips and McNemar count pairs as pass/fail at value >= tau (for 0/1 outcomes, the outcome).
    Below `minimum` units the equivalence label is `insufficient evidence`; below
    MIN_UNITS pairs or clusters there are no bootstrap intervals either (`interval_note` says
    why).
    """
    x, y = as_pair(a, b)
    t = check_fraction(tau, "tau", allow_zero=True)
    equiv = equivalence(
        x, y, margin=margin, clusters=clusters, strata=strata, resamples=resamples, seed=seed,
        minimum=minimum,
    )
    diff = _difference(x, y, equiv, clusters, strata, confidence)
    delta = cliffs_delta_paired(
        x,
        y,
        clusters=clusters,
        strata=strata,
        confidence=confidence,
        resamples=resamples,
        seed=seed,
    )
    test = sign_flip_test(x, y, clusters=clusters, seed=seed, draws=draws)
    flip = flips(at_least(x, t).astype(np.int64), at_least(y, t).astype(np.int64))
    result = PairedComparison(
        n_pairs=x.size,
        n_units=diff.n,
        unit="pair" if clusters is None else "cluster",
        difference=diff,
        equivalence=equiv,
        sign_flip=test,
        cliffs_delta=delta,
        flips=flip,
        mcnemar=mcnemar(flip.n01, flip.n10),
        tau=t,
        seed=seed,
    )
    # An overflowing difference would otherwise reach JSON as null and the table as a dash.
    check_finite_record(result, "compare_paired")
    return result
