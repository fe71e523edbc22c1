"""An undecided ground truth (UNKNOWN or INVALID) is excluded and counted, never a 0.

The toy plug-in (tests/plugin_env) gets a truth scorer that cannot decide a zero total or a
short sum (UNKNOWN): before the fix the auditor averaged those cells as failures.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from agentmetrology.audit.env_audit import audit_env, seal
from agentmetrology.audit.targets.env import TRUTH_EXCLUDED, EnvTarget
from agentmetrology.records.assessment import Assessment
from agentmetrology.report.audit_report import render_audit_report

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "plugin_env"))
import toy_sum


class DecidedSum(toy_sum.ExactSum):
    """Truth: 1.0 for the exact sum, 0.0 above it, UNKNOWN for zero or a short sum."""

    name = "decided_sum"
    label = "decided"

    def score(self, submission: Any, task: str, seed: int | None, profile: str,
              evidence_digest: str | None = None, trajectory: Any = None) -> Assessment:
        total = (submission or {}).get("total")
        true = sum(toy_sum.numbers(task, seed))
        if total == 0 or (isinstance(total, int) and total < true):
            return Assessment(self.name, self.version, "UNKNOWN", None, {}, ("undecided",), "")
        ok = total == true
        return Assessment(self.name, self.version, "PASS" if ok else "FAIL", float(ok), {}, (),
                          "")


SPEC = replace(toy_sum.SPEC, scorers=(*toy_sum.SPEC.scorers, DecidedSum()),
               audit=replace(toy_sum.SPEC.audit, truth_scorer="decided_sum"))


def short_episodes(seeds: int) -> int:
    """Return the forgetful agent's episodes whose sum is short (last number non-zero)."""
    return sum(toy_sum.numbers(t, s)[-1] != 0 for t in toy_sum.TASKS for s in range(seeds))


def test_truth_of_an_undecided_submission_is_none() -> None:
    target = EnvTarget(SPEC, seeds=3)
    ref = target.tasks()[0]
    assert target.truth(ref, {"total": 0}) is None
    true = sum(toy_sum.numbers(ref.task_id, ref.seed))
    assert target.truth(ref, {"total": true}) == 1.0
    assert target.truth(ref, {"total": true + 1}) == 0.0


def test_audit_excludes_and_counts_undecided_truth() -> None:
    doc = seal(audit_env(EnvTarget(SPEC, seeds=3)))
    by = {p["probe"]: p for p in doc["stages"]["probes"]["shipped"]["by_probe"]}
    # 2 tasks x 3 seeds: the zero probe's truth is undecided everywhere, never a mean of 0.
    assert by["zero"]["truth_mean"] is None and by["zero"]["truth_excluded"] == 6
    assert by["off_by_one"]["truth_mean"] == 0.0 and by["off_by_one"]["truth_excluded"] == 0
    assert by["correct"]["truth_mean"] == 1.0
    shipped = doc["stages"]["probes"]["shipped"]
    assert shipped["truth_excluded"] == {"cells": 6, "pairs": 6}
    assert shipped["pairs_compared"] == 6  # only correct vs off_by_one is ordered by truth
    spectrum = doc["stages"]["reliability"]
    short = short_episodes(10)
    assert short > 0
    assert spectrum["rows"][0]["target"] == "scripted:adder"
    adder = spectrum["rows"][0]
    assert adder["n"] == 20 and adder["summary"]["mean"]["value"] == 1.0
    assert spectrum["truth_excluded"] == [{"target": "scripted:forgetful",
                                           "source": "scripted", "episodes": short}]
    forgetful = [r for r in spectrum["rows"] if r["target"] == "scripted:forgetful"]
    assert (forgetful[0]["n"] if forgetful else 0) == 20 - short
    ex = doc["truth_excluded"]
    assert ex == doc["card"]["truth_excluded"]
    assert ex["by_stage"]["probes"] == 6 and ex["by_stage"]["spectrum"] == short
    assert ex["total"] == 6 + short and ex["why"] == TRUTH_EXCLUDED
    md, _ = render_audit_report(doc)
    assert "## Undecided ground truth" in md and f"Excluded: {6 + short} cells" in md


def test_decided_truth_keeps_the_toy_numbers() -> None:
    doc = audit_env(EnvTarget(toy_sum.SPEC, seeds=3))
    assert doc["truth_excluded"]["total"] == 0
    by = {p["probe"]: p for p in doc["stages"]["probes"]["shipped"]["by_probe"]}
    assert by["zero"]["truth_mean"] == 0.0 and by["off_by_one"]["truth_mean"] == 0.0
