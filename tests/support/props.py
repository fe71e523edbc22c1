"""Shared hypothesis settings and strategies for the property tests.

Runs are derandomized (the same examples every run, so a failure reproduces and CI never
flakes) and write no example database; each test bounds its own example count.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st


def props(examples: int) -> Any:
    """Return bounded, deterministic settings for one property test."""
    return settings(max_examples=examples, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])


# Keys that collide with canonical JSON's tags must round-trip as data, so they are favoured.
KEYS = st.one_of(st.sampled_from(["$float", "$literal", "a", "b", "record_id"]),
                 st.text(max_size=6))
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=8),
    st.sampled_from(["nan", "inf", "-inf"]))  # the tags' payloads, as plain strings


def json_like(scalars: st.SearchStrategy[Any] = SCALARS, leaves: int = 20) -> Any:
    """Return a strategy of nested JSON-like values (lists and string-keyed dicts)."""
    return st.recursive(
        scalars,
        lambda inner: st.one_of(st.lists(inner, max_size=4),
                                st.dictionaries(KEYS, inner, max_size=4)),
        max_leaves=leaves)


FINITE_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8))
