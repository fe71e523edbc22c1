"""Run mutmut module by module over the measurement core and print the score of each.

Usage (what `make mutation` runs):  python tests/mutation/run.py [MODULE ...]
MODULE is a path under src/agentmetrology (e.g. archive/passk.py); default: every module in
CORE. Each module runs in its own scratch directory (MUTATION_DIR, default
/tmp/agm-mutation/<module>) holding links to src/ and tests/ and a pyproject.toml whose
[tool.mutmut] names only that module and its fast test subset, so modules never share a
mutants/ tree and a rerun resumes where it stopped. One worker process (MUTATION_CHILDREN=1):
the machine is shared. The score is killed / (killed + survived + no tests + timeout), the
share of mutants some test notices; survivors are listed by name for `mutmut show NAME` in the
module's scratch directory.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# module under src/agentmetrology -> the fast tests that exercise it (no subprocess-spawning
# tests: a child process would import the unmutated code and kill nothing).
CORE: dict[str, list[str]] = {
    "archive/passk.py": ["tests/archive/test_passk_properties.py",
                         "tests/archive/test_archive_taubench.py"],
    "archive/cost.py": ["tests/archive/test_archive_cost.py"],
    "archive/coverage.py": ["tests/archive/test_archive_coverage.py"],
    "archive/versions.py": ["tests/archive/test_archive_versions.py"],
    "stats/bootstrap.py": ["tests/stats/test_stats_bootstrap.py",
                           "tests/stats/test_bootstrap_properties.py"],
    "stats/cluster.py": ["tests/stats/test_stats_bootstrap.py",
                         "tests/stats/test_bootstrap_properties.py"],
    "stats/intervals.py": ["tests/stats/test_stats_reference.py",
                           "tests/stats/test_stats_validation.py",
                           "tests/stats/test_wilson_edges.py"],
    "records/canonical.py": ["tests/records/test_canonical.py",
                             "tests/records/test_canonical_properties.py"],
    "envs/comtrade/scoring/ground_truth.py": ["tests/envs/comtrade/test_f1_properties.py",
                                              "tests/scoring"],
    "envs/comtrade/faults.py": ["tests/envs/comtrade/test_fidelity.py",
                                "tests/envs/comtrade/test_service.py"],
    "envs/comtrade/generator.py": ["tests/envs/comtrade/test_generator.py",
                                   "tests/envs/comtrade/test_totals_markers.py"],
    "scoring/episode.py": ["tests/scoring"],
    "store/redact.py": ["tests/records/test_redaction.py"],
    "store/ledger.py": ["tests/store"],
    "audit/probes.py": ["tests/audit/test_probe_resolution.py"],
    "audit/card.py": ["tests/audit/test_comtrade_audit.py"],
}

CONFIG = """
[tool.mutmut]
source_paths = ["src/"]
only_mutate = ["src/agentmetrology/{module}"]
pytest_add_cli_args = ["-p", "no:cacheprovider", "-q", "--import-mode=importlib"]
pytest_add_cli_args_test_selection = {tests}
also_copy = ["tests/"]
"""
COUNTED = ("killed", "survived", "no tests", "timeout", "suspicious", "segfault")


def _project_pyproject() -> str:
    """Return the project's pyproject.toml without its own [tool.mutmut] section."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    return re.sub(r"\n\[tool\.mutmut\]\n(?:(?!\n\[).)*", "\n", text, flags=re.S)


def workdir(module: str) -> Path:
    """Return (and prepare) the scratch directory of one module's mutation run."""
    base = Path(os.environ.get("MUTATION_DIR", "/tmp/agm-mutation"))
    wd = base / module.replace("/", "__").removesuffix(".py")
    wd.mkdir(parents=True, exist_ok=True)
    for name in ("src", "tests"):
        link = wd / name
        if not link.exists():
            link.symlink_to(ROOT / name)
    shared = ROOT.parent / "shared"  # tests read ../shared/data relative to the repo root
    if shared.exists() and not (base / "shared").exists():
        (base / "shared").symlink_to(shared)
    config = CONFIG.format(module=module, tests=json.dumps(CORE[module]))
    (wd / "pyproject.toml").write_text(_project_pyproject() + config, encoding="utf-8")
    return wd


def statuses(wd: Path, module: str) -> dict[str, str]:
    """Return mutant name -> mutmut status from the module's .meta file."""
    from mutmut.stats import status_by_exit_code

    meta = wd / "mutants" / "src" / "agentmetrology" / (module + ".meta")
    data = json.loads(meta.read_text(encoding="utf-8"))
    return {k: status_by_exit_code[v] for k, v in data["exit_code_by_key"].items()}


def run_module(module: str) -> dict[str, object]:
    """Run mutmut on one module; return its counts, score, survivors and seconds taken."""
    wd = workdir(module)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # mutants/src must win
    children = os.environ.get("MUTATION_CHILDREN", "1")
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "mutmut", "run", "--max-children", children],
                          cwd=wd, env=env, capture_output=True, text=True)
    seconds = time.monotonic() - start
    if proc.returncode != 0:
        tail = (proc.stdout + proc.stderr)[-3000:]
        return {"module": module, "error": f"mutmut exited {proc.returncode}:\n{tail}",
                "seconds": round(seconds)}
    st = statuses(wd, module)
    counts = {s: sum(1 for v in st.values() if v == s) for s in sorted(set(st.values()))}
    counted = sum(counts.get(s, 0) for s in COUNTED)
    killed = counts.get("killed", 0)
    return {"module": module, "mutants": len(st), "counts": counts,
            "score": round(100 * killed / counted, 1) if counted else None,
            "survivors": sorted(k for k, v in st.items() if v != "killed"),
            "seconds": round(seconds), "workdir": str(wd)}


def main(argv: list[str]) -> int:
    """Run the named modules (default: all of CORE) and print one score line per module."""
    modules = argv or list(CORE)
    unknown = [m for m in modules if m not in CORE]
    if unknown:
        print(f"mutation: unknown module(s) {', '.join(unknown)}; known: {', '.join(CORE)}",
              file=sys.stderr)
        return 2
    results = []
    for module in modules:
        res = run_module(module)
        results.append(res)
        if "error" in res:
            print(f"{module:45s} ERROR ({res['seconds']} s)\n{res['error']}")
            continue
        print(f"{module:45s} {res['score']!s:>5}% killed  {res['counts']}  {res['seconds']} s")
        for name in res["survivors"]:
            print(f"    not killed: {name}")
    out = Path(os.environ.get("MUTATION_DIR", "/tmp/agm-mutation")) / "scores.json"
    out.write_text(json.dumps(results, indent=1), encoding="utf-8")
    print(f"mutation: scores written to {out}")
    return 1 if any("error" in r for r in results) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
