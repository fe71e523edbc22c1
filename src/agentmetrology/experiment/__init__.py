"""Pre-registered stress experiments: plans frozen before the first episode, mechanical verdicts."""

from agentmetrology.experiment.analyse import analyse
from agentmetrology.experiment.plan import ExperimentPlan, load_plan, parse_plan
from agentmetrology.experiment.registry import (
    PlanChangedError,
    Registration,
    find,
    refusal,
    register,
    registered,
    registrations,
    run_experiment,
)

__all__ = ["ExperimentPlan", "PlanChangedError", "Registration", "analyse", "find",
           "load_plan", "parse_plan", "refusal", "register", "registered", "registrations",
           "run_experiment"]
