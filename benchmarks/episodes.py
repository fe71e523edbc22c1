"""Episodes per second for model-free agents, next to each task's floor.

The floor of a task is the work no agent can avoid: generating its rows, serialising a perfect
submission and scoring it with both scorers. An episode adds the agent, the scaffold, the tool
envelopes and the event record. Writes benchmarks/results/episodes.json.
"""

from __future__ import annotations

import json
import platform
import sys
import time
from pathlib import Path
from typing import Any

from agentmetrology.envs.comtrade import TASKS, generate_rows
from agentmetrology.envs.comtrade.generator import row_tuples
from agentmetrology.envs.comtrade.payload import encode_payload
from agentmetrology.envs.comtrade.scoring.submission import make_submission
from agentmetrology.envs.registry import get_env
from agentmetrology.run.episode import run_one
from agentmetrology.scoring.episode import score_submission

COMTRADE = get_env("comtrade")

CONFIGS = (("rule", "L0"), ("scripted:careful", "L2"))
OUT = Path(__file__).resolve().parent / "results" / "episodes.json"


def _rate(fn: Any, min_time: float = 0.4) -> float:
    """Return calls per second of fn(i) over at least `min_time` seconds (distinct i each call)."""
    n, start = 0, time.perf_counter()
    while True:
        fn(n)
        n += 1
        elapsed = time.perf_counter() - start
        if elapsed >= min_time and n >= 5:
            return n / elapsed


def floor(task: str, i: int) -> None:
    """Generate the rows of (task, seed i), submit them perfectly, score with both scorers."""
    row_tuples.cache_clear()  # the floor includes generation every time
    rows = generate_rows(task, i)
    payload = encode_payload(rows, {"task_id": task}, "")  # the same encoder episodes use
    score_submission(COMTRADE, make_submission(**payload), task, i, "seeded")


def episode(task: str, agent: str, level: str, i: int) -> None:
    """Run and score one episode at seed i (generation included)."""
    row_tuples.cache_clear()
    run_one(COMTRADE, task, i, agent, level)


def main() -> None:
    """Measure every task and write the JSON results."""
    results: list[dict[str, Any]] = []
    for task in TASKS:
        f = _rate(lambda i, t=task: floor(t, i))
        for agent, level in CONFIGS:
            e = _rate(lambda i, t=task, a=agent, lv=level: episode(t, a, lv, i))
            results.append({"task": task, "rows": TASKS[task].rows, "agent": agent,
                            "level": level, "episodes_per_s": round(e, 1),
                            "floor_per_s": round(f, 1), "cost_vs_floor": round(f / e, 2)})
            print(f"{task:24s} {agent:18s} {level}  {e:9.1f} eps/s  floor {f:9.1f}/s  "
                  f"x{f / e:.2f}", flush=True)
    doc = {"benchmark": "episodes", "python": sys.version.split()[0],
           "machine": platform.machine(), "processor_note": "one core, single process",
           "results": results,
           "max_cost_vs_floor": max(r["cost_vs_floor"] for r in results),
           "t3_episodes_per_s": {r["agent"]: r["episodes_per_s"] for r in results
                                 if r["task"] == "T3_duplicates"}}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(doc, indent=2) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
