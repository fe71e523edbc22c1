"""ChatPolicy: an LLM over an OpenAI-compatible chat-completions endpoint, at L0, L1 and L2.

The model calls tools natively. What the policy does with output it cannot use as-is is declared
by the scaffold (`SCAFFOLD_POLICIES`) and implemented here exactly, with a record of every case:
- parallel tool calls: executed in order, one per `act()`; each result goes back to the model
  under its own tool_call_id before the next completion is requested;
- malformed tool-call arguments (not JSON, or not a JSON object): no tool runs; an error result
  goes back to the model under that call's id;
- text without a tool call: the turn ends (Stop), carrying the text.
At L1 the model answers RETRY or SKIP; an answer that names neither (or both, without leading
with one) counts as SKIP and is recorded as unparseable: a decision the model did not make
spends no request, and it matches the harness's own fallback for unusable answers.

Every string the policy returns or records passes through `redact` (key variable's literal value
and credential-shaped text). The episode-level record is `notes()`: target (no key), request
parameters actually sent, quirks applied, handling events, L1 answers, retries and warnings.
"""

from __future__ import annotations

import json
import re
import time
from collections import deque
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any

from agentmetrology.agents.llm.body import Conversation, RequestTemplate
from agentmetrology.agents.llm.client import (
    BACKOFF_BASE_S,
    AttemptSink,
    ChatClient,
    Completion,
    resolve_http_client,
)
from agentmetrology.agents.llm.prompts import openai_tools
from agentmetrology.agents.llm.quirks import QUIRKS, Quirk, apply_quirks
from agentmetrology.agents.llm.redact import redact, redact_value
from agentmetrology.agents.llm.target import LLMTarget, Prices
from agentmetrology.agents.scaffolds.ownership import SCAFFOLD_POLICIES
from agentmetrology.records.clock import Clock, RealClock
from agentmetrology.records.episode import BillableAttempt
from agentmetrology.records.errors import UserError
from agentmetrology.records.policy import (
    Brief,
    Decision,
    Level,
    Move,
    Policy,
    Question,
    Stop,
    ToolCall,
)
from agentmetrology.records.tools import Observation

AGENT_PREFIX = "llm:"
# Consecutive completions that yield no executable call (all arguments malformed) before the
# policy gives up and ends its turn: malformed calls never reach the environment, so without
# this bound they would cost model requests without ever counting as steps.
MAX_UNUSABLE_TURNS = 3
MAX_RECORDED_TEXT = 500  # characters of raw model text kept per handling record
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
# What json.dumps(content, ensure_ascii=False) builds on every call, built once: the same text.
_TOOL_JSON = json.JSONEncoder(ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class _Call:
    """One tool call from a model response, parsed or found malformed."""

    call_id: str
    name: str
    args: dict[str, Any] | None
    raw: str
    error: str | None


def parse_arguments(raw: str | None) -> tuple[dict[str, Any] | None, str | None]:
    """Return (arguments, None) or (None, why) for a tool call's JSON arguments string."""
    if raw is None or not raw.strip():
        return {}, None  # no arguments: common for tools without parameters
    try:
        value = json.loads(raw)
    except ValueError as exc:
        return None, f"arguments are not valid JSON ({exc})"
    if not isinstance(value, dict):
        return None, f"arguments must be a JSON object, got {type(value).__name__}"
    return value, None


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


def give_up(unusable: int, note: Callable[..., None]) -> Stop | None:
    """Return the Stop ending a turn after MAX_UNUSABLE_TURNS responses without an executable
    call (recorded through `note`), or None while the bound is not reached."""
    if unusable < MAX_UNUSABLE_TURNS:
        return None
    note("gave_up", handling="end_turn",
         reason=f"{MAX_UNUSABLE_TURNS} consecutive responses without an executable tool call")
    return Stop("no executable tool call after repeated malformed arguments")


def _tool_message(call_id: str, content: Observation) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id,
            "content": _TOOL_JSON.encode(content)}


