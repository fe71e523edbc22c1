"""The plan digest hashed row by row as the full check reads the bindings (store.verify_plan)
is `_plan_digest` of the campaign's rows held whole: for any rows, several campaigns read
interleaved, an empty campaign, a row json will not write alone (NaN: the rows are read again),
and a store whose bindings hold a tag-like key (read again, walked)."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agentmetrology.store.verify_plan import PlanDigests, _plan_digest, plan_row

_LEAF = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=8),
                  st.floats(allow_nan=False, allow_infinity=False))
_JSONISH = st.recursive(_LEAF, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)),
    max_leaves=8)
_BOUND = st.dictionaries(st.sampled_from(["key", "seed", "task_spec_digest", "profile",
                                          "environment", "scorer_versions", "note"]),
                         _JSONISH, max_size=6)
_NAMES = ["c1", "c2", "é3", "empty"]


def _digests(rows: list[tuple[str, dict[str, Any]]], tagged: bool) -> dict[str, str]:
    plans = PlanDigests(_NAMES)
    for name, bound in rows:
        plans.add(name, plan_row(bound))
    held = {n: [plan_row(b) for c, b in rows if c == n] for n in _NAMES}
    return {n: plans.digest(n, tagged, held.__getitem__) for n in _NAMES}


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_NAMES[:3]), _BOUND), max_size=12), st.booleans())
def test_the_streamed_plan_digest_is_the_held_one(rows: list[tuple[str, dict[str, Any]]],
                                                  tagged: bool) -> None:
    got = _digests(rows, tagged)
    for name in _NAMES:
        held = [plan_row(b) for c, b in rows if c == name]
        assert got[name] == _plan_digest(name, held, tagged), name


def test_a_row_json_will_not_write_takes_the_rows_again() -> None:
    rows = [("c1", {"profile": "seeded"}), ("c1", {"note": math.nan}), ("c2", {"note": 1})]
    got = _digests(rows, False)
    assert got["c1"] == _plan_digest("c1", [plan_row(b) for _, b in rows[:2]], False)
    assert got["c2"] == _plan_digest("c2", [plan_row(rows[2][1])], False)
    plans = PlanDigests(["c1"])
    plans.add("c1", plan_row({"note": math.nan}))
    assert plans.counts == {"c1": 1}
