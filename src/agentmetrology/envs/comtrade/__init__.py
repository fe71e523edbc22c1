"""ComtradeBench: seeded, paginated data extraction with injected faults and exact ground truth.

The package's registered description is `agentmetrology.envs.comtrade.spec.SPEC`; everything
outside this folder reaches ComtradeBench through the environment registry. The names below
are imported on first use (PEP 562): reading a task's specification (the evidence check of
`agm campaign status` does) needs neither the service nor numpy, which the environment loads.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentmetrology.envs.comtrade.environment import ComtradeEnv
    from agentmetrology.envs.comtrade.generator import (
        DEDUP_KEY,
        ROW_FIELDS,
        generate_rows,
        generator_seed,
        ground_truth_ids,
        is_totals_row,
    )
    from agentmetrology.envs.comtrade.tasks import (
        PROFILES,
        TASKS,
        ComtradeTask,
        Profile,
        get_task,
    )

_HOME = {
    "ComtradeEnv": "environment",
    **dict.fromkeys(("DEDUP_KEY", "ROW_FIELDS", "generate_rows", "generator_seed",
                     "ground_truth_ids", "is_totals_row"), "generator"),
    **dict.fromkeys(("PROFILES", "TASKS", "ComtradeTask", "Profile", "get_task"), "tasks"),
}

__all__ = [
    "DEDUP_KEY",
    "PROFILES",
    "ROW_FIELDS",
    "TASKS",
    "ComtradeEnv",
    "ComtradeTask",
    "Profile",
    "generate_rows",
    "generator_seed",
    "get_task",
    "ground_truth_ids",
    "is_totals_row",
]


def __getattr__(name: str) -> Any:
    """Import a public name from the module that defines it, on first use."""
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOME})
