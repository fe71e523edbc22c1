"""A scorer under audit is handed the work, never the grade beside it (AuditHooks.scorer_view).

ResearchOps submissions carry `H` and `P`, the environment's own grades. Handed whole to a
`--scorer`, a forger that returned `submission["H"]` passed criterion sensitivity on 75 samples
and the card licensed "model capability" for it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentmetrology.audit.target import ScoreOutcome, TaskRef
from agentmetrology.audit.targets.env import EnvTarget
from agentmetrology.envs.registry import get_env
from agentmetrology.envs.researchops.tools.environment import WORK_FIELDS
from agentmetrology.records.environment import Forged
from support.user_scorer_audit import audit_with_scorer

GRADES = ("H", "P")


def test_a_user_scorer_sees_the_work_without_h_or_p() -> None:
    seen: list[dict[str, Any]] = []

    def record(task_id: str, seed: int | None, submission: dict[str, Any]) -> ScoreOutcome:
        seen.append(dict(submission))
        return ScoreOutcome(0.0)

    target = EnvTarget(get_env("researchops"), seeds=1, scorer=record, scorer_label="rec")
    ref = TaskRef("lr_1", 0)
    probes = target.hooks.probes
    assert probes is not None
    battery = probes(ref.task_id, ref.seed, target.profile)
    for forged in battery.values():
        assert isinstance(forged, Forged) and all(g in forged.submission for g in GRADES)
        target.score(ref, forged)
    # a stored episode's plain submission (the --store path) is shown the same way
    target.score(ref, dict(battery["correct"].submission))
    assert len(seen) == len(battery) + 1
    for sub in seen:
        assert not set(GRADES) & set(sub)
        assert set(sub) <= set(WORK_FIELDS)
        assert {"report", "evidence", "final_config", "edits", "gathered"} <= set(sub)
    # the valid scorer still grades the whole record (its H is recomputed from the state)
    assert target.truth(ref, battery["correct"]) == 1.0


def test_a_forger_that_reads_h_from_the_submission_licenses_nothing(tmp_path: Path) -> None:
    doc = audit_with_scorer(tmp_path, "researchops", "    return submission['H']\n", 1)
    battery = doc["stages"]["probes"]["shipped"]
    assert battery["pairs_compared"] == 0
    assert battery["cells_invalid"] == len(battery["cells"]) == 125  # 25 tasks x 5 probes
    assert battery["invalid_reasons"] == [{"reason": "KeyError: 'H'", "cells": 125}]
    user, truth = doc["card"]["configurations"]
    assert user["rows"]["criterion_sensitivity"]["status"] == "not probed"
    assert user["licensed_claim"] == "no claim licensed"
    assert truth["licensed_claim"] == "model capability"  # the valid scorer is unaffected


def test_a_forger_that_defaults_a_missing_h_ties_and_fails(tmp_path: Path) -> None:
    doc = audit_with_scorer(tmp_path, "researchops", "    return submission.get('H', 0.0)\n",
                            1)
    user = doc["card"]["configurations"][0]
    assert user["rows"]["criterion_sensitivity"]["status"] == "fail"
    assert user["licensed_claim"] == "no claim licensed"
