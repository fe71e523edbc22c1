"""inspect-evals' tau2 evaluator on an empty trajectory: the archive's do-nothing verdicts.

The archive's tau2 audit (archive/tau2_donothing.py) names `run_evaluator` by module path and
imports it when a verdict is not in its memo: the task definitions a results file carries are
given to inspect-evals as its tasks file, and each task's do-nothing episode (the census's, in
census_tau2) is scored by the shipped scorer and, where it is their conjunction, by the database
and outputs criteria.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from agentmetrology.inspect_ext.audit.census_tau2 import SPLIT_DOMAINS, with_criteria
from agentmetrology.inspect_ext.audit.load import InspectLoadError, load_task
from agentmetrology.inspect_ext.audit.run import run_empty_trajectory

TIMEOUT_S = 300.0  # one scorer call on a loaded machine; a timeout is "not probed"
EMPTY = "empty_trajectory"


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
