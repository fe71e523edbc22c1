"""Criterion sensitivity as a Verdict: n = samples compared, its minimum, and its split halves.

The probe battery fails a scorer on one tie or inversion and passes it when none shows up: on
one or two samples neither is evidence about the scorer (tau2 airline's first sample fails it
only because a do-nothing agent happens to pass it there), so a pass or fail needs
MIN_SAMPLES compared samples, and is re-read on the even and the odd samples: a verdict the
two halves disagree on is unstable and licenses no claim.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agentmetrology.records.verdict import Verdict, counted_as, split_half

# The same floor as a scorer kind read from scores (inspect_ext/audit/kind.py: MIN_SAMPLES),
# for the same reason: at n = 2 a verdict that holds on every sample still has a one-sided 95%
# lower bound of 0.22 on how often it holds, which cannot tell a scorer's rule from its first
# samples' luck.
MIN_SAMPLES = 3
COUNTED = "samples compared"


def _sample(cell: dict[str, Any]) -> str:
    """Return the sample a cell or offending pair belongs to: its task, and its seed if any.

    A seeded environment's seeds are distinct instances of a task (other data, other ground
    truth), so a tool world probing one task on three seeds compares three samples.
    """
    seed = cell.get("seed")
    return str(cell["task"]) if seed is None else f"{cell['task']} (seed {seed})"


def _compared_tasks(result: dict[str, Any]) -> list[str]:
    """Return the samples a correct/degraded pair was compared on, in battery order.

    Not the samples with any scored cell: a sample whose `correct` alone was scored (every
    degraded probe INVALID) compared nothing, and counting it let one sample's tie read
    `fail (n = 10 samples compared)` and made a half of such samples read `pass`.
    """
    return list(dict.fromkeys(_sample(s) for s in result.get("samples_compared", [])))


def _status_on(result: dict[str, Any], tasks: Sequence[str]) -> str:
    """Return the criterion's status restricted to `tasks`: fail on any offending pair there."""
    if not tasks:
        return "not probed"
    keep = set(tasks)
    return "fail" if any(_sample(o) in keep for o in result.get("offending", [])) else "pass"


def criterion_verdict(result: dict[str, Any]) -> Verdict:
    """Return a probe battery's criterion sensitivity as a Verdict with its split halves."""
    tasks = _compared_tasks(result)
    status = str(result["status"])
    minimum = MIN_SAMPLES if status in ("pass", "fail") else 0
    pairs = int(result.get("pairs_compared", 0) or 0)
    full = Verdict.judged(status, len(tasks), COUNTED, minimum,
                          why=f"{pairs} {counted_as(pairs, 'correct/degraded pairs')}")
    if status not in ("pass", "fail"):
        return full
    return split_half(full, tasks, lambda half: Verdict.judged(
        _status_on(result, half), len(half), COUNTED, MIN_SAMPLES))
