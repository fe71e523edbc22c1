"""The validated campaign: targets, the grid of administrations, limits and budgets."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentmetrology.agents.llm.target import LLMTarget, Prices
from agentmetrology.envs.registry import DEFAULT_ENVIRONMENT
from agentmetrology.records.canonical import to_plain
from agentmetrology.run.campaign.problems import Problem


@dataclass(frozen=True, slots=True)
class TargetSpec:
    """One target of a campaign: a model-free agent (rule, scripted) or an LLM endpoint."""

    name: str
    kind: str
    agent: str | None = None  # rule / scripted: the agent name ("rule", "scripted:careful")
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    decoding: dict[str, Any] = field(default_factory=dict)
    price: dict[str, float] | None = None  # input_per_m, output_per_m, cached_per_m
    max_retries: int = 4
    timeout_s: float = 60.0
    levels: tuple[str, ...] | None = None  # overrides the campaign's levels for this target

    @property
    def model_free(self) -> bool:
        """Return True for rule and scripted targets (no model, no cost, deterministic)."""
        return self.kind != "llm"

    def llm_target(self) -> LLMTarget:
        """Return the LLMTarget of an llm target (ValueError for model-free ones)."""
        if self.model_free or self.model is None:
            raise ValueError(f"target {self.name!r} is not an llm target")
        p = self.price or {}
        return LLMTarget(self.name, self.model, self.base_url, self.api_key_env,
                         dict(self.decoding),
                         Prices(p.get("input_per_m"), p.get("output_per_m"),
                                p.get("cached_per_m")),
                         self.max_retries, self.timeout_s)

    def public(self) -> dict[str, Any]:
        """Return the target's configuration as storable data (never a key, only its name)."""
        if self.model_free:
            return {"name": self.name, "kind": self.kind, "agent": self.agent}
        return {"kind": self.kind, **self.llm_target().public()}


@dataclass(frozen=True, slots=True)
class Limits:
    """Per-episode limits and campaign-wide budgets."""

    max_steps: int = 30
    max_output_tokens: int | None = None
    deadline_s: float | None = None  # per episode, on the episode's clock
    max_cost: float | None = None  # campaign total, in the price table's currency
    max_tokens: int | None = None  # campaign total, input + output


@dataclass(frozen=True, slots=True)
class CampaignConfig:
    """A validated campaign: what to run, how often, and within which limits."""

    name: str
    targets: tuple[TargetSpec, ...]
    tasks: tuple[str, ...]
    seeds: tuple[int, ...]
    levels: tuple[str, ...]
    conditions: tuple[str, ...] = ("clean",)
    repeats: int = 1
    concurrency: int = 4
    profile: str = "seeded"
    limits: Limits = field(default_factory=Limits)
    environment: str = DEFAULT_ENVIRONMENT
    file: str = "campaign.toml"
    source: str = ""
    warnings: tuple[Problem, ...] = ()

    def levels_of(self, target: TargetSpec) -> tuple[str, ...]:
        """Return the levels a target runs at (its own list, else the campaign's)."""
        return target.levels or self.levels

    def target(self, name: str) -> TargetSpec:
        """Return the target called `name` (KeyError if none)."""
        for t in self.targets:
            if t.name == name:
                return t
        raise KeyError(f"no target {name!r} in campaign {self.name!r}")

    def levels_union(self) -> tuple[str, ...]:
        """Return every level some target runs at, sorted (L0, L1, L2)."""
        return tuple(sorted({lv for t in self.targets for lv in self.levels_of(t)}))

    def to_json(self) -> dict[str, Any]:
        """Return the campaign as plain data (no file text, no warnings)."""
        plain = to_plain(self)
        for k in ("file", "source", "warnings"):
            plain.pop(k)
        plain["targets"] = [t.public() for t in self.targets]
        return dict(plain)
