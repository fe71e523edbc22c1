"""The reliability vocabulary as Inspect metrics, usable on any Inspect task's scores.

Each metric computes with `agentmetrology.stats` (never a formula of its own) and reports, beside
its value, how many scores it excluded as not measurements (`values.numbers`). Inspect itself
drops unscored samples (NaN, `Score.unscored`) before any metric runs and counts them as the
scorer's `unscored_samples`; a metric's `*_excluded` counts what reached it and still was not a
number (a dict or list value, an unknown string, a NaN when called on its own). With nothing
left to compute on, the value is absent (None), never 0; with nothing at all (every sample
unscored before the metric ran) the metric reports nothing rather than an excluded count of 0
that reads as "all measured" (Inspect then shows NaN), and the task-end report (task_end.py)
says in words that no sample was measured, and why.

    from agentmetrology.inspect_ext.task.metrics import worst_case, cvar, reliability, bootstrap_ci
    Task(..., scorer=match(), metrics=[accuracy(), worst_case(), cvar(0.2), reliability(0.9),
                                        bootstrap_ci(seed=0)])
"""

from __future__ import annotations

from collections.abc import Callable

from inspect_ai.scorer import Metric, SampleScore, Value, metric

from agentmetrology import stats
from agentmetrology.inspect_ext.task.values import Numbers, numbers


def _numbers(scores: list[SampleScore]) -> Numbers:
    return numbers(s.score.value for s in scores)


def _point(name: str, compute: Callable[[tuple[float, ...]], float | None]) -> Metric:
    """Return a metric reporting {name: value or None, name_excluded: count}."""

    def run(scores: list[SampleScore]) -> Value:
        got = _numbers(scores)
        if not got.values and not got.excluded:
            return {}
        value = compute(got.values) if got.values else None
        return {name: value, f"{name}_excluded": got.excluded}

    return run


@metric
def worst_case() -> Metric:
    """Return a metric: the minimum score over samples (stats.worst), with the excluded count."""
    return _point("worst", lambda v: stats.worst(v).value)


@metric
def cvar(alpha: float = 0.2) -> Metric:
    """Return a metric: CVaR@alpha, the mean of the worst ceil(alpha*n) scores (stats.cvar)."""
    stats.cvar([0.0], alpha)  # refuses a bad alpha when the task is built, not after the run
    return _point("cvar", lambda v: stats.cvar(v, alpha).value)


@metric
def reliability(tau: float = 0.9) -> Metric:
    """Return a metric: Reliability@tau, the fraction of scores >= tau (stats.reliability_at)."""
    stats.reliability_at([0.0], tau)
    return _point("reliability", lambda v: stats.reliability_at(v, tau).value)


@metric
def bootstrap_ci(confidence: float = 0.95, resamples: int = stats.DEFAULT_RESAMPLES,
                 seed: int = 0) -> Metric:
    """Return a metric: the mean with its seeded percentile-bootstrap CI (stats.bootstrap_ci);
    below 3 values `ci_low` and `ci_high` are None (Inspect leaves them out), never the
    values themselves as bounds, and the task-end hook says why."""
    stats.bootstrap_ci([0.0], confidence=confidence, resamples=1, seed=seed)

    def run(scores: list[SampleScore]) -> Value:
        got = _numbers(scores)
        if not got.values and not got.excluded:
            return {}
        out: dict[str, float | int | None] = {"ci_mean": None, "ci_low": None, "ci_high": None,
                                              "ci_excluded": got.excluded}
        if got.values:
            est = stats.bootstrap_ci(got.values, "mean", confidence=confidence,
                                     resamples=resamples, seed=seed)
            out["ci_mean"] = est.value
            if est.interval is not None:
                out["ci_low"], out["ci_high"] = est.interval
        return out

    return run
