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
        out.append(frozenset(sample(f"{task.task_id}:fail{code}:{seed}", candidates, k)))
    return out[0], out[1]


# random.sample's set size is 21 plus a term for k > 5: a population this small always takes
# its pool branch, whatever k is.
_POOL_SAMPLE_MAX = 21


def sample(label: str, population: list[int], k: int) -> list[int]:
    """Return `string_random(label).sample(population, k)`, drawn through `string_bits`.

    CPython's sample on a population of at most 21 items keeps a pool: draw i takes
    j = randbelow(n - i), keeps pool[j] and moves pool[n - i - 1] into its place (randbelow:
    the `randrange` inlined below). The generator is seeded without the Python-level
    wrapper (it serves every episode of the fail-list tasks); larger populations go to
    `random.Random`. tests/envs/comtrade/test_faults.py pins it against Random.
    """
    n = len(population)
    if n > _POOL_SAMPLE_MAX or not 0 <= k <= n:
        return string_random(label).sample(population, k)  # and its errors
    bits = string_bits(label)
    pool = list(population)
    out = []
    for m in range(n, n - k, -1):  # m = n - i
        b = m.bit_length()
        j = bits(b)
        while j >= m:
            j = bits(b)
        out.append(pool[j])
        pool[j] = pool[m - 1]
    return out


def drift_order(task: ComtradeTask, seed: int | None, profile: Profile,
                counter: int, start: int = 0) -> list[int]:
    """Return the permutation of row indices that request `counter` sees under page drift.

    With `start`, only positions `start`.. are exact (the ones a page at that offset reads).
    """
    order = list(range(task.rows))
    _shuffle_tail(string_bits(drift_label(task, seed, profile, counter)), order, start)
    return order


def drift_label(task: ComtradeTask, seed: int | None, profile: Profile, counter: int) -> str:
    """Return the label whose generator permutes the rows for request `counter`."""
    if profile == "seeded":
        return f"{task.task_id}:drift:{counter}:{seed}"
    return f"{task.task_id}:drift:{counter}"


def drift_rows(rows: list[Row], label: str, start: int, size: int) -> list[Row]:
    """Return copies of rows[start:start + size] after the permutation `label` draws.

    The same swaps as `drift_order`'s (they depend on the generator and the length only),
    made on a copy of the rows themselves rather than on their indices.
    """
    order = list(rows)
    _shuffle_tail(string_bits(label), order, start)
    return list(map(dict.copy, order[start:start + size]))


def _shuffle_tail(getrandbits: Callable[[int], int], x: list[Any], start: int) -> None:
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

    Returns the new page and the number of copies inserted (`insert_copies` gives the copies).
    """
    out, copies = insert_copies(label, page, previous, rate, cross_rate)
    return out, len(copies)


def insert_copies(label: str, page: list[Row], previous: list[Row], rate: float,
                  cross_rate: float) -> tuple[list[Row], list[Row]]:
    """Return the page with copies inserted at random positions, and the copies inserted.

    The draws are those of `r = string_random(label)`: ceil(n*rate) sources `r.randrange(n)`
    on the page, then ceil(n*cross_rate) sources `r.randrange(len(previous))` on the previous
    response, then each copy's position `r.randrange(len(out) + 1)` as it is inserted
    (`randrange` inlined: this runs on every page of the duplicate tasks;
    tests/envs/comtrade/test_faults.py pins it against Random). An empty page gets none.
    """
    n = len(page)
    if n == 0:
        return page, []
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
    return out, copies


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
