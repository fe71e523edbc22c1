"""Episode throughput of this tree beside another commit's, measured side by side in one run.

    python benchmarks/episodes_vs.py [--base REV] [--rounds 5]
    python benchmarks/episodes_vs.py --base REV --goal 2 --out episodes_vs_large \
        --tasks T1_single_page,T2_multi_page,T7_totals_trap
    python benchmarks/episodes_vs.py --base REV --rate quartile --out episodes_vs_overhead \
        --tasks T3_duplicates,T4_rate_limit_429,T9_clean_ab

Checks out REV (default HEAD~1) into a temporary git worktree and measures, alternating the two
trees round by round so that machine load hits both alike, how many episodes per second each
runs and scores (rule at L0 and scripted:careful at L2, generation included) of each task
(default T3_duplicates), on each process's CPU clock (the machine is shared: wall time would
measure the other agents' load as much as the code). Writes benchmarks/results/OUT.json
(default episodes_vs) with per-round rates, medians, the ratio and the goal ratio (default
0.9: no regression). A round's rate is episodes over CPU seconds, or with `--rate quartile`
that of its lower-quartile episode (each timed on its own, generation included): other
processes only add time to an episode, so a change of a few percent shows under load.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
CONFIGS = (("rule", "L0"), ("scripted:careful", "L2"))

# Runs inside either tree: the entry points moved when environments became plug-ins, so the
# probe uses whichever exists. Prints {config: episodes/s}.
PROBE = r"""
import json, sys, time
try:
    from agentmetrology.envs.registry import get_env
    from agentmetrology.run.episode import run_one as _run
    from agentmetrology.envs.comtrade.generator import row_tuples as _cache
    spec = get_env("comtrade")
    def run(t, s, a, lv): _run(spec, t, s, a, lv)
except ImportError:
    from agentmetrology.run.comtrade import run_one as run
    from agentmetrology.envs.comtrade.generator import _rows_cached as _cache
import statistics
out = {}
for task in json.loads(sys.argv[3]):
    for agent, level in json.loads(sys.argv[1]):
        n, start, times = 0, time.process_time(), []
        while True:
            _cache.cache_clear()
            t0 = time.process_time_ns()
            run(task, n, agent, level)
            times.append(time.process_time_ns() - t0)
            n += 1
            elapsed = time.process_time() - start
            if elapsed >= float(sys.argv[2]) and n >= 20:
                break
        quartile = statistics.quantiles(times, n=4, method="inclusive")[0]
        out[f"{task} {agent}@{level}"] = 1e9 / quartile if sys.argv[4] == "quartile" \
            else n / elapsed
print(json.dumps(out))
"""


def measure(src: Path, seconds: float, tasks: list[str], rate: str) -> dict[str, float]:
    """Return episodes/s per task and config for the package under `src` (`rate`: "mean",
    episodes over CPU seconds, or "quartile", that of the lower-quartile episode)."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    res = subprocess.run([sys.executable, "-c", PROBE, json.dumps(CONFIGS), str(seconds),
                          json.dumps(tasks), rate],
                         env=env, capture_output=True, text=True, check=True)
    rates: dict[str, float] = json.loads(res.stdout)
    return rates


def main() -> None:
    """Measure both trees alternately and write the JSON results."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default="HEAD~1", help="commit to compare with (default HEAD~1)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=1.0, help="per config per round")
    ap.add_argument("--tasks", default="T3_duplicates", help="comma-separated task ids")
    ap.add_argument("--goal", type=float, default=0.9, help="the ratio the rows ask for")
    ap.add_argument("--out", default="episodes_vs", help="results file name, without .json")
    ap.add_argument("--rate", choices=("mean", "quartile"), default="mean",
                    help="a round's rate: episodes over CPU seconds, or the lower-quartile "
                         "episode's (contention only adds time: resolves a few percent under "
                         "load, as benchmarks/episodes.py does)")
    args = ap.parse_args()
    tasks = [t for t in args.tasks.split(",") if t]
    out = RESULTS / f"{args.out}.json"
    rev = subprocess.run(["git", "rev-parse", args.base], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="agm-base-") as tmp:
        base = Path(tmp) / "tree"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(base), rev], cwd=ROOT,
                       check=True)
        try:
            rounds: dict[str, list[dict[str, float]]] = {"current": [], "base": []}
            for i in range(args.rounds):
                order = (("current", ROOT / "src"), ("base", base / "src"))
                for name, src in order if i % 2 == 0 else order[::-1]:
                    rounds[name].append(measure(src, args.seconds, tasks, args.rate))
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=ROOT,
                           check=False)
    medians = {name: {k: statistics.median(r[k] for r in rs) for k in rs[0]}
               for name, rs in rounds.items()}
    ratio = {k: medians["current"][k] / medians["base"][k] for k in medians["current"]}
    load = os.getloadavg()
    doc = {"tasks": tasks, "base": rev, "rounds": rounds, "median_episodes_per_s": medians,
           "ratio_current_over_base": ratio, "goal_ratio": args.goal, "rate": args.rate,
           "goal_met": all(r >= args.goal for r in ratio.values()),
           "machine": platform.machine(), "python": sys.version.split()[0],
           "cpus": os.cpu_count(),
           "uptime": "load average: " + ", ".join(f"{x:.2f}" for x in load)
                     + " (after; the machine is shared with other agents)"}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=2) + "\n")
    for k, r in ratio.items():
        print(f"{k}: current {medians['current'][k]:.0f}/s, base {medians['base'][k]:.0f}/s, "
              f"ratio {r:.3f}")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
