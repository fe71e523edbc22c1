"""ComtradeBench's EnvironmentAdapter and the stress arms built on it (docs/comtrade.md)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agentmetrology.envs.comtrade.service import DEFAULT_PAGE_SIZE, ComtradeService
from agentmetrology.stress.adversary import EscalatingAdversary, Perturbation
from agentmetrology.stress.progress import AgentProgress
from agentmetrology.stress.schedule import (
    ConstantSchedule,
    LinearSchedule,
    Schedule,
    mean_intensity,
)
from agentmetrology.stress.wrapper import AdversarialWrapper

Observation = dict[str, Any]

# Escalation over the agent's successful fetches of T9's 5 pages: intensity at success k.
ADAPTIVE_SCHEDULE = LinearSchedule(horizon=4, start=0.0, end=1.0)  # 0, .25, .5, .75, 1
ESCALATING_SCHEDULE = LinearSchedule(horizon=4, start=0.2, end=1.0)  # .2, .4, .6, .8, 1
# The constant arm holds the escalating ramp's mean over a clean 5-page pass (0.60).
MATCHED_MEAN = mean_intensity(ESCALATING_SCHEDULE, 5)
MATCHED_SCHEDULE = ConstantSchedule(MATCHED_MEAN)
# The reference adversary, made once: it is frozen, so every episode can share it.
_REFERENCE = EscalatingAdversary()
# The enforced-quota variant (docs/comtrade.md): the escalating arm with a quota of
# pages + SQUEEZE + K requests and a one-shot squeeze of SQUEEZE after SQUEEZE_AFTER successes,
# so K requests of slack remain for the whole extraction (quota 8, squeeze -3, 5 pages: K = 0).
SQUEEZE = 3
SQUEEZE_AFTER = 2
SQUEEZE_PREFIX = "stress:squeeze:slack="
MAX_SLACK = 20
# The B2 design (docs/comtrade.md): both arms of the matched-mean A/B under one enforced quota
# of pages + SQUEEZE + K requests; the one-shot squeeze of SQUEEZE fires when the arm's
# intensity first reaches B2_SQUEEZE_AT, which the escalating ramp crosses (at its 3rd
# success, intensity 0.8) and the constant arm's 0.60 never does. Its duplicates overwrite
# rows as the original environment's did (the rows lost set the half-scaffold's ceiling).
B2_PREFIX = "stress:b2:"
B2_ARMS = ("escalating", "constant")
B2_SQUEEZE_AT = 0.7
# B2's ramp is the spec's "0 -> 1.0" over the 5 successes (T9's own escalation) and the constant
# arm holds its mean over a clean pass (0.50): this reproduces the paper's no-model calibration
# (always-retry delta +0.091 at slack 0, +0.016 p = .27 at slack 2; paper +0.096, +0.015 p = .30),
# which the 0.2 -> 1.0 ramp with mean 0.60 overshoots (+0.122, +0.038); docs/experiments.md.
B2_ESCALATING = ADAPTIVE_SCHEDULE
B2_CONSTANT = mean_intensity(ADAPTIVE_SCHEDULE, 5)
# Degradation curves on B2's instrument: quota pages + SQUEEZE (8 on T9_clean_ab), no squeeze.
QUOTA_DOSE_PREFIX = "stress:quota:dose="


@dataclass(slots=True)
class ComtradeAdapter:
    """Realises intents as a 429/500, inserted duplicates, a totals row or a quota change."""

    service: ComtradeService

    def realise(self, perturbations: Sequence[Perturbation], args: dict[str, Any]) -> Observation:
        """Run fetch_page with the intents applied inside the service's fetch pipeline."""
        # the service's own default object: fetch tells it from an explicit 500 by identity
        return self.service.fetch(args.get("page"), args.get("page_size", DEFAULT_PAGE_SIZE),
                                  perturbations)

    def applied(self) -> Sequence[Perturbation]:
        """Return the intents the last fetch applied (the service notes each as it does)."""
        return self.service.applied

    def succeeded(self, observation: Observation) -> bool:
        """A fetch succeeded when it returned rows (an empty page past the end counts)."""
        return "rows" in observation

    def budget_left(self) -> int | None:
        """Return the requests left in the episode."""
        return max(self.service.budget - self.service.requests_used, 0)


