"""The case lifecycle on the terminal: a proposal with the contract's reasons, each
calibration control with what it must and did give, and one line per case in a store."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agentmetrology.store.cases import CaseRecord


def proposed_line(case: CaseRecord, source: str) -> str:
    """Return the line of a case proposed from the failing episode `source` names."""
    failing = case.source["failing_assessment"]
    return (f"{case.id}: proposed from {source} "
            f"({case.environment}; contract FAIL: {'; '.join(failing['reasons'])})")


def control_lines(controls: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Return one line per calibration control: what it must give, what it got, ok or not."""
    lines = []
    for name, c in controls.items():
        extra = f" (raw checker: {c['raw_checker']})" if "raw_checker" in c else ""
        lines.append(f"  {name:<12} must {c['must']:<16} got {c['got']}{extra}: "
                     f"{'ok' if c['ok'] else 'FAILED'}")
    return lines


def _row(case: CaseRecord) -> dict[str, Any]:
    return {"id": case.id, "state": case.state, "environment": case.environment,
            "task": case.task, "seed": case.seed, "condition": case.condition,
            "level": case.level, "uses": len(case.uses),
            "source": "/".join(str(v) for v in case.source["store_key"].values())}


def case_line(case: CaseRecord) -> str:
    """Return a case's line in `agm cases list`: id, state, where it came from, its uses."""
    c = _row(case)
    return (f"{c['id']}  {c['state']:<10} {c['environment']}/{c['task']}/seed={c['seed']}/"
            f"{c['condition']}/{c['level']}  uses {c['uses']}")
