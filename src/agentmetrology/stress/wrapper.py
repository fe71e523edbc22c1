"""The adversarial wrapper: schedule -> policy -> adapter on every step, with a trace."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from agentmetrology.records.tools import Observation
from agentmetrology.runtime.rng_first import LazyRng
from agentmetrology.stress.adversary import AdversaryPolicy, Perturbation
from agentmetrology.stress.progress import AgentProgress
from agentmetrology.stress.schedule import Schedule


class EnvironmentAdapter(Protocol):
    """The only domain-coupled piece: realises intents in one environment."""

    def realise(self, perturbations: Sequence[Perturbation], args: dict[str, Any]) -> Observation:
        """Execute the wrapped call with these perturbations applied and return its result."""
        ...

    def applied(self) -> Sequence[Perturbation]:
        """Return the perturbations the last `realise` call applied (an intent the response
        never met, e.g. a fault for a request refused because the budget is spent, is not)."""
        ...

    def succeeded(self, observation: Observation) -> bool:
        """Return True when the observation is a successful step (faults cancel successes)."""
        ...

    def budget_left(self) -> int | None:
        """Return the environment's remaining budget, or None when unbounded."""
        ...


@dataclass(frozen=True, slots=True)
class TraceEntry:
    """One step of the adversarial trace: step, intensity, the perturbations applied and the
    intents the environment could not apply (the step's intents are both, in their order)."""

    step: int
    intensity: float
    successes: int
    perturbations: tuple[Perturbation, ...]
    succeeded: bool
    not_realised: tuple[Perturbation, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """Return the entry as plain data (`not_realised` only when some intent was not)."""
        out = {"step": self.step, "intensity": self.intensity, "successes": self.successes,
               "perturbations": [p.as_dict() for p in self.perturbations],
               "succeeded": self.succeeded}
        if self.not_realised:
            out["not_realised"] = [p.as_dict() for p in self.not_realised]
        return out


@dataclass(slots=True)
class AdversarialWrapper:
    """Wraps one environment call; same seed gives a bit-identical adversarial sequence."""

    adapter: EnvironmentAdapter
    schedule: Schedule
    policy: AdversaryPolicy
    seed: int | str
    trace: list[TraceEntry] = field(default_factory=list)
    successes: int = 0
    failures: int = 0

    def __call__(self, **args: Any) -> Observation:
        """Run one step: consult schedule and policy, realise through the adapter, trace it."""
        trace, adapter = self.trace, self.adapter
        step = len(trace)
        progress = AgentProgress(self.successes, self.failures, step, adapter.budget_left())
        intensity = self.schedule(progress)
        # rng(seed, step), built only if the policy asks more than one random() of it
        draws: Any = LazyRng(self.seed, step)  # a Generator to the policy (no cast per step)
        perts = self.policy(progress, intensity, draws)
        obs = adapter.realise(perts, args)
        ok = adapter.succeeded(obs)
        if ok:
            self.successes += 1
        else:
            self.failures += 1
        missed: tuple[Perturbation, ...] = ()
        if perts:
            # An intent the response never met (a fault for a request refused because the
            # budget was spent, duplicates for a refused page) is recorded as not realised.
            done = adapter.applied()
            if len(done) != len(perts):
                missed = tuple(p for p in perts if not any(p is d for d in done))
                perts = tuple(p for p in perts if any(p is d for d in done))
        trace.append(TraceEntry(step, intensity, self.successes, perts, ok, missed))
        return obs
