"""tau2 domain task definitions as the `inspect` extra ships them (inspect-evals' tau2 data files).

A tau2 results file usually carries its task definitions; a bare list of simulations does not.
Then the definitions come from the domain data inspect-evals installs (`tau2/data/domains/<d>/`),
matched by task id, and the planned task set is the smallest published split of the domain that
holds every task the file ran (a custom top level's `total_tasks` picks among equal fits). The
files are read as data: nothing of inspect-evals is imported here.
"""

from __future__ import annotations

import gzip
import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DOMAINS = ("airline", "retail", "telecom")
_TASK_FILES = ("tasks.json", "tasks.json.gz")
DEFAULT_BASIS = ("DB", "COMMUNICATE")  # tau2's default when a task names no reward basis
MAX_DATA_BYTES = 64 << 20  # the largest shipped file (telecom, inflated) is about 40 MiB


@dataclass(frozen=True, slots=True)
class DomainTasks:
    """A domain's shipped task definitions by id, its named splits, and where they came from."""

    domain: str
    tasks: dict[str, dict[str, Any]]
    splits: dict[str, list[str]]
    source: str  # e.g. "inspect-evals 0.26.0: tau2/data/domains/airline/tasks.json"


def data_dir() -> Path | None:
    """Return inspect-evals' tau2 data directory, or None when the package is not installed."""
    try:
        spec = importlib.util.find_spec("inspect_evals")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(next(iter(spec.submodule_search_locations))) / "tau2" / "data" / "domains"
    return root if root.is_dir() else None


def package_version() -> str | None:
    """Return the installed inspect-evals version, or None."""
    import importlib.metadata  # here: every archive command imports this module, few ask

    try:
        return importlib.metadata.version("inspect_evals")
    except importlib.metadata.PackageNotFoundError:
        return None


def _read(path: Path) -> Any:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as fh:
        raw = fh.read(MAX_DATA_BYTES + 1)
    if len(raw) > MAX_DATA_BYTES:
        raise ValueError(f"{path.name} is larger than {MAX_DATA_BYTES >> 20} MiB")
    return json.loads(raw)


def load_domain(domain: str) -> DomainTasks | None:
    """Return the shipped task definitions of a tau2 domain, or None when they are unavailable."""
    root = data_dir()
    if root is None or domain not in DOMAINS:
        return None
    folder = root / domain
    found = next((folder / n for n in _TASK_FILES if (folder / n).is_file()), None)
    if found is None:
        return None
    try:
        rows = _read(found)
        split_file = folder / "split_tasks.json"
        splits = _read(split_file) if split_file.is_file() else {}
    except (OSError, ValueError):
        return None
    tasks = {str(t["id"]): t for t in rows if isinstance(t, dict) and "id" in t}
    clean = {str(k): [str(i) for i in v] for k, v in splits.items() if isinstance(v, list)}
    version = package_version() or "?"
    return DomainTasks(domain, tasks, clean,
                       f"inspect-evals {version}: tau2/data/domains/{domain}/{found.name}")


def planned_split(dom: DomainTasks, ran: set[str], total: int | None) -> tuple[str, list[str]]:
    """Return (split name, task ids) planned for a file that ran `ran`: the smallest split
    holding them all (one of size `total` first), else every shipped task ('all')."""
    fits = [(name, ids) for name, ids in dom.splits.items() if ran <= set(ids)]
    if total is not None and any(len(set(ids)) == total for _, ids in fits):
        fits = [(n, ids) for n, ids in fits if len(set(ids)) == total]
    if fits:
        name, ids = min(fits, key=lambda f: (len(set(f[1])), f[0]))
        return name, list(dict.fromkeys(ids))
    return "all", list(dom.tasks)


def guess_domain(ran: set[str]) -> str | None:
    """Return the one shipped domain whose task ids hold every id in `ran`, else None."""
    hits = []
    for domain in DOMAINS:
        dom = load_domain(domain)
        if dom is not None and ran and ran <= set(dom.tasks):
            hits.append(domain)
    return hits[0] if len(hits) == 1 else None


def criteria_key(task: dict[str, Any]) -> str:
    """Return a canonical text of a task's evaluation criteria, defaults filled in, to compare
    the definitions a file carries with the shipped ones (serialisers differ in defaults)."""
    crit = task.get("evaluation_criteria") or {}
    actions = [{"requestor": a.get("requestor") or "assistant", "name": a.get("name"),
                "arguments": a.get("arguments") or {}, "compare_args": a.get("compare_args")}
               for a in crit.get("actions") or [] if isinstance(a, dict)]
    envs = [{k: e.get(k) for k in ("env_type", "func_name", "arguments", "assert_value")}
            for e in crit.get("env_assertions") or [] if isinstance(e, dict)]
    return json.dumps({"actions": actions, "env_assertions": envs,
                       "communicate_info": crit.get("communicate_info") or [],
                       "nl_assertions": crit.get("nl_assertions") or [],
                       "reward_basis": sorted(crit.get("reward_basis") or DEFAULT_BASIS)},
                      sort_keys=True, default=str)


def differing(defs: dict[str, dict[str, Any]], domain: str | None) -> dict[str, Any] | None:
    """Return how many of a file's task definitions differ in their criteria from the shipped
    ones (the do-nothing verdicts use the file's), or None without shipped data."""
    shipped = load_domain(domain) if domain else None
    if shipped is None:
        return None
    known = [t for t in defs if t in shipped.tasks]
    differ = sorted(t for t in known if criteria_key(defs[t]) != criteria_key(shipped.tasks[t]))
    return {"compared": len(known), "differ": len(differ), "tasks": differ[:100],
            "not_shipped": len(defs) - len(known), "shipped": shipped.source}
