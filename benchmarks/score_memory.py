"""Peak memory of scoring a 1,000,000-row ComtradeBench submission with both scorers, streamed.

Writes a submission directory (data.jsonl, metadata.json, run.log) whose data.jsonl has ROWS
lines for T2_multi_page at seed 0: the 2,345 genuine rows, some of them first with a wrong
value, then duplicates, totals rows, lines that are not JSON and, for the rest, rows with
fabricated distinct ids (the worst case for memory: every one is a new record id and a new dedup
key). A child process reads it with `read_streamed_dir` and scores it with the ground-truth F1
and the shape judge; it reports its peak RSS (ru_maxrss) after the imports (the interpreter
and the package, counted in the peak: no scoring has happened yet) and after scoring. Goal:
peak at most 2x the size of data.jsonl on disk. Writes benchmarks/results/score_memory.json.

    python benchmarks/score_memory.py [--rows N]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import msgspec

from agentmetrology.envs.comtrade.generator import generate_rows
from agentmetrology.envs.comtrade.payload import build_metadata, encode_payload
from agentmetrology.envs.comtrade.tasks import get_task

TASK, SEED = "T2_multi_page", 0
ROWS = 1_000_000
OUT = Path(__file__).resolve().parent / "results" / "score_memory.json"

CHILD = r"""
import json, resource, sys, time
from agentmetrology.envs.comtrade.scoring import submission
from agentmetrology.envs.comtrade.scoring.ground_truth import ground_truth_f1
from agentmetrology.envs.comtrade.scoring.judge import shape_judge
from agentmetrology.envs.comtrade.scoring.streamed import read_streamed_dir
def rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux
root, task, seed, mode = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
base = rss()
t0 = time.process_time()
if mode == "streamed":
    sub = read_streamed_dir(root)
else:  # the in-memory path, its 8 MiB data.jsonl limit lifted for the comparison
    submission.LIMITS["data_jsonl"] = 2**31
    sub = submission.read_submission_dir(root)
gt = ground_truth_f1(sub, task, seed)
after_gt = rss()
judge = shape_judge(sub, task)
print(json.dumps({"baseline_rss_bytes": base, "after_ground_truth_rss_bytes": after_gt,
                  "peak_rss_bytes": rss(), "cpu_s": time.process_time() - t0,
                  "assessments": [[a.status, a.score, a.components, list(a.reasons),
                                   a.evidence_digest] for a in (gt, judge)]}))
