"""InspectModelPolicy: the Inspect eval's model as the agent of one of our episodes.

The policy implements our `Policy` protocol over `inspect_ai.model.Model.generate`, so the
episode runs through our one runner and the environment's scaffold level decides what reaches
the tools, exactly as in `agm run`. The turn logic is the LLM agent's own (`agents.llm.turns`):
parallel tool calls run in order, one per step; a call Inspect could not parse runs no tool and
gets an error result; text without a tool call ends the turn; at L1 an answer is read with the
same `parse_decision`. This module only speaks Inspect's model API. A generate call that raises
(a provider failure after Inspect's own retries) is an infrastructure error, so the episode is
a measurement failure, never an agent's zero.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
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

from agentmetrology.agents.llm.redact import redact
from agentmetrology.agents.llm.transcript_log import Opened, TranscriptLog
from agentmetrology.agents.llm.turns import ModelCall, ModelTurns, Reply, argument_problem
from agentmetrology.edges.redaction import env_secret_values
from agentmetrology.inspect_ext.task.policy_transcript import (
    message_record,
    output_record,
    tool_records,
)
from agentmetrology.inspect_ext.task.usage import checked_usage
from agentmetrology.records.clock import Clock, FakeClock
from agentmetrology.records.episode import BillableAttempt
from agentmetrology.records.errors import InfraError
from agentmetrology.records.policy import Brief
from agentmetrology.records.tools import Observation, ToolSpec
from agentmetrology.records.transcript import Transcript

POLICY_NAME = "inspect-model"


def tool_info(spec: ToolSpec) -> ToolInfo:
    """Return one of our tool specs as Inspect's ToolInfo (name, description, JSON schema)."""
    params = spec.parameters or {"type": "object", "properties": {}}
    return ToolInfo(name=spec.name, description=spec.description,
                    parameters=ToolParams.model_validate(params))


class InspectModelPolicy(ModelTurns[tuple[ModelOutput, float]]):
    """An Inspect model acting through our tool protocol at L0, L1 and L2."""

    def __init__(self, model: Model) -> None:
        super().__init__()
        self.model = model
        self.name: str = f"inspect:{model}"
        self._secret_values = tuple(env_secret_values())
        self.messages: list[ChatMessage] = []
        self.output: ModelOutput | None = None
        self._tools: list[ToolInfo] = []
        self._attempts: list[BillableAttempt] = []
        self._usage_problems: list[dict[str, Any]] = []
        self._prompt_version = ""
        self._log = TranscriptLog([], {})
        self._clock: Clock = FakeClock()  # the brief's from reset on: the events' time line

    def reset(self, brief: Brief) -> None:
        """Start the conversation of a new episode from the environment's prompts."""
        self.messages = [ChatMessageSystem(content=brief.system_prompt),
                         ChatMessageUser(content=brief.task_message)]
        self._tools = [tool_info(t) for t in brief.tools]
        self._start(brief.level)
        self._prompt_version = brief.prompt_version
        self._attempts, self._usage_problems = [], []
        self._clock = brief.clock
        self._log = TranscriptLog(tool_records(self._tools), {"model": str(self.model)})

    @property
    def _secrets(self) -> Sequence[str]:
        return self._secret_values

    async def _generate(self, with_tools: bool) -> tuple[ModelOutput, float]:
        started = time.perf_counter()
        try:
            out = await self.model.generate(self.messages, tools=self._tools if with_tools else [])
        except LimitExceededError:
            raise  # an Inspect limit ends the sample as Inspect defines it
        except Exception as exc:  # the provider failed after Inspect's retries: not the agent
            raise InfraError(redact(f"model {self.model} failed: {type(exc).__name__}: {exc}",
                                    self._secrets)) from exc
        return out, out.time if out.time is not None else time.perf_counter() - started

    def _absorb(self, raw: tuple[ModelOutput, float], with_tools: bool) -> Reply:
        out, latency_s = raw
        self._attempts.append(self._attempt(out, latency_s))
        self.output = out
        self.messages.append(out.message)
        calls = [_model_call(c) for c in out.message.tool_calls or []] if with_tools else []
        return Reply(out.message.text or "", calls, {"stop_reason": out.stop_reason})

    def _attempt(self, out: ModelOutput, latency_s: float) -> BillableAttempt:
        """Return the billable attempt of turn `_turns`, its token counts checked."""
        attempt_id = f"inspect-{self._turns}"
        usage = checked_usage(out.usage)
        if usage.problem is not None:
            self._usage_problems.append({"attempt_id": attempt_id, **usage.problem})
        return BillableAttempt(
            attempt_id=attempt_id, provider=str(self.model).split("/")[0],
            model=out.model or str(self.model), request_id=None,
            input_tokens=usage.input_tokens, output_tokens=usage.output_tokens,
            cached_tokens=usage.cached_tokens, cost=usage.cost, latency_s=latency_s,
            outcome="ok")

    def _send_result(self, call: ModelCall, result: Observation) -> None:
        self.messages.append(ChatMessageTool(content=json.dumps(result, ensure_ascii=False),
                                             tool_call_id=call.call_id, function=call.name))

    def _refuse(self, call: ModelCall) -> dict[str, Any]:
        self.messages.append(ChatMessageTool(
            content=json.dumps({"error": f"{call.name}: {call.error}; the call was not "
                                         "executed"}),
            tool_call_id=call.call_id, function=call.name))
        return {}

    def _ask(self, text: str) -> None:
        self.messages.append(ChatMessageUser(content=text))

    def _opened(self, with_tools: bool) -> Opened:
        return Opened(len(self.messages), len(self._attempts), self._clock.now(), with_tools)

    def _closed(self, opened: Opened, raw: tuple[ModelOutput, float] | None) -> None:
        # The attempt of a response is made in `_absorb`, right after this: name it ahead.
        ids = () if raw is None else (f"inspect-{self._turns}",)
        self._log.close(opened, ids, self._clock.now(),
                        None if raw is None else output_record(raw[0]))

    def episode_transcript(self) -> Transcript:
        """Return the episode's transcript: every generate call's messages and its output."""
        return self._log.transcript([message_record(m) for m in self.messages], self._secrets)

    def take_attempts(self) -> list[BillableAttempt]:
        """Return and forget the generate calls made since the last call."""
        taken, self._attempts = self._attempts, []
        return taken

    def notes(self) -> dict[str, Any]:
        """Return what the episode keeps about this policy (Episode.meta["policy_notes"])."""
        return {"policy": POLICY_NAME, "model": str(self.model),
                "prompt_version": self._prompt_version, **self.turn_notes(),
                # Only when there are any, so that every other episode's record stays as it was.
                **({"usage_problems": list(self._usage_problems)}
                   if self._usage_problems else {})}


def _model_call(call: InspectToolCall) -> ModelCall:
    """Return an Inspect tool call as the turn logic reads it (arguments parsed by Inspect)."""
    if call.parse_error is not None or not isinstance(call.arguments, dict):
        error = call.parse_error or "arguments are not a JSON object"
        return ModelCall(call.id, call.function, None, "", error)
    problem = argument_problem(call.arguments)
    if problem is not None:
        return ModelCall(call.id, call.function, None, "", problem)
    return ModelCall(call.id, call.function, call.arguments, "", None)
