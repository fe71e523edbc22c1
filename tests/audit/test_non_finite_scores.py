"""A stored score or component that is not a finite number is no value, wherever it is read.

New stores never hold one (scoring/episode.py turns such a score into INVALID), but a store
written earlier, or edited, can: the auditor, the diagnostics and the experiment analysis each
exclude it as undecided instead of carrying NaN into a mean or raising in the bootstrap.
"""

from __future__ import annotations

from typing import Any

import pytest

from agentmetrology.audit.store_read import _shipped
from agentmetrology.audit.target import decided_truth
from agentmetrology.envs.registry import get_env
from agentmetrology.experiment.analyse import _value
from agentmetrology.records.numbers import finite_float

BAD = [float("nan"), float("inf"), float("-inf"), 10**400, True, "0.5", None, [1.0]]


@pytest.mark.parametrize("value", BAD)
def test_finite_float_refuses_what_is_no_finite_number(value: Any) -> None:
    assert finite_float(value) is None


@pytest.mark.parametrize(("value", "want"), [(0, 0.0), (1, 1.0), (0.25, 0.25), (-3, -3.0),
                                             (2**60, float(2**60))])
def test_finite_float_keeps_finite_numbers(value: Any, want: float) -> None:
    got = finite_float(value)
    assert got == want and type(got) is float


@pytest.mark.parametrize("value", BAD)
def test_the_auditor_reads_no_truth_and_no_shipped_score(value: Any) -> None:
    assert decided_truth("PASS", value, {}, None) is None
    assert decided_truth("PASS", 1.0, {"f1_exact": value}, "f1_exact") is None
    row = {"assessments": [{"scorer": "shape_judge", "score": value, "status": "PASS"}]}
    assert _shipped(row, get_env("comtrade")) is None


def test_the_auditor_still_reads_finite_values() -> None:
    assert decided_truth("FAIL", 0.5, {"f1_exact": 0.25}, "f1_exact") == 0.25
    row = {"assessments": [{"scorer": "shape_judge", "score": 64.8, "status": "PASS"}]}
    assert _shipped(row, get_env("comtrade")) == 64.8


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_the_experiment_analysis_counts_it_as_missing(value: Any) -> None:
    row = {"measurement_failure": False, "assessments": [
        {"scorer": "ground_truth_f1", "score": value, "status": "PASS",
         "assessment": {"components": {"recall": 1.0}}}]}
    assert _value(row, "ground_truth_f1", "f1") == (None, "no ground_truth_f1 score", 0)
    row["assessments"][0].update(score=1.0, assessment={"components": {"recall": value}})
    assert _value(row, "ground_truth_f1", "coverage") == (None, "no recall component", 0)
    assert _value(row, "ground_truth_f1", "f1") == (1.0, "", 1)
