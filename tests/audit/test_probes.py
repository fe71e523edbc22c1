"""Criterion sensitivity honours the scorer's resolution eps (docs/audit.md, "Stages").

A probe of strictly lower ground-truth quality must score more than eps below correct; within
eps it is a tie (offending), beyond eps it is separated.

The probe battery's accounting of what it could not check (docs/audit.md, "Stages").

A probe whose ground truth is undecided (None) is excluded from every comparison and mean and
counted; an INVALID cell is counted with its reason. One hand-built two-task battery pins every
count, the reason ranking and the per-probe summary."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from agentmetrology.audit.probes import (
    TRUTH_EPS,
    invalid_reasons,
    offending_summary,
    probe_battery,
    summarize_probes,
)
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


class Mixed(FixedScores):
    """Two tasks: t0 scores every kind of probe, t1 has no oracle (skipped, never counted)."""

    def oracle(self, ref: TaskRef) -> Any | None:
        return "correct" if ref.task_id == "t0" else None

    def score(self, ref: TaskRef, submission: Any) -> ScoreOutcome | None:
        if submission == "unscored":
            return ScoreOutcome(None, "INVALID", "scorer crashed")
        if submission == "no_hook":
            return None
        return ScoreOutcome(self.scores[submission])


def test_battery_output_is_pinned() -> None:
    scores = {"correct": 1.0, "near": 0.95, "far": 0.5, "high": 1.5, "peer": 0.2,
              "unscored": 0.0, "no_hook": 0.0}
    truths = {"correct": 1.0, "near": 0.5, "far": 0.0, "high": 0.25, "peer": 1.0,
              "unscored": 0.5, "no_hook": 0.5}
    target = Mixed(scores, truths, resolution=0.1)
    res = probe_battery(target, [TaskRef("t0", 3), TaskRef("t1", 4)])
    assert res["status"] == "fail"
    assert (res["scorer"], res["resolution"]) == ("fixed-scorer", 0.1)
    assert (res["pairs_compared"], res["pairs_invalid"]) == (3, 2)
    assert res["offending"] == [
        {"task": "t0", "seed": 3, "probe": "near", "score_correct": 1.0, "score_probe": 0.95,
         "truth_correct": 1.0, "truth_probe": 0.5, "relation": "tie"},
        {"task": "t0", "seed": 3, "probe": "high", "score_correct": 1.0, "score_probe": 1.5,
         "truth_correct": 1.0, "truth_probe": 0.25, "relation": "inversion"}]
    assert res["cells"][0] == {"task": "t0", "seed": 3, "probe": "correct", "truth": 1.0,
                               "score": 1.0, "status": "ok", "message": ""}
    assert res["cells"][-2:] == [
        {"task": "t0", "seed": 3, "probe": "unscored", "truth": 0.5, "score": None,
         "status": "INVALID", "message": "scorer crashed"},
        {"task": "t0", "seed": 3, "probe": "no_hook", "truth": 0.5, "score": None,
         "status": "INVALID", "message": "no scorer"}]
    assert len(res["cells"]) == 7
    assert offending_summary(res) == ["near = correct", "high > correct"]


def test_unscored_pairs_alone_leave_the_criterion_not_probed() -> None:
    target = Mixed({"correct": 1.0, "far": 0.0, "unscored": 0.0},
                   {"correct": 1.0, "far": 0.0, "unscored": 0.0})
    res = probe_battery(target, [TaskRef("t0", 0)])
    assert (res["status"], res["pairs_compared"], res["pairs_invalid"]) == ("not probed", 1, 1)
    assert probe_battery(target, [TaskRef("t1", 0)])["status"] == "not probed"


def test_summarize_probes_pins_means_minimum_and_invalid() -> None:
    cells = [
        {"probe": "a", "score": 2.0, "truth": 1.0, "status": "ok"},
        {"probe": "a", "score": 4.0, "truth": 0.5, "status": "ok"},
        {"probe": "a", "score": None, "truth": 0.0, "status": "INVALID"},
        {"probe": "b", "score": None, "truth": 0.25, "status": "INVALID"},
        {"probe": "c", "score": 1.0, "truth": None, "status": "ok"},  # truth undecided
        {"probe": "c", "score": 3.0, "truth": 0.5, "status": "ok"},
    ]
    assert summarize_probes(cells) == [
        {"probe": "a", "n": 3, "score_mean": 3.0, "score_min": 2.0, "truth_mean": 0.5,
         "truth_excluded": 0, "invalid": 1},
        {"probe": "b", "n": 1, "score_mean": None, "score_min": None, "truth_mean": 0.25,
         "truth_excluded": 0, "invalid": 1},
        {"probe": "c", "n": 2, "score_mean": 2.0, "score_min": 1.0, "truth_mean": 0.5,
         "truth_excluded": 1, "invalid": 0}]


def test_offending_summary_keeps_the_first_relation_per_probe() -> None:
    res = {"offending": [{"probe": "x", "relation": "inversion"},
                         {"probe": "x", "relation": "tie"},
                         {"probe": "y", "relation": "tie"}]}
    assert offending_summary(res) == ["x > correct", "y = correct"]


class Recording(FixedScores):
    """Builds probes from the oracle it is handed and records every hook call's arguments."""

    seen: list[tuple[str, Any, Any]]

    def oracle(self, ref: TaskRef) -> Any | None:
        return None if ref.task_id == "none" else f"correct@{ref.task_id}"

    def probes(self, ref: TaskRef, correct: Any) -> list[Probe] | None:
        self.seen.append(("probes", ref, correct))
        return [Probe("correct", correct, 1.0), Probe("hair", "hair", 1.0 - TRUTH_EPS),
                Probe("worse", "worse", 0.0)]

    def score(self, ref: TaskRef, submission: Any) -> ScoreOutcome | None:
        self.seen.append(("score", ref, submission))
        return ScoreOutcome({"hair": 0.0, "worse": 0.0}.get(submission, 1.0))


