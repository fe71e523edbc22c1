"""`agm export` and `agm archive audit` on large stores: this tree beside an older one.

Issue 40 goal 1 asks that `agm export` stream at least 50,000 rows/s with bounded memory and
that `agm archive audit` of our own store run at least 10x its earlier rate per episode. Each
command runs in a child process (benchmarks/memory.py's `measure`: wall, CPU, peak RSS), with
this tree's sources and, given --before SRC (e.g. `git archive REV src | tar -x -C DIR`), the
older tree's, one after the other in the same run, on the same stores:
1. exports: `agm export STORE --out F.{jsonl,csv,parquet}` of the cached stores of each
   --export-sizes (opened read-only), --export-repeats times per tree, the trees taking turns:
   rows per second of the whole command and rows per CPU second of the run of median CPU time
   (every run's wall and CPU kept beside), the highest peak RSS and KiB per row beyond a bare
   `agm --version`; the outputs of the two trees
   are compared (bytes; Parquet, whose streamed row groups differ in layout from the one table
   written before, also by its read-back table and schema);
2. audits: `agm archive audit S --format agm --out D` of each --audit-sizes (every file of
   the store read once first, so no run reads it from disk), on a copy of the
   store under the same name for both trees (the reports name it), ms per planned episode and
   peak RSS, --audit-repeats times per tree, the trees taking turns (the run of median CPU
   kept); the two trees' reports (archive.json, report.md, report.html) are compared byte
   for byte. --before-audit-sizes limits the older tree to the sizes it can finish in time.
3. where the time goes, on this tree: the CPU seconds of each step of a JSON Lines export
   (ledger walk, row values, encoding, writing) and of an audit (import, grade recovery,
   evidence check, the checks, the reports), each in a child process (--steps-only: this
   alone, into the existing result file); with --steps-before SRC, on that tree as well
   (`where_time_goes_before`), in the same run; --steps-repeats runs each, the trees taking
   turns, the run of least CPU kept.
Stores come from benchmarks/memory_stores.py, cached under --work as store-N (built on first
use); with --uncompressed, copies of them whose blobs are stored uncompressed (under
WORK/uncompressed), which a tree from before blob compression (0e9bb3e, e.g. 138f8b1) reads.
Writes benchmarks/results/export_audit_scale.json (or --out).
Run: .venv/bin/python benchmarks/export_audit_scale.py [--work /tmp/agm-scale] [--before SRC]
     [--export-sizes N ...] [--export-repeats N] [--audit-sizes N ...]
     [--before-audit-sizes N ...] [--audit-repeats N] [--repeat-up-to N] [--uncompressed]
     [--steps-only]
     [--steps-sizes EXPORT_N AUDIT_N]
     [--steps-before SRC [--steps-before-revision REV]] [--steps-repeats N]
     [--reports-note TEXT]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from export_audit_steps import where_time_goes
from memory import measure
from memory_stores import build_store
from store_scale import _copy, warm  # the ledger copied, the blobs hard-linked

HERE = Path(__file__).resolve().parent
OUT = HERE / "results" / "export_audit_scale.json"
EXPORT_GOAL_ROWS_S = 50_000
AUDIT_GOAL_X = 10.0
FORMATS = ("jsonl", "csv", "parquet")
REPORTS = ("archive.json", "report.md", "report.html")
REPEAT_UP_TO = 20_000  # --audit-repeats: larger stores are audited once (minutes per run)


UNCOMPRESSED = "uncompressed"  # --uncompressed: the stores' copies under WORK/uncompressed


def _store(work: Path, n: int) -> Path:
    root = work / f"store-{n}"
    if not (root / "ledger.sqlite").exists():
        if work.name == UNCOMPRESSED:
            _uncompressed_copy(_store(work.parent, n), root)
        else:
            build_store(root, n)
    return root


def _uncompressed_copy(src: Path, dst: Path) -> None:
    """Copy a store with every blob file holding its contents as they are (the layout before
    blobs were compressed, 0e9bb3e, which a tree older than that reads; this one reads both)."""
    from agentmetrology.store.blobs import contents

    dst.mkdir(parents=True, exist_ok=True)
    for f in src.iterdir():
        if f.is_file() and f.name != "ledger.sqlite":
            shutil.copy2(f, dst / f.name)
    for sub in (src / "blobs").iterdir():
        (dst / "blobs" / sub.name).mkdir(parents=True, exist_ok=True)
        for b in sub.iterdir():
            (dst / "blobs" / sub.name / b.name).write_bytes(contents(b.read_bytes()))
    shutil.copy2(src / "ledger.sqlite", dst / "ledger.sqlite")  # last: the copy is complete


def _sha(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


_SAME_PARQUET = """import sys, pyarrow.parquet as pq
a, b = sys.argv[1:]
same = pq.read_table(a).equals(pq.read_table(b)) and pq.read_schema(a).equals(
    pq.read_schema(b), check_metadata=True)
