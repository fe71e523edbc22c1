"""InspectModelPolicy: the Inspect eval's model as the agent of one of our episodes.

The policy implements our `Policy` protocol over `inspect_ai.model.Model.generate`, so the
episode runs through our one runner and the environment's scaffold level decides what reaches
the tools, exactly as in `agm run`. Output it cannot use as-is is handled as the LLM agent
handles it (`agents.llm.policy`): parallel tool calls run in order, one per step; a call
Inspect could not parse runs no tool and gets an error result; text without a tool call ends
the turn; at L1 an answer is read with the same `parse_decision`. A generate call that raises
(a provider failure after Inspect's own retries) is an infrastructure error, so the episode is
a measurement failure, never an agent's zero.
"""

from __future__ import annotations

import json
import time
from collections import deque
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
    Model,
    ModelOutput,
)
from inspect_ai.tool import ToolCall as InspectToolCall
from inspect_ai.tool import ToolInfo, ToolParams
from inspect_ai.util import LimitExceededError

from agentmetrology.agents.llm.policy import MAX_RECORDED_TEXT, give_up, parse_decision
from agentmetrology.agents.llm.redact import redact, redact_value
from agentmetrology.agents.scaffolds.ownership import SCAFFOLD_POLICIES
from agentmetrology.records.episode import BillableAttempt
from agentmetrology.records.errors import InfraError
from agentmetrology.records.policy import Brief, Decision, Level, Move, Question, Stop, ToolCall
from agentmetrology.records.redaction import env_secret_values
from agentmetrology.records.tools import Observation, ToolSpec

POLICY_NAME = "inspect-model"


def tool_info(spec: ToolSpec) -> ToolInfo:
    """Return one of our tool specs as Inspect's ToolInfo (name, description, JSON schema)."""
    params = spec.parameters or {"type": "object", "properties": {}}
    return ToolInfo(name=spec.name, description=spec.description,
                    parameters=ToolParams.model_validate(params))


