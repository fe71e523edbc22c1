"""ComtradeBench: seeded, paginated data extraction with injected faults and exact ground truth.

The package's registered description is `agentmetrology.envs.comtrade.spec.SPEC`; everything
outside this folder reaches ComtradeBench through the environment registry.
"""

from agentmetrology.envs.comtrade.environment import ComtradeEnv
from agentmetrology.envs.comtrade.generator import (
    DEDUP_KEY,
    ROW_FIELDS,
    generate_rows,
    generator_seed,
    ground_truth_ids,
    is_totals_row,
)
from agentmetrology.envs.comtrade.tasks import PROFILES, TASKS, ComtradeTask, Profile, get_task

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
