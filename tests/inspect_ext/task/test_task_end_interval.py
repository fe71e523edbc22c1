"""Why a scorer's bootstrap CI has no bounds, said for every count a finished log can hold.

`interval_lines` computed the measured count as scored_samples - ci_excluded and handed it to
stats.bootstrap.too_few_units, whose count of distinct resamples (math.comb) raises on 0 or a
negative count: a log whose every scored sample was excluded from the interval ended the
task-end hook in a ValueError. No sample left is too few, said with the counts.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

import pytest
from inspect_ai.log import EvalLog

from agentmetrology.inspect_ext.task.task_end import interval_lines


def _log(scored: int, excluded: int) -> EvalLog:
    metrics = {"ci_mean": SimpleNamespace(name="ci_mean", value=0.5),
               "ci_excluded": SimpleNamespace(name="ci_excluded", value=float(excluded))}
    score = SimpleNamespace(name="comtrade/ground_truth_f1", scored_samples=scored,
                            metrics=metrics)
    log: Any = SimpleNamespace(eval=SimpleNamespace(task="agentmetrology/comtrade"),
                               results=SimpleNamespace(scores=[score]))
    return cast(EvalLog, log)


@pytest.mark.parametrize(("scored", "excluded"), [(2, 2), (0, 0), (1, 3)])
def test_no_sample_left_is_too_few_never_an_error(scored: int, excluded: int) -> None:
    assert interval_lines(_log(scored, excluded)) == [
        "agentmetrology: comtrade/ground_truth_f1: ci_mean has no ci_low/ci_high, no "
        f"interval: no measured sample to resample ({scored} scored, {excluded} excluded from "
        "the interval), an interval needs at least 3 measured samples"]


def test_one_or_two_samples_still_say_their_resamples() -> None:
    assert interval_lines(_log(4, 2)) == [
        "agentmetrology: comtrade/ground_truth_f1: ci_mean has no ci_low/ci_high, no "
        "interval: 2 measured samples; a bootstrap over 2 measured samples has 3 distinct "
        "resamples, an interval needs at least 3 measured samples"]
    assert interval_lines(_log(5, 2)) == []
