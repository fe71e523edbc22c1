"""Scripted policies written as generators: yield a move (or a wait), receive its result."""

from __future__ import annotations

from typing import Any, TypeGuard

import numpy as np

from agentmetrology.envs.comtrade.environment import TOOL_SPECS
from agentmetrology.envs.comtrade.question import FaultNotice, notice_of
from agentmetrology.records.policy import Brief, Decision, Level, Question
from agentmetrology.runtime.rng import rng
from agentmetrology.runtime.scripted import ScriptedPolicy


class ComtradeScripted(ScriptedPolicy):
    """A ComtradeBench scripted policy: L0/L2 scripts, an L1 decision, a seeded generator.

    Subclasses implement `script` (L0/L2) and `l1_decision` (L1).
    """

    levels: tuple[Level, ...] = ("L0", "L1", "L2")
    # Scripted profiles find each tool by what its description says it does, as an agent that
    # reads the tool list would; the rule baseline calls tools by their usual names.
    reads_descriptions = True

    def __init__(self) -> None:
        super().__init__()
        self._rng: np.random.Generator | None = None

    def reset(self, brief: Brief) -> None:
        """Start a new episode: a fresh script and an RNG seeded by (seed, policy name)."""
        super().reset(brief)
        self._rng = None

    def shown_names(self, brief: Brief) -> dict[str, str]:
        """Return the shown names of the usual tools, found by description."""
        return tool_names(brief) if self.reads_descriptions else {}

    @property
    def rng(self) -> np.random.Generator:
        """Return this episode's generator, seeded by (seed, policy name), made on first use."""
        if self._rng is None:
            seed = self.brief.seed if self.brief and self.brief.seed is not None else "legacy"
            self._rng = rng(seed, "policy", self.name)
        return self._rng

    async def decide(self, question: Question) -> Decision:
        """Return the L1 decision for a failed fetch."""
        return self.l1_decision(notice_of(question))

    def l1_decision(self, notice: FaultNotice) -> Decision:
        """Return the L1 decision; by default retry while budget remains."""
        return "RETRY" if notice.requests_remaining > 0 else "SKIP"


def tool_names(brief: Brief) -> dict[str, str]:
    """Return {usual tool name: the name the episode shows it under}, found by description."""
    if brief.tools == TOOL_SPECS:
        return {}  # the usual tools (the same objects, compared by identity first) keep their names
    shown = {t.description: t.name for t in brief.tools}
    return {spec.name: shown[spec.description] for spec in TOOL_SPECS
            if spec.description in shown and shown[spec.description] != spec.name}


def is_fault(obs: Any) -> TypeGuard[dict[str, Any]]:
    """Return True for a transient-looking failure (a retry flag or an HTTP status, no rows)."""
    return isinstance(obs, dict) and "rows" not in obs and (
        bool(obs.get("retry")) or "status" in obs)