class InspectModelPolicy:
    """An Inspect model acting through our tool protocol at L0, L1 and L2."""

    levels: tuple[Level, ...] = ("L0", "L1", "L2")

    def __init__(self, model: Model) -> None:
        self.model = model
        self.name: str = f"inspect:{model}"
        self._secrets = tuple(env_secret_values())
        self.messages: list[ChatMessage] = []
        self.output: ModelOutput | None = None
        self._tools: list[ToolInfo] = []
        self._level: Level = "L2"
        self._queue: deque[InspectToolCall] = deque()
        self._awaiting: InspectToolCall | None = None
        self._attempts: list[BillableAttempt] = []
        self._handling: list[dict[str, Any]] = []
        self._answers: list[dict[str, Any]] = []
        self._turns = 0
        self._unusable = 0
        self._prompt_version = ""

    def reset(self, brief: Brief) -> None:
        """Start the conversation of a new episode from the environment's prompts."""
        self.messages = [ChatMessageSystem(content=brief.system_prompt),
                         ChatMessageUser(content=brief.task_message)]
        self._tools = [tool_info(t) for t in brief.tools]
        self._level = brief.level
        self._prompt_version = brief.prompt_version
        self._queue.clear()
        self._awaiting = None
        self._attempts, self._handling, self._answers = [], [], []
        self._turns = self._unusable = 0

    async def _generate(self, with_tools: bool) -> ModelOutput:
        started = time.perf_counter()
        try:
            out = await self.model.generate(self.messages, tools=self._tools if with_tools else [])
        except LimitExceededError:
            raise  # an Inspect limit ends the sample as Inspect defines it
        except Exception as exc:  # the provider failed after Inspect's retries: not the agent
            raise InfraError(redact(f"model {self.model} failed: {type(exc).__name__}: {exc}",
                                    self._secrets)) from exc
        self._turns += 1
        usage = out.usage
        self._attempts.append(BillableAttempt(
            attempt_id=f"inspect-{self._turns}", provider=str(self.model).split("/")[0],
            model=out.model or str(self.model), request_id=None,
            # Inspect's input_tokens leave out the cache's reads and writes; ours include them
            # (the cached ones are a part of the input, priced apart by Prices.cost).
            input_tokens=(usage.input_tokens + (usage.input_tokens_cache_read or 0)
                          + (usage.input_tokens_cache_write or 0)) if usage else None,
            output_tokens=usage.output_tokens if usage else None,
            cached_tokens=usage.input_tokens_cache_read if usage else None,
            cost=usage.total_cost if usage else None,
            latency_s=out.time if out.time is not None else time.perf_counter() - started,
            outcome="ok"))
        self.output = out
        self.messages.append(out.message)
        return out

    def _note(self, event: str, **fields: Any) -> None:
        self._handling.append({"event": event, "turn": self._turns, "level": self._level,
                               **redact_value(fields, self._secrets)})

    def _next_queued(self) -> ToolCall | None:
        while self._queue:
            call = self._queue.popleft()
            if call.parse_error is not None or not isinstance(call.arguments, dict):
                why = call.parse_error or "arguments are not a JSON object"
                self.messages.append(ChatMessageTool(
                    content=json.dumps({"error": f"{call.function}: {why}; the call was not "
                                                 "executed"}),
                    tool_call_id=call.id, function=call.function))
                self._note("malformed_tool_arguments", tool=call.function, call_id=call.id,
                           error=why[:MAX_RECORDED_TEXT],
                           handling=SCAFFOLD_POLICIES[self._level]["malformed_tool_arguments"])
                continue
            self._awaiting = call
            self._unusable = 0
            return ToolCall(call.function, redact_value(call.arguments, self._secrets), call.id)
        return None

    async def act(self, observation: Observation | None) -> Move:
        """Return the next tool call (queued or from a new generate) or Stop."""
        if self._awaiting is not None:
            result = observation if observation is not None else {"error": "no result"}
            self.messages.append(ChatMessageTool(content=json.dumps(result, ensure_ascii=False),
                                                 tool_call_id=self._awaiting.id,
                                                 function=self._awaiting.function))
            self._awaiting = None
        while True:
            queued = self._next_queued()
            if queued is not None:
                return queued
            gave_up = give_up(self._unusable, self._note)
            if gave_up is not None:
                return gave_up
            out = await self._generate(with_tools=True)
            calls = list(out.message.tool_calls or [])
            if not calls:
                text = redact(out.message.text or "", self._secrets)
                self._note("text_without_tool_call", stop_reason=out.stop_reason,
                           text=text[:MAX_RECORDED_TEXT],
                           handling=SCAFFOLD_POLICIES[self._level]["text_without_tool_call"])
                return Stop(text)
            if len(calls) > 1:
                self._note("parallel_tool_calls",
                           calls=[{"call_id": c.id, "tool": c.function} for c in calls],
                           handling=SCAFFOLD_POLICIES[self._level]["parallel_tool_calls"])
            if all(c.parse_error is not None for c in calls):
                self._unusable += 1
            self._queue.extend(calls)

    async def decide(self, question: Question) -> Decision:
        """Ask the environment's question and read the answer against its options."""
        self.messages.append(ChatMessageUser(content=question.text))
        out = await self._generate(with_tools=False)
        text = redact(out.message.text or "", self._secrets)
        decision, how = parse_decision(text, question.options, question.fallback)
        self._answers.append({"decision_about": question.decision,
                              "facts": redact_value(dict(question.facts), self._secrets),
                              "answer": text[:MAX_RECORDED_TEXT], "decision": decision,
                              "parsed": how})
        return decision

    def take_attempts(self) -> list[BillableAttempt]:
        """Return and forget the generate calls made since the last call."""
        taken, self._attempts = self._attempts, []
        return taken

    def notes(self) -> dict[str, Any]:
        """Return what the episode keeps about this policy (Episode.meta["policy_notes"])."""
        return {"policy": POLICY_NAME, "model": str(self.model),
                "prompt_version": self._prompt_version,
                "scaffold_policy": dict(SCAFFOLD_POLICIES[self._level]),
                "handling": list(self._handling), "l1_answers": list(self._answers),
                "model_turns": self._turns}
