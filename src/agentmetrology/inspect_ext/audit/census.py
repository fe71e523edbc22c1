"""The scorer census: many benchmarks' scorers audited in one table (docs/inspect.md).

One row per benchmark × scorer: scorer kind, criterion sensitivity (and the offending probes),
the empty-trajectory (do-nothing) pass rate and the licensed claim. Each Inspect task runs in its
own process with a time limit (census_worker), so a task that hangs on a download cannot stall
the census; a task that cannot run here is a row `not probed: needs X`, never dropped. A tau2
domain's worker also counts its do-nothing passes per criterion (census_tau2), from the same
do-nothing run and the same samples as its row.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from typing import Any

from agentmetrology import __version__
from agentmetrology.audit.criterion_verdict import MIN_SAMPLES
from agentmetrology.audit.env_audit import NO_PAIR
from agentmetrology.audit.registry import AUDIT_TARGETS
from agentmetrology.envs.registry import env_names, get_env
from agentmetrology.inspect_ext.audit.census_tau2 import tau2_domain, tau2_summary, with_criteria

__all__ = ["DEFAULT_TASKS", "census_row", "run_census", "summarize"]

# Inspect tasks whose data ships with inspect-evals (probed offline), then tasks that need a
# download or a sandbox (listed, not probed), then the built-in targets.
DEFAULT_TASKS: tuple[str, ...] = (
    "inspect_evals/tau2_airline", "inspect_evals/tau2_retail", "inspect_evals/tau2_telecom",
    "inspect_evals/tau2_banking",
    "inspect_evals/agent_threat_bench_autonomy_hijack",
    "inspect_evals/agent_threat_bench_data_exfil",
    "inspect_evals/agent_threat_bench_memory_poison",
    "inspect_evals/agentic_misalignment", "inspect_evals/make_me_pay",
    "inspect_evals/agent_bench_os", "inspect_evals/persistbench_beneficial_memory",
    "inspect_evals/persistbench_cross_domain", "inspect_evals/persistbench_sycophancy",
    "inspect_evals/threecb", "inspect_evals/swe_lancer",
    "inspect_evals/gdm_self_reasoning_read_logs", "inspect_evals/ipi_coding_agent",
    "inspect_evals/mind2web_sc", "inspect_evals/scbench",
    "inspect_evals/gsm8k", "inspect_evals/mmlu_0_shot", "inspect_evals/humaneval",
    "inspect_evals/gpqa_diamond", "inspect_evals/agentdojo", "inspect_evals/agentharm",
    "builtin:comtrade", "builtin:bfcl", "builtin:researchops", "builtin:permission",
    "builtin:transaction", "builtin:clarification",
)
WORKER_TIMEOUT = 900.0  # seconds for one task's whole audit
Progress = Callable[[str, int, int], None]


def census_row(spec: str, limit: int | None, timeout: float = 10.0) -> dict[str, Any]:
    """Audit one benchmark in this process and return its census row."""
    if spec.startswith("builtin:"):
        return _builtin_row(spec.removeprefix("builtin:"), limit)
    from agentmetrology.inspect_ext.audit.load import InspectLoadError, load_task
    from agentmetrology.inspect_ext.audit.target import audit_inspect

    name, _, argtext = spec.partition(" ")
    from agentmetrology.inspect_ext.audit.load import parse_task_args

    args = parse_task_args(argtext.split()) if argtext else {}
    try:
        loaded = load_task(name, args, limit)
    except InspectLoadError as exc:
        return _not_probed(spec, exc.needs or "a working task load", str(exc))
    if loaded.needs:  # forged outputs need no sandbox; the scorer may still read it
        return _without_sandbox_row(spec, loaded, args, timeout)
    tau2 = None
    domain = tau2_domain(spec)
    if domain is None:
        doc = audit_inspect(loaded, task_args=args, timeout=timeout)
    else:  # one do-nothing run scored by the shipped scorer and by its criteria, one by one
        from agentmetrology.inspect_ext.audit.run import run_empty_trajectory

        probe = with_criteria(domain, loaded)
        empty = run_empty_trajectory(probe, timeout, None)
        doc = audit_inspect(loaded, task_args=args, timeout=timeout, empty_run=empty)
        tau2 = tau2_summary(domain, loaded, probe, empty)
    return _probed_row(spec, doc, tau2)


def _without_sandbox_row(spec: str, loaded: Any, args: dict[str, Any],
                         timeout: float) -> dict[str, Any]:
    """Probe a sandboxed task's scorers with forged outputs and no sandbox (no do-nothing run).

    A forged output is written, not produced by tools, so the sandbox is needed only by a
    scorer that reads it; such a scorer's cells are INVALID naming the missing sandbox. The row
    counts as probed only if some forged output was scored; otherwise it stays `not probed`.
    """
    from agentmetrology.inspect_ext.audit.load import without_sandbox
    from agentmetrology.inspect_ext.audit.target import audit_inspect

    needs = loaded.needs
    doc = audit_inspect(without_sandbox(loaded), task_args=args, timeout=timeout,
                        empty_trajectory=False)
    row = _probed_row(spec, doc, None)
    scored = [c for c in doc["card"]["configurations"]
              if c["rows"]["criterion_sensitivity"]["evidence"].get("pairs_compared")]
    if not scored:
        why = next((s["criterion_reason"] for s in row["scorers"] if s["criterion_reason"]),
                   "no forged output was scored")
        return _not_probed(spec, needs, f"the task runs in {needs}; its scorer, probed "
                                        f"without it, scored nothing: {why}")
    row["without"] = needs
    for s in row["scorers"]:
        s["empty_reason"] = f"the do-nothing run needs {needs}"
    return row


def _probed_row(spec: str, doc: dict[str, Any],
                tau2: dict[str, Any] | None) -> dict[str, Any]:
    """Return the census row of one audited Inspect task."""
    scorers = []
    for config, kind in zip(doc["card"]["configurations"], doc["target"]["scorers"],
                            strict=True):
        crit = config["rows"]["criterion_sensitivity"]
        e = kind.get("empty_trajectory") or {}
        scorers.append({"scorer": config["scorer"], "kind": config["scorer_kind"],
                        "criterion": crit["status"],
                        "offending": crit["evidence"].get("offending", []),
                        "criterion_reason": _criterion_reason(crit["evidence"]),
                        "empty_reason": next((r["reason"] for r in e.get("invalid_reasons", [])),
                                             None),
                        "empty_passed": e.get("passed"), "empty_scored": e.get("scored"),
                        "empty_invalid": e.get("invalid"),
                        "claim": config["licensed_claim"],
                        # the verdicts with their n, minimum and split halves (issue 37)
                        "kind_verdict": kind.get("verdict"),
                        "criterion_verdict": crit["evidence"].get("verdict"),
                        "stability": config.get("stability", "stable across split halves"),
                        # only for a non-deterministic scorer: its do-nothing count is single
                        # draws (a deterministic scorer's row is as it always was)
                        **({"empty_unreliable": e["unreliable"]} if e.get("unreliable")
                           else {})})
    t = doc["target"]
    return {"benchmark": spec, "source": "inspect", "status": "probed", "needs": None,
            "reason": None, "samples": t["samples_audited"],
            "dataset_samples": t["dataset_samples"],
            "samples_without_target": t["samples_without_target"], "scorers": scorers,
            "card_digest": doc["digests"]["card"], **({"tau2": tau2} if tau2 else {})}


def _criterion_reason(evidence: dict[str, Any]) -> str | None:
    """Return why a criterion row did not pass: its own reason, or, when it only says no pair
    was compared, the commonest INVALID reason itself (the census line's one reason)."""
    reason = evidence.get("reason")
    if reason and not str(reason).startswith(NO_PAIR):
        return str(reason)
    return next((r["reason"] for r in evidence.get("invalid_reasons", [])), reason)


def _not_probed(spec: str, needs: str, reason: str) -> dict[str, Any]:
    return {"benchmark": spec, "source": "builtin" if spec.startswith("builtin:") else "inspect",
            "status": "not probed", "needs": needs, "reason": reason, "samples": None,
            "dataset_samples": None, "samples_without_target": None, "scorers": [],
            "card_digest": None}


def shipped_configuration(card: dict[str, Any]) -> dict[str, Any] | None:
    """Return the card's shipped configuration: `LEVEL|scorer` on an environment's card, the
    scorer's name on a target's (no level); the first such column (a benchmark shipping its
    valid scorer has a truth column of the same name after it)."""
    want = card["shipped_configuration"]
    # Compared with the scorer's name alone, an environment's `L2|goal` never matched and
    # the census took the first configuration whatever it was.
    return next((c for c in card["configurations"]
                 if (f"{c['level']}|{c['scorer']}" if c.get("level") else c["scorer"]) == want),
                None)


def _builtin_row(name: str, limit: int | None) -> dict[str, Any]:
    from agentmetrology.audit.env_audit import seal

    try:
        if name in AUDIT_TARGETS:
            from agentmetrology.audit.generic_audit import audit_target

            named = AUDIT_TARGETS.create(name, category="simple_python", limit=limit)
            doc = seal(audit_target(named.target))
        elif name in env_names():
            from agentmetrology.audit.env_audit import audit_env
            from agentmetrology.audit.targets.env import EnvTarget

            spec = get_env(name)
            probes = len(spec.audit.probe_tasks) if spec.audit is not None else 0
            # Two seeds a task; an environment probing fewer tasks than a criterion verdict's
            # minimum of samples (a tool world probes one or two) gets that many seeds: each
            # (task, seed) instance is a sample (audit.criterion_verdict).
            seeds = 2 if probes >= MIN_SAMPLES else MIN_SAMPLES
            doc = seal(audit_env(EnvTarget(spec, seeds=seeds)))
        else:
            known = ", ".join([*env_names(), *AUDIT_TARGETS.names()])
            return _not_probed(f"builtin:{name}", "a known built-in target",
                               f"no built-in target {name!r} ({known})")
    except ImportError as exc:
        return _not_probed(f"builtin:{name}", f"a Python package ({exc.name})", str(exc))
    except Exception as exc:  # a built-in target that cannot run here is said so, not dropped
        return _not_probed(f"builtin:{name}", "its optional extra", f"{type(exc).__name__}: "
                                                                     f"{exc}")
    configs = doc["card"]["configurations"]
    found = shipped_configuration(doc["card"])
    scorers = [{"scorer": (f"{c['level']} + " if c["level"] else "") + c["scorer"],
                "kind": c["scorer_kind"], "criterion": c["rows"]["criterion_sensitivity"][
                    "status"],
                "offending": c["rows"]["criterion_sensitivity"]["evidence"].get("offending", []),
                "criterion_pairs": c["rows"]["criterion_sensitivity"]["evidence"].get(
                    "pairs_compared"),
                "criterion_reason": None, "empty_passed": None, "empty_scored": None,
                "empty_invalid": None, "claim": c["licensed_claim"],
                # the card's own verdict (n = samples compared, its minimum, split halves), as
                # an Inspect row's: one rule for both, and the claim the card licenses with it
                "criterion_verdict": c["rows"]["criterion_sensitivity"]["evidence"].get(
                    "verdict")}
               for c in ([found] if found is not None else configs[:1])]
    return {"benchmark": f"builtin:{name}", "source": "builtin", "status": "probed",
            "needs": None, "reason": None, "samples": (doc.get("target") or {}).get("entries"),
            "dataset_samples": None, "samples_without_target": (doc.get("target") or {}).get(
                "entries_without_oracle"), "scorers": scorers,
            "card_digest": doc["digests"].get("card")}


def _in_worker(spec: str, limit: int | None, timeout: float,
               worker_timeout: float) -> dict[str, Any]:
    """Run census_row in a child process; a hang or crash is a `not probed` row with why."""
    cmd = [sys.executable, "-m", "agentmetrology.inspect_ext.audit.census_worker", spec,
           str(limit or 0), str(timeout)]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=worker_timeout,
                              env={**os.environ, "HF_HUB_OFFLINE": "1",
                                   "HF_DATASETS_OFFLINE": "1"}, check=False)
    except subprocess.TimeoutExpired:
        return _not_probed(spec, "more time", f"the audit took over {worker_timeout:g} s "
                                              "(a download retried, or a task that hangs)")
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("{")]
    if done.returncode != 0 or not lines:
        tail = " ".join((done.stderr or "").strip().splitlines()[-1:]) or "no output"
        return _not_probed(spec, "a working audit", f"the audit process failed "
                                                   f"(exit {done.returncode}): {tail[:300]}")
    row: dict[str, Any] = json.loads(lines[-1])
    return row


