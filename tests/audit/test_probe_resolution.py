"""Criterion sensitivity honours the scorer's resolution eps (specs/audit.md).

A probe of strictly lower ground-truth quality must score more than eps below correct; within
eps it is a tie (offending), beyond eps it is separated.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from agentmetrology.audit.probes import probe_battery
from agentmetrology.audit.target import Ownership, Probe, ScoreOutcome, ScorerKind, TaskRef


@dataclass
class FixedScores:
    """A target whose scorer returns a fixed score per probe name."""

    scores: dict[str, float]
    truths: dict[str, float]
    resolution: float = 0.1
    name: str = "fixed"
    scorer_kind: ScorerKind = "outcome"
    scorer_name: str = "fixed-scorer"
    calls: list[str] = field(default_factory=list)

    def ownership_map(self) -> Ownership | None:
        return None

    def tasks(self) -> list[TaskRef] | None:
        return [TaskRef("t", 0)]

    def oracle(self, ref: TaskRef) -> Any | None:
        return "correct"

    def probes(self, ref: TaskRef, correct: Any) -> list[Probe] | None:
        return [Probe(n, n, self.truths[n]) for n in self.scores]

    def score(self, ref: TaskRef, submission: Any) -> ScoreOutcome | None:
        self.calls.append(submission)
        return ScoreOutcome(self.scores[submission])


def _battery(scores: dict[str, float], resolution: float = 0.1) -> dict[str, Any]:
    truths = {n: (1.0 if n == "correct" else 0.5) for n in scores}
    return probe_battery(FixedScores(scores, truths, resolution), [TaskRef("t", 0)])


def test_gap_within_resolution_is_a_tie() -> None:
    res = _battery({"correct": 1.0, "near": 0.95})
    assert res["status"] == "fail"
    assert res["resolution"] == 0.1
    assert res["pairs_compared"] == 1
    assert [(o["probe"], o["relation"]) for o in res["offending"]] == [("near", "tie")]


def test_gap_beyond_resolution_is_separated() -> None:
    res = _battery({"correct": 1.0, "far": 0.85})
    assert res["status"] == "pass"
    assert res["pairs_compared"] == 1
    assert res["offending"] == []


@pytest.mark.parametrize(("probe", "offends"), [(0.75, True), (0.7421875, False)])
def test_gap_of_exactly_eps_is_a_tie(probe: float, offends: bool) -> None:
    # Binary-exact values: correct must exceed probe + eps strictly, so a gap of eps ties.
    res = _battery({"correct": 1.0, "p": probe}, resolution=0.25)
    assert (res["status"] == "fail") is offends
    assert [o["relation"] for o in res["offending"]] == (["tie"] if offends else [])


def test_inversion_beyond_eps_is_labelled_inversion() -> None:
    res = _battery({"correct": 1.0, "high": 1.25})
    assert [(o["probe"], o["relation"]) for o in res["offending"]] == [("high", "inversion")]


def test_zero_resolution_makes_a_small_gap_separated() -> None:
    # The same 0.05 gap that ties at eps 0.1 separates an exact scorer: eps is read, not fixed.
    assert _battery({"correct": 1.0, "near": 0.95}, resolution=0.0)["status"] == "pass"


def test_probe_not_strictly_worse_is_not_compared() -> None:
    truths = {"correct": 1.0, "same_quality": 1.0}
    res = probe_battery(FixedScores({"correct": 1.0, "same_quality": 1.0}, truths),
                        [TaskRef("t", 0)])
    assert res["pairs_compared"] == 0
    assert res["status"] == "not probed"
