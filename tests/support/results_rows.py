"""Results tables for the tests of `agentmetrology.results` and `agm stats`: lines of
`agm run --json`, and the fixture files both test folders read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

F1 = {
    ("rule", "t1"): [1.0, 1.0, 0.81, 1.0],
    ("rule", "t2"): [0.5, 0.6, 0.7, 0.55],
    ("llm", "t1"): [1.0, 0.0, 1.0, 1.0],  # high mean, bad floor
    ("llm", "t2"): [0.9, 0.95, 1.0, 0.92],
}


def run_record(agent: str, task: str, seed: int, f1: float | None) -> dict[str, object]:
    """One line of `agm run comtrade ... --json`."""
    return {
        "task": task,
        "seed": seed,
        "profile": "default",
        "agent": agent,
        "level": "L2",
        "termination": "submitted",
        "requests_used": 12,
        "rows_submitted": 40,
        "submission_sha256": "0" * 64,
        "ground_truth": {
            "f1": f1,
            "recall": f1,
            "precision": f1,
            "duplicates": 0,
            "totals_rows": 0,
            "spurious": 0,
        },
        "judge": {"status": "PASS", "total": f1, "breakdown": {}},
    }


def write_runs(path: Path) -> Path:
    """Write the F1 runs (16 rows), then a row whose f1 is null (line 17) and a blank line."""
    lines = [
        json.dumps(run_record(agent, task, seed, f1))
        for (agent, task), values in F1.items()
        for seed, f1 in enumerate(values)
    ]
    lines.append(json.dumps(run_record("llm", "t2", 9, None)))  # line 17: f1 missing
    lines.append("")  # blank lines are skipped
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def row(agent: str, task: str, seed: int, f1: Any, **extra: Any) -> dict[str, Any]:
    """A line of `agm run --json`: ground truth nested, optional failure markers."""
    gt = {"f1": f1, "status": extra.pop("status", "PASS" if f1 else "FAIL")}
    return {"agent": agent, "task": task, "seed": seed, "ground_truth": gt, **extra}


def write_rows(path: Path, rows: list[dict[str, Any]]) -> Path:
    """Write `rows` as JSON Lines."""
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def write_faulty(path: Path) -> Path:
    """Write runs where some episodes could not be measured, marked each way the reader knows."""
    rows = [row("rule", "t1", s, v) for s, v in enumerate([1.0, 0.5, 1.0, 0.5])]
    rows += [row("llm", "t1", s, v) for s, v in enumerate([1.0, 1.0, 0.0, 1.0])]
    rows += [
        # an infra failure that an old `agm run` wrote as 0.0: not an agent zero
        row("llm", "t1", 4, 0.0, termination="infra_error"),
        # the new form: null score, status UNKNOWN and a reason
        row("llm", "t1", 5, None, status="UNKNOWN", measurement_failure="infra_error: 503"),
        row("llm", "t1", 6, 0.3, status="INVALID"),  # line 11: a number, but not measured
        row("llm", "t1", 7, None),  # line 12: plain null
        row("rule", "t1", 4, 0.0, measurement_failure="interrupted"),  # line 13
        row("ghost", "t1", 0, None, status="UNKNOWN", measurement_failure="unscored"),
    ]
    return write_rows(path, rows)
