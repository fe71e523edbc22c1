"""The audit of a target that has probes but no episodes (e.g. `bfcl`): the card from its hooks."""

from __future__ import annotations

from typing import Any

from agentmetrology import __version__
from agentmetrology.audit.card import configuration, row
from agentmetrology.audit.env_audit import criterion_row
from agentmetrology.audit.probes import probe_battery
from agentmetrology.audit.target import AuditTarget


def audit_target(target: AuditTarget, *, seed: int = 0,
                 extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """Run the stages the target's hooks allow; the rest are `not probed`."""
    refs = target.tasks() or []
    probes = probe_battery(target, refs) if refs else {
        "status": "not probed", "scorer": target.scorer_name, "resolution": target.resolution,
        "pairs_compared": 0, "pairs_invalid": 0, "offending": [], "by_probe": [],
        "cells_invalid": 0, "invalid_reasons": [], "cells": []}
    own = target.ownership_map()
    # A deviation is a cell whose verdict is at least the scorer's resolution away from the
    # probe's ground-truth quality (for a binary checker: it passed a bad call or failed a good
    # one), or that the scorer could not score at all.
    cells: list[dict[str, Any]] = list(probes["cells"])  # type: ignore[arg-type]
    deviations = sum(1 for c in cells if c["score"] is None
                     or abs(c["score"] - c["truth"]) >= target.resolution)
    # Entries without an oracle get no probes: counted and named with why (bfcl's `defect`:
    # shipped answers that contradict the schema), never dropped in silence.
    defect = getattr(target, "defect", None)
    without = {r.task_id: (defect(r) if callable(defect) else None) or "no oracle"
               for r in refs if target.oracle(r) is None}
    missing_oracles = len(without)
    not_probed = row("not probed", {"reason": "the target exposes no ownership map or "
                                              "episodes (single-turn decoding)"}, None)
    rows = {"scorer_kind": row(target.scorer_kind, {"kind": target.scorer_kind}, None),
            "criterion_sensitivity": criterion_row(probes),
            "ownership_completeness": not_probed if own is None else row(
                "not probed", {"reason": "ownership audit needs episodes"}, None),
            "non_degeneracy": not_probed,
            "replay": row("not probed", {"reason": "no episodes to replay"}, None)}
    config = configuration(None, target.scorer_name, target.scorer_kind, rows)
    return {
        "audit": target.name, "tool_version": __version__, "analysis_seed": seed,
        "profile": None, "seeds": None,
        "target": {"name": target.name, "entries": len(refs),
                   "entries_without_oracle": missing_oracles,
                   **({"without_oracle": without} if without else {}), "cells": len(cells),
                   "deviations": deviations, **(extra or {})},
        "scorers": {"shipped": {"name": target.scorer_name, "kind": target.scorer_kind,
                                "resolution": target.resolution}},
        "card": {"benchmark": target.name, "shipped_configuration": target.scorer_name,
                 "licensed_claim": config["licensed_claim"], "configurations": [config]},
        "stages": {"probes": {"shipped": probes}},
        "digests": {},
    }
