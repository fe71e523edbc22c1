"""The non-stationarity engine: schedules, adversary policies, adapters and the wrapper."""

from agentmetrology.stress.adversary import AdversaryPolicy, EscalatingAdversary, Perturbation
from agentmetrology.stress.progress import AgentProgress
from agentmetrology.stress.schedule import (
    ConstantSchedule,
    LinearSchedule,
    PlateauSchedule,
    Schedule,
    StepSchedule,
    mean_intensity,
)
from agentmetrology.stress.wrapper import AdversarialWrapper, EnvironmentAdapter, TraceEntry

__all__ = [
    "AdversarialWrapper",
    "AdversaryPolicy",
    "AgentProgress",
    "ConstantSchedule",
    "EnvironmentAdapter",
    "EscalatingAdversary",
    "LinearSchedule",
    "Perturbation",
    "PlateauSchedule",
    "Schedule",
    "StepSchedule",
    "TraceEntry",
    "mean_intensity",
]
