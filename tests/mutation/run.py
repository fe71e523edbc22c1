"""Run mutmut module by module over the measurement core and print the score of each.

Usage (what `make mutation` runs):  python tests/mutation/run.py [--report] [MODULE ...]
(--report re-reads the last run's verdicts, e.g. after adding an equivalent, and runs nothing)
MODULE is a path under src/agentmetrology (e.g. archive/passk.py); default: every module in
CORE. Each module runs in its own scratch directory (MUTATION_DIR, default
/tmp/agm-mutation/<module>) holding links to src/ and tests/ and a pyproject.toml whose
[tool.mutmut] names only that module and its fast test subset, so modules never share a
mutants/ tree and a rerun resumes where it stopped. One worker process (MUTATION_CHILDREN=1):
the machine is shared. Mutants not caught are listed by name for `mutmut show NAME` in the
module's scratch directory.

A mutant is caught when a test fails on it (killed) or never finishes (timeout: the mutant loops
forever, so the suite would hang, not pass). Mutants listed in equivalent.py (each with the
reason it cannot change behaviour) leave the denominator: score = caught / (all − equivalent),
over the mutants with a verdict. Each module prints one line and one markdown row for the table
in docs/testing.md.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# module under src/agentmetrology -> the fast tests that exercise it (no subprocess-spawning
# tests: a child process would import the unmutated code and kill nothing).
STATS_TESTS = [f"tests/stats/{name}" for name in (
    "test_bootstrap_properties.py", "test_cliffs_delta_pinned.py", "test_bootstrap.py",
    "test_cell.py", "test_stats_compare_family.py", "test_stats_design.py",
    "test_stats_equivalence_flips.py", "test_results.py", "test_paired.py",
    "test_stats_reference.py", "test_validate.py", "test_wilson_edges.py",
    "test_agreement_reversals.py", "test_cluster.py", "test_variance.py", "test_flips.py",
    "test_equivalence.py", "test_compare.py", "test_power.py", "test_table.py")]
RESEARCHOPS_TESTS = [f"tests/envs/researchops/{name}.py" for name in (  # in-process ones
    "test_policies_and_scorers", "test_tasks_and_tools", "test_mutation_hooks",
    "test_simulator", "test_scorers")]
TOOLWORLD_TESTS = ["tests/envs/toolworlds/test_invariants.py",
                   "tests/envs/toolworlds/test_worlds.py",
                   "tests/envs/toolworlds/test_scorers.py"]
# Not the ResearchOps grid (tests/diagnose/test_researchops_grid.py): its 1,575-record campaign
# costs about 7 s per mutant, hours over these modules; the spec tests pin the same rules.
DIAGNOSE_TESTS = ["tests/diagnose/test_diagnose.py", "tests/mutations/test_mutations.py",
                  "tests/diagnose/test_metrics.py", "tests/diagnose/test_pairs.py",
                  "tests/scoring/test_rescore.py", "tests/mutations/test_apply.py",
                  "tests/diagnose/test_readings.py"]
CORE: dict[str, list[str]] = {
    "archive/passk.py": ["tests/archive/test_passk_properties.py",
                         "tests/archive/test_archive_taubench.py"],
    "archive/cost.py": ["tests/archive/test_cost.py"],
    "archive/coverage.py": ["tests/archive/test_coverage.py"],
    "archive/versions.py": ["tests/archive/test_versions.py"],
    "stats/bootstrap.py": ["tests/stats/test_bootstrap.py",
                           "tests/stats/test_bootstrap_properties.py"],
    "stats/cluster.py": ["tests/stats/test_bootstrap.py",
                         "tests/stats/test_bootstrap_properties.py",
                         "tests/stats/test_cluster.py"],
    "stats/intervals.py": ["tests/stats/test_stats_reference.py",
                           "tests/stats/test_validate.py",
                           "tests/stats/test_wilson_edges.py"],
    "records/canonical.py": ["tests/records/test_canonical.py",
                             "tests/records/test_canonical_properties.py",
                             "tests/records/test_canonical_types.py"],
    "envs/comtrade/scoring/ground_truth.py": ["tests/envs/comtrade/test_f1_properties.py",
                                              "tests/envs/comtrade/scoring"],  # incl. the spec
    "envs/comtrade/faults.py": ["tests/envs/comtrade/test_fidelity.py",
                                "tests/envs/comtrade/test_service.py",
                                "tests/envs/comtrade/test_faults.py",
                                "tests/envs/comtrade/scoring/test_streamed.py"],  # _shuffle_tail
    "envs/comtrade/generator.py": ["tests/envs/comtrade/test_generator.py",
                                   "tests/envs/comtrade/test_totals_markers.py"],
    "scoring/episode.py": ["tests/scoring/test_episode.py",
                           "tests/envs/toolworlds/test_worlds.py"],
    "envs/researchops/simulator.py": RESEARCHOPS_TESTS,  # its ground truth H and proxy P
    "envs/researchops/scorers.py": RESEARCHOPS_TESTS,
    "envs/toolworlds/invariants.py": TOOLWORLD_TESTS,
    "envs/toolworlds/scorers.py": TOOLWORLD_TESTS,
    "records/contract.py": [*TOOLWORLD_TESTS, "tests/assess/test_contract.py",  # the contract
                            "tests/assess/test_comtrade_contract.py",  # evaluator
                            "tests/records/test_contract.py"],
    "scoring/rescore.py": DIAGNOSE_TESTS,  # counterfactual rescoring (docs/diagnose.md)
    "mutations/apply.py": DIAGNOSE_TESTS,  # the mutations and their inverse maps
    "diagnose/pairs.py": DIAGNOSE_TESTS,
    "diagnose/metrics.py": DIAGNOSE_TESTS,  # VRG, MSR, MTR, rescored gap, excess flips
    "diagnose/readings.py": DIAGNOSE_TESTS,  # readings from named predicates
    "diagnose/family.py": DIAGNOSE_TESTS,  # Holm over the diagnosed groups
    "assess/envelope.py": ["tests/assess/test_envelope.py", "tests/assess/test_cases.py",
                           "tests/assess/test_assess_store.py"],  # unresolved-outcome bounds
    "records/numbers.py": ["tests/audit/test_non_finite_scores.py"],  # what counts as a score
    "store/redact.py": ["tests/edges/test_redaction.py", "tests/store/test_store_redact.py",
                        "tests/store/test_redact_api.py"],
    "store/ledger.py": [f"tests/store/{name}.py" for name in (  # not the tamper study, not CLI
        "test_ledger", "test_store_supersede", "test_ledger_chain", "test_store_billing",
        "test_store_non_finite", "test_store_redact", "test_blobs", "test_store_lock",
        "test_chain", "test_verify", "test_verify_bindings", "test_verify_memo",
        "test_status_cells", "test_reader_leaves_ledger")],
    "store/blobs.py": ["tests/store/test_blobs.py"],
    "audit/probes.py": ["tests/audit/test_probes.py"],
    "audit/episodes.py": ["tests/audit/test_replay_mismatch.py",  # replay, ownership, 2x2,
                          "tests/audit/test_comtrade_audit.py",  # spectrum, non-degeneracy
                          "tests/audit/test_truth_unknown.py", "tests/audit/test_audit_store.py",
                          "tests/audit/test_episodes.py"],
    "audit/card.py": ["tests/audit/test_card.py"],
    "envs/comtrade/scoring/judge.py": ["tests/envs/comtrade/scoring"],
    "envs/comtrade/scoring/judge_rows.py": ["tests/envs/comtrade/scoring"],  # the judge's row terms
    "envs/comtrade/scoring/streamed.py": ["tests/envs/comtrade/scoring"],  # agm score's reader
    "envs/comtrade/scoring/submission.py": ["tests/envs/comtrade/scoring"],
    "store/chain.py": ["tests/store/test_ledger_chain.py", "tests/store/test_chain.py"],
    "store/verify.py": ["tests/store/test_ledger_chain.py", "tests/store/test_verify.py",
                        "tests/store/test_verify_bindings.py"],
    "serve/mcp_server.py": ["tests/serve/test_http_security.py",
                            "tests/serve/test_mcp_server_episode.py"] + [
        f"tests/serve/test_mcp_server.py::{name}" for name in (  # the in-process ones
            "test_client_leaving_without_submitting_is_recorded",
            "test_an_idle_client_records_nothing", "test_only_l2_can_be_served",
            "test_bindings_are_sealed_before_any_tool_call",
            "test_unsubmitted_and_dead_sessions_in_the_store",
            "test_secrets_never_reach_the_store_or_the_export",
            "test_non_finite_arguments_are_answered_and_recorded")],
    **{f"stats/{name}.py": STATS_TESTS for name in (
        "agreement", "cell", "compare", "equivalence", "flips", "paired", "power", "results",
        "reversals", "table", "validate", "variance")},
}

CONFIG = """
[tool.mutmut]
source_paths = ["src/"]
only_mutate = ["src/agentmetrology/{module}"]
pytest_add_cli_args = ["-p", "no:cacheprovider", "-q", "--import-mode=importlib"]
pytest_add_cli_args_test_selection = {tests}
also_copy = ["tests/", "examples/"]  # some tests read examples/*.toml
"""
COUNTED = ("killed", "survived", "no tests", "timeout", "suspicious", "segfault")
CAUGHT = ("killed", "timeout")


def _project_pyproject() -> str:
    """Return the project's pyproject.toml without its own [tool.mutmut] section."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    return re.sub(r"\n\[tool\.mutmut\]\n(?:(?!\n\[).)*", "\n", text, flags=re.S)