print("same" if same else "differ")"""


def _same_parquet(a: Path, b: Path) -> bool:
    """Compare two Parquet files' tables and schemas in a child process: this process stays
    small, since a child forked from it starts at its size (and peak RSS counts from there)."""
    out = subprocess.run([sys.executable, "-c", _SAME_PARQUET, str(a), str(b)],
                         capture_output=True, text=True, check=True).stdout
    return out.strip() == "same"


def _run(args: list[str], src: Path, cwd: Path, base_rss: float, per: int) -> dict[str, Any]:
    case = measure(args, src, cwd)
    if case["exit_code"] != 0:
        raise SystemExit(f"{' '.join(args)}: exit {case['exit_code']}: {case['stderr_tail']}")
    case["kib_per_episode"] = round(max(0.0, case["peak_rss_mib"] - base_rss) * 1024 / per, 3)
    return case


def _export_once(root: Path, fmt: str, name: str, src: Path, work: Path) -> dict[str, Any]:
    cwd = work / f"export-{name}"
    cwd.mkdir(exist_ok=True)
    dest = cwd / f"export.{fmt}"
    c = measure(["export", str(root), "--out", str(dest), "--force"], src, cwd)
    if c["exit_code"] != 0:
        raise SystemExit(f"export: exit {c['exit_code']}: {c['stderr_tail']}")
    c["rows"] = int((cwd / "stderr.txt").read_text().split("exported ")[1].split()[0])
    c["sha256"], c["bytes"] = _sha(dest), dest.stat().st_size
    return c


def _summary(runs: list[dict[str, Any]], base_rss: float) -> dict[str, Any]:
    """The run of median CPU time (rows/s from it), with every run's wall and CPU beside it and
    the highest peak RSS of them all (the machine is shared: one run alone is noise)."""
    c = sorted(runs, key=lambda r: r["cpu_s"])[len(runs) // 2]
    rows, peak = c["rows"], max(r["peak_rss_mib"] for r in runs)
    extra = max(0.0, peak - base_rss)
    return {**c, "peak_rss_mib": peak, "rows_per_s": round(rows / c["wall_s"]),
            "rows_per_cpu_s": round(rows / c["cpu_s"]), "baseline_rss_mib": base_rss,
            "kib_per_row": round(extra * 1024 / rows, 3),
            "runs_wall_cpu_s": [[r["wall_s"], r["cpu_s"]] for r in runs]}


def exports(work: Path, trees: dict[str, Path], sizes: list[int],
            base: dict[str, float], repeats: int = 1) -> list[dict[str, Any]]:
    """Measure `agm export` of each cached store in every format with every tree, `repeats`
    times each, the trees taking turns."""
    out = []
    for n in sizes:
        root = _store(work, n)
        for fmt in FORMATS:
            runs: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
            for _ in range(repeats):
                for name, src in trees.items():
                    c = _export_once(root, fmt, name, src, work)
                    runs[name].append(c)
                    print(f"export {fmt} {c['rows']:,} rows [{name}]: {c['wall_s']} s wall, "
                          f"{c['cpu_s']} s CPU, {c['peak_rss_mib']} MiB", flush=True)
            got = {name: _summary(r, base[name]) for name, r in runs.items()}
            case = {"format": fmt, "store_episodes": n, "this": got["this"],
                    "goal_rows_per_s": EXPORT_GOAL_ROWS_S, "repeats": repeats}
            if "before" in got:
                case["before"] = got["before"]
                same = got["before"]["sha256"] == got["this"]["sha256"]
                case["bytes_identical"] = same
                if fmt == "parquet" and not same:
                    case["parquet_table_identical"] = _same_parquet(
                        work / "export-before" / "export.parquet",
                        work / "export-this" / "export.parquet")
            out.append(case)
    return out


def ratios(this: list[list[float]], before: list[list[float]]) -> dict[str, float]:
    """Return the older tree's median wall and CPU over this tree's ([wall, cpu] per run)."""
    def median(runs: list[list[float]], i: int) -> float:
        return sorted(r[i] for r in runs)[len(runs) // 2]
    return {"x_wall": round(median(before, 0) / median(this, 0), 2),
            "x_cpu": round(median(before, 1) / median(this, 1), 2)}


def _audit_once(work: Path, n: int, name: str, src: Path, base_rss: float) -> dict[str, Any]:
    """Audit a fresh copy of the store of about n episodes with one tree; return the run."""
    cwd = work / f"audit-{name}-{n}"
    shutil.rmtree(cwd, ignore_errors=True)
    cwd.mkdir(parents=True)
    _copy(_store(work, n), cwd / "S")  # the same name for both trees: reports name it
    planned = _planned(cwd / "S")
    c = _run(["archive", "audit", "S", "--format", "agm", "--out", "out"], src, cwd, base_rss,
             planned)
    print(f"audit {planned:,} episodes [{name}]: {c['wall_s']} s wall, {c['cpu_s']} s "
          f"CPU, {c['peak_rss_mib']} MiB", flush=True)
    shutil.rmtree(cwd / "S")
    return {**c, "episodes": planned, "ms_per_episode": round(c["wall_s"] * 1000 / planned, 3),
            "cpu_ms_per_episode": round(c["cpu_s"] * 1000 / planned, 3),
            "reports": {r: _sha(cwd / "out" / r) for r in REPORTS}}


def audits(work: Path, trees: dict[str, Path], sizes: list[int], before_sizes: list[int],
           base: dict[str, float], repeats: int = 1,
           repeat_up_to: int = REPEAT_UP_TO) -> list[dict[str, Any]]:
    """Measure `agm archive audit --format agm` of a copy of each store with each tree,
    `repeats` times each (stores of up to `repeat_up_to` episodes; larger ones once), the
    trees taking turns: the run of median CPU time is kept, with every run's wall and CPU
    beside it, and the ratios are of each tree's medians (the machine is shared: one run
    alone is noise)."""
    out = []
    for n in sizes:
        names = [m for m in trees if m == "this" or n in before_sizes]
        runs: dict[str, list[dict[str, Any]]] = {m: [] for m in names}
        warm(_store(work, n))  # neither tree's first run reads the store from disk: the
        # first of this tree's runs met a store a larger benchmark had pushed out of the page
        # cache and took 49.7 s where the next took about 24 s
        for _ in range(repeats if n <= repeat_up_to else 1):
            for name in names:
                runs[name].append(_audit_once(work, n, name, trees[name], base[name]))
        got = {}
        for name, r in runs.items():
            assert len({json.dumps(x["reports"]) for x in r}) == 1, f"{name}: reports vary"
            got[name] = {**sorted(r, key=lambda x: x["cpu_s"])[len(r) // 2],
                         "runs_wall_cpu_s": [[x["wall_s"], x["cpu_s"]] for x in r]}
        case: dict[str, Any] = {"store_episodes": n, "this": got["this"],
                                "goal_x": AUDIT_GOAL_X, "repeats": len(runs["this"])}
        if "before" in got:
            case["before"] = got["before"]
            case["reports_identical"] = got["before"]["reports"] == got["this"]["reports"]
            case.update(ratios(got["this"]["runs_wall_cpu_s"], got["before"]["runs_wall_cpu_s"]))
        out.append(case)
    return out


def trees_and_baselines(src: Path, before: Path | None, scratch: Path
                        ) -> tuple[dict[str, Path], dict[str, float]]:
    """Return the trees to measure ("this", and "before" when given), each compiled, and the
    peak RSS of a bare `agm --version` of each (run in `scratch`)."""
    trees = {"this": src.resolve(), **({"before": before.resolve()} if before else {})}
    for tree in trees.values():
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree)], check=True)
    scratch.mkdir(parents=True, exist_ok=True)
    return trees, {name: measure(["--version"], tree, scratch)["peak_rss_mib"]
                   for name, tree in trees.items()}


def _uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def _planned(root: Path) -> int:
    import sqlite3

    with sqlite3.connect(f"file:{root / 'ledger.sqlite'}?mode=ro", uri=True) as c:
        return int(c.execute("SELECT COUNT(*) FROM administrations").fetchone()[0])


def _args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", type=Path, default=Path("/tmp/agm-scale"))
    ap.add_argument("--src", type=Path, default=HERE.parent / "src")
    ap.add_argument("--before", type=Path, default=None, help="an older tree's src directory")
    ap.add_argument("--before-revision", default=None, help="the revision --before holds")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--export-sizes", type=int, nargs="*", default=[20_000, 100_000])
    ap.add_argument("--export-repeats", type=int, default=3,
                    help="runs of each export per tree, taking turns (the median CPU's kept)")
    ap.add_argument("--audit-sizes", type=int, nargs="*", default=[10_000, 100_000])
    ap.add_argument("--before-audit-sizes", type=int, nargs="*", default=[10_000])
    ap.add_argument("--audit-repeats", type=int, default=1,
                    help="runs of each audit per tree, taking turns (the median CPU's kept), "
                         "for stores of up to --repeat-up-to episodes")
    ap.add_argument("--repeat-up-to", type=int, default=REPEAT_UP_TO,
                    help=f"the largest store audited --audit-repeats times (default "
                         f"{REPEAT_UP_TO:,}; larger ones once)")
    ap.add_argument("--uncompressed", action="store_true",
                    help="use copies of the stores whose blobs are stored uncompressed, which a "
                         "tree from before blob compression (e.g. 138f8b1) can read")
    ap.add_argument("--steps-only", action="store_true",
                    help="measure where the time goes only, into the existing result file")
    ap.add_argument("--steps-sizes", type=int, nargs=2, default=[100_000, 10_000],
                    metavar=("EXPORT_N", "AUDIT_N"))
    ap.add_argument("--steps-before", type=Path, default=None,
                    help="also measure where the time goes on this src directory (a tree of "
                         "the same API, e.g. the revision this one changes), in the same run")
    ap.add_argument("--steps-before-revision", default=None, help="the revision it holds")
    ap.add_argument("--steps-repeats", type=int, default=1,
                    help="runs of the steps per tree, taking turns (the least CPU run kept); "
                         "0: the steps are not measured")
    ap.add_argument("--reports-note", default=None,
                    help="why the two trees' reports differ, when they must (kept in the JSON)")
    return ap.parse_args()


def _steps(args: argparse.Namespace, src: Path) -> dict[str, Any]:
    """Return where the time goes on this tree and, with --steps-before, on that one too:
    --steps-repeats runs of each, the trees taking turns, the run of least CPU kept for the
    export and for the audit (the machine is shared: CPU seconds grow with the load);
    --steps-repeats 0: none."""
    if args.steps_repeats < 1:
        return {}
    trees = {"where_time_goes": src}
    if args.steps_before is not None:
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(args.steps_before)],
                       check=True)
        trees["where_time_goes_before"] = args.steps_before.resolve()
    runs: dict[str, list[dict[str, Any]]] = {k: [] for k in trees}
    for _ in range(args.steps_repeats):
        for key, tree in trees.items():
            runs[key].append(where_time_goes(tree, _store(args.work, args.steps_sizes[0]),
                                             _store(args.work, args.steps_sizes[1]),
                                             args.work / "steps"))
    out: dict[str, Any] = {}
    for key, got in runs.items():
        least = {part: min((r[part] for r in got), key=lambda p: sum(p["cpu_s"].values()))
                 for part in ("export", "audit")}  # a step is a difference: one run's, whole
        out[key] = {**least, "runs": len(got), "uptime": _uptime()}
    if "where_time_goes_before" in out:
        out["where_time_goes_before"]["revision"] = args.steps_before_revision
    return out


def main() -> None:
    """Parse arguments, measure, write the JSON."""
    args = _args()
    if args.uncompressed:
        args.work = args.work / UNCOMPRESSED
    args.work.mkdir(parents=True, exist_ok=True)
    trees, base = trees_and_baselines(args.src, args.before, args.work / "export-this")
    uptime = _uptime()
    extra = _steps(args, trees["this"])
    if args.reports_note:
        extra["reports_note"] = args.reports_note
    if args.steps_only:
        doc = {**json.loads(args.out.read_text(encoding="utf-8")), **extra}
    else:
        doc = {"benchmark": "export_audit_scale", "baseline_rss_mib": base,
               "before_revision": args.before_revision,
               "uncompressed_stores": args.uncompressed,
               "exports": exports(args.work, trees, args.export_sizes, base,
                                  args.export_repeats),
               "audits": audits(args.work, trees, args.audit_sizes, args.before_audit_sizes,
                                base, args.audit_repeats, args.repeat_up_to),
               "machine": platform.machine(), "cpus": os.cpu_count(),
               "python": platform.python_version(), "uptime_at_start": uptime,
               "uptime": _uptime(), **extra}
    args.out.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
