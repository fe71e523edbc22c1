"""ResearchOpsEnv episodes per second for each scripted policy, and the probe battery's rate.

An episode is the whole path `agm run` takes: build the environment, run the policy through the
one runner, score it with both scorers (`run_one`). The grid is every task at seeds 0-2, repeated
until at least `MIN_TIME` seconds have passed. Writes benchmarks/results/researchops.json.
"""

from __future__ import annotations

import json
import platform
import sys
import time
from pathlib import Path
from typing import Any

from agentmetrology.envs.registry import get_env
from agentmetrology.envs.researchops.probes import battery
from agentmetrology.run.episode import run_one

SPEC = get_env("researchops")
SEEDS = (0, 1, 2)
MIN_TIME = 1.0
OUT = Path(__file__).resolve().parent / "results" / "researchops.json"


def _rate(step: Any, units: int) -> tuple[float, int]:
    """Return (units per second, units done) of repeated `step()` over at least MIN_TIME."""
    done, start = 0, time.perf_counter()
    while True:
        step()
        done += units
        elapsed = time.perf_counter() - start
        if elapsed >= MIN_TIME:
            return done / elapsed, done


def _grid(agent: str) -> None:
    for task in SPEC.tasks:
        for seed in SEEDS:
            run_one(SPEC, task, seed, agent, "L2")


def _batteries() -> None:
    for task in SPEC.tasks:
        battery(task, 0)


def main() -> None:
    """Measure each policy on the grid and the probe battery; write the JSON results."""
    per_grid = len(SPEC.tasks) * len(SEEDS)
    results = []
    for agent in SPEC.agents:
        rate, n = _rate(lambda a=agent: _grid(a), per_grid)
        results.append({"agent": agent, "episodes": n, "episodes_per_s": round(rate, 1),
                        "ms_per_episode": round(1000.0 / rate, 3)})
        print(f"{agent:20s} {rate:9.1f} episodes/s  {1000.0 / rate:.3f} ms/episode", flush=True)
    b_rate, b_n = _rate(_batteries, len(SPEC.tasks))
    print(f"{'probe battery':20s} {b_rate:9.1f} batteries/s (5 forged episodes each)")
    slowest = max(r["ms_per_episode"] for r in results)
    grid = 25 * 3 * 3 * 7  # tasks x policies x seed labels x conditions
    doc = {"benchmark": "researchops", "python": sys.version.split()[0],
           "machine": platform.machine(), "processor_note": "one core, single process",
           "grid": {"tasks": len(SPEC.tasks), "seeds": list(SEEDS)}, "results": results,
           "probe_batteries_per_s": round(b_rate, 1), "probe_batteries": b_n,
           "slowest_ms_per_episode": slowest,
           "full_grid_1575_records_estimate_s": round(grid * slowest / 1000.0, 2)}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(doc, indent=2) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
