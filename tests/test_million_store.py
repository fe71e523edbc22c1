"""benchmarks/million_store.py stops at the next --until time, past midnight too."""

from __future__ import annotations

import datetime as dt
from types import ModuleType

from bench_scripts import load


def _script() -> ModuleType:
    return load("million_store")


def test_until_is_the_next_such_time_from_the_start() -> None:
    deadline = _script()._deadline
    at = dt.datetime(2026, 12, 5, 23, 30, 15, tzinfo=dt.UTC)
    # before midnight, a time of the small hours is tomorrow's (it once stopped the build at once)
    assert deadline("01:40", at) == dt.datetime(2026, 12, 6, 1, 40, tzinfo=dt.UTC)
    assert deadline("23:45", at) == dt.datetime(2026, 12, 5, 23, 45, tzinfo=dt.UTC)
    assert deadline("23:30", at) == dt.datetime(2026, 12, 6, 23, 30, tzinfo=dt.UTC)
    assert deadline(None, at) is None
