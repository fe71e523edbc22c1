"""Scripted policies written as generators: yield a move (or a wait), receive its result."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Generator
from typing import Any

import numpy as np

from agentmetrology.envs.comtrade.environment import TOOL_SPECS
from agentmetrology.envs.comtrade.question import FaultNotice, notice_of
from agentmetrology.records.episode import BillableAttempt
from agentmetrology.records.policy import Brief, Decision, Level, Move, Question, Stop, ToolCall
from agentmetrology.records.rng import rng
from agentmetrology.records.tools import Observation


class Wait(float):
    """Yielded by a script to wait that many seconds on the episode's clock."""


Script = Generator[Move | Wait, Observation | None, None]


class ScriptedPolicy(ABC):
    """A deterministic policy whose behaviour is a generator script; labelled scripted, not a model.

    Subclasses implement `script` (L0/L2) and `l1_decision` (L1).
    """

    name = "scripted"
    levels: tuple[Level, ...] = ("L0", "L1", "L2")
    # Scripted profiles find each tool by what its description says it does, as an agent that
    # reads the tool list would; the rule baseline calls tools by their usual names.
    reads_descriptions = True

    def __init__(self) -> None:
        self.brief: Brief | None = None
        self._rng: np.random.Generator | None = None
        self._gen: Script | None = None
        self._names: dict[str, str] = {}

    def reset(self, brief: Brief) -> None:
        """Start a new episode: a fresh script and an RNG seeded by (seed, policy name)."""
        self.brief = brief
        self._rng = None
        self._gen = None
        self._names = tool_names(brief) if self.reads_descriptions else {}

    @property
    def rng(self) -> np.random.Generator:
        """Return this episode's generator, seeded by (seed, policy name), made on first use."""
        if self._rng is None:
            seed = self.brief.seed if self.brief and self.brief.seed is not None else "legacy"
            self._rng = rng(seed, "policy", self.name)
        return self._rng

    async def act(self, observation: Observation | None) -> Move:
        """Advance the script to its next move, performing any waits on the clock."""
        assert self.brief is not None, "reset() must be called before act()"
        send: Observation | None = observation
        while True:
            try:
                if self._gen is None:
                    self._gen = self.script(self.brief)
                    item = next(self._gen)
                else:
                    item = self._gen.send(send)
            except StopIteration:
                return Stop()
            if isinstance(item, Wait):
                await self.brief.clock.sleep(float(item))
                send = None
                continue
            if isinstance(item, ToolCall) and item.name in self._names:
                return ToolCall(self._names[item.name], item.args, item.call_id)
            return item

    async def decide(self, question: Question) -> Decision:
        """Return the L1 decision for a failed fetch."""
        return self.l1_decision(notice_of(question))

    def take_attempts(self) -> list[BillableAttempt]:
        """Scripted policies make no model calls."""
        return []

    @abstractmethod
    def script(self, brief: Brief) -> Script:
        """Yield the moves of one L0/L2 episode."""

    def l1_decision(self, notice: FaultNotice) -> Decision:
        """Return the L1 decision; by default retry while budget remains."""
        return "RETRY" if notice.requests_remaining > 0 else "SKIP"


def tool_names(brief: Brief) -> dict[str, str]:
    """Return {usual tool name: the name the episode shows it under}, found by description."""
    shown = {t.description: t.name for t in brief.tools}
    return {spec.name: shown[spec.description] for spec in TOOL_SPECS
            if spec.description in shown and shown[spec.description] != spec.name}


def is_fault(obs: Any) -> bool:
    """Return True for a transient-looking failure (a retry flag or an HTTP status, no rows)."""
    return isinstance(obs, dict) and "rows" not in obs and (
        bool(obs.get("retry")) or "status" in obs)
