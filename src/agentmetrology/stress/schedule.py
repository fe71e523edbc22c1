"""Schedules: intensity in [0, 1] as a function of the agent's success count (not elapsed steps)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from agentmetrology.stress.progress import AgentProgress


class Schedule(Protocol):
    """Maps progress to an intensity in [0, 1]."""

    @property
    def name(self) -> str:
        """Return the schedule's name."""
        ...

    def __call__(self, progress: AgentProgress) -> float:
        """Return the intensity for this progress."""
        ...


def _clamp(x: float) -> float:
    return 0.0 if x < 0.0 else 1.0 if x > 1.0 else x


@dataclass(frozen=True, slots=True)
class LinearSchedule:
    """Ramps from `start` to `end` over `horizon` successes, then holds `end`."""

    horizon: int
    start: float = 0.0
    end: float = 1.0
    name: str = "linear"

    def __post_init__(self) -> None:
        if self.horizon < 1:
            raise ValueError(f"horizon must be >= 1, got {self.horizon}")

    def __call__(self, progress: AgentProgress) -> float:
        """Return start + (end - start) * min(successes / horizon, 1)."""
        frac = min(progress.successes / self.horizon, 1.0)
        return _clamp(self.start + (self.end - self.start) * frac)


@dataclass(frozen=True, slots=True)
class StepSchedule:
    """Holds `low` until `threshold` successes, then jumps to `high`."""

    threshold: int
    low: float = 0.0
    high: float = 1.0
    name: str = "step"

    def __call__(self, progress: AgentProgress) -> float:
        """Return low before the threshold and high from it on."""
        return _clamp(self.high if progress.successes >= self.threshold else self.low)


@dataclass(frozen=True, slots=True)
class PlateauSchedule:
    """Ramps linearly to `level` over `ramp` successes, then holds it."""

    ramp: int
    level: float = 1.0
    name: str = "plateau"

    def __post_init__(self) -> None:
        if self.ramp < 1:
            raise ValueError(f"ramp must be >= 1, got {self.ramp}")

    def __call__(self, progress: AgentProgress) -> float:
        """Return level * min(successes / ramp, 1)."""
        return _clamp(self.level * min(progress.successes / self.ramp, 1.0))


@dataclass(frozen=True, slots=True)
class ConstantSchedule:
    """Holds one intensity whatever the progress."""

    level: float
    name: str = "constant"

    def __call__(self, progress: AgentProgress) -> float:
        """Return the constant level."""
        return _clamp(self.level)


def mean_intensity(schedule: Schedule, successes: int) -> float:
    """Return the mean intensity a fault-free pass of `successes` steps sees (0..successes-1)."""
    if successes < 1:
        raise ValueError(f"successes must be >= 1, got {successes}")
    return sum(schedule(AgentProgress(k, 0, k)) for k in range(successes)) / successes