"""


def _score(root: Path, mode: str) -> dict[str, Any]:
    """Score the directory in a child process (`streamed` or `in_memory`); return its report."""
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", CHILD, str(root), TASK, str(SEED), mode],
                         check=False, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"the scoring child ({mode}) failed:\n{out.stderr}")
    report: dict[str, Any] = json.loads(out.stdout)
    report["wall_s"] = time.perf_counter() - t0
    return report


def write_submission(root: Path, rows: int) -> dict[str, int]:
    """Write the submission directory; return how many lines of each kind data.jsonl has."""
    genuine = generate_rows(TASK, SEED)
    enc = msgspec.json.Encoder()
    kinds = {"wrong_value_first": 500, "genuine": len(genuine), "duplicates": 1500,
             "totals": 100, "not_json": 50}
    kinds["fabricated"] = rows - sum(kinds.values())
    if kinds["fabricated"] < 0:
        raise SystemExit(f"--rows must be at least {rows - kinds['fabricated']}")
    with (root / "data.jsonl").open("wb") as fh:
        for r in genuine[:kinds["wrong_value_first"]]:  # first occurrence differs in a value
            fh.write(enc.encode({**r, "tradeValue": r["tradeValue"] + 1}) + b"\n")
        fh.write(enc.encode_lines(genuine))
        fh.write(enc.encode_lines(genuine[:kinds["duplicates"]]))
        for i in range(kinds["totals"]):
            fh.write(enc.encode({**genuine[i], "record_id": f"{TASK}-TOTAL-{i:04d}",
                                 "hs": "TOTAL", "isTotal": True}) + b"\n")
        fh.write(b"not json\n" * kinds["not_json"])
        batch = []
        for i in range(kinds["fabricated"]):
            batch.append({**genuine[i % len(genuine)], "record_id": f"{TASK}-F{i:07d}"})
            if len(batch) == 10_000:
                fh.write(enc.encode_lines(batch))
                batch = []
        fh.write(enc.encode_lines(batch))
    meta = build_metadata(TASK, get_task(TASK).query.as_dict(), genuine, totals_enabled=True,
                          totals_dropped=0, request_count=5)
    payload = encode_payload([], meta, "task_id=T2_multi_page\nrequest=5 page=5\ncomplete=true\n")
    (root / "metadata.json").write_text(payload["metadata_json"], encoding="utf-8")
    (root / "run.log").write_text(payload["run_log"], encoding="utf-8")
    return kinds


def main() -> None:
    """Write the submission, score it in child processes, write the JSON results."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=ROWS)
    ap.add_argument("--no-in-memory", action="store_true",
                    help="skip the comparison with the in-memory path (its peak RSS is "
                    "several times the file: results/score_memory.json, in_memory)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="agm-score-memory-") as tmp:
        root = Path(tmp)
        t0 = time.perf_counter()
        kinds = write_submission(root, args.rows)
        write_s = time.perf_counter() - t0
        size = (root / "data.jsonl").stat().st_size
        streamed = _score(root, "streamed")
        in_memory = None if args.no_in_memory else _score(root, "in_memory")
    peak, base = streamed["peak_rss_bytes"], streamed["baseline_rss_bytes"]
    (gt_status, gt_score, gt_comps, _, ev), (j_status, j_score, *_) = streamed["assessments"]
    doc: dict[str, Any] = {
        "benchmark": "score_memory", "python": sys.version.split()[0],
        "machine": platform.machine(), "cpus": os.cpu_count(),
        "uptime": "load average: " + ", ".join(f"{x:.2f}" for x in os.getloadavg()),
        "task": TASK, "seed": SEED, "rows": args.rows, "line_kinds": kinds,
        "data_jsonl_bytes": size, "write_s": round(write_s, 2),
        "score_wall_s": round(streamed["wall_s"], 2), "score_cpu_s": round(streamed["cpu_s"], 2),
        "baseline_rss_bytes": base, "peak_rss_bytes": peak,
        "after_ground_truth_rss_bytes": streamed["after_ground_truth_rss_bytes"],
        "peak_vs_file": round(peak / size, 3),
        "peak_above_baseline_vs_file": round((peak - base) / size, 3),
        "goal": "peak RSS ≤ 2x data.jsonl on disk (baseline interpreter + imports included)",
        "ground_truth": {"status": gt_status, "score": gt_score, "components": gt_comps},
        "judge": {"status": j_status, "score": j_score}, "evidence_digest": ev,
    }
    if in_memory is not None:
        doc["in_memory"] = {
            "peak_rss_bytes": in_memory["peak_rss_bytes"],
            "peak_vs_file": round(in_memory["peak_rss_bytes"] / size, 3),
            "score_cpu_s": round(in_memory["cpu_s"], 2),
            "identical_assessments": in_memory["assessments"] == streamed["assessments"]}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(doc, indent=2) + "\n")
    print(f"{args.rows:,} rows, data.jsonl {size / 2**20:.1f} MiB: peak RSS {peak / 2**20:.1f} MiB "
          f"({peak / size:.2f}x the file; baseline {base / 2**20:.1f} MiB), "
          f"{streamed['cpu_s']:.1f} s CPU; F1 {gt_score:.4f}, judge {j_score}")
    if in_memory is not None:
        print(f"in memory: peak {in_memory['peak_rss_bytes'] / 2**20:.1f} MiB, "
              f"identical assessments: {doc['in_memory']['identical_assessments']}")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
