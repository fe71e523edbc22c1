"""What finding repeated JSON keys costs the archive importers: parse and load CPU, before/after.

"Before" is the reading without the check (json.loads with no hook, nothing searched: what the
importers did until repeated keys were detected); "after" parses with `KeyMarks` as the hook
(archive.importers.limits.parse_doc) and, for the load, imports the file as `agm archive audit`
does (`load_archive`). Both ways take turns round by round, so they see the same load; CPU time
(process_time) per run, median and minimum reported, with the load average before and after.
Run: .venv/bin/python benchmarks/json_keys.py [--rounds 15] [--out FILE] [FILE ...]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentmetrology.archive import load_archive
from agentmetrology.archive.importers import limits

HERE = Path(__file__).resolve().parent
OUT = HERE / "results" / "json_keys.json"
DATA = (HERE.parent / "../shared/data").resolve()
FILES = [DATA / "tau2" / "gpt-4.1-telecom-1trial.json", DATA / "taubench" / "gpt-4o-airline.json"]
# json.loads with the hook dropped: the parse as it was before the check
_PLAIN = types.SimpleNamespace(loads=lambda text, object_pairs_hook=None: json.loads(text))


def _cpu(fn: Callable[[], Any]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def _load(path: Path, before: bool) -> None:
    saved = limits.json
    limits.json = _PLAIN if before else saved  # type: ignore[assignment]
    try:
        load_archive(path)
    finally:
        limits.json = saved


def _summary(xs: list[float]) -> dict[str, float]:
    xs = sorted(xs)
    return {"median_ms": round(1000 * xs[len(xs) // 2], 2), "min_ms": round(1000 * xs[0], 2)}


def _case(path: Path, rounds: int) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    ways: dict[str, dict[str, Callable[[], Any]]] = {
        "parse": {"before": lambda: limits.parse_json(text),
                  "after": lambda: limits.parse_doc(text)},
        "load": {"before": lambda: _load(path, True), "after": lambda: _load(path, False)}}
    out: dict[str, Any] = {"file": path.name, "bytes": len(text.encode())}
    for what, fns in ways.items():
        runs: dict[str, list[float]] = {"before": [], "after": []}
        for i in range(rounds):
            for way in (("before", "after") if i % 2 == 0 else ("after", "before")):
                runs[way].append(_cpu(fns[way]))
        b, a = _summary(runs["before"]), _summary(runs["after"])
        out[what] = {"before": b, "after": a,
                     "overhead_ms": round(a["median_ms"] - b["median_ms"], 2),
                     "overhead_pct": round(100 * (a["median_ms"] / b["median_ms"] - 1), 1)}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*", type=Path, default=FILES)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--out", type=Path, default=OUT)
    a = ap.parse_args()
    load_before = os.getloadavg()
    cases = []
    for path in a.files:
        case = _case(path, a.rounds)
        print(json.dumps(case), flush=True)
        cases.append(case)
    doc = {"rounds": a.rounds, "cases": cases, "machine": platform.machine(),
           "cpus": os.cpu_count(), "python": platform.python_version(),
           "load_before": [round(x, 2) for x in load_before],
           "load_after": [round(x, 2) for x in os.getloadavg()],
           "uptime": os.popen("uptime").read().strip()}
    a.out.write_text(json.dumps(doc, indent=2) + "\n")


if __name__ == "__main__":
    main()
