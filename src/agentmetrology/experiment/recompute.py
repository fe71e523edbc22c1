"""An experiment report derived again from its store, for `agm evidence qualify --recompute`.

experiment.json names its experiment, the registration (campaign) it evaluated and the digest
of the frozen plan; the plan itself is in the store. Evaluating that registration's frozen rule
again, at the report's chain length, gives the same document; a verdict or number edited in the
report does not survive the comparison.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentmetrology.experiment.analyse import SCHEMA, analyse
from agentmetrology.experiment.registry import registrations
from agentmetrology.records.canonical import to_plain
from agentmetrology.records.errors import UserError
from agentmetrology.store.opening import open_store

NOT_COMPARED = frozenset({"evidence"})  # the store's qualification now


def is_experiment(doc: dict[str, Any]) -> bool:
    """Return True when `doc` says it is an experiment report."""
    return doc.get("schema") == SCHEMA


def experiment_again(doc: dict[str, Any], store: Path) -> dict[str, Any]:
    """Return the experiment report of `store` evaluated again for the registration the
    report names; UserError when the store holds no such registration."""
    name, campaign, plan = doc.get("experiment"), doc.get("registration"), doc.get("plan_digest")
    if not all(isinstance(v, str) for v in (name, campaign, plan)):
        raise UserError("it does not name its experiment, registration and plan digest")
    with open_store(store, readonly=True) as st:
        reg = next((r for r in registrations(st, str(name))
                    if r.campaign == campaign and r.digest == plan), None)
        if reg is None:
            raise UserError(f"the store holds no registration {campaign} of experiment "
                            f"{name!r} with plan {str(plan)[:12]}")
        return analyse(st, reg)


def experiment_comparable(doc: dict[str, Any]) -> dict[str, Any]:
    """Return the sections of an experiment report compared with a recomputed one."""
    return to_plain({k: v for k, v in doc.items() if k not in NOT_COMPARED})
