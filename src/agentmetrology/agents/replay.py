"""A stub policy that replays an episode's recorded agent actions (the model is not called).

Grade recovery and re-grading replay what the agent did — its tool calls, its L1 decisions,
and where it stopped — in a fresh environment, so a missing or outdated grade can be recomputed
from the record alone. Harness and adversary events are not replayed: the scaffold and the
seeded environment produce them again. Timestamps are not replayed (an agent's own waits are
not in the record), so a replay matches the original in everything but event times.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Any

from agentmetrology.records.episode import BillableAttempt
from agentmetrology.records.events import Event, RefusedArguments, replayed_arguments
from agentmetrology.records.policy import Brief, Decision, Level, Move, Question, Stop, ToolCall


class ReplayExhausted(RuntimeError):
    """Raised when the environment asks for more actions than the record holds."""


class ReplayPolicy:
    """Replays the agent-actor moves and decisions of recorded events, in order."""

    levels: tuple[Level, ...] = ("L0", "L1", "L2")

    def __init__(self, events: Iterable[Event | dict[str, Any]], name: str = "replay") -> None:
        self.name = name
        self.moves: deque[Move] = deque()
        self.decisions: deque[Decision] = deque()
        for e in events:
            ev = e if isinstance(e, dict) else {"actor": e.actor, "kind": e.kind,
                                                "name": e.name, "args": e.args,
                                                "result": e.result}
            if ev["actor"] != "agent":
                continue
            if ev["kind"] in ("tool_call", "intercepted"):
                # A refused call is sent again as it was (a list, a string...), so its replay
                # is refused the same way, never run without arguments; one that cannot be
                # sent again as it was is sent as its refusal, which is recorded again.
                sent = replayed_arguments(ev["name"], ev["args"] or {}, ev.get("result"))
                self.moves.append(ToolCall(ev["name"], sent if isinstance(
                    sent, RefusedArguments) or not isinstance(sent, dict) else dict(sent)))
            elif ev["kind"] == "message" and ev["name"] == "stop":
                self.moves.append(Stop(str(ev["result"] or "")))
            elif ev["kind"] == "decision":
                self.decisions.append(str(ev["result"]))

    def reset(self, brief: Brief) -> None:
        """Nothing to prepare: the record is the script."""

    async def act(self, observation: Any) -> Move:
        """Return the next recorded move; an exhausted record ends the turn."""
        return self.moves.popleft() if self.moves else Stop("replay: no more recorded actions")

    async def decide(self, question: Question) -> Decision:
        """Return the next recorded decision (an unusable one maps to the fallback as before)."""
        if not self.decisions:
            raise ReplayExhausted("the record holds fewer L1 decisions than the replay needs")
        return question.answer(self.decisions.popleft())

    def take_attempts(self) -> list[BillableAttempt]:
        """A replay makes no model calls."""
        return []
