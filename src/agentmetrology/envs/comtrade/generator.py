"""The ComtradeBench generator card: rows and ground truth as a pure function of (task, seed).

Anyone can regenerate ground truth from the task id and seed with this construction
(docs/comtrade.md, "Profiles"): Python's Mersenne Twister seeded with the first 8 hex digits of
sha256("{task_id}:{reporter}:{partner}:{flow}:{hs}:{year}") — with ":{seed}" appended in the
`seeded` profile — and three `random()` draws per row.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Sequence
from functools import lru_cache
from itertools import repeat
from typing import Any

import numpy as np

from agentmetrology.envs.comtrade.tasks import ComtradeTask, Profile, get_task
from agentmetrology.runtime.rng import string_random, string_seed, string_uniforms

Row = dict[str, Any]
ROW_FIELDS: tuple[str, ...] = (
    "year", "reporter", "partner", "flow", "hs", "cmdCode",
    "tradeValue", "netWeight", "qty", "record_id",
)
# The key L0 and the rule baseline deduplicate by.
DEDUP_KEY: tuple[str, ...] = ("year", "reporter", "partner", "flow", "hs", "record_id")


def seed_string(task: ComtradeTask, seed: int | None, profile: Profile) -> str:
    """Return the string whose sha256 seeds the row generator for this task, seed and profile."""
    q = task.query
    base = f"{task.task_id}:{q.reporter}:{q.partner}:{q.flow}:{q.hs}:{q.year}"
    if profile == "legacy":
        return base  # the original release ignores the seed
    if seed is None:
        raise ValueError("the seeded profile needs an integer seed")
    return f"{base}:{seed}"


def generator_seed(task_id: str, seed: int | None, profile: Profile = "seeded") -> int:
    """Return the integer that seeds the row generator (the fingerprint the spec checks)."""
    return string_seed(seed_string(get_task(task_id), seed, profile))


@lru_cache(maxsize=32)
def record_ids(task_id: str) -> tuple[str, ...]:
    """Return the task's genuine record ids `{task_id}-{i:06d}` in row order (seed-free)."""
    return tuple(f"{task_id}-{i:06d}" for i in range(get_task(task_id).rows))


@lru_cache(maxsize=256)
def row_tuples(task_id: str, seed: int | None, profile: Profile) -> tuple[tuple[Any, ...], ...]:
    task = get_task(task_id)
    text = seed_string(task, seed, profile)
    # numpy's fixed cost per call outweighs the loop's per-row cost below a few hundred rows
    if task.rows < VECTOR_MIN_ROWS:
        return _rows_by_loop(task, text)
    return _rows_by_columns(task, text)


VECTOR_MIN_ROWS = 256
_SCALES = np.array([1e6, 5e4, 1e4])


def _rows_by_loop(task: ComtradeTask, text: str) -> tuple[tuple[Any, ...], ...]:
    """Return the rows from the card's Twister, three `random()` draws per row."""
    q = task.query
    rand = string_random(text).random
    out = []
    for rid in record_ids(task.task_id):
        u1, u2, u3 = rand(), rand(), rand()
        out.append((q.year, q.reporter, q.partner, q.flow, q.hs, q.hs,
                    int(u1 * 1e6), int(u2 * 5e4), int(u3 * 1e4), rid))
    return tuple(out)


def _rows_by_columns(task: ComtradeTask, text: str) -> tuple[tuple[Any, ...], ...]:
    """Return the same rows as `_rows_by_loop`, the draws and the scaling done by numpy."""
    q = task.query
    ids = record_ids(task.task_id)
    # Row i takes draws 3i, 3i+1, 3i+2 of the card's Twister (u1, u2, u3); the draws are
    # Python's random() bit for bit, and int() of a positive float truncates like astype.
    u = string_uniforms(text, 3 * len(ids)).reshape(-1, 3)
    value, weight, qty = (u * _SCALES).astype(np.int64).T.tolist()
    n = len(ids)
    return tuple(zip(repeat(q.year, n), repeat(q.reporter, n), repeat(q.partner, n),
                     repeat(q.flow, n), repeat(q.hs, n), repeat(q.hs, n),
                     value, weight, qty, ids, strict=True))


