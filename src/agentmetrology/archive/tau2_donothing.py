"""Which tau2 tasks a do-nothing agent passes, under each task's own criteria.

The verdict is the domain's evaluator as the `inspect` extra ships it (inspect-evals' tau2
scorers), run by the census's empty-trajectory episode (audit.census_tau2): the task's own
solver, an agent that answers nothing, a simulated user that stops at once. The task
definitions are the ones the results file carries (given to inspect-evals as its tasks file),
so the criteria are the run's own. Where the shipped scorer is the conjunction of the database
check and the required outputs (airline, retail) and it timed out, the two criteria decide.
A task the evaluator could not score is "not probed", never a pass or a fail.

Each verdict is kept in a memo under the user's cache, keyed by the inspect-evals version, the
domain and the task definition's bytes: the episode takes seconds per task, the verdict never
changes for the same inputs. `AGM_TAU2_CACHE=DIR` moves it; `AGM_TAU2_CACHE=` turns it off.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentmetrology.archive.importers.tau2_domain import package_version

MEMO_ENV = "AGM_TAU2_CACHE"
MEMO_FORMAT = 1
TIMEOUT_S = 300.0  # one scorer call on a loaded machine; a timeout is "not probed"
EMPTY = "empty_trajectory"
# (domain, {task id: definition}) -> {task id: verdict}; injectable so tests can restrict it
Evaluator = Callable[[str, dict[str, dict[str, Any]]], dict[str, dict[str, Any]]]


def memo_dir() -> Path | None:
    """Return the memo directory, or None when turned off."""
    env = os.environ.get(MEMO_ENV)
    if env is not None:
        return Path(env) if env else None
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "agentmetrology" / "tau2-do-nothing"


def _key(domain: str, definition: dict[str, Any]) -> str:
    text = json.dumps([MEMO_FORMAT, package_version(), domain, definition], sort_keys=True,
                      default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _memo_get(folder: Path | None, key: str) -> dict[str, Any] | None:
    if folder is None:
        return None
    try:
        value = json.loads((folder / f"{key}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) and "passed" in value else None


def _memo_put(folder: Path | None, key: str, value: dict[str, Any]) -> None:
    if folder is None or value.get("passed") is None:  # "not probed" is retried next time
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{key}.json").write_text(json.dumps(value, sort_keys=True), encoding="utf-8")
    except OSError:
        return  # an unwritable cache only costs the time


def _verdict(cells: dict[Any, Any], sid: str, split: bool) -> dict[str, Any]:
    """Return {passed, decided_by, ...} from the empty-trajectory cells of one sample."""
    def val(i: int) -> float | None:
        c = cells.get((sid, EMPTY, i))
        return c.value if c is not None and c.status == "ok" and c.value is not None else None

    shipped, db, out = val(0), (val(1) if split else None), (val(2) if split else None)
    parts = {"database_unchanged": None if db is None else db >= 1.0,
             "required_outputs": None if out is None else out >= 1.0}
    if shipped is not None:
        return {"passed": shipped >= 1.0, "decided_by": "shipped scorer", **parts}
    if db is not None and out is not None:
        return {"passed": db >= 1.0 and out >= 1.0, "decided_by": "database and outputs "
                "criteria (the shipped scorer did not answer)", **parts}
    first = cells.get((sid, EMPTY, 0))
    why = first.message if first is not None and first.message else "no score"
    return {"passed": None, "decided_by": f"not probed: {why}", **parts}


def run_evaluator(domain: str, defs: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Return a verdict per task id by running inspect-evals' evaluator on an empty trajectory."""
    from agentmetrology.audit.census_tau2 import SPLIT_DOMAINS, with_criteria
    from agentmetrology.audit.targets.inspect_load import InspectLoadError, load_task
    from agentmetrology.audit.targets.inspect_run import run_empty_trajectory

    with tempfile.TemporaryDirectory(prefix="agm-tau2-") as tmp:
        tasks_file = Path(tmp) / "tasks.json"
        tasks_file.write_text(json.dumps(list(defs.values())), encoding="utf-8")
        try:
            loaded = load_task(f"inspect_evals/tau2_{domain}",
                               {"shuffle": False, "tasks_file_override": str(tasks_file)})
        except InspectLoadError as exc:
            return {t: {"passed": None, "decided_by": f"not probed: {exc}"} for t in defs}
        keep = [i for i, s in enumerate(loaded.samples) if str(s.id) in defs]
        loaded.samples = [loaded.samples[i] for i in keep]
        loaded.infos = [loaded.infos[i] for i in keep]
        probe = with_criteria(domain, loaded)
        cells = run_empty_trajectory(probe, TIMEOUT_S, None).cells if keep else {}
    ran = {str(loaded.samples[i].id) for i in range(len(keep))}
    out = {sid: _verdict(cells, sid, domain in SPLIT_DOMAINS) for sid in ran}
    for t in set(defs) - ran:
        out[t] = {"passed": None, "decided_by": "not probed: inspect-evals does not load this "
                                                "task (not in its base split of the domain)"}
    return out


def do_nothing_verdicts(domain: str | None, defs: dict[str, dict[str, Any]],
                        evaluator: Evaluator | None = None) -> dict[str, Any]:
    """Return the do-nothing verdict per task (memoised), or why none could be computed."""
    if domain is None or not defs:
        return {"applicable": False, "reason": "no task definitions for a known domain"}
    if evaluator is None:
        if package_version() is None:
            return {"applicable": False, "reason": "needs the `inspect` extra (inspect-evals) "
                                                   "to run the domain's evaluator"}
        evaluator = run_evaluator
    folder = memo_dir() if evaluator is run_evaluator else None
    keys = {t: _key(domain, d) for t, d in defs.items()}
    verdicts = {t: v for t in defs if (v := _memo_get(folder, keys[t])) is not None}
    todo = {t: d for t, d in defs.items() if t not in verdicts}
    if todo:
        fresh = evaluator(domain, todo)
        for t, v in fresh.items():
            _memo_put(folder, keys[t], v)
        verdicts.update(fresh)
    return {"applicable": True, "evaluator": f"inspect-evals {package_version()}: "
            f"inspect_evals/tau2_{domain} shipped scorer on an empty trajectory",
            "tasks": {t: verdicts[t] for t in sorted(verdicts, key=_order)}}


def _order(task: str) -> tuple[int, str]:
    return (int(task), "") if task.isdigit() and len(task) < 18 else (1 << 62, task)