def test_hooks_get_the_task_and_oracle_and_every_task_counts() -> None:
    target = Recording({}, {})
    target.seen = []
    refs = [TaskRef("none", 0), TaskRef("a", 1), TaskRef("b", 2)]
    res = probe_battery(target, refs)
    assert ("probes", refs[1], "correct@a") in target.seen
    assert ("score", refs[2], "correct@b") in target.seen
    assert {r for _, r, _ in target.seen} == {refs[1], refs[2]}
    # "hair" is within TRUTH_EPS of correct: not strictly worse, so never compared.
    assert (res["status"], res["pairs_compared"]) == ("pass", 2)
    assert [c["task"] for c in res["cells"]] == ["a"] * 3 + ["b"] * 3
    assert [p["probe"] for p in res["by_probe"]] == ["correct", "hair", "worse"]


# per task: (probe name, ground truth, scorer outcome); "no_hook" means the scorer returned None
PLAN: dict[str, list[tuple[str, float | None, ScoreOutcome | None]]] = {
    # t0: correct has a truth, so only the undecided probes are excluded
    "t0": [("correct", 1.0, ScoreOutcome(1.0)),
           ("unknown", None, ScoreOutcome(0.5)),             # truth undecided: pair excluded
           ("worse", 0.0, ScoreOutcome(0.0)),                # the one pair compared: separated
           ("crash1", 0.0, ScoreOutcome(None, "INVALID", "scorer crashed")),  # pair invalid
           ("no_hook", 0.0, None),                           # pair invalid, reason "no scorer"
           ("crash2", None, ScoreOutcome(None, "INVALID", ""))],  # excluded, reason not given
    # t1: correct's truth is undecided, so every pair of the task is excluded
    "t1": [("correct", None, ScoreOutcome(1.0)),
           ("worse", 0.0, ScoreOutcome(0.0)),
           ("crash1", 0.0, ScoreOutcome(None, "INVALID", "scorer crashed"))],
}


