"""Episodes per second for model-free agents, next to each task's floor.

The floor of a task is the work no agent can avoid: generating its rows, serialising a perfect
submission and scoring it with both scorers. The floor's submission is the least a valid one
can be: the exact rows, metadata naming only the task and no run log, so the shape judge's
metadata and log checks, which every agent's submission goes through, count in an episode's
"scoring" extra (and the floor's judge score is lower than a careful agent's: correctness is
the ground truth's, not the judge's). An episode adds the agent, the scaffold, the tool
envelopes and the event record. Writes benchmarks/results/episodes.json.

The machine is shared, so floor and episode are timed in alternating rounds (ROUNDS of each, on
the process's CPU clock), every call on its own; a round's rate is that of its lower-quartile
call, and the reported rates and the ratio are medians over the rounds: a change in load moves
both sides of one round together, and contention, which only adds time, stays out of the
quartile.

Where the time goes: a sampling profiler (SIGPROF every SAMPLE_S of CPU time) runs episodes and
floors again and files each sample under the category of its innermost frame that has one
(CATEGORIES: fault realisation, row generation, page serving, row cleaning, submission, scoring;
the rest is the scaffold, policy, tool calls and recording). Episodes and floors are sampled in
alternating chunks; a category's share of a side's samples times that side's CPU µs from the
split is its µs. `profile_us` holds both sides and `extra_us` the episode's excess
over the floor per category: what a ratio above the goal is made of. `seeded_generators` counts
the generators the spec has an episode seed beyond its rows (a Mersenne Twister per duplicating
or drifting request and per fail list, a SeedSequence per stress step) and times each in place:
the part of fault realisation no implementation of the spec avoids.

    python benchmarks/episodes.py [--rounds N] [--tasks T3_duplicates,T9_adaptive_adversary]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

from agentmetrology.envs.comtrade import TASKS, faults, generate_rows
from agentmetrology.envs.comtrade.generator import row_tuples
from agentmetrology.envs.comtrade.payload import encode_payload
from agentmetrology.envs.comtrade.scoring.submission import make_submission
from agentmetrology.envs.registry import get_env
from agentmetrology.run.episode import run_episode, run_one
from agentmetrology.runtime import rng_first
from agentmetrology.scoring.episode import score_episode, score_submission

COMTRADE = get_env("comtrade")

CONFIGS = (("rule", "L0"), ("scripted:careful", "L2"))
OUT = Path(__file__).resolve().parent / "results" / "episodes.json"


ROUNDS = 7
ROUND_TIME_S = 0.15


def _lower_quartile(xs: list[float]) -> float:
    return statistics.quantiles(xs, n=4, method="inclusive")[0] if len(xs) > 1 else xs[0]


def _rate(fn: Any, start: int, min_time: float = ROUND_TIME_S) -> tuple[float, int]:
    """Return (calls per CPU second of fn(i), next i) over at least `min_time` CPU seconds.

    Each call is timed on its own and the rate is that of the lower quartile of the calls:
    other processes on the shared cores only ever add time to a call (cache and core
    contention), so the quartile tracks the code's own cost where the mean tracks the load.
    """
    clock, times, t0 = time.process_time_ns, [], time.process_time()
    while True:
        c0 = clock()
        fn(start + len(times))
        times.append(clock() - c0)
        if time.process_time() - t0 >= min_time and len(times) >= 5:
            return 1e9 / _lower_quartile(times), start + len(times)


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
    """Return CPU µs per part (lower quartile over calls): floor generate+encode and score,
    episode run and score."""
    clock = time.process_time_ns
    parts: dict[str, list[float]] = {k: [] for k in (
        "floor_generate_encode_us", "floor_score_us", "episode_run_us", "episode_score_us")}
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
        for key, dt in zip(parts, (t1 - t0, t2 - t1, t3 - t2, t4 - t3), strict=True):
            parts[key].append(dt / 1000)
    return {k: round(_lower_quartile(v), 1) for k, v in parts.items()}


SAMPLE_S = 0.0002  # CPU seconds between profile samples
PROFILE_S = 1.6  # CPU seconds profiled per configuration (episodes and floors together)
OTHER = "scaffold, policy, tool calls, recording"
# (category, path fragment, function names or () for any); the first rule that matches the
# innermost frame wins, else the next frame outwards is tried.
CATEGORIES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("fault realisation", "envs/comtrade/faults.py", ()),
    ("fault realisation", "runtime/rng.py", ()),
    ("fault realisation", "agentmetrology/stress/", ()),
    ("fault realisation", "envs/comtrade/adversary.py", ()),
    ("fault realisation", "envs/comtrade/service.py", ("_fault", "_duplicates")),
    ("row generation", "envs/comtrade/generator.py", ("row_tuples",)),
    ("page serving", "envs/comtrade/generator.py", ("row_dicts", "totals_row")),
    ("page serving", "envs/comtrade/service.py", ("_serve",)),
    ("row cleaning", "envs/comtrade/payload.py",
     ("add", "_add_row", "_add_plain", "_totals_at", "_dedup_key")),
    ("submission: log, metadata, encode, digest", "envs/comtrade/payload.py", ()),
    ("submission: log, metadata, encode, digest", "records/canonical.py", ()),
    ("submission: log, metadata, encode, digest", "envs/comtrade/service.py", ("submit",)),
    ("scoring", "/scoring/", ()),
    ("scoring", "envs/comtrade/scorers.py", ()),
)


def _category(frame: FrameType | None) -> str:
    while frame is not None:
        code = frame.f_code
        path = code.co_filename.replace(os.sep, "/")
        for name, fragment, functions in CATEGORIES:
            if fragment in path and (not functions or code.co_name in functions):
                return name
        frame = frame.f_back
    return OTHER


def _sampled(fns: dict[str, Any], cpu_s: float, chunks: int = 4) -> dict[str, dict[str, float]]:
    """Return each category's share of the samples of each fn(i), sampled in alternating chunks."""
    counts: dict[str, Counter[str]] = {k: Counter() for k in fns}
    current = [next(iter(fns))]

    def sample(signum: int, frame: FrameType | None) -> None:
        counts[current[0]][_category(frame)] += 1

    old = signal.signal(signal.SIGPROF, sample)
    signal.setitimer(signal.ITIMER_PROF, SAMPLE_S, SAMPLE_S)
    try:
        i = 20_000  # seeds the rate rounds and the split do not use
        for _ in range(chunks):
            for name, fn in fns.items():  # alternating, so load hits every side alike
                current[0] = name
                start = time.process_time()
                while time.process_time() - start < cpu_s / chunks:
                    fn(i)
                    i += 1
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0, 0)
        signal.signal(signal.SIGPROF, old)
    return {name: {c: n / (sum(counts[name].values()) or 1) for c, n in counts[name].items()}
            for name in fns}