def workdir(module: str) -> Path:
    """Return (and prepare) the scratch directory of one module's mutation run."""
    base = Path(os.environ.get("MUTATION_DIR", "/tmp/agm-mutation"))
    wd = base / module.replace("/", "__").removesuffix(".py")
    wd.mkdir(parents=True, exist_ok=True)
    for name in ("src", "tests", "examples"):
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


def _equivalent() -> dict[str, str]:
    """Return the documented equivalent mutants (name -> reason) from equivalent.py."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from equivalent import EQUIVALENT

    return EQUIVALENT


def summarize(module: str, st: dict[str, str], seconds: float) -> dict[str, object]:
    """Return counts, score and the mutants neither caught nor documented as equivalent."""
    prefix = "agentmetrology." + module.removesuffix(".py").replace("/", ".") + "."
    equivalent = {k for k in _equivalent() if k.startswith(prefix) and k in st}
    counts = {s: sum(1 for v in st.values() if v == s) for s in sorted(set(st.values()))}
    counted = [k for k, v in st.items() if v in COUNTED]
    caught = sum(1 for k in counted if st[k] in CAUGHT)
    open_ = sorted(k for k in counted if st[k] not in CAUGHT and k not in equivalent)
    # A listed mutant that a test catches is not equivalent: mutmut numbers mutants per
    # function, so an edit of the function renumbers them and the entry now names another one.
    stale = sorted(k for k in equivalent if st[k] in CAUGHT)
    stale += sorted(k for k in _equivalent() if k.startswith(prefix) and k not in st)  # gone
    equivalent -= set(stale)
    denom = len(counted) - len(equivalent)
    return {"module": module, "mutants": len(st), "counts": counts, "caught": caught,
            "equivalent": len(equivalent), "stale": stale,
            "score": round(100 * caught / denom, 1) if denom else None,
            "survivors": open_, "seconds": round(seconds),
            "date": datetime.now(UTC).strftime("%Y-%m-%d")}


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
    return {**summarize(module, statuses(wd, module), seconds), "workdir": str(wd)}


def table_row(res: dict[str, object]) -> str:
    """Return the module's row of the docs/testing.md table."""
    return (f"| {res['module']} | {res['mutants']} | {res['caught']} | {res['equivalent']} | "
            f"{res['score']}% | {res['date']} |")


