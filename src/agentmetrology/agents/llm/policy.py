"""ChatPolicy: an LLM over an OpenAI-compatible chat-completions endpoint, at L0, L1 and L2.

The model calls tools natively; what the policy does with output it cannot use as-is (parallel
calls, malformed arguments, text without a tool call, L1 answers) is the turn logic shared with
every model-backed policy (`turns.ModelTurns`). This module speaks the endpoint's API: the
request (through `ChatClient`, lean or SDK), the conversation as chat messages, and a response's
tool calls parsed into `ModelCall`s.

Every string the policy returns or records passes through `redact` (key variable's literal value
and credential-shaped text). The episode-level record is `notes()`: target (no key), request
parameters actually sent, quirks applied, handling events, L1 answers, retries and warnings.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

from agentmetrology.agents.llm.body import Conversation, RequestTemplate
from agentmetrology.agents.llm.client import BACKOFF_BASE_S, AttemptSink, ChatClient, Completion
from agentmetrology.agents.llm.endpoint import resolve_http_client
from agentmetrology.agents.llm.prompts import openai_tools
from agentmetrology.agents.llm.quirks import QUIRKS, Quirk, apply_quirks
from agentmetrology.agents.llm.redact import redact, redact_value
from agentmetrology.agents.llm.target import LLMTarget, Prices
from agentmetrology.agents.llm.transcript_log import Opened, TranscriptLog, response_record
from agentmetrology.agents.llm.turns import (
    MAX_ARGUMENT_DEPTH,
    MAX_RECORDED_TEXT,
    ModelCall,
    ModelTurns,
    Reply,
    argument_problem,
)
from agentmetrology.agents.llm.usage import PROVIDER_ALLOWANCE_S
from agentmetrology.agents.registry import AGENT_FAMILIES, AGENT_PREFIX, LLM_FAMILY
from agentmetrology.records.clock import Clock, RealClock
from agentmetrology.records.episode import BillableAttempt
from agentmetrology.records.errors import UserError
from agentmetrology.records.policy import Brief, Policy
from agentmetrology.records.tools import Observation
from agentmetrology.records.transcript import Transcript

# What json.dumps(content, ensure_ascii=False) builds on every call, built once: the same text.
_TOOL_JSON = json.JSONEncoder(ensure_ascii=False)


def parse_arguments(raw: str | None) -> tuple[dict[str, Any] | None, str | None]:
    """Return (arguments, None) or (None, why) for a tool call's JSON arguments string."""
    if raw is None or not raw.strip():
        return {}, None  # no arguments: common for tools without parameters
    try:
        value = json.loads(raw)
    except ValueError as exc:
        return None, f"arguments are not valid JSON ({exc})"
    except RecursionError:  # deeper than Python's parser follows
        return None, f"arguments are nested deeper than {MAX_ARGUMENT_DEPTH} levels"
    if not isinstance(value, dict):
        return None, f"arguments must be a JSON object, got {type(value).__name__}"
    problem = argument_problem(value)
    return (None, problem) if problem is not None else (value, None)


def _tool_message(call_id: str, content: Observation) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id,
            "content": _TOOL_JSON.encode(content)}