def run_census(specs: list[str], limit: int | None, timeout: float = 10.0,
               worker_timeout: float = WORKER_TIMEOUT,
               progress: Progress | None = None) -> dict[str, Any]:
    """Audit every benchmark (each in its own process) and return the census document."""
    rows, tau2 = [], []
    for i, spec in enumerate(specs):
        if progress:
            progress(spec, i, len(specs))
        row = _in_worker(spec, limit, timeout, worker_timeout)
        if row.get("tau2"):  # the worker's do-nothing count by criterion, on the row's samples
            tau2.append(row.pop("tau2"))
        rows.append(row)
    if progress:
        progress("done", len(specs), len(specs))
    return {"census": "scorer census", "tool_version": __version__, "limit": limit,
            "scorer_timeout_s": timeout, "rows": rows, "summary": summarize(rows),
            "tau2": tau2}


def judged(scorer: dict[str, Any]) -> bool:
    """Return whether a census scorer's criterion was judged at all (its verdict's own word when
    it has one: a tau2 row's outcome probe below its minimum was judged, on too few tasks)."""
    v = scorer.get("criterion_verdict")
    return (v["verdict"] if v else scorer["criterion"]) != "not probed"


def criterion_reading(scorer: dict[str, Any]) -> str:
    """Return a census scorer's criterion as its verdict reads it (never a withheld status)."""
    v = scorer.get("criterion_verdict")
    if v and not v.get("sufficient", True):
        return "insufficient evidence"
    if v and not v.get("stable", True):
        return f"{scorer['criterion']}, unstable"
    return str(scorer["criterion"])


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Return counts: benchmarks probed / not probed, scorers by kind, criterion and claim."""
    scorers = [s for r in rows for s in r["scorers"]]
    return {"benchmarks": len(rows),
            "probed": sum(1 for r in rows if r["status"] == "probed"),
            "not_probed": sum(1 for r in rows if r["status"] != "probed"),
            "scorers": len(scorers),
            "by_kind": dict(sorted(Counter(s["kind"] for s in scorers).items())),
            "by_criterion": dict(sorted(Counter(criterion_reading(s) for s in scorers).items())),
            "by_claim": dict(sorted(Counter(s["claim"] for s in scorers).items())),
            "needs": dict(sorted(Counter(r["needs"] for r in rows if r["needs"]).items()))}
