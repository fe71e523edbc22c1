"""A large store kept usable: `campaign status` and `evidence verify`, full and incremental.

Issue 40 goal 1 asks that a store of 1,000,000 episodes stay as usable as a small one. This
script measures it at the size given (default 100,000 episodes: what builds in a few minutes on
the shared 2-core machine; the JSON says the size measured, never more). The store comes from
benchmarks/memory_stores.py (real episodes cloned across 5 targets, 3 tasks, 2 levels, 2
conditions and repeats, with measurement failures, ungraded episodes, billable requests and
unrecorded attempts), cached under --work; each run works on a copy (ledger copied, blobs
hard-linked: blobs are never rewritten) with a check cache of its own, every file of it read
once into the page cache first, then:
1. `campaign status` with no head verified yet on this machine: the full ledger check runs
   (and leaves its head in the cache, store/verify_checkpoint.py);
2. warm `campaign status` (nothing changed: the memo answers), the median of --repeat runs;
3. a campaign of --append episodes is appended through the store's API (a second run);
4. `campaign status` after the append: the cold case of a growing store (the memos are stale;
   the ledger check re-checks only what was appended since the verified head);
5. warm `campaign status` again, then once more with the ledger's files dropped from the page
   cache (posix_fadvise): a cold start of a store this machine has checked (last of the status
   cases; the files are read back after it, so that no other case runs on an evicted cache);
6. `evidence verify` (the full check: every row re-hashed, every blob's bytes inflated and
   hashed), a second append, then `evidence verify --incremental` (only what it added);
   then `campaign status --full-check` (the whole ledger again; --no-full-check skips it).
The JSON is written after every case (a long run keeps what it measured so far).
7. `agm export STORE --out F.jsonl` on the cached stores of each --export-sizes: rows per
   second (rows / wall time of the whole command) and peak RSS per episode, which must not
   grow with the store (goal: at least 50,000 rows/s, memory bounded).
Each command runs in a child process (benchmarks/memory.py's `measure`: wall, CPU, peak RSS).
Writes benchmarks/results/store_scale.json (or --out).
--store measures a store built elsewhere (benchmarks/million_store.py: a million episodes);
--in-place measures it without a copy (a million-episode ledger is about 5 GiB to copy).
Run: .venv/bin/python benchmarks/store_scale.py [--work /tmp/agm-scale] [--episodes N]
     [--append N] [--repeat N] [--no-full-verify] [--export-sizes N ...] [--export-only]
     [--store DIR] [--in-place] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

from memory import measure

HERE = Path(__file__).resolve().parent
OUT = HERE / "results" / "store_scale.json"
SRC = HERE.parent / "src"  # the tree the stores are built with (--src is what is measured)
GOALS = {"cold": 2.0, "warm": 0.5}
# Where a case that misses its goal spends its time, said in the result.
WHY = {"campaign status, no head verified yet": "the whole ledger check, once per machine "
       "and agm version (a verified head is bound to the checking code): every ledger row "
       "re-hashed against the chain and every episode blob read (inflated, its fields checked "
       "against its row); after it, status checks only what was appended since the head it "
       "verified (the rows below)"}


def _evict(root: Path) -> None:
    """Drop the store's ledger files from the page cache (posix_fadvise DONTNEED, no root
    needed): the next command reads them from disk, as after a reboot or memory pressure."""
    for path in [*root.glob("ledger.sqlite*"), root / "ledger.heads"]:
        if path.is_file():
            fd = os.open(path, os.O_RDONLY)
            try:
                os.fsync(fd)  # only clean pages are dropped
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)


def _reread(root: Path) -> None:
    """Read the store's ledger files back into the page cache (after `_evict`), so the cases
    that follow run as they did before the eviction case was measured."""
    for path in [*root.glob("ledger.sqlite*"), root / "ledger.heads"]:
        if path.is_file():
            with open(path, "rb") as fh:
                while fh.read(1 << 24):
                    pass


def warm(root: Path) -> None:
    """Read every file of the store (ledger and blobs) into the page cache: a copy's blobs are
    hard links to the cached store's files, which a larger benchmark may have pushed out of
    it (the first status of the 98,650-episode store took 22.2 s so, against 9.9 s for the
    same whole check from a warm cache a minute later). Read by `cat` in a child process: a
    child's peak RSS counts the parent's at the fork, and a list of a million paths here
    raised every measured command's by 56 MiB."""
    subprocess.run(["find", str(root), "-type", "f", "-exec", "cat", "{}", "+"],
                   stdout=subprocess.DEVNULL, check=True)


