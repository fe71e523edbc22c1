"""A whole store check on two cores beside the same check in one process, same run.

`agm evidence verify S` (full) and the first `agm campaign status --store S` of a store (no
verified head: the whole ledger check) run with the ledger half in a forked process (the
default, store/verify_split.py) and with `AGM_CHECK_SPLIT=0` (one process), taking turns round
by round so that both see the same load; each command starts from an empty memo folder, so each
check is whole. Reported per command and way: the run of median wall time, every run's wall
and CPU, the largest process's peak RSS and all processes' peak PSS together (sampled).
Run: .venv/bin/python benchmarks/check_split.py --store DIR [--rounds 3] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sqlite3
import subprocess
import tempfile
from contextlib import closing
from pathlib import Path
from typing import Any

from memory import measure

HERE = Path(__file__).resolve().parent
OUT = HERE / "results" / "check_split.json"
WAYS = {"two processes": None, "one process (AGM_CHECK_SPLIT=0)": "0"}


def _commands(store: Path) -> dict[str, list[str]]:
    return {"evidence verify (full)": ["evidence", "verify", str(store)],
            "campaign status, no head verified yet (whole ledger check)":
                ["campaign", "status", "--store", str(store), "--json"]}


def _run(args: list[str], split: str | None, src: Path) -> dict[str, Any]:
    """Run one command from an empty memo folder, the split switch set as given."""
    scratch = Path(tempfile.mkdtemp(prefix="agm-split-"))
    saved = os.environ.pop("AGM_CHECK_SPLIT", None)
    if split is not None:
        os.environ["AGM_CHECK_SPLIT"] = split
    try:
        r = measure(args, src, scratch)
    finally:
        os.environ.pop("AGM_CHECK_SPLIT", None)
        if saved is not None:
            os.environ["AGM_CHECK_SPLIT"] = saved
        shutil.rmtree(scratch, ignore_errors=True)
    if r["exit_code"] != 0:
        raise SystemExit(f"{' '.join(args)}: exit {r['exit_code']}: {r['stderr_tail']}")
    return r


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--store", type=Path, required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--src", type=Path, default=HERE.parent / "src")
    ap.add_argument("--out", type=Path, default=OUT)
    a = ap.parse_args()
    runs: dict[str, dict[str, list[dict[str, Any]]]] = {
        c: {w: [] for w in WAYS} for c in _commands(a.store)}
    for i in range(a.rounds):
        for cmd, args in _commands(a.store).items():
            for way, switch in (WAYS.items() if i % 2 == 0 else reversed(WAYS.items())):
                r = _run(args, switch, a.src)
                runs[cmd][way].append(r)
                print(f"round {i + 1} {cmd} / {way}: {r['wall_s']} s wall, {r['cpu_s']} s CPU, "
                      f"{r['peak_rss_mib']} MiB (all {r['peak_tree_pss_mib']} MiB PSS)",
                      flush=True)
    cases = []
    for cmd, ways in runs.items():
        for way, rs in ways.items():
            best = sorted(rs, key=lambda r: r["wall_s"])[len(rs) // 2]
            cases.append({"command": cmd, "way": way, "wall_s": best["wall_s"],
                          "cpu_s": best["cpu_s"], "peak_rss_mib": best["peak_rss_mib"],
                          "peak_tree_pss_mib": best["peak_tree_pss_mib"],
                          "processes": best["processes"], "load": best["load"],
                          "runs_wall_s": [r["wall_s"] for r in rs],
                          "runs_cpu_s": [r["cpu_s"] for r in rs]})
    chain, episodes = _size(a.store)
    doc = {"store": a.store.name, "chain_entries": chain, "episodes": episodes,
           "rounds": a.rounds, "cases": cases, "machine": platform.machine(),
           "cpus": os.cpu_count(), "python": platform.python_version(),
           "uptime": subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()}
    a.out.write_text(json.dumps(doc, indent=2) + "\n")
    print(f"wrote {a.out}")


def _size(store: Path) -> tuple[int, int]:
    """Return the store's chain entries and recorded episodes (read-only)."""
    with closing(sqlite3.connect(f"{(store / 'ledger.sqlite').resolve().as_uri()}?mode=ro",
                                 uri=True)) as c:
        chain = c.execute("SELECT COALESCE(MAX(seq), 0) FROM chain").fetchone()[0]
        return int(chain), int(c.execute("SELECT COUNT(*) FROM episodes").fetchone()[0])


if __name__ == "__main__":
    main()
