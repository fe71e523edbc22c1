"""The environment plug-in interface: everything the rest of the system needs to know about one.

An environment is described once, by an `EnvSpec`, in its own folder; the registry
(`agentmetrology.envs.registry`) finds it by name, and every caller (CLI, campaigns, MCP serving,
the auditor, archive recovery and regrade) builds, runs and scores its episodes through one
runner. The spec lives in `records`, the bottom layer, so a plug-in imports only protocols and
never `agents`, `run` or anything above them (DESIGN.md, "Environments are plug-ins").
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from agentmetrology.records.assessment import Assessment
from agentmetrology.records.contract import ContractHooks
from agentmetrology.records.environment_capabilities import (
    AuditHooks,
    Column,
    DemandedCall,
    Display,
    Forged,
    MutationHooks,
    Offline,
    Prompts,
    Serving,
)
from agentmetrology.records.errors import UserError
from agentmetrology.records.events import Event
from agentmetrology.records.policy import LEVELS, Level, Policy
from agentmetrology.records.tools import Tool, ToolRecorder

Owner = Literal["harness", "model"]
ScorerKind = Literal["outcome", "shape", "specification", "llm_judge"]
SCORER_KINDS: tuple[str, ...] = ("outcome", "shape", "specification", "llm_judge")
# The optional capabilities, by the EnvSpec attribute that holds each (None: not supplied).
CAPABILITIES: tuple[str, ...] = ("prompts", "display", "offline", "audit", "mutations",
                                 "contract", "serving")
__all__ = ["CAPABILITIES", "SCORER_KINDS", "AuditHooks", "Column",
           "DemandedCall", "Display", "EnvInstance", "EnvSpec", "Forged", "HarnessProgram",
           "MutationHooks", "Offline", "Owner", "Prompts", "Scorer", "ScorerKind", "Serving"]


class EnvInstance(Protocol):
    """One episode's environment: its tools and what the runner reads after each call."""

    tools: dict[str, Tool]

    @property
    def task_id(self) -> str:
        """Return the task of this episode."""
        ...

    @property
    def seed(self) -> int | None:
        """Return the episode seed (None where a profile ignores seeds)."""
        ...

    @property
    def profile(self) -> str:
        """Return the data profile."""
        ...

    @property
    def condition(self) -> str:
        """Return the condition (clean or a stress condition)."""
        ...

    @property
    def submitted(self) -> dict[str, Any] | None:
        """Return the accepted submission as plain data, or None."""
        ...

    @property
    def requests_used(self) -> int:
        """Return how many budgeted requests the episode spent."""
        ...

    @property
    def budget_exhausted(self) -> bool:
        """Return True when the episode can spend no more requests."""
        ...

    @property
    def trace(self) -> list[Any]:
        """Return adversary trace entries (with `as_dict()`); empty without an adversary."""
        ...


class Scorer(Protocol):
    """A scorer: name, version, kind, and one call from a submission to an Assessment.

    `score` never raises on odd input: it returns INVALID with a reason. `summary` is the
    scorer's part of a result row (`agm run --json`). Scorers of the trajectory (e.g. tool
    coverage) read `trajectory`; outcome scorers read only the submission.
    """

    @property
    def name(self) -> str:
        """Return the scorer's name (recorded with every assessment)."""
        ...

    @property
    def version(self) -> str:
        """Return the scorer's version (bound in plans and the store)."""
        ...

    @property
    def kind(self) -> ScorerKind:
        """Return outcome, shape, specification or llm_judge."""
        ...

    @property
    def label(self) -> str:
        """Return the key of its part of a result row, e.g. "ground_truth"."""
        ...

    def score(self, submission: Any, task: str, seed: int | None, profile: str,
              evidence_digest: str | None = None,
              trajectory: Sequence[Event] | None = None) -> Assessment:
        """Return the assessment of one submission of (task, seed, profile).

        `trajectory` is the episode's events when a whole episode is scored (None for a bare
        submission); a scorer that needs it returns UNKNOWN without it.
        """
        ...

    def summary(self, assessment: Assessment) -> dict[str, Any]:
        """Return the scorer's fields of a result row."""
        ...


HarnessProgram = Callable[[EnvInstance, Policy, ToolRecorder, int], Awaitable[str]]
"""A level's harness: runs the episode, owning the harness-owned decisions; returns why the
agent stopped ('' when it did not stop on its own)."""


def model_owned_in(ownership: Mapping[str, Owner]) -> tuple[str, ...]:
    """Return the decisions an ownership map (decision -> owner) gives the model."""
    return tuple(d for d, who in ownership.items() if who == "model")


