"""The TRACE controlled study's Table 2: per-policy numbers pooled over every probe family."""

from __future__ import annotations

from typing import Any

from agentmetrology.diagnose.pairs import Pair
from agentmetrology.stats import cluster_bootstrap

# The paper's MSR interval: a task-cluster bootstrap with 1,000 resamples at seed 17.
MSR_RESAMPLES, MSR_SEED = 1000, 17
PAPER_CAREFUL_MSR_INTERVAL = (0.840, 0.887)

# The paper's Table 2 (issue 38 item 10), shown beside ours; None where the paper says undefined.
PAPER_TABLE2: dict[str, dict[str, float | None]] = {
    "careful": {"original": 0.807, "mutated": 0.766, "gap": 0.041, "msr": 0.860,
                "mtr": 0.860, "ptd": -0.167},
    "overfit": {"original": 0.549, "mutated": 0.526, "gap": 0.023, "msr": 0.053,
                "mtr": 0.667, "ptd": 0.940},
    "shortcut": {"original": 0.345, "mutated": 0.339, "gap": 0.006, "msr": 0.000,
                 "mtr": None, "ptd": 0.932},
}


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def _msr_interval(tasks: list[str], passed: list[float], seed: int) -> dict[str, Any]:
    """Return MSR's task-cluster bootstrap interval, or None and why (`msr_interval_note`:
    fewer than 3 tasks, the statistics' rule)."""
    if not tasks:
        return {"msr_interval": None}
    est = cluster_bootstrap(passed, tasks, resamples=MSR_RESAMPLES, seed=seed)
    if est.interval is None:
        return {"msr_interval": None, "msr_interval_note": est.interval_note}
    return {"msr_interval": [round(float(x), 3) for x in est.interval]}


def policy_row(pairs: list[Pair], tau: float, seed: int = MSR_SEED) -> dict[str, Any]:
    """Return one policy's pooled row: mean scores, gap, MSR with its task-cluster interval
    (or why none), MTR (None if no original passes)."""
    done = [p for p in pairs if p.complete]
    scored = [(p.task, p.original.shipped, p.mutated.shipped) for p in done
              if p.original and p.mutated and p.original.shipped is not None
              and p.mutated.shipped is not None]
    both = [(a, b) for _, a, b in scored]
    orig, mut = [a for a, _ in both], [b for _, b in both]
    passing = [b for a, b in both if a >= tau]
    # PTD over every measured side, as diagnose's groups compute it
    ptd = [s.ptd for p in done for s in (p.original, p.mutated) if s and s.ptd is not None]
    return {"pairs": len(both), "excluded": len(pairs) - len(both),
            "original": _mean(orig), "mutated": _mean(mut),
            "gap": _mean([a - b for a, b in both]),
            "msr": _mean([float(b >= tau) for b in mut]),
            **_msr_interval([t for t, _, _ in scored], [float(b >= tau) for b in mut], seed),
            "passing_originals": len(passing),
            "mtr": _mean([float(b >= tau) for b in passing]),
            "ptd": _mean(ptd)}


def table2(pairs: list[Pair], tau: float, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """Return Table 2 per policy (mutations in `skip` left out), each row beside the paper's."""
    by_policy: dict[str, list[Pair]] = {}
    for p in pairs:
        if p.group[3] not in skip:
            by_policy.setdefault(p.group[1], []).append(p)
    return {name: {"ours": policy_row(ps, tau), "paper": PAPER_TABLE2.get(name)}
            for name, ps in sorted(by_policy.items())}
