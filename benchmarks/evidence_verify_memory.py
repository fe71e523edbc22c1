"""`agm evidence verify S` (the full store check) on large stores: peak RSS and CPU, this tree
beside an older one, in the same run.

The full check once held a sealed digest per row of the whole ledger and every campaign's
parsed bindings (for its plan digest) at once; it now reads each table's digests in a pass of
its own and hashes each plan as its bindings are read (store/verify.py, store/verify_plan.py).
Each store of --sizes (benchmarks/memory_stores.py, cached under --work as store-N, as
benchmarks/export_audit_scale.py caches them) is copied (ledger copied, blobs hard-linked) and
checked with `agm evidence verify S --json` in a child process (benchmarks/memory.py's
`measure`: wall, CPU, peak RSS) by this tree and, given --before SRC, by the older tree's
sources; the two JSON outputs must be equal (the same problems, counts and qualification).
Writes benchmarks/results/evidence_verify_memory.json (or --out).
Run: .venv/bin/python benchmarks/evidence_verify_memory.py [--work /tmp/agm-scale]
     [--before SRC --before-revision REV] [--sizes N ...]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
from pathlib import Path
from typing import Any

from export_audit_scale import _store, trees_and_baselines
from memory import measure
from store_scale import _copy  # the ledger copied, the blobs hard-linked

HERE = Path(__file__).resolve().parent
OUT = HERE / "results" / "evidence_verify_memory.json"


def _uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def verify_case(work: Path, n: int, trees: dict[str, Path],
                base: dict[str, float]) -> dict[str, Any]:
    """Check a copy of the store of about n episodes with every tree; return the case."""
    root = _store(work, n)
    got: dict[str, Any] = {}
    docs: dict[str, Any] = {}
    for name, src in trees.items():
        cwd = work / f"verify-{name}-{n}"
        shutil.rmtree(cwd, ignore_errors=True)
        cwd.mkdir(parents=True)
        _copy(root, cwd / "S")
        c = measure(["evidence", "verify", "S", "--json"], src, cwd)
        if c["exit_code"] not in (0, 1):  # 1: checked, not qualified (still a full check)
            raise SystemExit(f"verify [{name}]: exit {c['exit_code']}: {c['stderr_tail']}")
        docs[name] = json.loads((cwd / "stdout.txt").read_text(encoding="utf-8"))
        episodes = docs[name]["checked"].get("episodes", 0)
        got[name] = {**c, "episodes": episodes, "result": docs[name]["result"],
                     "kib_per_episode": round(max(0.0, c["peak_rss_mib"] - base[name]) * 1024
                                              / max(1, episodes), 3)}
        print(f"verify {episodes:,} episodes [{name}]: {c['wall_s']} s wall, {c['cpu_s']} s "
              f"CPU, {c['peak_rss_mib']} MiB", flush=True)
        shutil.rmtree(cwd / "S")
    case: dict[str, Any] = {"store_episodes": n, "this": got["this"]}
    if "before" in got:
        case["before"] = got["before"]
        case["same_findings"] = docs["before"] == docs["this"]
    return case


def main() -> None:
    """Parse arguments, measure, write the JSON."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", type=Path, default=Path("/tmp/agm-scale"))
    ap.add_argument("--src", type=Path, default=HERE.parent / "src")
    ap.add_argument("--before", type=Path, default=None, help="an older tree's src directory")
    ap.add_argument("--before-revision", default=None, help="the revision --before holds")
    ap.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000])
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    trees, base = trees_and_baselines(args.src, args.before, args.work / "verify-version")
    start = _uptime()
    cases = [verify_case(args.work, n, trees, base) for n in args.sizes]
    doc = {"benchmark": "evidence_verify_memory", "baseline_rss_mib": base,
           "before_revision": args.before_revision, "cases": cases,
           "machine": platform.machine(), "cpus": os.cpu_count(),
           "python": platform.python_version(), "uptime_at_start": start, "uptime": _uptime()}
    args.out.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
