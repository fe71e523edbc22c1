"""Probe design for an Inspect task: a model's forged outputs, executed on the task's scorer.

`agm audit propose probes TASK` reaches `propose_task_probes` through the auditor's proposal
registry (audit/proposals.py: `PROPOSERS`), which names it by module path: the proposal stays a
proposal, marked by what the real scorer said (`confirm_probes`), never a verdict.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agentmetrology.audit.proposals import Endpoint, confirm_probes, propose_probes
from agentmetrology.inspect_ext.audit.forge import Forged
from agentmetrology.inspect_ext.audit.load import InspectLoadError, load_task
from agentmetrology.inspect_ext.audit.run import run_forged
from agentmetrology.records.errors import UserError


def execute_proposed_probes(loaded: Any, proposal: dict[str, Any],
                            timeout: float = 10.0) -> dict[str, Any]:
    """Score each proposed output (and each sample's correct output) with the task's first
    scorer, in-process through Inspect, and return the proposal marked by the result."""
    infos = {i.sample_id: i for i in loaded.infos}
    forged: dict[tuple[str, str], Forged] = {}
    for p in proposal["probes"]:
        info = infos.get(p["sample"])
        if info is None or info.unusable is not None:
            continue
        forged[(p["sample"], "correct")] = Forged(info.targets[0])
        forged[(p["sample"], p["name"])] = Forged(p["output"])
    res = run_forged(loaded, forged, timeout, None) if forged else None
    cells = res.cells if res is not None else {}
    correct = {sid: c.value for (sid, probe, i), c in cells.items()
               if i == 0 and probe == "correct"}
    scored = {(sid, probe): c.value for (sid, probe, i), c in cells.items() if i == 0}
    return confirm_probes(proposal, correct, scored)


def propose_task_probes(ep: Endpoint, items: list[str], limit: int,
                        passes: Callable[[str, Any], bool]) -> dict[str, Any]:
    """Return forged outputs a model proposes for one Inspect task, executed on its scorer."""
    if len(items) != 1:
        raise UserError("propose probes takes one Inspect task")
    try:
        loaded = load_task(items[0], {}, limit)
    except InspectLoadError as exc:
        raise UserError(str(exc)) from exc
    shown = [{"id": i.sample_id, "input": str(s.input)[:2000],
              "target": list(i.targets)} for s, i in zip(loaded.samples, loaded.infos,
                                                         strict=True)
             if i.unusable is None]
    if not shown:
        raise UserError(f"{items[0]}: no sample has a usable target to design probes for")
    return execute_proposed_probes(loaded, propose_probes(ep, shown, passes))