def main(argv: list[str]) -> int:
    """Run the named modules (default: all of CORE) and print one score line per module."""
    report_only = argv[:1] == ["--report"]  # re-read the last run's verdicts, run nothing
    argv = argv[1:] if report_only else argv
    modules = argv or list(CORE)
    unknown = [m for m in modules if m not in CORE]
    if unknown:
        print(f"mutation: unknown module(s) {', '.join(unknown)}; known: {', '.join(CORE)}",
              file=sys.stderr)
        return 2
    results = []
    for module in modules:
        res = (summarize(module, statuses(workdir(module), module), 0) if report_only
               else run_module(module))
        results.append(res)
        if "error" in res:
            print(f"{module:45s} ERROR ({res['seconds']} s)\n{res['error']}")
            continue
        print(f"{module:45s} {res['score']!s:>5}%  caught {res['caught']} of {res['mutants']}"
              f", {res['equivalent']} equivalent  {res['counts']}  {res['seconds']} s")
        for name in res["survivors"]:  # type: ignore[attr-defined]
            print(f"    not caught: {name}")
        for name in res["stale"]:  # type: ignore[attr-defined]
            print(f"    listed as equivalent but caught or gone (renumbered? fix equivalent.py): "
                  f"{name}")
    print("\n| module | mutants | caught | equivalent | score | date |\n|---|---|---|---|---|---|")
    for res in results:
        if "error" not in res:
            print(table_row(res))
    out = Path(os.environ.get("MUTATION_DIR", "/tmp/agm-mutation")) / "scores.json"
    kept = json.loads(out.read_text(encoding="utf-8")) if out.is_file() else []
    merged = {r["module"]: r for r in [*kept, *results]}  # one entry per module, latest wins
    out.write_text(json.dumps(list(merged.values()), indent=1), encoding="utf-8")
    print(f"mutation: scores written to {out}")
    return 1 if any("error" in r for r in results) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
