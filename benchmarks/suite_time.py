"""How long `make test` takes on this machine, part by part (issue 17's goal: about 2 minutes).

Runs the parts `make test` runs, in its order, each through `make` so that the commands are the
Makefile's own: `ruff` (`make test-lint`), the parallel tests (`make test-parallel`), then mypy
beside the serial module (`make -j 2 test-types test-serial`). mypy gets an empty cache folder
(MYPY_CACHE_DIR), as on a fresh clone; the tests' temporary folders are pytest's own. For each
part: wall time, machine-wide busy CPU from /proc/stat (Ray's daemons and Chromium count too,
which rusage of the children would miss), and the "N passed" counts pytest printed. The machine's
speed moves from run to run by a quarter or more on this shared VM, so a fixed integer loop is
timed before and after (`spin_s`): compare runs by it. Needs the venv (`make test` once first).

    .venv/bin/python benchmarks/suite_time.py [--out FILE]

Writes benchmarks/results/suite_time.json (`make bench` runs it). Exits 1 if any part failed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "results" / "suite_time.json"
GOAL_S = 120.0  # issue 17: "under about 2 minutes for `make test` on this machine"
# (name, make's flags, the Makefile's targets), in `make test`'s order
PARTS: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("lint", (), ("test-lint",)),
    ("parallel", (), ("test-parallel",)),
    ("types_beside_serial", ("-j", "2", "--output-sync=target"), ("test-types", "test-serial")),
)
_PASSED = re.compile(r"^=*\s*(\d+) passed\b.*? in ([0-9.]+)s", re.M)
_FAILED = re.compile(r"\b(\d+) (failed|errors?)\b")


def busy_seconds(stat_line: str, ticks: int) -> float:
    """Return the busy CPU seconds in a /proc/stat `cpu` line (all but idle and iowait)."""
    fields = [int(x) for x in stat_line.split()[1:9]]
    return (sum(fields) - fields[3] - fields[4]) / ticks


def _busy() -> float:
    with open("/proc/stat") as f:
        return busy_seconds(f.readline(), os.sysconf("SC_CLK_TCK"))


def pytest_counts(output: str) -> list[dict[str, float]]:
    """Return each pytest summary's passed count and its own seconds, in order."""
    return [{"passed": int(n), "pytest_s": float(s)} for n, s in _PASSED.findall(output)]


def failures(output: str) -> int:
    """Return how many tests failed or errored by the summaries in `output`."""
    return sum(int(n) for n, _ in _FAILED.findall(output))


def spin() -> float:
    """Return the best of five timings of a fixed integer loop (the machine's speed now)."""
    best = float("inf")
    for _ in range(5):
        t = time.perf_counter()
        x = 0
        for i in range(2_000_000):
            x += i
        best = min(best, time.perf_counter() - t)
    return round(best, 4)


def run_part(name: str, flags: tuple[str, ...], targets: tuple[str, ...],
             env: dict[str, str]) -> dict[str, Any]:
    """Run one part through make; return its wall, busy CPU, counts and exit code."""
    b0, t0 = _busy(), time.perf_counter()
    proc = subprocess.run(["make", "--no-print-directory", *flags, *targets], cwd=ROOT, env=env,
                          capture_output=True, text=True, check=False)
    wall, busy = time.perf_counter() - t0, _busy() - b0
    out = proc.stdout + proc.stderr
    print(f"{name}: {wall:.1f} s wall, {busy:.1f} s busy, exit {proc.returncode}",
          file=sys.stderr)
    if proc.returncode:
        print(out[-3000:], file=sys.stderr)
    return {"part": name, "wall_s": round(wall, 1), "busy_cpu_s": round(busy, 1),
            "returncode": proc.returncode, "pytest": pytest_counts(out),
            "failed": failures(out)}


def main(argv: list[str] | None = None) -> int:
    """Time every part of `make test`, write the JSON, return 1 if a part failed."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    if not Path("/proc/stat").is_file():
        print("error: busy CPU is read from /proc/stat, which this system lacks (Linux only)",
              file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="agm-mypy-cache-") as cache:
        env = {**os.environ, "MYPY_CACHE_DIR": cache}
        before = spin()
        parts = [run_part(name, flags, targets, env) for name, flags, targets in PARTS]
        after = spin()
    failed = [f"{p['part']} exited {p['returncode']}" for p in parts if p["returncode"]]
    # A run with a failing part is not a measurement of `make test`: no total, and why.
    total = None if failed else round(sum(p["wall_s"] for p in parts), 1)
    doc = {"python": platform.python_version(), "machine": platform.machine(),
           "cpus": os.cpu_count(),
           "processor_note": "load " + ", ".join(f"{x:.2f}" for x in os.getloadavg()),
           "spin_s": {"before": before, "after": after},
           "parts": parts, "total_wall_s": total,
           "total_busy_cpu_s": round(sum(p["busy_cpu_s"] for p in parts), 1),
           "tests_passed": sum(c["passed"] for p in parts for c in p["pytest"]),
           "goal_s": GOAL_S, "goal_met": None if total is None else total <= GOAL_S,
           "ok": not failed, "not_measured": "; ".join(failed) or None}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    verdict = (f"not measured ({doc['not_measured']})" if total is None else
               f"{total} s ({'met' if doc['goal_met'] else 'not met'}: goal {GOAL_S:.0f} s)")
    print(f"make test: {verdict}; wrote {args.out}", file=sys.stderr)
    return 0 if doc["ok"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
