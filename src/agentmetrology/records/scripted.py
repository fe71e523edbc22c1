"""A scripted policy: a deterministic generator of tool calls (shared by environment plug-ins)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Generator

from agentmetrology.records.episode import BillableAttempt
from agentmetrology.records.policy import Brief, Decision, Level, Move, Question, Stop, ToolCall
from agentmetrology.records.tools import Observation

Script = Generator[ToolCall, Observation | None, None]


class ScriptedPolicy(ABC):
    """A deterministic policy whose behaviour is a generator script of tool calls."""

    name = "scripted"
    levels: tuple[Level, ...] = ("L2",)

    def __init__(self) -> None:
        self._gen: Script | None = None
        self.brief: Brief | None = None

    def reset(self, brief: Brief) -> None:
        """Start a new episode."""
        self.brief, self._gen = brief, None

    async def act(self, observation: Observation | None) -> Move:
        """Return the script's next tool call (Stop when the script ends)."""
        assert self.brief is not None, "reset() must be called before act()"
        try:
            if self._gen is None:
                self._gen = self.script(self.brief)
                return next(self._gen)
            return self._gen.send(observation)
        except StopIteration:
            return Stop()

    @abstractmethod
    def script(self, brief: Brief) -> Script:
        """Yield tool calls, receiving each observation."""

    async def decide(self, question: Question) -> Decision:
        """Return the fallback (these policies act only at L2, where nothing is asked)."""
        return question.fallback

    def take_attempts(self) -> list[BillableAttempt]:
        """Scripted policies make no model calls."""
        return []