def adversary_for(condition: str) -> tuple[Schedule, EscalatingAdversary]:
    """Return the schedule and adversary of a named stress condition.

    Conditions: `adaptive` (T9's own escalation), `stress:escalating`, `stress:constant`
    (matched mean 0.60), `stress:dose=X` (constant intensity X in [0, 1]), the enforced-quota
    `stress:squeeze:slack=K`, B2's `stress:b2:ARM:slack=K` and `stress:quota:dose=X`.
    """
    if condition == "adaptive":
        return ADAPTIVE_SCHEDULE, _REFERENCE
    if condition == "stress:escalating":
        return ESCALATING_SCHEDULE, _REFERENCE
    if condition == "stress:constant":
        return MATCHED_SCHEDULE, _REFERENCE
    if condition.startswith(SQUEEZE_PREFIX):
        squeeze_slack(condition)  # raises on a bad slack
        return ESCALATING_SCHEDULE, EscalatingAdversary(squeeze_after=SQUEEZE_AFTER,
                                                        squeeze=SQUEEZE)
    if condition.startswith(B2_PREFIX):
        return _b2_adversary(b2_arm_slack(condition)[0])
    if condition.startswith(("stress:dose=", QUOTA_DOSE_PREFIX)):
        try:
            level = float(condition.split("=", 1)[1])
        except ValueError:
            level = -1.0
        if not 0.0 <= level <= 1.0:
            raise ValueError(f"bad condition {condition!r}: the dose must be a number in [0, 1]")
        quota = condition.startswith(QUOTA_DOSE_PREFIX)  # B2's instrument, without the squeeze
        return ConstantSchedule(level), EscalatingAdversary(totals_at=None, overwrite=quota)
    raise ValueError(
        f"unknown condition {condition!r}; known: clean, stress:escalating, stress:constant, "
        "stress:dose=X, stress:squeeze:slack=K, stress:b2:escalating:slack=K, "
        "stress:b2:constant:slack=K, stress:quota:dose=X"
    )


def _b2_adversary(arm: str) -> tuple[Schedule, EscalatingAdversary]:
    """Return a B2 arm's schedule and the adversary whose squeeze fires where it crosses."""
    schedule: Schedule = (B2_ESCALATING if arm == "escalating"
                          else ConstantSchedule(B2_CONSTANT))
    # The first success count whose intensity reaches the threshold; None: never crossed.
    crossing = next((k for k in range(MAX_SLACK + 1)
                     if schedule(AgentProgress(k, 0, k)) >= B2_SQUEEZE_AT), None)
    return schedule, EscalatingAdversary(squeeze_after=crossing, squeeze=SQUEEZE, overwrite=True)


def b2_arm_slack(condition: str) -> tuple[str, int]:
    """Return (arm, K) of `stress:b2:ARM:slack=K`, or raise ValueError."""
    arm, _, rest = condition[len(B2_PREFIX):].partition(":")
    if arm not in B2_ARMS or not rest.startswith("slack="):
        raise ValueError(f"bad condition {condition!r}: spell it stress:b2:escalating:slack=K "
                         "or stress:b2:constant:slack=K")
    return arm, squeeze_slack(SQUEEZE_PREFIX + rest[len("slack="):])


def squeeze_slack(condition: str) -> int:
    """Return K of `stress:squeeze:slack=K` (0 <= K <= 20), or raise ValueError."""
    text = condition[len(SQUEEZE_PREFIX):]
    if not text.isdigit() or int(text) > MAX_SLACK:
        raise ValueError(f"bad condition {condition!r}: the slack must be an integer in "
                         f"0..{MAX_SLACK}, e.g. stress:squeeze:slack=0")
    return int(text)


def canonical_condition(condition: str) -> str:
    """Return the one spelling of a condition (`stress:dose=0.50` is `stress:dose=0.5`).

    Raises ValueError for an unknown condition; `adaptive` is internal to T9 and refused.
    """
    if condition == "clean":
        return condition
    if condition == "adaptive":
        raise ValueError("'adaptive' is internal to T9; use clean or a stress: condition")
    adversary_for(condition)  # raises with the list of known conditions
    if condition.startswith(SQUEEZE_PREFIX):
        return f"{SQUEEZE_PREFIX}{squeeze_slack(condition)}"
    if condition.startswith(B2_PREFIX):
        arm, slack = b2_arm_slack(condition)
        return f"{B2_PREFIX}{arm}:slack={slack}"
    if condition.startswith(("stress:dose=", QUOTA_DOSE_PREFIX)):
        head, _, text = condition.partition("=")
        text = repr(float(text))
        return f"{head}=" + (text[:-2] if text.endswith(".0") else text)
    return condition


def wrap_fetch(service: ComtradeService, condition: str, seed: int | None) -> AdversarialWrapper:
    """Return fetch_page wrapped by the adversary of `condition`, seeded per episode."""
    schedule, policy = adversary_for(condition)
    label = condition
    if condition.startswith(SQUEEZE_PREFIX):
        # Every fetch consumes the enforced quota, failed ones included. Every slack draws
        # the same adversarial sequence, so the quota is the only thing the dose changes.
        service.budget = service.task.total_pages + SQUEEZE + squeeze_slack(condition)
        label = "stress:squeeze"
    elif condition.startswith(B2_PREFIX):
        # Both arms under the quota; the slack changes only the quota, never the draws.
        arm, slack = b2_arm_slack(condition)
        service.budget = service.task.total_pages + SQUEEZE + slack
        label = f"stress:b2:{arm}"
    elif condition.startswith(QUOTA_DOSE_PREFIX):
        service.budget = service.task.total_pages + SQUEEZE
    return AdversarialWrapper(ComtradeAdapter(service), schedule, policy,
                              seed=f"{service.task.task_id}:{label}:{seed}")
