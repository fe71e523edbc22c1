"""Paired mutations (docs/diagnose.md): named, versioned transforms over the tool protocol."""

from agentmetrology.mutations.apply import (
    MutatedEnv,
    inverse_map,
    invert_trajectory,
    mutate_env,
    mutate_message,
    mutate_scorers,
    name_map,
    unsupported,
)
from agentmetrology.mutations.catalog import (
    MUTATIONS,
    Mutation,
    UnknownMutationError,
    get_mutation,
    mutated_condition,
    split_condition,
)

__all__ = [
    "MUTATIONS",
    "MutatedEnv",
    "Mutation",
    "UnknownMutationError",
    "get_mutation",
    "inverse_map",
    "invert_trajectory",
    "mutate_env",
    "mutate_message",
    "mutate_scorers",
    "mutated_condition",
    "name_map",
    "split_condition",
    "unsupported",
]
