"""Adversary policies: from (progress, intensity, rng) to perturbation intents."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal, Protocol

import numpy as np

from agentmetrology.stress.progress import AgentProgress

PerturbationKind = Literal["fault", "corrupt", "budget", "latency", "totals"]
Corruption = Literal["duplicate", "reorder", "noise", "drop"]


@dataclass(frozen=True, slots=True)
class Perturbation:
    """An intent, not its realisation: the environment adapter decides what it means there."""

    kind: PerturbationKind
    status: int | None = None  # for faults (e.g. 429)
    corruption: Corruption | None = None
    rate: float = 0.0  # for corruptions: fraction of the observation affected
    budget_delta: int = 0
    latency_s: float = 0.0
    detail: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """Return the perturbation as plain data for traces."""
        out: dict[str, Any] = {"kind": self.kind}
        if self.status is not None:
            out["status"] = self.status
        if self.corruption is not None:
            out["corruption"] = self.corruption
            out["rate"] = self.rate
        if self.budget_delta:
            out["budget_delta"] = self.budget_delta
        if self.latency_s:
            out["latency_s"] = self.latency_s
        if self.detail:
            out["detail"] = dict(self.detail)
        return out


class AdversaryPolicy(Protocol):
    """Chooses perturbations for one step."""

    def __call__(self, progress: AgentProgress, intensity: float,
                 rng: np.random.Generator) -> tuple[Perturbation, ...]:
        """Return the perturbations for this step (empty for none)."""
        ...


@dataclass(frozen=True, slots=True)
class EscalatingAdversary:
    """The reference adversary: fault p = base + scale*i, corruption rate = scale*i.

    It knows nothing about the domain: it emits a transient fault with probability
    `fault_base + fault_scale * i`, a duplicate corruption at rate `corruption_scale * i`, a
    totals intent once i >= `totals_at`, and an optional one-shot budget squeeze once the
    agent has `squeeze_after` successes.
    """

    fault_base: float = 0.0
    fault_scale: float = 0.5
    corruption_scale: float = 0.3
    fault_status: int = 429
    totals_at: float | None = 0.7
    squeeze_after: int | None = None
    squeeze: int = 0
    overwrite: bool = False  # duplicates replace rows instead of being inserted (rows lost)

    def __call__(self, progress: AgentProgress, intensity: float,
                 rng: np.random.Generator) -> tuple[Perturbation, ...]:
        """Return this step's intents, drawing all randomness from `rng`."""
        # u = rng.random() is in [0, 1), so a fault probability <= 0 never fires and one >= 1
        # always does, whatever u is: those steps skip the draw (each step's generator is its
        # own, rng(seed, step), and u is its only draw, so skipping it changes no other draw).
        p = self.fault_base + self.fault_scale * intensity
        if p >= 1.0 or (p > 0.0 and rng.random() < p):
            # a fault replaces the response; nothing else applies
            return (_intent("fault", self.fault_status, 0.0, False),)
        out: list[Perturbation] = []
        rate = self.corruption_scale * intensity
        if rate > 0:
            out.append(_intent("corrupt", None, rate, self.overwrite))
        if self.totals_at is not None and intensity >= self.totals_at:
            out.append(_TOTALS)
        if (self.squeeze_after is not None and self.squeeze
                and progress.successes == self.squeeze_after):
            out.append(Perturbation("budget", budget_delta=-abs(self.squeeze)))
        return tuple(out)


_TOTALS = Perturbation("totals")


@lru_cache(maxsize=256, typed=True)  # typed: 1 and 1.0 (or True) stay apart
def _intent(kind: PerturbationKind, status: int | None, rate: float,
            overwrite: bool) -> Perturbation:
    """Return the fault or duplicate-corruption intent, one shared instance per value.

    An adversary emits the same few intents step after step (its rates follow the schedule's
    few intensities): being frozen, and their detail never written, they are made once.
    """
    if kind == "fault":
        return Perturbation("fault", status=status)
    detail = {"overwrite": True} if overwrite else {}
    return Perturbation("corrupt", corruption="duplicate", rate=rate, detail=detail)
