"""Memory ceilings: wall time and peak RSS of `agm` commands on large stores and span archives.

Each case runs the real command line (`python -m agentmetrology.cli.main ...`) in a child
process and reads the child's own peak resident set from `os.wait4` (ru_maxrss, the kernel's
high-water mark of that process alone); the baseline is a bare `agm --version` (the interpreter
and the CLI's imports). Cases and goals:
- `agm campaign status --store S` and `--json` on a 100,000-episode store: under 2 s each,
  cold (the store's ledger check runs and is memoised, see store/verify_memo.py) and warm (the
  memo is reused: nothing changed). CPU time is reported beside wall time: on a shared machine
  wall time mostly measures the other processes.
- `agm archive audit S --format agm --out D` on 10,000 / 25,000 / 50,000-episode stores:
  bounded memory, read as peak RSS beyond the baseline per episode, which must not grow with
  the store (the audit keeps per-episode summaries, never every episode's events at once).
- `agm archive audit EPISODES.jsonl --spans SPANS.jsonl` with 25,000 and 100,000 trace spans:
  peak RSS beyond the baseline per span (spans are held as small records: the cost check
  aligns whole trees), and time.
Stores come from benchmarks/memory_stores.py (real episodes, cloned across targets and repeats,
with measurement failures, ungraded episodes, billable attempts, unrecorded attempts) and are
cached under --work. Writes benchmarks/results/memory.json (or --out).
The measured source tree is compiled to bytecode first (as an installed package is); warm
status runs `--repeat` times (default 3) and reports the run of median wall time, every run's
wall and CPU time beside it, and the load average before each run. `--before OLD_SRC` runs
every status case on an older source tree too, alternating with this one run by run (the
machine is shared: both then see the same load), kept as `status_before`.
After the status cases, benchmarks/status_profile.py times each phase of one warm and one cold
status in a child process (`status_profile`: what the remaining time is spent on).
Run: .venv/bin/python benchmarks/memory.py [--work /tmp/agm-mem] [--src DIR]
     [--status-episodes N] [--audit-episodes N ...] [--spans N ...] [--repeat N]
     [--status-only] [--merge] [--no-profile] [--before OLD_SRC --before-label REV]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
OUT = HERE / "results" / "memory.json"
STATUS_EPISODES = 100_000
AUDIT_EPISODES = (10_000, 25_000, 50_000)
SPANS = (25_000, 100_000)
STATUS_GOAL_S = {"cold": 2.0, "warm": 0.5}  # issue 40: status cold < 2 s, warm < 0.5 s


class TreePss:
    """The peak, sampled, of the command's processes' memory together (Linux; else None).

    ru_maxrss is the high-water mark of the largest single process: a command that forks
    workers (the store check's ledger half, the audit's blob reader) holds more than that at
    once. Every SAMPLE_S this sums the proportional set size (Pss: a page shared by n processes
    counts 1/n in each, so pages a fork shares are counted once) of the process and every
    descendant; `processes` is how many were seen in all. Reading smaps_rollup walks every
    page of a process: at a few GiB one sample took a fifth of a core at 50 ms apart, taken
    from the two cores the command runs on. So the wait after a sample is at least COST_SHARE
    times what the sample took (the sampler stays near a tenth of a core), and never less than
    SAMPLE_S; `samples` is how many were taken."""

    SAMPLE_S = 0.05
    COST_SHARE = 9  # wait >= 9x a sample's time: the sampler holds at most ~10% of a core

    def __init__(self, pid: int, root: bool = True) -> None:
        # root=False: the descendants only (the root is the measuring trampoline, see measure)
        self.pid, self.peak_kib, self.samples = pid, 0, 0
        self.root = root
        self.seen: set[int] = {pid} if root else set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> TreePss:
        if Path(f"/proc/{self.pid}").exists():
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    @property
    def peak_mib(self) -> float | None:
        return round(self.peak_kib / 1024, 1) if self.peak_kib else None

    @property
    def processes(self) -> int:
        return len(self.seen)

    def _run(self) -> None:
        wait = self.SAMPLE_S
        while not self._stop.wait(wait):
            t0 = time.perf_counter()
            pids = _tree(self.pid)
            if not self.root:
                pids = pids[1:]
            self.seen.update(pids)
            self.peak_kib = max(self.peak_kib, sum(map(_pss_kib, pids)))
            self.samples += 1
            wait = max(self.SAMPLE_S, self.COST_SHARE * (time.perf_counter() - t0))


def _tree(pid: int) -> list[int]:
    """Return `pid` and its descendants alive now (from /proc's children lists)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            for task in Path(f"/proc/{p}/task").iterdir():
                todo.extend(int(c) for c in (task / "children").read_text().split())
        except OSError:
            continue
    return out


def _pss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


# Linux starts a process's peak RSS (ru_maxrss) at its parent's resident size when it was forked
# (exec records the copied memory's high-water mark): a command forked straight from this
# process read as large as this process had grown (236.8 MiB for a 96 MiB audit, the same
# figure for every command). So a small process is forked first, and it forks the command and
# reports the command's own usage: the command's peak starts from the trampoline's few MiB.
_TRAMPOLINE = """import json, os, sys, time
t0 = time.perf_counter()
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
_, status, u = os.wait4(pid, 0)
wall = time.perf_counter() - t0
with open(sys.argv[1], "w") as f:
    json.dump({"wall_s": wall, "maxrss_kib": u.ru_maxrss, "cpu_s": u.ru_utime + u.ru_stime,
               "exit_code": os.waitstatus_to_exitcode(status)}, f)
"""


def measure(args: list[str], src: Path, cwd: Path, memo: str = "verify-memo") -> dict[str, Any]:
    """Run `agm ARGS` in a child process; return its wall time, peak RSS and exit code."""
    # The ledger check's memo lives in the scratch folder, so cold and warm runs are controlled.
    env = dict(os.environ, PYTHONPATH=str(src), COLUMNS="160",
               AGM_VERIFY_CACHE=str(cwd / memo))
    usage_file = cwd / "usage.json"
    cmd = [sys.executable, "-c", _TRAMPOLINE, str(usage_file),
           sys.executable, "-m", "agentmetrology.cli.main", *args]
    load = _loadavg()
    with open(cwd / "stdout.txt", "wb") as out, open(cwd / "stderr.txt", "wb") as err:
        proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=err, cwd=cwd)
        with TreePss(proc.pid, root=False) as tree:
            proc.wait()
    usage = json.loads(usage_file.read_text())
    return {"command": "agm " + " ".join(args), "exit_code": usage["exit_code"],
            "wall_s": round(usage["wall_s"], 3),
            "peak_rss_mib": round(usage["maxrss_kib"] / 1024, 1),
            "peak_tree_pss_mib": tree.peak_mib, "processes": tree.processes,
            "pss_samples": tree.samples,
            "cpu_s": round(usage["cpu_s"], 3), "load": load,
            "stdout_bytes": (cwd / "stdout.txt").stat().st_size,
            "stderr_tail": (cwd / "stderr.txt").read_text(errors="replace")[-300:]}


