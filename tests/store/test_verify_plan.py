"""The plan digest hashed row by row as the full check reads the bindings (store.verify_plan)
is `_plan_digest` of the campaign's rows held whole: for any rows, several campaigns read
interleaved, an empty campaign, a row json will not write alone (NaN: the rows are read again),
and a store whose bindings hold a tag-like key (read again, walked)."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agentmetrology.store.verify_plan import PlanDigests, PlanGrids, _plan_digest, plan_row

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


def _grid(keys: list[tuple[str, str, str, int, str, int]]) -> PlanGrids:
    grids = PlanGrids(["c"])
    for target, level, task, seed, condition, repeat in keys:
        grids.add("c", {"target": target, "level": level, "task": task, "seed": seed,
                        "condition": condition, "repeat": repeat})
    return grids


_CONFIG = {"targets": [{"name": "rule"}, {"name": "careful"}], "tasks": ["T3", "T7"],
           "seeds": [0, 1], "conditions": ["clean"], "repeats": 1}
_FULL = [(t, lv, task, s, "clean", 0) for t, lv in (("rule", "L2"), ("careful", "L0"),
                                                    ("careful", "L2"))
         for task in ("T3", "T7") for s in (0, 1)]


def test_a_full_grid_has_no_gap_whatever_levels_its_targets_run_at() -> None:
    assert _grid(_FULL).gaps("c", len(_FULL), _CONFIG) == []
    assert _grid([]).gaps("c", 0, _CONFIG) == []
    # a served episode's configuration names no repeats: the fields it names are compared
    assert _grid(_FULL[:1]).gaps("c", 1, {"tasks": ["T3"], "seeds": [0], "repeat": 0}) == []


def test_a_cell_cut_out_of_the_plan_is_a_gap() -> None:
    """A target's failing administrations dropped, the planned count and plan digest redone."""
    cut = [k for k in _FULL if not (k[0] == "rule" and k[2] == "T7")]
    assert _grid(cut).gaps("c", len(cut), _CONFIG) == [
        "10 administrations sealed, but the plan crosses 3 target-level pair(s) x 2 task(s) "
        "x 2 seed(s) x 1 condition(s) x 1 repeat(s) = 12: administrations were cut out of "
        "the plan"]


def test_a_whole_seed_cut_out_disagrees_with_the_stored_configuration() -> None:
    cut = [k for k in _FULL if k[3] == 0]
    assert _grid(cut).gaps("c", len(cut), _CONFIG) == [
        "its stored configuration names seeds [0, 1], the sealed administrations have [0]"]
    assert _grid(cut).gaps("c", len(cut), None) == []  # an unreadable blob: named elsewhere
    renamed = {**_CONFIG, "targets": [{"name": "rule"}, {"name": "ghost"}]}
    assert _grid(_FULL).gaps("c", len(_FULL), renamed) == [
        "its stored configuration names targets [ghost, rule], the sealed administrations "
        "have [careful, rule]"]
