"""Fixed L1 decision rules: calibration that tells resource arithmetic from model decisions."""

from __future__ import annotations

from agentmetrology.envs.comtrade.question import FaultNotice, notice_of
from agentmetrology.records.episode import BillableAttempt
from agentmetrology.records.policy import Brief, Decision, Level, Move, Question, Stop
from agentmetrology.records.tools import Observation


class L1Rule:
    """A RETRY/SKIP rule that acts only at L1 (the harness does everything else)."""

    levels: tuple[Level, ...] = ("L1",)

    def __init__(self, name: str) -> None:
        if name not in L1_RULES:
            raise ValueError(f"unknown L1 rule {name!r}; known: {', '.join(L1_RULES)}")
        self.rule = name
        self.name = f"l1:{name}"

    def reset(self, brief: Brief) -> None:
        """Nothing to prepare."""

    async def act(self, observation: Observation | None) -> Move:
        """L1 rules never propose tool calls."""
        return Stop()

    async def decide(self, question: Question) -> Decision:
        """Apply the rule."""
        notice = notice_of(question)
        if self.rule == "always-retry":
            return "RETRY"
        if self.rule == "always-skip":
            return "SKIP"
        return "RETRY" if _budget_covers_rest(notice) else "SKIP"

    def take_attempts(self) -> list[BillableAttempt]:
        """Rules make no model calls."""
        return []


def _budget_covers_rest(n: FaultNotice) -> bool:
    # Quota-aware: retry only if the remaining budget still covers this page and every page
    # after it. With the page count unknown (the first page failed), assume one page remains.
    pages_left = (n.total_pages - n.pages_done) if n.total_pages else 1
    return n.requests_remaining >= max(pages_left, 1)


L1_RULES: tuple[str, ...] = ("always-retry", "always-skip", "quota-aware")