def _copy(base: Path, dest: Path) -> None:
    """Copy a store: the ledger and its head log as files, the blobs as hard links."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    for name in ("ledger.sqlite", "ledger.heads"):
        shutil.copy2(base / name, dest / name)
    subprocess.run(["cp", "-al", str(base / "blobs"), str(dest / "blobs")], check=True)


def _case(name: str, args: list[str], src: Path, cwd: Path, goal: float | None = None,
          repeat: int = 1) -> dict[str, Any]:
    runs = [measure(args, src, cwd) for _ in range(repeat)]
    best = sorted(runs, key=lambda r: r["wall_s"])[len(runs) // 2]  # the median run
    out = {"case": name, **best, "stdout_tail": (cwd / "stdout.txt").read_text()[-400:]}
    if repeat > 1:
        out["runs_wall_s"] = [r["wall_s"] for r in runs]
        out["runs_cpu_s"] = [r["cpu_s"] for r in runs]
    if goal is not None:
        out["goal_s"] = goal
        out["goal_met"] = best["wall_s"] < goal
        out["missed_by"] = None if out["goal_met"] else f"{best['wall_s'] / goal:.1f}x"
    if best["exit_code"] != 0:
        raise SystemExit(f"{name}: exit {best['exit_code']}: {best['stderr_tail']}")
    print(f"{name}: {best['wall_s']} s wall, {best['cpu_s']} s CPU, "
          f"{best['peak_rss_mib']} MiB", flush=True)
    return out


def build_store(root: Path, n: int, name: str | None = None) -> dict[str, Any]:
    """Run memory_stores.build_store in a child process and return what it built.

    Never in this process: a child's peak RSS (ru_maxrss) includes the memory of the process
    it was forked from, so this one stays small (it imports no agentmetrology) and the peaks
    measured are the commands' own.
    """
    code = ("import json, sys; from pathlib import Path; from memory_stores import build_store; "
            "a = json.loads(sys.argv[1]); "
            "print(json.dumps(build_store(Path(a[0]), a[1], **({'name': a[2]} if a[2] else {}))))")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SRC), str(HERE)]))
    out = subprocess.run([sys.executable, "-c", code, json.dumps([str(root), n, name])],
                         env=env, capture_output=True, text=True, check=True)
    return dict(json.loads(out.stdout.splitlines()[-1]))


def _append(root: Path, n: int, name: str) -> dict[str, Any]:
    t0 = time.perf_counter()
    built = build_store(root, n, name=name)
    return {"campaign": name, **built, "wall_s": round(time.perf_counter() - t0, 1)}


def _fresh(root: Path, name: str) -> str:
    """Return `name`, or `name-2`, `name-3`... when the store already has that campaign (a
    store measured in place keeps the campaigns appended by an earlier run)."""
    import sqlite3

    with closing(sqlite3.connect(f"file:{root / 'ledger.sqlite'}?mode=ro", uri=True)) as c:
        names = {r[0] for r in c.execute("SELECT name FROM campaigns")}
    k, out = 1, name
    while out in names:
        k += 1
        out = f"{name}-{k}"
    return out


def _disk(root: Path) -> dict[str, Any]:
    """Return the store's size on disk: ledger (with its log) and blob files, in MiB."""
    def du(*paths: Path) -> float:
        out = subprocess.run(["du", "-sk", *map(str, paths)], capture_output=True, text=True)
        return round(sum(int(x.split()[0]) for x in out.stdout.splitlines()) / 1024, 1)
    ledger = [p for p in root.glob("ledger.sqlite*")]
    folders = sorted(e.path for e in os.scandir(root / "blobs") if e.is_dir())
    sample = [os.path.join(f, n) for f in folders[:8] for n in sorted(os.listdir(f))[:250]]
    packed = 0
    for path in sample:  # store/blobs.py's MAGIC: a compressed blob file
        with open(path, "rb") as fh:
            packed += fh.read(6) == b"\x00agmz\x01"
    return {"ledger_mib": du(*ledger), "blobs_mib": du(root / "blobs"),
            "blob_files": sum(len(os.listdir(f)) for f in folders),
            "compressed_share_of_sample": round(packed / max(1, len(sample)), 3),
            "sampled": len(sample)}