class ChatPolicy:
    """An LLM policy over chat completions with native tool calling (levels L0, L1, L2)."""

    levels: tuple[Level, ...] = ("L0", "L1", "L2")

    def __init__(self, target: LLMTarget, *, clock: Clock | None = None,
                 timer: Callable[[], float] = time.perf_counter,
                 backoff_base_s: float = BACKOFF_BASE_S,
                 quirks: Sequence[Quirk] = QUIRKS, http_client: str | None = None) -> None:
        self.target = target
        # Resolved once (ValueError for an unknown or unusable choice), then fixed per policy.
        self._http = resolve_http_client(http_client)
        self.name: str = target.name
        # Backoff waits on this clock, not the scaffold's: a real model needs real waits even
        # when events are stamped by a fake clock. Tests pass a FakeClock.
        self._clock: Clock = clock or RealClock()
        self._timer = timer
        self._backoff_base_s = backoff_base_s
        self._params, self._quirks = apply_quirks(target.model, target.decoding, quirks)
        self._sink: AttemptSink | None = None
        self._client = ChatClient(target, self._clock, timer=timer,
                                  backoff_base_s=backoff_base_s, http_client=self._http)
        self._level: Level = "L2"
        self._prompt_version = ""
        self._conversation = Conversation()
        self._tools: list[dict[str, Any]] = []
        self._templates: dict[bool, RequestTemplate] = {}
        self._queue: deque[_Call] = deque()
        self._awaiting: str | None = None
        self._handling: list[dict[str, Any]] = []
        self._answers: list[dict[str, Any]] = []
        self._turns = 0
        self._unusable = 0

    def reset(self, brief: Brief) -> None:
        """Start a new conversation for a new episode (a fresh client and attempt list)."""
        if not brief.system_prompt and not brief.task_message:
            raise UserError(f"environment {brief.environment!r} supplies no prompts "
                            "(EnvSpec.prompts), so an LLM agent cannot be run on it; use one "
                            "of its model-free agents")
        self._client = ChatClient(self.target, self._clock, timer=self._timer,
                                  backoff_base_s=self._backoff_base_s, on_attempt=self._sink,
                                  http_client=self._http)
        self._level = brief.level
        self._prompt_version = brief.prompt_version
        self._conversation = Conversation([{"role": "system", "content": brief.system_prompt},
                                           {"role": "user", "content": brief.task_message}])
        self._tools = openai_tools(brief.tools)
        self._templates = {}
        self._queue.clear()
        self._awaiting = None
        self._handling = []
        self._answers = []
        self._turns = 0
        self._unusable = 0

    def _template(self, with_tools: bool) -> RequestTemplate:
        template = self._templates.get(with_tools)
        if template is None:
            kw: dict[str, Any] = {"model": self.target.model, "messages": []}
            if with_tools and self._tools:
                kw["tools"] = self._tools
            if self._params:
                # Through extra_body, so provider-specific parameters pass without SDK changes.
                kw["extra_body"] = dict(self._params)
            template = self._templates[with_tools] = RequestTemplate(kw)
        return template

    def _complete(self, with_tools: bool) -> Coroutine[Any, Any, Completion]:
        """Return the next completion (to await); the lean path's body is joined from the
        messages' kept bytes. The client's coroutine itself: one coroutine level less."""
        template = self._template(with_tools)
        body = template.body(self._conversation) if self._http == "lean" else None
        return self._client.complete(template.kwargs(self._conversation), body=body)

    def _note(self, event: str, **fields: Any) -> None:
        self._handling.append({"event": event, "turn": self._turns, "level": self._level,
                               **fields})

    def _absorb(self, completion: Completion) -> list[_Call]:
        """Append the assistant message to the history and return its tool calls in order."""
        msg = completion.message
        calls: list[_Call] = []
        history: list[dict[str, Any]] = []
        for i, tc in enumerate(getattr(msg, "tool_calls", None) or []):
            fn = getattr(tc, "function", None)
            name = str(getattr(fn, "name", "") or "")
            raw = getattr(fn, "arguments", None)
            args, error = parse_arguments(raw)
            if fn is None:  # e.g. a "custom" tool call: nothing we declared
                args, error = None, "not a function call"
            call_id = getattr(tc, "id", None) or f"call_{self._turns}_{i}"
            calls.append(_Call(call_id, name, args, raw or "", error))
            # A malformed string is not echoed back as arguments: some servers re-parse the
            # history and would reject it; the error result quotes it instead.
            # The echo is redacted like the arguments that were executed, so history and
            # record agree.
            echo = redact(raw, self._client.secrets) if error is None and raw else "{}"
            history.append({"id": call_id, "type": "function",
                            "function": {"name": name, "arguments": echo}})
        entry: dict[str, Any] = {"role": "assistant", "content": msg.content}
        if history:
            entry["tool_calls"] = history
        self._conversation.append(entry)
        return calls

    def _malformed(self, call: _Call) -> None:
        quoted = redact(call.raw[:MAX_RECORDED_TEXT], self._client.secrets)
        self._conversation.append(_tool_message(call.call_id, {
            "error": f"{call.name}: {call.error}; the call was not executed. Your arguments "
                     f"were: {quoted}"}))
        self._note("malformed_tool_arguments",
                   handling=SCAFFOLD_POLICIES[self._level]["malformed_tool_arguments"],
                   tool=call.name, call_id=call.call_id, error=call.error, arguments=quoted)

    def _next_queued(self) -> ToolCall | None:
        while self._queue:
            call = self._queue.popleft()
            if call.error is not None or call.args is None:
                self._malformed(call)
                continue
            self._awaiting = call.call_id
            self._unusable = 0
            return ToolCall(call.name, redact_value(call.args, self._client.secrets),
                            call.call_id)
        return None

    async def act(self, observation: Observation | None) -> Move:
        """Return the next tool call (from the queue or a new completion) or Stop."""
        if self._awaiting is not None:
            result = observation if observation is not None else {"error": "no result"}
            self._conversation.append(_tool_message(self._awaiting, result))
            self._awaiting = None
        while True:
            queued = self._next_queued()
            if queued is not None:
                return queued
            gave_up = give_up(self._unusable, self._note)
            if gave_up is not None:
                return gave_up
            completion = await self._complete(with_tools=True)
            self._turns += 1
            calls = self._absorb(completion)
            if not calls:
                text = redact(completion.message.content or "", self._client.secrets)
                self._note("text_without_tool_call",
                           handling=SCAFFOLD_POLICIES[self._level]["text_without_tool_call"],
                           finish_reason=completion.finish_reason,
                           text=text[:MAX_RECORDED_TEXT])
                return Stop(text)
            if len(calls) > 1:
                self._note("parallel_tool_calls",
                           handling=SCAFFOLD_POLICIES[self._level]["parallel_tool_calls"],
                           calls=[{"call_id": c.call_id, "tool": c.name} for c in calls])
            if all(c.error is not None for c in calls):
                self._unusable += 1
            self._queue.extend(calls)

    async def decide(self, question: Question) -> Decision:
        """Ask the model the environment's question and parse its answer against the options."""
        self._conversation.append({"role": "user", "content": question.text})
        completion = await self._complete(with_tools=False)
        self._turns += 1
        text = redact(completion.message.content or "", self._client.secrets)
        self._conversation.append({"role": "assistant",
                                   "content": completion.message.content or ""})
        decision, how = parse_decision(text, question.options, question.fallback)
        self._answers.append({"decision_about": question.decision,
                              "facts": dict(question.facts),
                              "answer": text[:MAX_RECORDED_TEXT],
                              "decision": decision, "parsed": how})
        return decision

    def set_attempt_sink(self, sink: AttemptSink | None) -> None:
        """Hand every billable attempt to `sink` as soon as its response arrives (from the next
        episode on; a campaign writes them to its ledger)."""
        self._sink = sink
        self._client.on_attempt = sink

    def take_attempts(self) -> list[BillableAttempt]:
        """Return and forget the billable attempts made since the last call."""
        taken, self._client.attempts = self._client.attempts, []
        return taken

    def notes(self) -> dict[str, Any]:
        """Return what the episode should keep about this policy (for Episode.meta["llm"])."""
        return redact_value({
            "policy": "chat-completions", "prompt_version": self._prompt_version,
            "target": self.target.public(), "provider": self._client.provider,
            "http_client": self._http,
            "request_params": dict(self._params), "quirks_applied": list(self._quirks),
            "scaffold_policy": dict(SCAFFOLD_POLICIES[self._level]),
            "handling": list(self._handling), "l1_answers": list(self._answers),
            "model_turns": self._turns, "retries": list(self._client.retries),
            "warnings": list(self._client.warnings),
            **({"failure": dict(self._client.failure)} if self._client.failure else {}),
        }, self._client.secrets)

    async def aclose(self) -> None:
        """Close the HTTP client of the current episode."""
        await self._client.aclose()