def row_dicts(tuples: Iterable[tuple[Any, ...]]) -> list[Row]:
    """Return one fresh row dict per generated tuple, its keys in ROW_FIELDS order."""
    # A dict display with constant keys builds a row about three times faster than
    # dict(zip(ROW_FIELDS, t)); the unpacking refuses a tuple that is not ten fields long.
    # tests/envs/comtrade/test_generator.py checks the keys against ROW_FIELDS.
    return [{"year": y, "reporter": r, "partner": p, "flow": f, "hs": h, "cmdCode": c,
             "tradeValue": v, "netWeight": w, "qty": q, "record_id": i}
            for y, r, p, f, h, c, v, w, q, i in tuples]


def generate_rows(task_id: str, seed: int | None, profile: Profile = "seeded") -> list[Row]:
    """Return fresh copies of the task's genuine rows for (task, seed, profile), in order."""
    return row_dicts(row_tuples(task_id, None if profile == "legacy" else seed, profile))


def ground_truth_ids(task_id: str, seed: int | None, profile: Profile = "seeded") -> frozenset[str]:
    """Return G: the set of genuine record ids (totals rows and duplicates are never in G)."""
    return _id_set(task_id)


@lru_cache(maxsize=32)
def _id_set(task_id: str) -> frozenset[str]:
    # G depends on the task only (ids are `{task_id}-{i:06d}` for every seed and profile)
    return frozenset(record_ids(task_id))


_VALUE_AT = (ROW_FIELDS.index("tradeValue"), ROW_FIELDS.index("netWeight"),
             ROW_FIELDS.index("qty"))


def tuple_sums(tuples: Sequence[tuple[Any, ...]]) -> tuple[int, int, int]:
    """Return the tradeValue, netWeight and qty sums of generated row tuples (int columns)."""
    v, w, q = (sum(map(operator.itemgetter(i), tuples)) for i in _VALUE_AT)
    return v, w, q


def row_int_sums(rows: Iterable[Row]) -> tuple[int, int, int] | None:
    """Return the tradeValue, netWeight and qty sums of row dicts, or None unless every one of
    those values is an int (then they are the sums `totals_row` makes of these rows)."""
    v = w = q = 0
    for row in rows:
        a, b, c = row.get("tradeValue"), row.get("netWeight"), row.get("qty")
        if type(a) is not int or type(b) is not int or type(c) is not int:
            return None  # bools, floats, strings or a missing key: int() decides, not this
        v += a
        w += b
        q += c
    return v, w, q


def totals_record_id(task_id: str, page: int) -> str:
    """Return the record id of the summary row a page of the totals family serves."""
    return f"{task_id}-TOTAL-{page:04d}"


def totals_row(task: ComtradeTask, page: int, rows: list[Row],
               sums: tuple[int, int, int] | None = None) -> Row:
    """Return the summary row placed at the front of a page in the totals family.

    `sums` are the page's three column sums when the caller has them (tuple_sums of the
    generated tuples the rows were made from: the same ints, summed without the dicts).
    """
    q = task.query
    if sums is None:
        sums = (_page_sum(rows, "tradeValue"), _page_sum(rows, "netWeight"),
                _page_sum(rows, "qty"))
    return {
        "year": q.year, "reporter": q.reporter, "partner": "WLD", "flow": q.flow,
        "hs": "TOTAL",
        "tradeValue": sums[0],
        "netWeight": sums[1],
        "qty": sums[2],
        "record_id": totals_record_id(task.task_id, page),
        "isTotal": True, "is_total": True,
    }


def _page_sum(rows: list[Row], key: str) -> int:
    """Return sum(int(r.get(key, 0)) for r in rows), column-wise when every row has the key.

    A totals-family page sums three columns of a few hundred rows per fetch (T7 serves 750
    rows): map() over an itemgetter does in C what the generator expression does per row.
    """
    try:
        return sum(map(int, map(operator.itemgetter(key), rows)))
    except KeyError:  # a row without the key counts 0
        return sum(int(r.get(key, 0)) for r in rows)


def is_totals_row(row: Any) -> bool:
    """Return True for a summary row (flagged isTotal/is_total, or hs 'TOTAL')."""
    return isinstance(row, dict) and bool(
        row.get("isTotal") or row.get("is_total") or row.get("hs") == "TOTAL"
    )
