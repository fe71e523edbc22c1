"""The turn logic every model-backed policy shares, whatever API reaches the model.

A model answers a request with text and tool calls. What a policy does with output it cannot
use as-is is declared by the scaffold (`SCAFFOLD_POLICIES`) and done here, once, with a record
of every case:
- parallel tool calls: executed in order, one per `act()`; each result goes back to the model
  under its own call id before the next request;
- malformed tool-call arguments (not JSON, or not a JSON object): no tool runs; an error result
  goes back to the model under that call's id;
- text without a tool call: the turn ends (Stop), carrying the text;
- MAX_UNUSABLE_TURNS responses in a row without an executable call end the turn too.
At L1 the model answers the environment's question; the answer is read against its options by
`parse_decision`, and one naming none of them is the question's fallback.

`ModelTurns` holds this logic; a subclass speaks one model API (an OpenAI-compatible endpoint in
`policy.ChatPolicy`, Inspect's `Model.generate` in `inspect_ext.task.policy`): it requests a
completion, keeps the conversation in that API's message types, and turns a response into a
`Reply`. Everything recorded passes through `redact` with the subclass's secrets.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from agentmetrology.agents.llm.redact import redact, redact_value
from agentmetrology.agents.scaffolds.ownership import SCAFFOLD_POLICIES
from agentmetrology.records.policy import Decision, Level, Move, Question, Stop, ToolCall
from agentmetrology.records.tools import Observation

# Consecutive completions that yield no executable call (all arguments malformed) before the
# policy gives up and ends its turn: malformed calls never reach the environment, so without
# this bound they would cost model requests without ever counting as steps.
MAX_UNUSABLE_TURNS = 3
MAX_RECORDED_TEXT = 500  # characters of raw model text kept per handling record
# Deepest nesting of a tool call's arguments that is executed: far beyond any tool's schema,
# and below the depth at which the recursive readers of the record (redaction, canonical JSON)
# reach Python's recursion limit (about 400 levels ended the episode as a RecursionError).
MAX_ARGUMENT_DEPTH = 64
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)

Raw = TypeVar("Raw")  # a response as the model API returns it


@dataclass(frozen=True, slots=True)
class ModelCall:
    """One tool call from a model response: arguments parsed, or why they are unusable."""

    call_id: str
    name: str
    args: dict[str, Any] | None
    raw: str
    error: str | None


@dataclass(frozen=True, slots=True)
class Reply:
    """A model response as the turn logic reads it: its text, its calls, why it stopped."""

    text: str
    calls: list[ModelCall]
    # The API's own stop field, recorded with text_without_tool_call (finish_reason, ...).
    ending: dict[str, Any] = field(default_factory=dict)


def argument_problem(args: dict[str, Any]) -> str | None:
    """Return why parsed tool-call arguments can be neither executed nor recorded (nested deeper
    than MAX_ARGUMENT_DEPTH, or a string holding a lone surrogate, which no UTF-8 record can
    hold), or None."""
    stack: list[tuple[Any, int]] = [(args, 1)]
    while stack:  # iterative: the nesting is what is checked
        value, depth = stack.pop()
        if isinstance(value, str):
            if not value.isascii():
                try:
                    value.encode("utf-8")
                except UnicodeEncodeError as exc:
                    return (f"arguments hold a lone surrogate "
                            f"({value[exc.start:exc.end]!r}), which is not text")
            continue
        items: Any = value.items() if isinstance(value, dict) else (
            ((None, v) for v in value) if isinstance(value, list) else ())
        for key, item in items:
            if depth >= MAX_ARGUMENT_DEPTH and isinstance(item, dict | list):
                return f"arguments are nested deeper than {MAX_ARGUMENT_DEPTH} levels"
            if key is not None:
                stack.append((key, depth))
            stack.append((item, depth + 1))
    return None


def parse_decision(text: str, options: Sequence[str] = ("RETRY", "SKIP"),
                   fallback: str = "SKIP") -> tuple[Decision, str]:
    """Return (option, how it was read): first_word, only_keyword, ambiguous, unparseable.

    Options are matched as whole words, case-insensitively; an answer naming none or several
    (without leading with one) is the fallback.
    """
    upper = {o.upper(): o for o in options}
    words = re.findall(r"[A-Za-z0-9_]+", _THINK.sub(" ", text).upper())
    if words and words[0] in upper:
        return upper[words[0]], "first_word"
    found = {upper[w] for w in words if w in upper}
    if len(found) == 1:
        return found.pop(), "only_keyword"
    return fallback, "ambiguous" if found else "unparseable"


class ModelTurns(ABC, Generic[Raw]):
    """The shared act/decide loop of a policy whose subclass speaks one model API."""

    levels: tuple[Level, ...] = ("L0", "L1", "L2")

    def __init__(self) -> None:
        self._level: Level = "L2"
        self._queue: deque[ModelCall] = deque()
        self._awaiting: ModelCall | None = None
        self._handling: list[dict[str, Any]] = []
        self._answers: list[dict[str, Any]] = []
        self._turns = 0
        self._unusable = 0

    # What a subclass provides for its model API.
    @property
    @abstractmethod
    def _secrets(self) -> Sequence[str]:
        """The secret values every recorded string is redacted of."""

    @abstractmethod
    def _generate(self, with_tools: bool) -> Awaitable[Raw]:
        """Request the next completion of the conversation (with the tools or without)."""

    @abstractmethod
    def _absorb(self, raw: Raw, with_tools: bool) -> Reply:
        """Append the response to the conversation (turn `_turns`) and return it as a Reply."""

    @abstractmethod
    def _send_result(self, call: ModelCall, result: Observation) -> None:
        """Append the result of an executed call to the conversation."""

    @abstractmethod
    def _refuse(self, call: ModelCall) -> dict[str, Any]:
        """Append the error result of a call not executed; return the record's extra fields."""

    @abstractmethod
    def _ask(self, text: str) -> None:
        """Append a user message (the environment's question) to the conversation."""

    # A subclass that keeps a transcript overrides these two (the default keeps none).
    def _opened(self, with_tools: bool) -> Any:
        """Note a request about to be sent; return what `_closed` needs (None: not kept)."""
        return None

    def _closed(self, opened: Any, raw: Raw | None) -> None:
        """Note the response to an `_opened` request (None: no attempt succeeded)."""

    def _start(self, level: Level) -> None:
        """Forget the previous episode's turns."""
        self._level = level
        self._queue.clear()
        self._awaiting = None
        self._handling = []
        self._answers = []
        self._turns = 0
        self._unusable = 0

    def _note(self, event: str, **fields: Any) -> None:
        self._handling.append({"event": event, "turn": self._turns, "level": self._level,
                               **redact_value(fields, self._secrets)})

    def _handled(self, event: str, **fields: Any) -> None:
        """Record a case the scaffold declares, with the handling it declares for it."""
        # The handling last: the order the Inspect path's records have always had.
        self._note(event, **fields, handling=SCAFFOLD_POLICIES[self._level][event])

    def _next_queued(self) -> ToolCall | None:
        while self._queue:
            call = self._queue.popleft()
            if call.error is not None or call.args is None:
                extra = self._refuse(call)
                self._handled("malformed_tool_arguments", tool=call.name, call_id=call.call_id,
                              error=(call.error or "")[:MAX_RECORDED_TEXT], **extra)
                continue
            self._awaiting = call
            self._unusable = 0
            return ToolCall(call.name, redact_value(call.args, self._secrets), call.call_id)
        return None

    def _give_up(self) -> Stop | None:
        """Return the Stop ending a turn after MAX_UNUSABLE_TURNS responses without an
        executable call, or None while the bound is not reached."""
        if self._unusable < MAX_UNUSABLE_TURNS:
            return None
        self._note("gave_up", handling="end_turn",
                   reason=f"{MAX_UNUSABLE_TURNS} consecutive responses without an executable "
                          "tool call")
        return Stop("no executable tool call after repeated malformed arguments")

    async def act(self, observation: Observation | None) -> Move:
        """Return the next tool call (from the queue or a new completion) or Stop."""
        if self._awaiting is not None:
            self._send_result(self._awaiting,
                              observation if observation is not None else {"error": "no result"})
            self._awaiting = None
        while True:
            queued = self._next_queued()
            if queued is not None:
                return queued
            gave_up = self._give_up()
            if gave_up is not None:
                return gave_up
            # Awaited here, not in a helper coroutine: each resumption of a request in flight
            # passes through every coroutine level once.
            opened = self._opened(True)
            try:
                raw = await self._generate(True)
            except BaseException:
                self._closed(opened, None)  # the failed request stays in the transcript
                raise
            self._turns += 1
            self._closed(opened, raw)
            reply = self._absorb(raw, True)
            calls = reply.calls
            if not calls:
                text = redact(reply.text, self._secrets)
                self._handled("text_without_tool_call", **reply.ending,
                              text=text[:MAX_RECORDED_TEXT])
                return Stop(text)
            if len(calls) > 1:
                self._handled("parallel_tool_calls",
                              calls=[{"call_id": c.call_id, "tool": c.name} for c in calls])
            if all(c.error is not None for c in calls):
                self._unusable += 1
            self._queue.extend(calls)

    async def decide(self, question: Question) -> Decision:
        """Ask the model the environment's question and parse its answer against the options."""
        self._ask(question.text)
        opened = self._opened(False)
        try:
            raw = await self._generate(False)
        except BaseException:
            self._closed(opened, None)
            raise
        self._turns += 1
        self._closed(opened, raw)
        reply = self._absorb(raw, False)
        text = redact(reply.text, self._secrets)
        decision, how = parse_decision(text, question.options, question.fallback)
        self._answers.append({"decision_about": question.decision,
                              "facts": redact_value(dict(question.facts), self._secrets),
                              "answer": text[:MAX_RECORDED_TEXT], "decision": decision,
                              "parsed": how})
        return decision

    def turn_notes(self) -> dict[str, Any]:
        """Return the turn logic's part of the episode's notes (already redacted)."""
        return {"scaffold_policy": dict(SCAFFOLD_POLICIES[self._level]),
                "handling": list(self._handling), "l1_answers": list(self._answers),
                "model_turns": self._turns}
