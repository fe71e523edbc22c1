"""Episodes per second for model-free agents, next to each task's floor.

The floor of a task is the work no agent can avoid: generating its rows, serialising a perfect
submission and scoring it with both scorers. An episode adds the agent, the scaffold, the tool
envelopes and the event record. Writes benchmarks/results/episodes.json.

The machine is shared, so floor and episode are timed in alternating rounds (ROUNDS of each, on
the process's CPU clock), and the reported rates and the ratio are medians over the rounds: a
change in load moves both sides of one round together.

    python benchmarks/episodes.py [--rounds N] [--tasks T3_duplicates,T9_adaptive_adversary]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from agentmetrology.envs.comtrade import TASKS, generate_rows
from agentmetrology.envs.comtrade.generator import row_tuples
from agentmetrology.envs.comtrade.payload import encode_payload
from agentmetrology.envs.comtrade.scoring.submission import make_submission
from agentmetrology.envs.registry import get_env
from agentmetrology.run.episode import run_episode, run_one
from agentmetrology.scoring.episode import score_episode, score_submission

COMTRADE = get_env("comtrade")

CONFIGS = (("rule", "L0"), ("scripted:careful", "L2"))
OUT = Path(__file__).resolve().parent / "results" / "episodes.json"


ROUNDS = 7
ROUND_TIME_S = 0.15


def _rate(fn: Any, start: int, min_time: float = ROUND_TIME_S) -> tuple[float, int]:
    """Return (calls per CPU second of fn(i), next i) over at least `min_time` CPU seconds."""
    n, t0 = 0, time.process_time()
    while True:
        fn(start + n)
        n += 1
        elapsed = time.process_time() - t0
        if elapsed >= min_time and n >= 5:
            return n / elapsed, start + n


def _paired(floor_fn: Any, episode_fn: Any, rounds: int) -> tuple[float, float, float]:
    """Return median floor rate, median episode rate and median per-round cost ratio."""
    fr, er, ratio = [], [], []
    i = j = 0
    for _ in range(rounds):
        f, i = _rate(floor_fn, i)
        e, j = _rate(episode_fn, j)
        fr.append(f)
        er.append(e)
        ratio.append(f / e)
    return statistics.median(fr), statistics.median(er), statistics.median(ratio)


def floor(task: str, i: int) -> None:
    """Generate the rows of (task, seed i), submit them perfectly, score with both scorers."""
    row_tuples.cache_clear()  # the floor includes generation every time
    rows = generate_rows(task, i)
    payload = encode_payload(rows, {"task_id": task}, "")  # the same encoder episodes use
    score_submission(COMTRADE, make_submission(**payload), task, i, "seeded")


SPLIT_N = 150  # at most this many episodes (and floors) timed part by part
SPLIT_TIME_S = 1.0  # ... or at least 5 within this much CPU time


def split(task: str, agent: str, level: str) -> dict[str, float]:
    """Return mean CPU µs per part: floor (generate + encode, score), episode (run, score)."""
    clock = time.process_time_ns
    totals = dict.fromkeys(("floor_generate_encode_us", "floor_score_us", "episode_run_us",
                            "episode_score_us"), 0.0)
    n, start = 0, clock()
    while n < SPLIT_N and (n < 5 or clock() - start < SPLIT_TIME_S * 1e9):
        i = 10_000 + n  # seeds the rate rounds do not use
        n += 1
        row_tuples.cache_clear()
        t0 = clock()
        rows = generate_rows(task, i)
        sub = make_submission(**encode_payload(rows, {"task_id": task}, ""))
        t1 = clock()
        score_submission(COMTRADE, sub, task, i, "seeded")
        t2 = clock()
        row_tuples.cache_clear()
        ep = run_episode(COMTRADE, task, i, agent, level, profile="seeded")
        t3 = clock()
        score_episode(COMTRADE, ep)
        t4 = clock()
        for key, dt in zip(totals, (t1 - t0, t2 - t1, t3 - t2, t4 - t3), strict=True):
            totals[key] += dt / 1000
    return {k: round(v / n, 1) for k, v in totals.items()}


def episode(task: str, agent: str, level: str, i: int) -> None:
    """Run and score one episode at seed i (generation included)."""
    row_tuples.cache_clear()
    run_one(COMTRADE, task, i, agent, level)


def main() -> None:
    """Measure every task and write the JSON results."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=ROUNDS)
    ap.add_argument("--tasks", default="", help="comma-separated task ids (default: all; "
                    "a subset is printed, not written)")
    args = ap.parse_args()
    tasks = [t for t in args.tasks.split(",") if t] or list(TASKS)
    load_before = os.getloadavg()
    results: list[dict[str, Any]] = []
    for task in tasks:
        for agent, level in CONFIGS:
            f, e, cost = _paired(lambda i, t=task: floor(t, i),
                                 lambda i, t=task, a=agent, lv=level: episode(t, a, lv, i),
                                 args.rounds)
            parts = split(task, agent, level)
            results.append({"task": task, "rows": TASKS[task].rows, "agent": agent,
                            "level": level, "episodes_per_s": round(e, 1),
                            "floor_per_s": round(f, 1), "cost_vs_floor": round(cost, 2),
                            "cpu_us": parts})
            print(f"{task:24s} {agent:18s} {level}  {e:9.1f} eps/s  floor {f:9.1f}/s  "
                  f"x{cost:.2f}  {parts}", flush=True)
    if args.tasks:
        return
    load = (*load_before, *os.getloadavg())
    doc = {"benchmark": "episodes", "python": sys.version.split()[0],
           "machine": platform.machine(),
           "processor_note": f"one core, single process, CPU time, median of {args.rounds} "
                             "alternating rounds",
           "uptime": "load average: " + ", ".join(f"{x:.2f}" for x in load[:3])
                     + " (before) / " + ", ".join(f"{x:.2f}" for x in load[3:]) + " (after)",
           "results": results,
           "max_cost_vs_floor": max(r["cost_vs_floor"] for r in results),
           "t3_episodes_per_s": {r["agent"]: r["episodes_per_s"] for r in results
                                 if r["task"] == "T3_duplicates"}}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(doc, indent=2) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
