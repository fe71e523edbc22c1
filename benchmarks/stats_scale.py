"""CPU time and peak RSS of `agm stats compare` and `summarize` statistics at large n, this tree
beside a base commit.

What `agm stats compare` computes for one comparison (`compare_paired`: the paired bootstrap,
equivalence, Cliff's delta, the 100,000-draw Monte-Carlo sign-flip test, flips, McNemar; then the
exact sign test on the up/down counts) at 10,000 and 100,000 seeded pairs, and what
`agm stats summarize` computes (`reliability_table`, 2000 resamples a group) for 100,000 and
1,000,000 seeded values in two equal groups. Reading the table is not measured.

Each measure runs in a child process of its own, on this tree's `agentmetrology.stats` and on
the base commit's (`git archive` of src/agentmetrology/stats: the package imports only numpy and
the standard library), so ru_maxrss is that measure's peak. CPU is time.process_time of the
call, user + system. The base's exact sign test ran for tens of minutes at 100,000 pairs: a child
is stopped after --cap CPU seconds (RLIMIT_CPU) and recorded as not finished. The results of both
trees are compared number for number (`same_numbers`). Writes benchmarks/results/stats_scale.json.

    python benchmarks/stats_scale.py [--base REV] [--cap SECONDS]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import platform
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks" / "results" / "stats_scale.json"
CASES = [("compare", 10_000), ("compare", 100_000), ("summarize", 100_000),
         ("summarize", 1_000_000)]

CHILD = r"""
import json, resource, sys, time
import numpy as np
from agentmetrology import stats
kind, n, part, cap = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
rng = np.random.default_rng(43)
def rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
if kind == "compare":
    a = np.round(rng.uniform(0, 1, n), 3)
    b = np.clip(np.round(a + rng.normal(0.01, 0.1, n), 3), 0, 1)
    d = b - a
    up, down = int(np.count_nonzero(d > 0)), int(np.count_nonzero(d < 0))
    if part == "sign_test":
        run = lambda: stats.sign_test(up, down).to_dict()
    else:
        run = lambda: stats.compare_paired(a, b).to_dict()
else:
    values = np.round(rng.uniform(0, 1, n), 3)
    groups = {"g0": np.sort(values[0::2]), "g1": np.sort(values[1::2])}
    run = lambda: [r.to_dict() for r in stats.reliability_table(groups)]
if cap:
    resource.setrlimit(resource.RLIMIT_CPU, (int(cap), int(cap) + 1))
base = rss_mib()
t0 = time.process_time()
result = run()
cpu = time.process_time() - t0
print(json.dumps({"cpu_s": cpu, "peak_rss_mib": rss_mib(), "baseline_rss_mib": base,
                  "result": result}))
"""


def base_tree(rev: str, into: Path, part: str = "src/agentmetrology/stats") -> str:
    """Extract `part` of the base commit under `into` (the statistics package by default, made
    importable alone); return its commit."""
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", rev], check=True,
                            capture_output=True, text=True).stdout.strip()
    tar = subprocess.run(["git", "-C", str(ROOT), "archive", commit, part],
                         check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(tar)) as archive:
        # Our own commit's files; the "data" filter where this Python has it (3.11.4+).
        safe: dict[str, Any] = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
        archive.extractall(into, **safe)
    package = into / "src" / "agentmetrology" / "__init__.py"
    if not package.exists():  # the statistics alone: their parent package, empty
        package.write_text("", encoding="utf-8")
    return commit


def _measure(src: Path, kind: str, n: int, part: str, cap: float) -> dict[str, Any]:
    """Run one measure in a child on the package under `src`; None cpu_s when it was stopped."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    done = subprocess.run([sys.executable, "-c", CHILD, kind, str(n), part, str(cap)],
                          env=env, check=False, capture_output=True, text=True)
    if done.returncode:
        if cap and done.returncode < 0:  # SIGXCPU: over the cap
            return {"cpu_s": None, "stopped_after_cpu_s": cap}
        raise SystemExit(f"the {kind} {n} {part} child failed:\n{done.stderr}")
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def _side(src: Path, kind: str, n: int, cap: float) -> dict[str, Any]:
    """Measure one case on one tree: compare is compare_paired plus the exact sign test."""
    main = _measure(src, kind, n, "main", 0.0)
    side: dict[str, Any] = {"cpu_s": round(main["cpu_s"], 2),
                            "peak_rss_mib": round(main["peak_rss_mib"], 1),
                            "baseline_rss_mib": round(main["baseline_rss_mib"], 1),
                            "result": main["result"]}
    if kind == "compare":
        sign = _measure(src, kind, n, "sign_test", cap)
        side["sign_test"] = {k: (round(v, 3) if isinstance(v, float) else v)
                             for k, v in sign.items() if k != "baseline_rss_mib"}
        side["compare_paired_cpu_s"] = side["cpu_s"]
        side["cpu_s"] = (None if sign["cpu_s"] is None else
                         round(main["cpu_s"] + sign["cpu_s"], 2))
        side["cpu_s_at_least"] = round(main["cpu_s"] + (sign["cpu_s"] or cap), 2)
    return side


def main() -> None:
    """Measure every case on the base commit and on this tree; write the JSON results."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", default="4f5d918", help="the commit before the speedups")
    ap.add_argument("--cap", type=float, default=90.0,
                    help="CPU seconds after which a base child is stopped")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="agm-stats-scale-") as tmp:
        commit = base_tree(args.base, Path(tmp))
        cases = []
        for kind, n in CASES:
            before = _side(Path(tmp) / "src", kind, n, args.cap)
            after = _side(ROOT / "src", kind, n, 0.0)
            same = before.pop("result") == after.pop("result")
            sign_same = None
            if kind == "compare":
                b, a = before["sign_test"].pop("result", None), after["sign_test"].pop("result")
                sign_same = None if b is None else b == a
            cases.append({"kind": kind, "n": n, "before": before, "after": after,
                          "same_numbers": same, "sign_test_same": sign_same})
            print(json.dumps(cases[-1]), flush=True)
    doc = {"benchmark": "stats_scale", "python": sys.version.split()[0],
           "machine": platform.machine(), "cpus": os.cpu_count(),
           "uptime": "load average: " + ", ".join(f"{x:.2f}" for x in os.getloadavg()),
           "base": commit, "cap_cpu_s": args.cap, "cases": cases}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