def make_llm_policy(target: LLMTarget, *, clock: Clock | None = None,
                    http_client: str | None = None) -> ChatPolicy:
    """Return a ChatPolicy for `target`; retry backoff waits on `clock` (real by default);
    `http_client` is "lean" or "sdk" (default: $AGM_LLM_CLIENT, else lean if it can run)."""
    policy = ChatPolicy(target, clock=clock, http_client=http_client)
    _: Policy = policy  # mypy verifies ChatPolicy against the Policy protocol here
    return policy


def parse_agent_spec(spec: str) -> str | None:
    """Return MODEL for an "llm:MODEL" agent spec, None for other agents; ValueError if empty."""
    if not spec.startswith(AGENT_PREFIX):
        return None
    model = spec[len(AGENT_PREFIX):].strip()  # MODEL may contain ':' (e.g. Ollama tags)
    if not model:
        raise ValueError("an llm agent needs a model name: --agent llm:MODEL "
                         "(e.g. llm:gpt-4o-mini, llm:qwen2.5:7b)")
    return model


def target_from_spec(spec: str, *, base_url: str | None = None, api_key_env: str | None = None,
                     decoding: dict[str, Any] | None = None, prices: Prices | None = None,
                     max_retries: int = 4, timeout_s: float = 60.0) -> LLMTarget:
    """Return the LLMTarget of an "llm:MODEL" spec and the command-line endpoint options."""
    model = parse_agent_spec(spec)
    if model is None:
        raise ValueError(f"{spec!r} is not an llm agent; use llm:MODEL")
    return LLMTarget(name=f"{AGENT_PREFIX}{model}", model=model, base_url=base_url,
                     api_key_env=api_key_env, decoding=dict(decoding or {}),
                     prices=prices or Prices(), max_retries=max_retries, timeout_s=timeout_s)