def _store(work: Path, n: int) -> tuple[Path, dict[str, Any] | str]:
    """Return a cached store of about n episodes (built on first use) and how it was built."""
    from memory_stores import build_store

    root = work / f"store-{n}"
    if (root / "ledger.sqlite").exists():
        return root, "reused"
    t0 = time.perf_counter()
    built = build_store(root, n)
    built["build_s"] = round(time.perf_counter() - t0, 1)
    return root, built


def _spans(work: Path, n: int) -> tuple[Path, Path, dict[str, Any]]:
    from memory_stores import write_spans

    path = work / f"spans-{n}.jsonl"
    info = write_spans(path, n)
    return path, path.with_name(path.stem + "-episodes.jsonl"), info


def _planned(root: Path) -> int:
    import sqlite3

    with sqlite3.connect(f"file:{root / 'ledger.sqlite'}?mode=ro", uri=True) as c:
        return int(c.execute("SELECT COUNT(*) FROM administrations").fetchone()[0])


def _beyond(case: dict[str, Any], base: float, n: int, unit: str) -> None:
    """Add peak RSS beyond the baseline, in total and per unit (KiB per episode or span)."""
    extra = max(0.0, case["peak_rss_mib"] - base)
    case["baseline_rss_mib"] = base
    case["rss_beyond_baseline_mib"] = round(extra, 1)
    case[f"kib_per_{unit}"] = round(extra * 1024 / n, 3) if n else None


