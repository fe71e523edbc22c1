"""Result records as plain data: booleans stay booleans, undefined numbers become None, and an
overflowed statistic is named by its dotted path (nested records and dicts too) and refused."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from agentmetrology import stats
from agentmetrology.stats.results import check_finite_record, non_finite_fields, plain


def test_plain_keeps_types_json_can_hold() -> None:
    assert plain(True) is True and plain(np.bool_(False)) is False
    assert plain(np.int64(3)) == 3 and type(plain(np.int64(3))) is int
    assert plain({1: [np.float32(0.5), math.nan, (math.inf, -1)]}) == {"1": [0.5, None,
                                                                           [None, -1]]}
    holm = stats.holm([0.01, 0.5]).to_dict()
    assert holm["rejected"] == [True, False]
    json.dumps(holm, allow_nan=False)


def _shares(**shares: float) -> stats.VarianceShares:
    """Return a VarianceShares record with the given shares."""
    return stats.VarianceShares(value=1.0, shares=dict(shares), sums_of_squares={"a": 1.0},
                                df={"a": 1}, n=4)


def test_non_finite_fields_walk_dicts_and_keep_every_key_character() -> None:
    record = _shares(aX=math.inf, b=0.5, ab=math.nan)
    assert non_finite_fields(record) == ["shares.aX", "shares.ab"]
    assert non_finite_fields({"x.": {"y": [1.0, -math.inf]}}) == ["x..y.1"]
    assert non_finite_fields(_shares(a=0.5)) == []


def test_check_finite_record_message() -> None:
    check_finite_record(_shares(a=0.5), "eta")  # a finite record passes
    with pytest.raises(ValueError) as info:
        check_finite_record(_shares(a=0.5, b=math.inf), "eta")
    assert str(info.value) == (
        "eta: statistic shares.b is not finite (the values are too large in magnitude for "
        "float64 arithmetic); rescale the values"
    )