def profile(task: str, agent: str, level: str, parts: dict[str, float]) -> dict[str, Any]:
    """Return µs per category for the episode and the floor, and the episode's excess.

    A side's µs are its sampled shares times its CPU µs from the split (the same lower
    quartiles the table shows), so the categories add up to the split's totals.
    """
    got = _sampled({"episode": lambda i: episode(task, agent, level, i),
                    "floor": lambda i: floor(task, i)}, PROFILE_S)
    totals = {"episode": parts["episode_run_us"] + parts["episode_score_us"],
              "floor": parts["floor_generate_encode_us"] + parts["floor_score_us"]}
    names = list(dict.fromkeys([*(c[0] for c in CATEGORIES), OTHER]))
    side = {name: {c: round(totals[name] * shares.get(c, 0.0), 1) for c in names}
            for name, shares in got.items()}
    return {"profile_us": side,
            "extra_us": {c: round(side["episode"][c] - side["floor"][c], 1) for c in names}}


# The generators the spec has an episode seed beyond its rows': a Mersenne Twister per
# duplicating or drifting request and per fail list (faults.py's string_bits/string_random), a
# SeedSequence per stress step (runtime/rng_first.py's first draw, or the whole generator).
SEEDED = (("mersenne_twister", faults, ("string_bits", "string_random")),
          ("seed_sequence", rng_first, ("first_random", "rng")))
GENERATOR_EPISODES = 300


def seeded_generators(task: str, agent: str, level: str) -> dict[str, dict[str, float]]:
    """Return, per kind, the generators an episode seeds and the CPU µs each took in place.

    Each construction is timed on its own inside whole episodes (their caches and branch
    history as the episode leaves them, which is what the profile's fault realisation sees).
    """
    clock, spent = time.process_time_ns, {kind: [0, 0] for kind, _, _ in SEEDED}
    saved = [(mod, name, getattr(mod, name)) for _, mod, names in SEEDED for name in names]

    def timed(kind: str, fn: Any) -> Any:
        def call(*args: Any) -> Any:
            t0 = clock()
            try:
                return fn(*args)
            finally:
                spent[kind][0] += clock() - t0
                spent[kind][1] += 1
        return call

    for kind, mod, names in SEEDED:
        for name in names:
            setattr(mod, name, timed(kind, getattr(mod, name)))
    try:
        for i in range(GENERATOR_EPISODES):
            episode(task, agent, level, 30_000 + i)  # seeds no other measurement uses
    finally:
        for mod, name, fn in saved:
            setattr(mod, name, fn)
    return {kind: {"per_episode": round(n / GENERATOR_EPISODES, 2),
                   "us_each": round(ns / n / 1000, 1) if n else 0.0,
                   "us_per_episode": round(ns / GENERATOR_EPISODES / 1000, 1)}
            for kind, (ns, n) in spent.items()}


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
            prof = profile(task, agent, level, parts)
            results.append({"task": task, "rows": TASKS[task].rows, "agent": agent,
                            "level": level, "episodes_per_s": round(e, 1),
                            "floor_per_s": round(f, 1), "cost_vs_floor": round(cost, 2),
                            "cpu_us": parts, **prof,
                            "seeded_generators": seeded_generators(task, agent, level)})
            print(f"{task:24s} {agent:18s} {level}  {e:9.1f} eps/s  floor {f:9.1f}/s  "
                  f"x{cost:.2f}  {parts}\n    extra µs over the floor: {prof['extra_us']}"
                  f"\n    seeded generators: {results[-1]['seeded_generators']}",
                  flush=True)
    if args.tasks:
        return
    load = (*load_before, *os.getloadavg())
    doc = {"benchmark": "episodes", "python": sys.version.split()[0],
           "machine": platform.machine(),
           "processor_note": f"one core, single process, CPU time of each call, lower "
                             f"quartile per round, median of {args.rounds} alternating rounds",
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
