"""The probe battery's accounting of what it could not check (docs/audit.md, "Stages").

A probe whose ground truth is undecided (None) is excluded from every comparison and mean and
counted; an INVALID cell is counted with its reason. One hand-built two-task battery pins every
count, the reason ranking and the per-probe summary.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agentmetrology.audit.probes import invalid_reasons, probe_battery
from agentmetrology.audit.target import Ownership, Probe, ScoreOutcome, ScorerKind, TaskRef

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