@dataclass(frozen=True, slots=True)
class EnvSpec:
    """An environment, described once: a required core and optional capabilities.

    The core is what every environment says: name, version, tasks, how to make an instance,
    scorers, model-free agents, levels and who owns each decision. `make(task, seed, profile,
    condition)` builds one episode's environment and raises ValueError with a message a user
    can act on for anything it cannot build. Each capability (`CAPABILITIES`) is None when the
    environment does not supply it; whoever needs it refuses or reports `not probed`.
    """

    name: str
    version: str
    description: str
    tasks: Mapping[str, Any]  # task id -> the task's specification (plain-able data)
    make: Callable[[str, int | None, str, str], EnvInstance]
    scorers: tuple[Scorer, ...]
    agents: Mapping[str, Callable[[], Policy]]  # model-free agents by name
    decisions: tuple[str, ...] = ()
    ownership: Mapping[str, Mapping[str, Owner]] = field(default_factory=dict)
    harness: Mapping[str, HarnessProgram] = field(default_factory=dict)
    profiles: tuple[str, ...] = ("seeded",)
    conditions: Callable[[str], str] | None = None  # canonical name of a condition, or raise
    max_steps: int = 30
    # Optional capabilities (environment_capabilities.py).
    prompts: Prompts | None = None  # what an LLM agent is told; without it no LLM runs
    display: Display | None = None
    offline: Offline | None = None
    audit: AuditHooks | None = None
    mutations: MutationHooks | None = None
    # The task contracts and the evidence capture `agm assess` checks them on.
    contract: ContractHooks | None = None
    # Each scorer's score range, scorer name -> (low, high); a scorer not listed scores 0-1.
    score_ranges: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    serving: Serving | None = None

    def capabilities(self) -> tuple[str, ...]:
        """Return the names of the optional capabilities this environment supplies."""
        return tuple(c for c in CAPABILITIES if getattr(self, c) is not None)

    def mutation_hook(self, name: str) -> Callable[[Any], Any] | None:
        """Return the environment's hook for mutation `name`, or None without one."""
        return None if self.mutations is None else self.mutations.get(name)

    @property
    def levels(self) -> tuple[Level, ...]:
        """Return the scaffold levels this environment supports, in order."""
        return tuple(lv for lv in LEVELS if lv in self.ownership) or ("L2",)

    @property
    def default_level(self) -> Level:
        """Return the level used when none is named: L2 (model-owned) if supported, else the
        last level."""
        return "L2" if "L2" in self.levels else self.levels[-1]

    def ownership_of(self, level: str) -> dict[str, Owner]:
        """Return who owns each decision at `level`, or raise UserError naming the levels."""
        own = self.ownership.get(level)
        if own is None:
            if self.ownership or level != "L2":  # no map at all: the model owns everything
                raise UserError(f"environment {self.name!r} has no level {level!r}; known: "
                                f"{', '.join(self.levels)}")
            return {}
        return dict(own)

    def model_owned(self, level: str) -> tuple[str, ...]:
        """Return the decisions the model owns at `level`."""
        return model_owned_in(self.ownership_of(level))

    def scorer(self, name: str) -> Scorer:
        """Return a scorer by name, or raise ValueError naming the scorers."""
        for s in self.scorers:
            if s.name == name:
                return s
        raise ValueError(f"environment {self.name!r} has no scorer {name!r}; known: "
                         f"{', '.join(s.name for s in self.scorers)}")

    @property
    def grade_scorer(self) -> Scorer:
        """Return the scorer whose verdict is the episode's grade: the first outcome scorer."""
        return next((s for s in self.scorers if s.kind == "outcome"), self.scorers[0])

    def scorer_versions(self) -> dict[str, str]:
        """Return {scorer name: version} (what plans and the store record)."""
        return {s.name: s.version for s in self.scorers}

    def canonical_condition(self, condition: str) -> str:
        """Return the canonical spelling of a condition, or raise UserError."""
        if self.conditions is None:
            if condition != "clean":
                raise UserError(f"environment {self.name!r} has only the condition 'clean'")
            return condition
        try:
            return self.conditions(condition)
        except UserError:
            raise
        except ValueError as exc:  # the plug-in's parser refused what the user wrote
            raise UserError(str(exc)) from exc

    def check_task(self, task: str) -> None:
        """Raise UserError naming the known tasks unless `task` is one."""
        if task not in self.tasks:
            raise UserError(f"unknown task {task!r} of environment {self.name!r}; known: "
                            f"{', '.join(self.tasks)}")

    def check_profile(self, profile: str) -> None:
        """Raise UserError naming the profiles unless `profile` is one."""
        if profile not in self.profiles:
            raise UserError(f"unknown profile {profile!r} of environment {self.name!r}; "
                            f"use one of: {', '.join(self.profiles)}")
