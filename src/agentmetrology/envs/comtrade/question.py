"""The L1 question on ComtradeBench: RETRY or SKIP a failed fetch, with the budget arithmetic."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from agentmetrology.envs.comtrade.prompts import fault_question_text
from agentmetrology.records.policy import Question

OPTIONS: tuple[str, ...] = ("RETRY", "SKIP")


@dataclass(frozen=True, slots=True)
class FaultNotice:
    """What an L1 policy sees when a fetch fails: the fault and the budget arithmetic."""

    page: int
    status: int | None
    error: str
    attempt: int
    requests_used: int
    requests_remaining: int
    total_pages: int | None
    pages_done: int


def fault_question(notice: FaultNotice) -> Question:
    """Return the generic question (decision `retry`, RETRY/SKIP, SKIP on an unusable answer)."""
    return Question("retry", OPTIONS, "SKIP", fault_question_text(notice), asdict(notice))


def notice_of(question: Question) -> FaultNotice:
    """Return the fault notice a ComtradeBench question was built from."""
    return FaultNotice(**dict(question.facts))
