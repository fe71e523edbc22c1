"""Properties of the ground-truth F1 that the spec states: order-free, duplicates never help."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from agentmetrology.envs.comtrade.generator import generate_rows, totals_row
from agentmetrology.envs.comtrade.scoring.ground_truth import ground_truth_f1
from agentmetrology.envs.comtrade.tasks import get_task
from support.props import props

TASK, SEED = "T3_duplicates", 0
ROWS = generate_rows(TASK, SEED)
GENUINE = [json.dumps(r) for r in ROWS]
OTHER = [
    json.dumps(totals_row(get_task(TASK), 1, ROWS)),
    json.dumps({**ROWS[0], "record_id": f"{TASK}-999999"}),  # fabricated id
    json.dumps({**ROWS[1], "tradeValue": -1}),  # a genuine id with a wrong value
    json.dumps({"record_id": 7}),  # not a string id: unparsable
    "not json", "[1, 2]", '{"no_id": true}',
]
LINE = st.one_of(st.sampled_from(GENUINE), st.sampled_from(OTHER))
KEYS = ("f1", "recall", "precision", "matched", "lines", "duplicates", "totals_rows",
        "spurious", "unparsable")


def _score(lines: list[str]) -> dict[str, Any]:
    a = ground_truth_f1("\n".join(lines) + "\n", TASK, SEED)
    assert a.score == a.components["f1"]
    return dict(a.components)


@props(80)
@given(st.lists(LINE, min_size=1, max_size=40).flatmap(
    lambda ls: st.tuples(st.just(ls), st.permutations(ls))))
def test_permuting_lines_never_changes_f1(pair: tuple[list[str], list[str]]) -> None:
    lines, permuted = pair
    a, b = _score(lines), _score(permuted)
    assert {k: a[k] for k in KEYS} == {k: b[k] for k in KEYS}


@props(80)
@given(st.lists(LINE, min_size=1, max_size=40).flatmap(
    lambda ls: st.tuples(st.just(ls), st.lists(st.sampled_from(ls), min_size=1, max_size=10))))
def test_duplicate_lines_never_raise_recall_or_precision(
        pair: tuple[list[str], list[str]]) -> None:
    lines, repeats = pair
    base, dup = _score(lines), _score(lines + repeats)
    assert dup["recall"] == base["recall"]  # a repeated line adds no new id
    assert dup["precision"] <= base["precision"]
    assert dup["f1"] <= base["f1"]
    assert dup["lines"] == base["lines"] + len(repeats)


@props(60)
@given(st.lists(LINE, min_size=1, max_size=40))
def test_f1_is_the_harmonic_mean_of_its_counts(lines: list[str]) -> None:
    c = _score(lines)
    truth = len(ROWS)
    assert c["truth"] == truth
    assert c["recall"] == c["matched"] / truth
    assert c["precision"] == c["matched"] / len(lines)
    r, p = c["recall"], c["precision"]
    assert c["f1"] == (2 * r * p / (r + p) if c["matched"] else 0.0)
    assert 0.0 <= c["f1"] <= 1.0
    assert c["matched"] == len({s for s in lines if s in GENUINE} | (
        {GENUINE[1]} if OTHER[2] in lines else set()))
