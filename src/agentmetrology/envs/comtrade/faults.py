"""Fault realisations for ComtradeBench: fail lists, drift and duplicate injection."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from agentmetrology.envs.comtrade.tasks import ComtradeTask, Profile
from agentmetrology.runtime.rng import string_bits, string_random

Row = dict[str, Any]


def fail_lists(task: ComtradeTask, seed: int | None,
               profile: Profile) -> tuple[frozenset[int], frozenset[int]]:
    """Return the request indices that get a 429 and a 500 in this episode.

    Legacy uses the table's lists. Seeded draws the same number of indices among 2..pages (the
    requests a clean sequential pass makes after the first), without replacement and capped at
    that count, so the fault always meets a clean pass.
    """
    if profile == "legacy":
        return frozenset(task.fail_429), frozenset(task.fail_500)
    candidates = list(range(2, task.total_pages + 1))
    out: list[frozenset[int]] = []
    for code, listed in ((429, task.fail_429), (500, task.fail_500)):
        k = min(len(listed), len(candidates))
        if not k:  # no draw is made, so the generator is not even seeded
            out.append(frozenset())
            continue
        r = string_random(f"{task.task_id}:fail{code}:{seed}")
        out.append(frozenset(r.sample(candidates, k)))
    return out[0], out[1]


def drift_order(task: ComtradeTask, seed: int | None, profile: Profile,
                counter: int, start: int = 0) -> list[int]:
    """Return the permutation of row indices that request `counter` sees under page drift.

    With `start`, only positions `start`.. are exact (the ones a page at that offset reads).
    """
    label = f"{task.task_id}:drift:{counter}"
    if profile == "seeded":
        label += f":{seed}"
    order = list(range(task.rows))
    _shuffle_tail(string_bits(label), order, start)
    return order


def _shuffle_tail(getrandbits: Callable[[int], int], x: list[int], start: int) -> None:
    """Do what `Random.shuffle(x)` does with this generator, until x[start:] is final.

    Position i is final once step i has run (later steps only touch lower positions), so a
    page at offset `start` needs steps n-1 .. max(start, 1) only. The draw (`randrange`:
    CPython's `_randbelow_with_getrandbits`) is inlined here, the hot loop of page drift,
    with each step's (i, i + 1, bit length) made once per length;
    tests/envs/comtrade/scoring/test_streamed.py pins both against `shuffle`.
    """
    for i, n, k in _shuffle_steps(len(x))[:max(len(x) - max(start, 1), 0)]:
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        x[i], x[j] = x[j], x[i]


@lru_cache(maxsize=64)
def _shuffle_steps(n: int) -> tuple[tuple[int, int, int], ...]:
    """Return shuffle's steps over n items, in order: (i, i + 1, (i + 1).bit_length())."""
    return tuple((i, i + 1, (i + 1).bit_length()) for i in range(n - 1, 0, -1))


def inject_duplicates_legacy(task_id: str, counter: int, page: list[Row], previous: list[Row],
                             rate: float, cross_rate: float) -> list[Row]:
    """Overwrite positions with copies (the legacy behaviour: page length kept, rows lost).

    The original's order of draws from the `"{task_id}:dup:{counter}"` generator: for j = 0 ..
    within-1 the destination d = randrange(len) gets a copy of row (j mod len) of the page *as
    modified so far* (so a source may itself be an earlier copy); then, if there is a previous
    response, each cross overwrite draws its source row (a uniform choice among the previous
    response's rows) before its destination d = randrange(len).
    """
    n = len(page)
    if n == 0:
        return page
    r = string_random(f"{task_id}:dup:{counter}")
    out = list(page)
    for j in range(math.floor(n * rate)):
        d = r.randrange(n)
        out[d] = dict(out[j % n])
    if previous:
        for _ in range(math.floor(n * cross_rate)):
            source = r.choice(previous)
            out[r.randrange(n)] = dict(source)
    return out


def inject_duplicates_seeded(label: str, page: list[Row], previous: list[Row], rate: float,
                             cross_rate: float) -> tuple[list[Row], int]:
    """Insert copies at random positions (the page grows; no genuine row is lost).

    Returns the new page and the number of copies inserted. The draws are those of
    `r = string_random(label)`: ceil(n*rate) sources `r.randrange(n)` on the page, then
    ceil(n*cross_rate) sources `r.randrange(len(previous))` on the previous response, then
    each copy's position `r.randrange(len(out) + 1)` as it is inserted (`randrange` inlined:
    this runs on every page of the duplicate tasks; tests/envs/comtrade/test_faults.py pins
    it against Random).
    """
    n = len(page)
    if n == 0:
        return page, 0
    bits = string_bits(label)
    copies = _copies(bits, page, math.ceil(n * rate))
    if previous:
        copies += _copies(bits, previous, math.ceil(n * cross_rate))
    out = list(page)
    size = n
    for row in copies:
        size += 1  # the positions 0 .. len(out)
        k = size.bit_length()
        j = bits(k)
        while j >= size:
            j = bits(k)
        out.insert(j, row)
    return out, len(copies)


def _copies(bits: Callable[[int], int], rows: list[Row], count: int) -> list[Row]:
    """Return copies of `count` rows drawn as `randrange(len(rows))` each, in order."""
    m = len(rows)
    k = m.bit_length()
    out = []
    for _ in range(count):
        j = bits(k)
        while j >= m:
            j = bits(k)
        out.append(dict.copy(rows[j]))  # rows are dicts: copy() clones without re-inserting
    return out


def drop_rows(label: str, page: list[Row], rate: float) -> list[Row]:
    """Remove ceil(len*rate) random rows (an explicit, recoverable corruption)."""
    n = len(page)
    k = min(n, math.ceil(n * rate)) if rate > 0 else 0
    if k == 0:
        return page
    r = string_random(label)
    gone = set(r.sample(range(n), k))
    return [row for i, row in enumerate(page) if i not in gone]
