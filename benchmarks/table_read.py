"""CPU time and peak RSS of reading a large results table for `agm stats`, this tree beside a
base commit.

`agm stats summarize` and `compare` first read the table (`results.read_results`) and collect
each group's values (`results.grouping.collect_groups`); benchmarks/stats_scale.py measures the
statistics alone. Here a seeded JSON Lines table of --rows rows (an `agm export`-like row: key
fields, a nested ground truth with score and status, a termination; half the rows in each of
two targets) is written once under --work, then read and grouped by target in a child process
of its own, on this tree's package and on the base commit's (`git archive` of src), the two
taking turns --repeats times; each side's run of median CPU is kept (time.process_time of the
read, of the grouping; ru_maxrss after both, the interpreter's own before). The groups' values
of the two trees are compared (sha256 of their float64 bytes per group, and the exclusion
counts): `same_values`. Writes benchmarks/results/table_read.json.

    python benchmarks/table_read.py [--base REV] [--rows N] [--repeats N] [--work DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

from stats_scale import base_tree

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks" / "results" / "table_read.json"

CHILD = r"""
import hashlib, json, resource, sys, time
import numpy as np
def rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
from agentmetrology.results import read_results
from agentmetrology.results.grouping import collect_groups
base = rss_mib()
t0 = time.process_time()
table = read_results(sys.argv[1])
t1 = time.process_time()
groups = collect_groups(table, "ground_truth.score", ["target"])
t2 = time.process_time()
values = {"/".join(k): hashlib.sha256(np.asarray(v, dtype=np.float64).tobytes()).hexdigest()
          for k, v in sorted(groups.values.items())}
print(json.dumps({"read_cpu_s": t1 - t0, "group_cpu_s": t2 - t1, "peak_rss_mib": rss_mib(),
                  "baseline_rss_mib": base, "rows": len(table.rows), "values": values,
                  "excluded": groups.excluded.to_dict(),
                  "excluded_by_group": {"/".join(k): e.to_dict()
                                        for k, e in sorted(groups.by_group.items())}}))
"""


def write_table(path: Path, rows: int) -> None:
    """Write the seeded JSON Lines table (the same bytes for the same `rows`)."""
    r = random.Random(40)
    with path.open("w", encoding="utf-8") as f:
        for i in range(rows):
            status = "PASS" if i % 97 else "UNKNOWN"  # a few unmeasured: excluded, counted
            f.write(json.dumps({
                "campaign": "bench", "target": "rule" if i % 2 else "careful",
                "task": f"T{i % 10}", "seed": i // 20, "condition": "clean", "level": "L2",
                "repeat": i % 2, "termination": "submitted",
                "ground_truth": {"score": round(r.random(), 4), "status": status},
            }) + "\n")


def _measure(src: Path, table: Path) -> dict[str, Any]:
    """Read and group `table` in a child on the package under `src`."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    done = subprocess.run([sys.executable, "-c", CHILD, str(table)], env=env, check=False,
                          capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"the child on {src} failed:\n{done.stderr}")
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def _median_run(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Return the run of median total CPU, with every run's CPU kept beside it."""
    total = [r["read_cpu_s"] + r["group_cpu_s"] for r in runs]
    pick = runs[total.index(sorted(total)[len(total) // 2])]
    return {"read_cpu_s": round(pick["read_cpu_s"], 2),
            "group_cpu_s": round(pick["group_cpu_s"], 2),
            "cpu_s": round(pick["read_cpu_s"] + pick["group_cpu_s"], 2),
            "peak_rss_mib": round(max(r["peak_rss_mib"] for r in runs), 1),
            "baseline_rss_mib": round(pick["baseline_rss_mib"], 1),
            "runs_cpu_s": [round(t, 2) for t in total]}


def main() -> None:
    """Measure both trees on one table; write the JSON results."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", default="64cb57c", help="the commit before the speedup")
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--work", type=Path, default=Path("/tmp/agm-table-read"))
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    table = args.work / f"rows-{args.rows}.jsonl"
    if not table.exists():
        write_table(table, args.rows)
    base_src = args.work / "base"
    commit = base_tree(args.base, base_src, "src/agentmetrology")
    trees = {"before": base_src / "src", "after": ROOT / "src"}
    runs: dict[str, list[dict[str, Any]]] = {"before": [], "after": []}
    for _ in range(args.repeats):
        for side, src in trees.items():
            runs[side].append(_measure(src, table))
    first = {side: r[0] for side, r in runs.items()}
    doc = {
        "benchmark": "table_read", "base": commit, "rows": args.rows,
        "file_mib": round(table.stat().st_size / 2**20, 1), "repeats": args.repeats,
        "before": _median_run(runs["before"]), "after": _median_run(runs["after"]),
        "same_values": all(first["before"][k] == first["after"][k]
                           for k in ("rows", "values", "excluded", "excluded_by_group")),
        "machine": platform.machine(), "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "uptime": subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip(),
    }
    args.out.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: doc[k] for k in ("before", "after", "same_values")}, indent=1))


if __name__ == "__main__":
    main()