class ChatPolicy(ModelTurns[Completion]):
    """An LLM policy over chat completions with native tool calling (levels L0, L1, L2)."""

    def __init__(self, target: LLMTarget, *, clock: Clock | None = None,
                 timer: Callable[[], float] = time.perf_counter,
                 backoff_base_s: float = BACKOFF_BASE_S,
                 quirks: Sequence[Quirk] = QUIRKS, http_client: str | None = None,
                 provider_allowance_s: float = PROVIDER_ALLOWANCE_S) -> None:
        super().__init__()
        self.target = target
        # Resolved once (ValueError for an unknown or unusable choice), then fixed per policy.
        self._http = resolve_http_client(http_client)
        self.name: str = target.name
        # Backoff waits on this clock, not the scaffold's: a real model needs real waits even
        # when events are stamped by a fake clock. Tests pass a FakeClock.
        self._clock: Clock = clock or RealClock()
        self._timer = timer
        self._backoff_base_s = backoff_base_s
        # Latency per answer charged to the agent; beyond it, and every wait, is the provider's.
        self._allowance_s = provider_allowance_s
        self._params, self._quirks = apply_quirks(target.model, target.decoding, quirks)
        self._sink: AttemptSink | None = None
        self._client = self._new_client()
        self._prompt_version = ""
        self._conversation = Conversation()
        self._tools: list[dict[str, Any]] = []
        self._templates: dict[bool, RequestTemplate] = {}
        self._episode_clock: Clock = self._clock  # the brief's: the events' time line
        self._log = TranscriptLog([], {})

    def reset(self, brief: Brief) -> None:
        """Start a new conversation for a new episode (a fresh client and attempt list)."""
        if not brief.system_prompt and not brief.task_message:
            raise UserError(f"environment {brief.environment!r} supplies no prompts "
                            "(EnvSpec.prompts), so an LLM agent cannot be run on it; use one "
                            "of its model-free agents")
        self._client = self._new_client()
        self._start(brief.level)
        self._prompt_version = brief.prompt_version
        self._conversation = Conversation([{"role": "system", "content": brief.system_prompt},
                                           {"role": "user", "content": brief.task_message}])
        self._tools = openai_tools(brief.tools)
        self._templates = {}
        self._episode_clock = brief.clock
        self._log = TranscriptLog(self._tools, {"model": self.target.model, **self._params})

    def _new_client(self) -> ChatClient:
        return ChatClient(self.target, self._clock, timer=self._timer,
                          backoff_base_s=self._backoff_base_s, on_attempt=self._sink,
                          http_client=self._http, allowance_s=self._allowance_s)

    @property
    def _secrets(self) -> Sequence[str]:
        return self._client.secrets

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

    def _generate(self, with_tools: bool) -> Coroutine[Any, Any, Completion]:
        """Return the next completion (to await); the lean path's body is joined from the
        messages' kept bytes. The client's coroutine itself: one coroutine level less."""
        template = self._template(with_tools)
        body = template.body(self._conversation) if self._http == "lean" else None
        return self._client.complete(template.kwargs(self._conversation), body=body)

    def _absorb(self, completion: Completion, with_tools: bool) -> Reply:
        """Append the assistant message to the history and return its tool calls in order."""
        msg = completion.message
        if not with_tools:  # an answer to a question: its text is all that is read
            self._conversation.append({"role": "assistant", "content": msg.content or ""})
            return Reply(msg.content or "", [])
        calls: list[ModelCall] = []
        history: list[dict[str, Any]] = []
        for i, tc in enumerate(getattr(msg, "tool_calls", None) or []):
            fn = getattr(tc, "function", None)
            name = str(getattr(fn, "name", "") or "")
            raw = getattr(fn, "arguments", None)
            args, error = parse_arguments(raw)
            if fn is None:  # e.g. a "custom" tool call: nothing we declared
                args, error = None, "not a function call"
            call_id = getattr(tc, "id", None) or f"call_{self._turns}_{i}"
            calls.append(ModelCall(call_id, name, args, raw or "", error))
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
        return Reply(msg.content or "", calls, {"finish_reason": completion.finish_reason})

    def _opened(self, with_tools: bool) -> Opened:
        return Opened(len(self._conversation.messages), len(self._client.attempts),
                      self._episode_clock.now(), with_tools)

    def _closed(self, opened: Opened, raw: Completion | None) -> None:
        ids = [a.attempt_id for a in self._client.attempts[opened.attempts_before:]]
        response = None if raw is None else response_record(
            raw.message, raw.finish_reason, raw.request_id, raw.usage)
        self._log.close(opened, ids, self._episode_clock.now(), response)

    def episode_transcript(self) -> Transcript:
        """Return the episode's transcript: every request's messages and its response."""
        return self._log.transcript(self._conversation.messages, self._client.secrets)

    def _send_result(self, call: ModelCall, result: Observation) -> None:
        self._conversation.append(_tool_message(call.call_id, result))

    def _refuse(self, call: ModelCall) -> dict[str, Any]:
        quoted = redact(call.raw[:MAX_RECORDED_TEXT], self._client.secrets)
        self._conversation.append(_tool_message(call.call_id, {
            "error": f"{call.name}: {call.error}; the call was not executed. Your arguments "
                     f"were: {quoted}"}))
        return {"arguments": quoted}

    def _ask(self, text: str) -> None:
        self._conversation.append({"role": "user", "content": text})

    def set_attempt_sink(self, sink: AttemptSink | None) -> None:
        """Hand every billable attempt to `sink` as soon as its response arrives (from the next
        episode on; a campaign writes them to its ledger)."""
        self._sink = sink
        self._client.on_attempt = sink

    def take_attempts(self) -> list[BillableAttempt]:
        """Return and forget the billable attempts made since the last call."""
        taken, self._client.attempts = self._client.attempts, []
        return taken

    def provider_time_s(self) -> float:
        """Return the seconds of this episode that were the provider's (waits before retries,
        failed attempts, answers' latency beyond the allowance): not the agent's time."""
        return self._client.provider_s

    def notes(self) -> dict[str, Any]:
        """Return what the episode should keep about this policy (for Episode.meta["llm"])."""
        return redact_value({
            "policy": "chat-completions", "prompt_version": self._prompt_version,
            "target": self.target.public(), "provider": self._client.provider,
            "http_client": self._http,
            "request_params": dict(self._params), "quirks_applied": list(self._quirks),
            **self.turn_notes(),
            "retries": list(self._client.retries),
            "warnings": list(self._client.warnings),
            **({"failure": dict(self._client.failure)} if self._client.failure else {}),
            # Only when there are any, so that every other episode's record stays as it was.
            **({"usage_problems": list(self._client.usage_problems)}
               if self._client.usage_problems else {}),
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
    if AGENT_FAMILIES.entry_name(spec) != LLM_FAMILY:
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


def llm_agent(model: str, *, clock: Clock | None = None, http_client: str | None = None,
              **target_options: Any) -> ChatPolicy:
    """Return the `llm:MODEL` agent (the `llm` family of agents/registry.py); `target_options`
    are those of `target_from_spec` (base_url, api_key_env, decoding, prices, ...)."""
    target = target_from_spec(f"{AGENT_PREFIX}{model}", **target_options)
    return make_llm_policy(target, clock=clock, http_client=http_client)
