"""The reliability metrics on hand-computed scores, and on an Inspect task that is not ours."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import SampleScore, Score, match

from agentmetrology import stats
from agentmetrology.inspect_ext.task.metrics import bootstrap_ci, cvar, reliability, worst_case
from agentmetrology.inspect_ext.task.values import as_number, numbers

# 1.0, 0.0, 0.5 and "C" (= 1.0) are measurements; NaN (Inspect's unscored) and a dict are not.
VALUES: list[object] = [1.0, 0.0, 0.5, "C", float("nan"), {"a": 1}]
KEPT = [1.0, 0.0, 0.5, 1.0]


def _scores(values: list[object]) -> list[SampleScore]:
    return [SampleScore(score=Score(value=v), sample_id=i)  # type: ignore[arg-type]
            for i, v in enumerate(values)]


def test_values_exclude_what_is_not_a_measurement() -> None:
    got = numbers(VALUES)
    assert got.values == tuple(KEPT) and got.excluded == 2
    assert [as_number(v) for v in ("I", "P", "N", "0.25", "x", [1], True, float("inf"))] == \
        [0.0, 0.5, 0.0, 0.25, None, None, 1.0, None]


def test_hand_computed_values_and_excluded_counts() -> None:
    scores = _scores(VALUES)
    assert worst_case()(scores) == {"worst": 0.0, "worst_excluded": 2}
    # CVaR@0.5 of four values: the mean of the worst ceil(0.5 * 4) = 2, (0.0 + 0.5) / 2.
    assert cvar(0.5)(scores) == {"cvar": 0.25, "cvar_excluded": 2}
    assert cvar(0.2)(scores) == {"cvar": 0.0, "cvar_excluded": 2}  # worst ceil(0.8) = 1
    assert reliability(0.9)(scores) == {"reliability": 0.5, "reliability_excluded": 2}
    assert reliability(0.5)(scores) == {"reliability": 0.75, "reliability_excluded": 2}
    ci = bootstrap_ci(seed=7)(scores)
    est = stats.bootstrap_ci(KEPT, "mean", seed=7)
    assert est.interval is not None
    assert ci == {"ci_mean": 0.625, "ci_low": est.interval[0], "ci_high": est.interval[1],
                  "ci_excluded": 2}
    assert bootstrap_ci(seed=7)(scores) == ci  # seeded: bit-identical
    assert ci["ci_low"] < 0.625 < ci["ci_high"]  # type: ignore[operator]


def test_nothing_to_compute_is_absent_not_zero() -> None:
    only_unscored = _scores([float("nan")])
    assert worst_case()(only_unscored) == {"worst": None, "worst_excluded": 1}
    # Nothing reached the metric at all: it reports nothing (not an excluded count of 0,
    # which would read as "every sample measured").
    assert bootstrap_ci()([]) == {} and worst_case()([]) == {} and cvar(0.2)([]) == {}


def test_bad_parameters_are_refused_when_the_metric_is_built() -> None:
    with pytest.raises(ValueError, match="alpha"):
        cvar(0.0)
    with pytest.raises(ValueError, match="tau"):
        reliability(1.5)


def test_metrics_on_any_inspect_task(tmp_path: Path) -> None:
    answers = iter(["4", "5", "6", "nine"])

    def reply(*_: object) -> ModelOutput:
        out = ModelOutput.from_content("mockllm/model", next(answers))
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    task = Task(dataset=[Sample(input=f"{a}?", target=t) for a, t in
                         (("2+2", "4"), ("2+3", "5"), ("2+4", "7"), ("3+6", "9"))],
                scorer=match(), metrics=[worst_case(), cvar(0.5), reliability(1.0),
                                         bootstrap_ci(seed=0)])
    log = inspect_eval(task, model=get_model("mockllm/model", custom_outputs=reply),
                       log_dir=str(tmp_path), display="none", max_samples=1)[0]
    assert log.status == "success" and log.results is not None
    metrics = {k: m.value for k, m in log.results.scores[0].metrics.items()}
    est = stats.bootstrap_ci([1.0, 1.0, 0.0, 0.0], "mean", seed=0)
    assert est.interval is not None
    assert metrics == {"worst": 0.0, "worst_excluded": 0, "cvar": 0.0, "cvar_excluded": 0,
                       "reliability": 0.5, "reliability_excluded": 0, "ci_mean": 0.5,
                       "ci_low": est.interval[0], "ci_high": est.interval[1], "ci_excluded": 0}
    assert not any(math.isnan(v) for v in metrics.values())


def test_two_values_have_no_ci_bounds_never_the_values_themselves() -> None:
    # A bootstrap over 2 values has 3 distinct resamples (stats.bootstrap): the bounds were
    # the two values, [0.5, 1.0], as a 95% interval. Inspect leaves None out of the log.
    assert bootstrap_ci(seed=0)(_scores([0.5, 1.0])) == {
        "ci_mean": 0.75, "ci_low": None, "ci_high": None, "ci_excluded": 0}
