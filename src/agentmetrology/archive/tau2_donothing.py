"""Which tau2 tasks a do-nothing agent passes, under each task's own criteria.

The verdict is the domain's evaluator as the `inspect` extra ships it (inspect-evals' tau2
scorers), run by the census's empty-trajectory episode (inspect_ext/audit/tau2_do_nothing.py,
reached through `EVALUATORS` by module path): the task's own solver, an agent that answers
nothing, a simulated user that stops at once. The task
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
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentmetrology.archive.importers.tau2_domain import package_version
from agentmetrology.edges.cache_dir import cache_dir
from agentmetrology.runtime.registry import Registry

MEMO_ENV = "AGM_TAU2_CACHE"
MEMO_FORMAT = 1
# (domain, {task id: definition}) -> {task id: verdict}; injectable so tests can restrict it
Evaluator = Callable[[str, dict[str, dict[str, Any]]], dict[str, dict[str, Any]]]
# The evaluator runs inspect-evals' scorers through the Inspect package, which sits above the
# archive: it is named by module path and imported when first asked for, as a plug-in would be.
EVALUATORS: Registry[Evaluator] = Registry("tau2 do-nothing evaluator")
DEFAULT_EVALUATOR = "inspect-evals"
EVALUATORS.add_lazy(DEFAULT_EVALUATOR,
                    "agentmetrology.inspect_ext.audit.tau2_do_nothing:run_evaluator")


def memo_dir() -> Path | None:
    """Return the memo directory, or None when turned off."""
    return cache_dir(MEMO_ENV, "tau2-do-nothing")


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


def run_evaluator(domain: str, defs: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Return a verdict per task id from inspect-evals' evaluator run on an empty trajectory."""
    return EVALUATORS.get(DEFAULT_EVALUATOR)(domain, defs)


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