def _episodes(root: Path) -> int:
    import sqlite3

    with closing(sqlite3.connect(f"file:{root / 'ledger.sqlite'}?mode=ro", uri=True)) as c:
        return int(c.execute("SELECT COUNT(*) FROM episodes").fetchone()[0])


def run(work: Path, src: Path, episodes: int, append: int, repeat: int,
        full_verify: bool, store: Path | None = None, in_place: bool = False,
        full_check: bool = True,
        save: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Measure every case on a copy of the cached store (or on `store`, and in place when
    `in_place`: the appended campaigns stay in it); return the result document."""
    base = store or work / f"store-{episodes}"
    built: dict[str, Any] | str = "reused"
    if not (base / "ledger.sqlite").exists():
        t0 = time.perf_counter()
        built = {**build_store(base, episodes), "build_s": round(time.perf_counter() - t0, 1)}
    root, cwd = work / f"scale-{episodes}", work / f"scale-{episodes}-cwd"
    if in_place:
        root = base
    else:
        _copy(base, root)
    shutil.rmtree(cwd, ignore_errors=True)
    cwd.mkdir()
    status = ["campaign", "status", "--store", str(root)]
    size = _episodes(root)
    base_rss = measure(["--version"], src, cwd)["peak_rss_mib"]
    doc: dict[str, Any] = {
        "episodes": size, "built": built, "store": str(base), "in_place": in_place,
        "disk": _disk(root), "appended": [], "baseline_rss_mib": base_rss, "cases": [],
        "machine": platform.machine(), "cpus": os.cpu_count(),
        "python": platform.python_version()}

    def case(name: str, args: list[str], goal: float | None = None, times: int = 1) -> None:
        c = _case(name, args, src, cwd, goal, times)
        c["kib_per_episode"] = round(max(0.0, c["peak_rss_mib"] - base_rss) * 1024 / size, 3)
        if c.get("processes", 1) > 1 and c.get("peak_tree_pss_mib"):  # it forked: all together
            c["tree_kib_per_episode"] = round(
                max(0.0, c["peak_tree_pss_mib"] - base_rss) * 1024 / size, 3)
        for start, why in WHY.items():
            if name.startswith(start) and not c.get("goal_met", True):
                c["why"] = why
        doc["cases"].append(c)
        doc["uptime"] = subprocess.run(["uptime"], capture_output=True,
                                       text=True).stdout.strip()
        if save is not None:  # a long run keeps what it measured so far
            save(doc)

    warm(root)  # the first case measures the check, not a disk read a previous run left
    case("campaign status, no head verified yet (full ledger check)", status, GOALS["cold"])
    case("campaign status, warm (nothing changed)", status, GOALS["warm"], repeat)
    doc["appended"].append(_append(root, append, _fresh(root, "append-1")))
    case(f"campaign status after {doc['appended'][0]['recorded']:,} episodes appended "
         "(incremental ledger check)", status, GOALS["cold"])
    case("campaign status, warm after the append", status, GOALS["warm"], repeat)
    # last of the status cases: what follows would otherwise run on an evicted page cache
    _evict(root)
    case("campaign status, cold start: the store's files evicted from the page cache, the "
         "check and numbers memos kept (a new session on a store this machine checked)",
         status, GOALS["cold"])
    _reread(root)
    if full_verify:
        case("evidence verify (full)", ["evidence", "verify", str(root)])
    doc["appended"].append(_append(root, append, _fresh(root, "append-2")))
    case(f"evidence verify --incremental after {doc['appended'][1]['recorded']:,} more "
         "episodes appended", ["evidence", "verify", str(root), "--incremental"])
    if full_check:
        case("campaign status --full-check", [*status, "--full-check"])
    doc["episodes_after_appends"] = _episodes(root)
    return doc


def export_cases(work: Path, src: Path, sizes: list[int]) -> list[dict[str, Any]]:
    """Measure `agm export` of each cached store (built on first use): rows/s, peak RSS."""
    cwd = work / "export-cwd"
    cwd.mkdir(exist_ok=True)
    base_rss = measure(["--version"], src, cwd)["peak_rss_mib"]
    out = []
    for n in sizes:
        root = work / f"store-{n}"
        if not (root / "ledger.sqlite").exists():
            build_store(root, n)
        warm(root)  # a store another case pushed out of the page cache read 4x slower
        case = measure(["export", str(root), "--out", str(cwd / "export.jsonl"), "--force"],
                       src, cwd)
        if case["exit_code"] != 0:
            raise SystemExit(f"export: exit {case['exit_code']}: {case['stderr_tail']}")
        rows = sum(1 for _ in (cwd / "export.jsonl").open("rb"))
        extra = max(0.0, case["peak_rss_mib"] - base_rss)
        out.append({**case, "case": f"agm export STORE --out F.jsonl, {rows:,} rows",
                    "rows": rows, "rows_per_s": round(rows / case["wall_s"]),
                    "rows_per_cpu_s": round(rows / case["cpu_s"]), "baseline_rss_mib": base_rss,
                    "kib_per_episode": round(extra * 1024 / rows, 3), "goal_rows_per_s": 50_000})
        print(f"export {rows:,} rows: {case['wall_s']} s, {case['peak_rss_mib']} MiB", flush=True)
    return out


def main() -> None:
    """Parse arguments, measure, write the JSON."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", type=Path, default=Path("/tmp/agm-scale"))
    ap.add_argument("--src", type=Path, default=HERE.parent / "src")
    ap.add_argument("--episodes", type=int, default=100_000)
    ap.add_argument("--append", type=int, default=1_200)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-full-verify", dest="full_verify", action="store_false")
    ap.add_argument("--no-full-check", dest="full_check", action="store_false",
                    help="skip `campaign status --full-check` (measured last)")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--store", type=Path, default=None,
                    help="measure this store (e.g. benchmarks/million_store.py's)")
    ap.add_argument("--in-place", action="store_true",
                    help="measure the store itself, not a copy (the appends stay in it)")
    ap.add_argument("--export-sizes", type=int, nargs="*", default=[20_000, 100_000])
    ap.add_argument("--export-only", action="store_true",
                    help="measure the exports only, into the existing result file")
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(args.src)], check=True)
    if args.export_only:
        doc = json.loads(args.out.read_text(encoding="utf-8"))
    else:
        def save(partial: dict[str, Any]) -> None:
            args.out.write_text(json.dumps(partial, indent=2) + "\n", encoding="utf-8")

        doc = run(args.work, args.src.resolve(), args.episodes, args.append, args.repeat,
                  args.full_verify, args.store, args.in_place, args.full_check, save)
        doc["median_warm_s"] = statistics.median(
            c["wall_s"] for c in doc["cases"] if "warm" in c["case"])
    doc["exports"] = export_cases(args.work, args.src.resolve(), args.export_sizes)
    args.out.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
