"""What every scaffold level declares about model output it cannot use as-is.

Who owns which decision is the environment's data (`EnvSpec.ownership`); how a scaffold handles
parallel calls, malformed arguments and text without a call is the same for every environment
and is recorded in every episode.
"""

from __future__ import annotations

from agentmetrology.records.policy import LEVELS

SCAFFOLD_POLICIES: dict[str, dict[str, str]] = {
    level: {
        "parallel_tool_calls": "execute_in_order",
        "malformed_tool_arguments": "error_observation",
        "text_without_tool_call": "end_turn",
    }
    for level in LEVELS
}