@dataclass
class Planned:
    """A target whose probes, truths and outcomes come from PLAN."""

    resolution: float = 0.1
    name: str = "planned"
    scorer_kind: ScorerKind = "outcome"
    scorer_name: str = "planned-scorer"

    def ownership_map(self) -> Ownership | None:
        return None

    def tasks(self) -> list[TaskRef] | None:
        return [TaskRef("t0", 1), TaskRef("t1", 2)]

    def oracle(self, ref: TaskRef) -> Any | None:
        return "correct"

    def probes(self, ref: TaskRef, correct: Any) -> list[Probe] | None:
        return [Probe(name, (ref.task_id, name), truth) for name, truth, _ in PLAN[ref.task_id]]

    def score(self, ref: TaskRef, submission: Any) -> ScoreOutcome | None:
        task, name = submission
        return {n: out for n, _, out in PLAN[task]}[name]


def _run() -> dict[str, Any]:
    target = Planned()
    refs = target.tasks()
    assert refs is not None
    return probe_battery(target, refs)


def test_undecided_truths_are_excluded_and_counted() -> None:
    res = _run()
    # t0: unknown, crash2; t1: worse, crash1 (correct undecided) -> 4 pairs excluded
    assert res["truth_excluded"] == {"cells": 3, "pairs": 4}  # t0 unknown, crash2; t1 correct
    assert (res["pairs_compared"], res["pairs_invalid"]) == (1, 2)
    assert res["offending"] == []
    assert res["status"] == "not probed"  # two invalid pairs: never a pass
    assert len(res["cells"]) == 9


def test_invalid_cells_are_counted_with_their_reasons_ranked() -> None:
    res = _run()
    assert res["cells_invalid"] == 4  # crash1 twice, no_hook, crash2
    # Most common first; a tie by reason text, not by the order first seen (no scorer, then
    # no reason given).
    assert res["invalid_reasons"] == [{"reason": "scorer crashed", "cells": 2},
                                      {"reason": "no reason given", "cells": 1},
                                      {"reason": "no scorer", "cells": 1}]


def test_invalid_reasons_keeps_the_top_and_ignores_cells_that_scored() -> None:
    cells = [{"status": "INVALID", "message": m} for m in ("e", "d", "d", "c", "b", "a", "f")]
    cells.append({"status": "ok", "message": "z"})
    assert invalid_reasons(cells, top=3) == [{"reason": "d", "cells": 2},
                                             {"reason": "a", "cells": 1},
                                             {"reason": "b", "cells": 1}]
    assert len(invalid_reasons(cells)) == 5  # TOP_REASONS of the 6 distinct reasons
    assert invalid_reasons([{"status": "ok", "message": "fine"}]) == []


def test_by_probe_never_averages_an_undecided_truth() -> None:
    assert _run()["by_probe"] == [
        {"probe": "correct", "n": 2, "score_mean": 1.0, "score_min": 1.0, "truth_mean": 1.0,
         "truth_excluded": 1, "invalid": 0},
        {"probe": "unknown", "n": 1, "score_mean": 0.5, "score_min": 0.5, "truth_mean": None,
         "truth_excluded": 1, "invalid": 0},
        {"probe": "worse", "n": 2, "score_mean": 0.0, "score_min": 0.0, "truth_mean": 0.0,
         "truth_excluded": 0, "invalid": 0},
        {"probe": "crash1", "n": 2, "score_mean": None, "score_min": None, "truth_mean": 0.0,
         "truth_excluded": 0, "invalid": 2},
        {"probe": "no_hook", "n": 1, "score_mean": None, "score_min": None, "truth_mean": 0.0,
         "truth_excluded": 0, "invalid": 1},
        {"probe": "crash2", "n": 1, "score_mean": None, "score_min": None, "truth_mean": None,
         "truth_excluded": 1, "invalid": 1}]
