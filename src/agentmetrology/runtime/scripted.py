"""The one scripted-policy base: a deterministic generator of moves (shared by every plug-in)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Generator

from agentmetrology.records.clock import FakeClock
from agentmetrology.records.episode import BillableAttempt
from agentmetrology.records.policy import Brief, Decision, Level, Move, Question, Stop, ToolCall
from agentmetrology.records.tools import Observation


class Wait(float):
    """Yielded by a script to wait that many seconds on the episode's clock."""


Script = Generator[ToolCall, Observation | None, None]  # tool calls only
TimedScript = Generator[Move | Wait, Observation | None, None]  # moves, stops and waits


class ScriptedPolicy(ABC):
    """A deterministic policy whose behaviour is a generator script; labelled scripted, not a model.

    A script yields moves (or a `Wait`) and receives each observation. Tool calls go out under
    the names the episode shows (`shown_names`), so a script may use the usual names.
    """

    name = "scripted"
    levels: tuple[Level, ...] = ("L2",)

    def __init__(self) -> None:
        self._gen: TimedScript | None = None
        self.brief: Brief | None = None
        self._names: dict[str, str] = {}

    def reset(self, brief: Brief) -> None:
        """Start a new episode."""
        self.brief, self._gen = brief, None
        self._names = self.shown_names(brief)

    def shown_names(self, brief: Brief) -> dict[str, str]:
        """Return {usual tool name: the name the episode shows it under}; none by default."""
        return {}

    def _next(self, send: Observation | None) -> Move | Wait:
        """Advance the script once: its next move (under the shown name) or wait."""
        try:
            if self._gen is None:
                self._gen = self.script(self.brief)  # type: ignore[arg-type]
                item = next(self._gen)
            else:
                item = self._gen.send(send)
        except StopIteration:
            return Stop()
        if isinstance(item, ToolCall) and item.name in self._names:
            return ToolCall(self._names[item.name], item.args, item.call_id)
        return item

    async def act(self, observation: Observation | None) -> Move:
        """Advance the script to its next move, performing any waits on the clock."""
        assert self.brief is not None, "reset() must be called before act()"
        item = self._next(observation)
        while isinstance(item, Wait):
            await self.brief.clock.sleep(float(item))
            item = self._next(None)
        return item

    def sync_act(self) -> Callable[[Observation | None], Move] | None:
        """Return `act` as a plain function when the episode's clock waits at once (a
        FakeClock), else None.

        A runner that takes it makes no coroutine per move and reads no attempts per move (a
        script makes no model calls); the moves, waits and clock times are those of `act`.
        """
        assert self.brief is not None, "reset() must be called before sync_act()"
        cls = type(self)
        if cls.act is not ScriptedPolicy.act or cls.take_attempts is not \
                ScriptedPolicy.take_attempts:
            return None  # a subclass's own act or attempts: the runner must await and read them
        return self._act_now if type(self.brief.clock) is FakeClock else None

    def _act_now(self, observation: Observation | None) -> Move:
        item = self._next(observation)
        while isinstance(item, Wait):
            self.brief.clock.advance(float(item))  # type: ignore[union-attr]
            item = self._next(None)
        return item

    def end_episode(self) -> None:
        """Close the episode's script (the runner calls this once the record is built).

        A script usually stays suspended at its last yield (the submission ends the episode),
        and its frame holds this policy: a reference cycle that only the cyclic collector
        frees, with everything the script kept (a large task's rows and dedup keys) walked
        by that collection. Closing it now is what that collection would do, done at once.
        """
        gen, self._gen = self._gen, None
        if gen is not None:
            gen.close()

    @abstractmethod
    def script(self, brief: Brief) -> TimedScript:
        """Yield the moves of one episode, receiving each observation."""

    async def decide(self, question: Question) -> Decision:
        """Return the fallback (a policy that acts only at L2 is asked nothing)."""
        return question.fallback

    def take_attempts(self) -> list[BillableAttempt]:
        """Scripted policies make no model calls."""
        return []
