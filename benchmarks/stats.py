"""Benchmark the statistics layer against scipy.stats.bootstrap(method="percentile").

1. A full reliability table of 8 targets x 5 tasks x 10 seeds (40 cells; per cell the mean with a
   2000-resample CI, worst, CVaR@0.2 with a CI, Reliability@0.9 with a Wilson interval, gap).
2. A paired task-cluster comparison of 4 agents x 2 conditions x 88 tasks x 3 repeats (per agent:
   cluster-bootstrap CI of the difference, 90%/95% equivalence intervals, Cliff's delta with CI,
   sign-flip test with 100000 Monte-Carlo sign vectors, flips, McNemar).
The scipy route computes the same intervals with scipy.stats.bootstrap (percentile); identical
resampling is not required. The process is pinned to one CPU. Writes benchmarks/results/stats.json.
Run: .venv/bin/python benchmarks/stats.py
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import scipy
from scipy import stats as sps

from agentmetrology import stats

RESAMPLES = 2000
REPEATS = 9
OUT = Path(__file__).resolve().parent / "results" / "stats.json"


def _pin_one_core() -> str:
    """Pin this process to one CPU so the numbers are one-core numbers."""
    if hasattr(os, "sched_setaffinity"):
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
        return f"pinned to cpu {cpu}"
    return "not pinned (no sched_setaffinity)"


def _time(routes: dict[str, Callable[[], object]]) -> dict[str, dict[str, float]]:
    """Return min and median wall time per route; routes alternate so they share any load."""
    for route in routes.values():
        route()  # warm-up
    times: dict[str, list[float]] = {name: [] for name in routes}
    for _ in range(REPEATS):
        for name, route in routes.items():
            start = time.perf_counter()
            route()
            times[name].append(time.perf_counter() - start)
    return {
        name: {"min_s": min(t), "median_s": statistics.median(t), "repeats": REPEATS}
        for name, t in times.items()
    }


def _table_data() -> dict[tuple[str, str], np.ndarray]:
    """Return 40 cells of 10 per-seed rewards in [0, 1], some runs failing outright."""
    rng = np.random.Generator(np.random.PCG64(20240601))
    cells = {}
    for t in range(8):
        for k in range(5):
            rewards = rng.beta(2 + t, 2, size=10)
            rewards[rng.random(10) < 0.1] = 0.0
            cells[(f"target{t}", f"task{k}")] = rewards
    return cells


def _cvar_axis(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """CVaR@0.2 along an axis (scipy's vectorised statistic convention)."""
    k = stats.cvar_count(0.2, x.shape[axis])
    return np.sort(x, axis=axis).take(np.arange(k), axis=axis).mean(axis=axis)


def _scipy_table(cells: dict[tuple[str, str], np.ndarray]) -> list[dict[str, Any]]:
    """The same table through scipy: two scipy.stats.bootstrap calls and a Wilson CI per cell."""
    out = []
    for i, x in enumerate(cells.values()):
        rng = np.random.default_rng(i)
        kw = {"n_resamples": RESAMPLES, "method": "percentile", "vectorized": True}
        mean_ci = sps.bootstrap((x,), np.mean, random_state=rng, **kw).confidence_interval
        cvar_ci = sps.bootstrap((x,), _cvar_axis, random_state=rng, **kw).confidence_interval
        k = int(np.count_nonzero(x >= 0.9))
        wilson = sps.binomtest(k, x.size).proportion_ci(method="wilson")
        out.append(
            {
                "mean": (mean_ci.low, mean_ci.high),
                "cvar": (cvar_ci.low, cvar_ci.high),
                "worst": x.min(),
                "gap": x.mean() - x.min(),
                "rel": (wilson.low, wilson.high),
            }
        )
    return out


def _comparison_data() -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Return per agent (condition A values, condition B values, task labels), 264 pairs each."""
    rng = np.random.Generator(np.random.PCG64(20240602))
    tasks = np.repeat(np.arange(88), 3)
    data = []
    for agent in range(4):
        difficulty = rng.uniform(0.2, 0.9, size=88)[tasks]
        a = np.clip(difficulty + rng.normal(0.0, 0.15, size=tasks.size), 0.0, 1.0)
        b = np.clip(difficulty + 0.02 * agent + rng.normal(0.0, 0.15, size=tasks.size), 0.0, 1.0)
        data.append((a, b, tasks))
    return data


def _ours_intervals(data: list[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> None:
    """Only the intervals of the comparison (what the scipy route also computes)."""
    for a, b, tasks in data:
        stats.equivalence(a, b, clusters=tasks, seed=0)  # 95% and 90% from one bootstrap
        stats.cliffs_delta_paired(a, b, clusters=tasks, seed=0)


def _scipy_intervals(data: list[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> None:
    """Cluster bootstrap via scipy: bootstrap the 88 task-mean differences (percentile)."""
    kw = {"n_resamples": RESAMPLES, "method": "percentile", "vectorized": True}
    for i, (a, b, tasks) in enumerate(data):
        d = np.bincount(tasks, weights=b - a) / np.bincount(tasks)
        res = sps.bootstrap((d,), np.mean, random_state=np.random.default_rng(i), **kw)
        np.percentile(res.bootstrap_distribution, [5, 95])  # the 90% equivalence interval
        sps.bootstrap((np.sign(d),), np.mean, random_state=np.random.default_rng(i), **kw)


def _scipy_permutation(data: list[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> None:
    """The sign-flip test via scipy.stats.permutation_test (100000 resamples), for reference."""
    for i, (a, b, tasks) in enumerate(data):
        d = np.bincount(tasks, weights=b - a) / np.bincount(tasks)
        sps.permutation_test(
            (d,),
            lambda x, axis: np.mean(x, axis=axis),
            permutation_type="samples",
            n_resamples=100_000,
            vectorized=True,
            random_state=np.random.default_rng(i),
        )


def _ratios(peer: dict[str, float], ours: dict[str, float]) -> dict[str, float]:
    """Return peer/ours time ratios from the minimum (headline) and the median times."""
    return {
        "from_min": round(peer["min_s"] / ours["min_s"], 2),
        "from_median": round(peer["median_s"] / ours["median_s"], 2),
    }


def _table_section(cells: dict[tuple[str, str], np.ndarray]) -> dict[str, Any]:
    """Time the reliability table both ways."""
    t = _time(
        {
            "ours": lambda: stats.reliability_table(cells, resamples=RESAMPLES, seed=0),
            "scipy": lambda: _scipy_table(cells),
        }
    )
    speedup = _ratios(t["scipy"], t["ours"])
    return {
        "design": "8 targets x 5 tasks x 10 seeds (40 cells)",
        "resamples": RESAMPLES,
        "statistics": "mean+CI, worst, CVaR@0.2+CI, Reliability@0.9+Wilson, gap",
        "agentmetrology": t["ours"],
        "scipy_bootstrap_percentile": t["scipy"],
        "speedup_vs_scipy": speedup,
        "target": "< 0.5 s on one core and >= 5x faster than scipy",
        "meets_time_target": t["ours"]["median_s"] < 0.5,
        "meets_speedup_target": speedup["from_min"] >= 5,
    }


def _comparison_section(data: list[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> dict[str, Any]:
    """Time the paired task-cluster comparison both ways."""
    t = _time(
        {
            "ours_intervals": lambda: _ours_intervals(data),
            "scipy_intervals": lambda: _scipy_intervals(data),
            "ours_full": lambda: [
                stats.compare_paired(a, b, clusters=c, seed=0) for a, b, c in data
            ],
            "scipy_permutation": lambda: _scipy_permutation(data),
        }
    )
    scipy_full = {
        key: t["scipy_intervals"][key] + t["scipy_permutation"][key]
        for key in ("min_s", "median_s")
    }
    return {
        "design": "4 agents x 2 conditions x 88 tasks x 3 repeats (4 comparisons, 88 clusters)",
        "resamples": RESAMPLES,
        "intervals": "95% and 90% cluster-bootstrap CI of the difference, Cliff's delta CI",
        "agentmetrology_intervals": t["ours_intervals"],
        "scipy_bootstrap_percentile_intervals": t["scipy_intervals"],
        "speedup_intervals_vs_scipy": _ratios(t["scipy_intervals"], t["ours_intervals"]),
        "agentmetrology_full_comparison": t["ours_full"],
        "full_comparison_includes": "difference CI, equivalence 90/95, cliff's delta CI, "
        "sign-flip test with 100000 draws, flips, mcnemar",
        "scipy_intervals_plus_permutation_test_100000": scipy_full,
        "speedup_full_vs_scipy": _ratios(scipy_full, t["ours_full"]),
    }


def main() -> dict[str, Any]:
    """Run both benchmarks, write benchmarks/results/stats.json, and return the document."""
    pinned = _pin_one_core()
    doc = {
        "benchmark": "stats",
        "machine": {
            "python": platform.python_version(),
            "numpy": np.__version__,
            "scipy": scipy.__version__,
            "platform": platform.platform(),
            "cpu": pinned,
        },
        "reliability_table": _table_section(_table_data()),
        "paired_cluster_comparison": _comparison_section(_comparison_data()),
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return doc


if __name__ == "__main__":
    print(json.dumps(main(), indent=2, sort_keys=True))