def _profile(root: Path, src: Path, cwd: Path, cold: bool) -> dict[str, Any]:
    """Return the per-phase CPU and wall time of one status (benchmarks/status_profile.py)."""
    env = dict(os.environ, PYTHONPATH=str(src), AGM_VERIFY_CACHE=str(cwd / "verify-memo-this"))
    out = subprocess.run([sys.executable, str(HERE / "status_profile.py"), str(root),
                          *(["--cold"] if cold else [])], env=env, cwd=cwd, check=True,
                         capture_output=True, text=True).stdout
    doc: dict[str, Any] = json.loads(out)
    doc["load"] = _loadavg()
    return doc


def _median(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Return the run of median wall time, with every run's wall and CPU time beside it."""
    chosen = dict(sorted(runs, key=lambda r: r["wall_s"])[len(runs) // 2])
    if len(runs) > 1:
        chosen["runs"] = [{"wall_s": r["wall_s"], "cpu_s": r["cpu_s"]} for r in runs]
    return chosen


def _loadavg() -> str | None:
    """Return the 1, 5 and 15-minute load averages (the machine is shared: wall time needs it)."""
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return None


def _compile(src: Path) -> None:
    # An installed package runs from bytecode; compile the measured tree once so no case pays
    # for compiling it (PYTHONDONTWRITEBYTECODE in the environment would make every run do so).
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(src)], check=False,
                   capture_output=True)


def run(work: Path, src: Path, status_n: int, audits: tuple[int, ...],
        span_sizes: tuple[int, ...], repeat: int = 3, profile: bool = True,
        before: Path | None = None) -> dict[str, Any]:
    """Measure every case; return the result document.

    With `before` (an older source tree), each status case runs on both trees alternately
    (before, this, before, this ...), so both see the same load: `status_before` holds the
    older tree's numbers.
    """
    work.mkdir(parents=True, exist_ok=True)
    trees = {"this": src, **({"before": before} if before is not None else {})}
    for tree in trees.values():
        _compile(tree)
    scratch = work / "scratch"
    scratch.mkdir(exist_ok=True)
    bases = {name: measure(["--version"], tree, scratch) for name, tree in trees.items()}
    base = bases["this"]
    doc: dict[str, Any] = {"benchmark": "memory", "baseline": base, "builds": {}}
    cases, earlier = [], []
    if status_n:
        root, built = _store(work, status_n)
        doc["builds"][str(status_n)] = built
        n = _planned(root)
    for extra in (([], ["--json"]) if status_n else ()):
        # cold: the ledger check runs (and is memoised); warm: nothing changed, it is reused
        for name in trees:
            shutil.rmtree(scratch / f"verify-memo-{name}", ignore_errors=True)
        for state in ("cold", "warm"):
            args = ["campaign", "status", "--store", str(root), *extra]
            runs: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
            for _ in range(1 if state == "cold" else repeat):
                for name in sorted(trees):  # "before" first, then "this"
                    runs[name].append(measure(args, trees[name], scratch, f"verify-memo-{name}"))
            for name, got in runs.items():
                c = _median(got)
                c.update(case="campaign status" + (" --json" if extra else "") + f" ({state})",
                         episodes=n, goal_s=STATUS_GOAL_S[state],
                         meets_goal=c["wall_s"] < STATUS_GOAL_S[state])
                _beyond(c, bases[name]["peak_rss_mib"], n, "episode")
                (cases if name == "this" else earlier).append(c)
    if before is not None and earlier:
        doc["status_before"] = {"source": str(before), "baseline": bases["before"],
                                "cases": earlier}
    if status_n and profile:
        # Warm reuses the memos of a text status (the --json cases keep no cells), cold
        # removes them first.
        measure(["campaign", "status", "--store", str(root)], src, scratch, "verify-memo-this")
        doc["status_profile"] = [_profile(root, src, scratch, cold) for cold in (False, True)]
    for size in audits:
        root, built = _store(work, size)
        doc["builds"][str(size)] = built
        n = _planned(root)
        out = scratch / f"audit-{size}"
        shutil.rmtree(out, ignore_errors=True)
        c = measure(["archive", "audit", str(root), "--format", "agm", "--out", str(out)], src,
                    scratch)
        c.update(case="archive audit --format agm", episodes=n)
        _beyond(c, base["peak_rss_mib"], n, "episode")
        cases.append(c)
    for size in span_sizes:
        spans, episodes, info = _spans(work, size)
        out = scratch / f"spans-{size}"
        shutil.rmtree(out, ignore_errors=True)
        c = measure(["archive", "audit", str(episodes), "--spans", str(spans), "--out",
                     str(out)], src, scratch)
        c.update(case="archive audit --spans", spans=info["spans"], episodes=info["episodes"],
                 spans_bytes=info["spans_bytes"])
        _beyond(c, base["peak_rss_mib"], info["spans"], "span")
        cases.append(c)
    doc["cases"] = cases
    return doc


def _case_id(c: dict[str, Any]) -> tuple[Any, ...]:
    return (c["case"], c.get("episodes"), c.get("spans"))


def _revision(src: Path) -> str | None:
    try:
        return subprocess.run(["git", "-C", str(src), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def main() -> None:
    """Build (or reuse) the inputs, measure, and write the JSON result."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", type=Path, default=Path("/tmp/agm-mem"))
    ap.add_argument("--src", type=Path, default=HERE.parent / "src",
                    help="source tree to measure (default: this checkout's src/)")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--status-episodes", type=int, default=STATUS_EPISODES)
    ap.add_argument("--audit-episodes", type=int, nargs="*", default=list(AUDIT_EPISODES))
    ap.add_argument("--spans", type=int, nargs="*", default=list(SPANS))
    ap.add_argument("--merge", action="store_true",
                    help="keep the other cases of an existing result file (a run in parts)")
    ap.add_argument("--status-only", action="store_true",
                    help="only the `campaign status` cases (implies --merge)")
    ap.add_argument("--no-profile", action="store_true",
                    help="skip the per-phase profile of status (benchmarks/status_profile.py)")
    ap.add_argument("--before", type=Path, default=None,
                    help="an older source tree (e.g. `git archive REV src | tar -x -C DIR`, "
                         "then DIR/src): status runs on both, alternately (`status_before`)")
    ap.add_argument("--before-label", default=None,
                    help="what --before is (a revision), shown in the table")
    ap.add_argument("--repeat", type=int, default=3,
                    help="warm status runs per case; the one of median wall time is reported")
    args = ap.parse_args()
    if args.status_only:
        args.audit_episodes, args.spans, args.merge = [], [], True
    sys.path.insert(0, str(HERE))
    doc = run(args.work, args.src.resolve(), args.status_episodes, tuple(args.audit_episodes),
              tuple(args.spans), max(1, args.repeat), not args.no_profile,
              None if args.before is None else args.before.resolve())
    doc.update(source=str(args.src), revision=_revision(HERE.parent),
               python=sys.version.split()[0], machine=platform.machine(),
               cpus=os.cpu_count(), uptime=_uptime())
    if "status_before" in doc:
        doc["status_before"]["label"] = args.before_label or str(args.before)
    if args.merge and args.out.exists():
        old = json.loads(args.out.read_text())
        mine = {_case_id(c) for c in doc["cases"]}
        kept = [_from_run(old, c) for c in old.get("cases", []) if _case_id(c) not in mine]
        doc["cases"] = sorted(
            kept + doc["cases"],
            key=lambda c: (not c["case"].startswith("campaign"), c["case"],
                           c.get("spans") or 0, c.get("episodes") or 0))
        doc["builds"] = {**old.get("builds", {}), **doc["builds"]}
        measured_status = any(c["case"].startswith("campaign status") for c in doc["cases"]
                              if "revision" not in c)
        # A status measured now never carries an earlier run's before or profile.
        for key in ("before", "profile") + (() if measured_status else
                                            ("status_before", "status_profile")):
            if key in old and key not in doc:
                doc[key] = old[key]
    audits = sorted((c for c in doc["cases"] if c["case"] == "archive audit --format agm"),
                    key=lambda c: c["episodes"])
    per = [c["kib_per_episode"] for c in audits]
    # Bounded: RSS beyond the baseline per episode does not grow with the store.
    doc["audit_memory_sublinear"] = len(per) > 1 and per[-1] <= per[0]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=2) + "\n")
    print(json.dumps(doc, indent=2))


def _from_run(old: dict[str, Any], case: dict[str, Any]) -> dict[str, Any]:
    """Return a case kept from an earlier run, with that run's baseline, load and revision."""
    out = dict(case)
    out.setdefault("baseline_rss_mib", old["baseline"]["peak_rss_mib"])
    if "load" not in out and old.get("uptime"):
        out["load"] = " ".join(str(old["uptime"]).split("load average:")[-1]
                               .replace(",", " ").split())
    out.setdefault("revision", old.get("revision"))
    return out


def _uptime() -> str | None:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return None


if __name__ == "__main__":
    main()
