"""Applying a mutation to one episode's environment, its instructions and its scorers.

A mutated environment is the original seen through the mutation: renamed tools dispatch to the
original callables, observations carry the same values in another layout. The state logic is
never touched. Each mutation with an inverse map maps a recorded trajectory back, so the same
trajectory can be rescored as if it had been recorded under the original names.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from agentmetrology.mutations.catalog import WORDING_PREFIX, get_mutation
from agentmetrology.records.canonical import sha256_hex
from agentmetrology.records.environment import EnvInstance, EnvSpec, Scorer
from agentmetrology.records.events import Event
from agentmetrology.records.tools import Observation, Tool, ToolSpec


def unsupported(spec: EnvSpec, name: str) -> str | None:
    """Return why `spec` cannot run mutation `name`, or None when it can."""
    m = get_mutation(name)
    if m.hook and spec.mutation_hook(name) is None:
        return (f"environment {spec.name!r} cannot support mutation {name!r} ({m.description}):"
                " it supplies no hook for it")
    return None


def name_map(mutation: str, names: Sequence[str]) -> dict[str, str]:
    """Return {original tool name: name shown to the agent} under `mutation`."""
    if mutation == "alias":
        # Neutral, stable names: the agent keeps every description and schema, not the name.
        return {n: f"op_{sha256_hex(n.encode())[:6]}" for n in names}
    if mutation == "misleading" and len(names) > 1:
        # Each tool is shown under another tool's name (a rotation of the sorted names).
        order = sorted(names)
        return {n: order[(i + 1) % len(order)] for i, n in enumerate(order)}
    return {n: n for n in names}


def inverse_map(mutation: str, names: Sequence[str]) -> dict[str, str]:
    """Return {name shown to the agent: original tool name} under `mutation`."""
    return {shown: original for original, shown in name_map(mutation, names).items()}


def reorder(value: Any) -> Any:
    """Return `value` with every mapping's keys in reverse order (values unchanged)."""
    if isinstance(value, dict):
        return {k: reorder(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [reorder(v) for v in value]
    return value


class MutatedEnv:
    """An environment instance seen through a mutation (tools renamed, observations relaid)."""

    def __init__(self, inner: EnvInstance, mutation: str, condition: str) -> None:
        self.inner = inner
        self.mutation = mutation
        self._condition = condition
        names = name_map(mutation, list(inner.tools))
        relay: Callable[[Observation], Observation] = reorder if mutation == "format" \
            else (lambda obs: obs)
        self.tools: dict[str, Tool] = {}
        for original, tool in inner.tools.items():
            shown = names[original]
            spec = ToolSpec(shown, tool.spec.description, tool.spec.parameters)
            self.tools[shown] = Tool(spec, _relayed(tool, relay))
        # The harness is not the agent: it keeps the original names (Recorder reads
        # `harness_tools`), and a harness that inspects the agent's calls reads
        # `original_names` to know which tool the agent meant.
        self.harness_tools: dict[str, Tool] = {
            n: Tool(t.spec, _relayed(t, relay)) for n, t in inner.tools.items()}
        self.original_names: dict[str, str] = {shown: o for o, shown in names.items()}

    @property
    def task_id(self) -> str:
        """Return the task."""
        return self.inner.task_id

    @property
    def seed(self) -> int | None:
        """Return the episode seed."""
        return self.inner.seed

    @property
    def profile(self) -> str:
        """Return the data profile."""
        return self.inner.profile

    @property
    def condition(self) -> str:
        """Return the mutated condition (the administration's key)."""
        return self._condition

    @property
    def submitted(self) -> dict[str, Any] | None:
        """Return the inner environment's submission."""
        return self.inner.submitted

    @property
    def requests_used(self) -> int:
        """Return the inner environment's budgeted requests."""
        return self.inner.requests_used

    @property
    def budget_exhausted(self) -> bool:
        """Return whether the inner budget is spent."""
        return self.inner.budget_exhausted

    @property
    def trace(self) -> list[Any]:
        """Return the inner adversary trace."""
        return self.inner.trace


def _hook(spec: EnvSpec, name: str) -> Callable[[Any], Any]:
    hook = spec.mutation_hook(name)
    if hook is None:  # `unsupported` refuses such a run before any episode starts
        raise KeyError(name)
    return hook


def _relayed(tool: Tool, relay: Callable[[Observation], Observation]) -> Callable[..., Any]:
    def call(**kwargs: Any) -> Observation:
        return relay(tool(**kwargs))
    return call


def mutate_env(spec: EnvSpec, env: EnvInstance, mutation: str, condition: str) -> EnvInstance:
    """Return `env` under `mutation` (environment hooks applied first, then the agent's view)."""
    if get_mutation(mutation).side == "environment":
        env = _hook(spec, mutation)(env)
    return MutatedEnv(env, mutation, condition)


def mutate_message(mutation: str | None, text: str) -> str:
    """Return the task message an agent reads under `mutation`."""
    return f"{WORDING_PREFIX}\n\n{text}" if mutation == "wording" else text


def mutate_scorers(spec: EnvSpec, mutation: str | None) -> tuple[Scorer, ...]:
    """Return the scorers an episode under `mutation` is scored with."""
    if mutation is not None and get_mutation(mutation).side == "scorer":
        scorers: tuple[Scorer, ...] = _hook(spec, mutation)(spec.scorers)
        return scorers
    return spec.scorers


def invert_trajectory(events: Sequence[Event], mutation: str,
                      original_names: Sequence[str]) -> list[Event]:
    """Return the trajectory as if recorded under the original tool names (inverse map)."""
    back = inverse_map(mutation, original_names)
    return [replace(e, name=back.get(e.name, e.name)) if e.kind in ("tool_call", "intercepted")
            else e for e in events]
