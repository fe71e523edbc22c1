"""One chat-completion request with retries, where every HTTP request is one BillableAttempt.

Two HTTP paths do the request, selected per client (`http_client`, default from the
AGM_LLM_CLIENT variable, else "lean" when aiohttp is installed): "lean" (aiohttp + msgspec,
`lean.py`, about a tenth of the CPU per request) or "sdk" (the official `openai` SDK with its own
retries switched off, max_retries=0). Either way the body of a 200 is decoded by the same
checked decoder (`lean.decode_completion`: a field of the wrong type is an invalid_response
that names it), and each request the provider sees is recorded here exactly once, through the
same code: request id, tokens, cached
tokens, cost, latency and outcome. Transient failures (429, 408, 409, 5xx, timeouts, connection
errors, unusable 200 bodies) are retried with exponential backoff on the injectable clock; when
the budget runs out, or the provider rejects the request itself (other 4xx: a configuration
error), InfraError ends the episode as a measurement failure, never as an agent failure.

Cost convention (one rule per outcome, see docs/llm.md "Cost"):
- `connection_error`: the connection was never established (refused, host not found, TLS or
  connect timeout), so no request reached the provider: tokens 0 and cost 0.0, known, whatever
  the price table says.
- An HTTP error response carries no completion and providers do not bill it, so its tokens are 0
  and its cost is the price of 0 tokens (0.0 with a known price table, None with an unknown one).
- `timeout` (no answer after the request was sent), `connection_lost` (the connection broke after
  the request was sent) and unusable bodies may have been processed and billed upstream, so
  their tokens and cost are unknown (None), which makes the episode's total cost None: honest,
  and visible, rather than a silent 0. So is `cancelled`: a request in flight when its episode
  was cancelled (cut at the hard deadline, or the run interrupted).
- The token counts a completion reports are checked (`usage.py`): a count that is not an integer
  in 0..MAX_TOKENS, or cached tokens above the input tokens, is unknown in the attempt, kept as
  reported in `usage_problems`, and makes the attempt's cost unknown with the reason.

Every attempt is handed to `on_attempt` (when given) as soon as its response (or failure)
arrives, before the episode ends, so a campaign can write it to the ledger at once: a killed run
loses at most the request in flight.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agentmetrology.agents.llm import lean
from agentmetrology.agents.llm.body_cap import ResponseTooLarge
from agentmetrology.agents.llm.endpoint import (
    HTTP_CLIENT_ENV,
    HTTP_CLIENTS,
    PLACEHOLDER_KEY,
    key_env_of,
    provider_of,
    resolve_api_key,
    resolve_http_client,
    shared_ssl_context,
)
from agentmetrology.agents.llm.failures import (
    Failure,
    chain_of,
    classify_status,
    connect_failure,
    request_id_of,
    retry_after_s,
)
from agentmetrology.agents.llm.redact import env_secrets, redact
from agentmetrology.agents.llm.target import LLMTarget
from agentmetrology.agents.llm.usage import (
    PROVIDER_ALLOWANCE_S,
    Reported,
    checked_usage,
    provider_share,
    reported_text,
    reported_usage,
)
from agentmetrology.records.clock import Clock
from agentmetrology.records.episode import BillableAttempt
from agentmetrology.records.errors import InfraError
from agentmetrology.records.verdict import n_counted

if TYPE_CHECKING:
    from openai import AsyncOpenAI

    from agentmetrology.agents.llm.lean import LeanTransport

# Names callers have always imported from here; they live in endpoint.py and failures.py.
__all__ = ["BACKOFF_BASE_S", "BACKOFF_CAP_S", "HTTP_CLIENTS", "HTTP_CLIENT_ENV", "PLACEHOLDER_KEY",
           "AttemptSink", "ChatClient", "Completion", "classify_status", "connect_failure",
           "key_env_of", "provider_of", "resolve_api_key", "resolve_http_client",
           "retry_after_s", "shared_ssl_context"]

BACKOFF_BASE_S = 1.0
BACKOFF_CAP_S = 60.0


AttemptSink = Callable[[BillableAttempt], None]


@dataclass(frozen=True, slots=True)
class Completion:
    """A successful chat completion: the first choice's message and why generation stopped."""

    message: lean.Message  # decoded by one decoder, whichever path fetched it
    finish_reason: str | None
    request_id: str | None
    usage: Reported = (None, None, None)  # as reported, for the transcript


class ChatClient:
    """Chat completions for one target and one episode, recording every HTTP attempt."""

    def __init__(self, target: LLMTarget, clock: Clock, *,
                 timer: Callable[[], float] = time.perf_counter,
                 backoff_base_s: float = BACKOFF_BASE_S,
                 backoff_cap_s: float = BACKOFF_CAP_S,
                 on_attempt: AttemptSink | None = None,
                 http_client: str | None = None,
                 allowance_s: float = PROVIDER_ALLOWANCE_S) -> None:
        self.target = target
        self.http_client = resolve_http_client(http_client)
        self.on_attempt = on_attempt
        self.clock = clock
        self.timer = timer
        self.backoff_base_s = backoff_base_s
        self.backoff_cap_s = backoff_cap_s
        self.provider = provider_of(target)
        self.secrets = env_secrets(key_env_of(target))
        self.attempts: list[BillableAttempt] = []
        self.retries: list[dict[str, Any]] = []  # one entry per wait before a retry
        self.warnings: list[str] = []
        # Attempts whose token counts could not be billed: what was reported, and why.
        self.usage_problems: list[dict[str, Any]] = []
        # Time that was the provider's, not the agent's (waits, failed attempts, slowness
        # beyond `allowance_s` per answer): a deadline does not count it.
        self.allowance_s = allowance_s
        self.provider_s = 0.0
        # The failure that ended the episode (outcome and a stable one-line reason), if any.
        self.failure: dict[str, str] | None = None
        self._requests = 0
        self._sdk: AsyncOpenAI | None = None
        self._lean: LeanTransport | None = None

    def _client(self) -> AsyncOpenAI:
        if self._sdk is None:
            from openai import AsyncOpenAI, DefaultAsyncHttpxClient

            # One SSL context per process: building it (loading the CA bundle) costs ~50 ms,
            # which a fresh client per episode would otherwise pay every time.
            from agentmetrology.agents.llm.body_cap import cap_httpx_response

            http = DefaultAsyncHttpxClient(verify=shared_ssl_context(),
                                           event_hooks={"response": [cap_httpx_response]})
            # The base URL is always given: the SDK would read OPENAI_BASE_URL otherwise,
            # an endpoint the recorded target and provider do not name (lean.endpoint_url).
            self._sdk = AsyncOpenAI(base_url=self.target.base_url or lean.DEFAULT_BASE_URL,
                                    api_key=resolve_api_key(self.target),
                                    timeout=self.target.timeout_s, max_retries=0,
                                    http_client=http)
        return self._sdk

    def _transport(self) -> LeanTransport:
        if self._lean is None:
            from agentmetrology.agents.llm.lean import LeanTransport, endpoint_url

            self._lean = LeanTransport(endpoint_url(self.target.base_url),
                                       resolve_api_key(self.target), self.target.timeout_s,
                                       self.provider)
        return self._lean

    async def aclose(self) -> None:
        """Close the underlying HTTP client."""
        if self._sdk is not None:
            await self._sdk.close()
            self._sdk = None
        if self._lean is not None:
            await self._lean.aclose()
            self._lean = None

    def _warn(self, message: str) -> None:
        # Kept in the episode's notes; the CLI prints one notice per run (never a raw warning).
        if message not in self.warnings:
            self.warnings.append(message)

    def _cost(self, attempt_id: str, reported: Reported, outcome: str,
              sent: bool) -> tuple[tuple[int | None, ...], float | None]:
        """Return the attempt's usable token counts and its cost (None: unknown, with a note)."""
        counts, problem = checked_usage(*reported)
        if not sent:  # a request never sent costs nothing, whatever the prices are
            return counts, 0.0
        if problem is not None:
            self.usage_problems.append({"attempt_id": attempt_id,
                                        "reported": reported_text(reported), "reason": problem})
            self._warn(f"{self.target.name}: an attempt reported token counts that cannot be "
                       f"billed ({problem}); its cost is unknown (null)")
            return counts, None
        cost = self.target.prices.cost(*counts)
        if cost is None:
            if counts[0] is None or counts[1] is None:
                self._warn(f"{self.target.name}: an attempt reported no token counts "
                           f"(outcome {outcome}); its cost is unknown (null)")
            else:
                self._warn(f"{self.target.name}: no complete price for model "
                           f"{self.target.model!r}; attempt costs are null, not 0")
        return counts, cost

    def _record(self, attempt_id: str, request_id: str | None, reported: Reported,
                latency: float, outcome: str, *, sent: bool = True) -> None:
        (inp, out, cached), cost = self._cost(attempt_id, reported, outcome, sent)
        self.provider_s += provider_share(outcome, latency, self.allowance_s)
        attempt = BillableAttempt(attempt_id, self.provider, self.target.model,
                                  redact(request_id, self.secrets) if request_id else None,
                                  inp, out, cached, cost, latency, outcome)
        self.attempts.append(attempt)
        if self.on_attempt is not None:
            try:
                self.on_attempt(attempt)
            except Exception as exc:  # the ledger could not take it: stop paying for requests
                raise InfraError(redact(f"cannot record a billable attempt ({type(exc).__name__}"
                                        f": {exc}); no further requests are sent",
                                        self.secrets)) from None

    def _record_cancelled(self, attempt_id: str, latency: float) -> None:
        # The request may have been sent and billed: an unknown cost, never a silent 0 and
        # never lost. The cancellation goes on whatever the sink does.
        with contextlib.suppress(InfraError):
            self._record(attempt_id, None, (None, None, None), latency, "cancelled")

    def _one(self, attempt_id: str, kwargs: dict[str, Any],
             body: bytes | None) -> Coroutine[Any, Any, Completion | Failure]:
        # The path's coroutine itself, not one wrapping it: every resumption of a request in
        # flight passes through each coroutine level once.
        if self.http_client == "lean":
            return self._one_lean(attempt_id, kwargs if body is None else body)
        return self._one_sdk(attempt_id, kwargs)

    async def _one_lean(self, attempt_id: str,
                        request: dict[str, Any] | bytes) -> Completion | Failure:
        transport = self._transport()
        body = request if isinstance(request, bytes) else lean.encode_body(request)
        started = self.timer()
        try:
            status, headers, data = await transport.post(body)
        except lean.NeverConnected as exc:
            self._record(attempt_id, None, (0, 0, None), self.timer() - started,
                         "connection_error", sent=False)
            return Failure("connection_error", True, str(exc), reason=str(exc))
        except lean.NoAnswerInTime:
            self._record(attempt_id, None, (None, None, None), self.timer() - started,
                         "timeout")
            why = f"no response from {self.provider} within {self.target.timeout_s:g} s"
            return Failure("timeout", True, why, reason=why)
        except lean.ConnectionLost as exc:
            self._record(attempt_id, None, (None, None, None), self.timer() - started,
                         "connection_lost")
            return Failure("connection_lost", True, str(exc),
                            reason=f"{self.provider} dropped the connection before answering")
        except ResponseTooLarge as exc:
            return self._too_large(attempt_id, exc, self.timer() - started)
        except lean.Unsendable as exc:  # nothing was sent: nothing billable
            raise InfraError(redact(f"lean client error: {exc}", self.secrets)) from None
        latency = self.timer() - started
        if status >= 400:
            outcome, retryable = classify_status(status)
            self._record(attempt_id, request_id_of(headers), (0, 0, None), latency, outcome)
            return Failure(outcome, retryable, f"HTTP {status}: {lean.error_message(data)}",
                            retry_after_s(headers),
                            f"{self.provider} answered HTTP {status} ({outcome})")
        return self._answered(attempt_id, headers, data, latency)

    def _too_large(self, attempt_id: str, exc: ResponseTooLarge,
                   latency: float) -> Failure:
        """Return the invalid_response of a body past the cap (its cost unknown: produced)."""
        self._record(attempt_id, None, (None, None, None), latency, "invalid_response")
        return Failure("invalid_response", True, str(exc),
                       reason=f"unusable responses from {self.provider}")

    def _answered(self, attempt_id: str, headers: Mapping[str, str], data: bytes,
                  latency: float) -> Completion | Failure:
        """Return the completion a 200 body holds, or the invalid_response it is; either path.

        One decoder for both paths: the SDK does not check types, so on its path a list as the
        content or an object as the arguments reached the policy and raised there (an
        agent_error, the model's 0) instead of being the provider's unusable answer.
        """
        try:
            completion = lean.decode_completion(data)
        except ValueError as exc:
            self._record(attempt_id, request_id_of(headers), (None, None, None), latency,
                         "invalid_response")
            return Failure("invalid_response", True, f"unusable response body: {exc}",
                            reason=f"unusable responses from {self.provider}")
        rid = request_id_of(headers, completion.id)
        if not completion.choices:
            self._record(attempt_id, rid, (None, None, None), latency, "invalid_response")
            return Failure("invalid_response", True, "response has no choices",
                            reason=f"unusable responses from {self.provider}")
        reported = reported_usage(completion)
        self._record(attempt_id, rid, reported, latency, "ok")
        choice = completion.choices[0]
        return Completion(choice.message, choice.finish_reason, rid, reported)

    async def _one_sdk(self, attempt_id: str, kwargs: dict[str, Any]) -> Completion | Failure:
        import openai

        sdk = self._client()
        started = self.timer()
        try:
            # The raw body, read before the call returns (not streamed): decoded as the lean
            # path's is, never by the SDK's unchecked models.
            raw = await sdk.chat.completions.with_raw_response.create(**kwargs)
            data = raw.content
        except ResponseTooLarge as exc:  # raised by the response hook (body_cap)
            return self._too_large(attempt_id, exc, self.timer() - started)
        except openai.APIStatusError as exc:
            outcome, retryable = classify_status(exc.status_code)
            headers = exc.response.headers
            self._record(attempt_id, request_id_of(headers, exc.request_id), (0, 0, None),
                         self.timer() - started, outcome)
            # The provider's message read from the body as the lean path reads it: the SDK's
            # own (`Error code: 500 - ...`) would repeat the status and differ between paths.
            message = lean.error_message(exc.response.content)
            return Failure(outcome, retryable, f"HTTP {exc.status_code}: {message}",
                            retry_after_s(headers),
                            f"{self.provider} answered HTTP {exc.status_code} ({outcome})")
        except openai.APIConnectionError as exc:  # APITimeoutError is one too
            # SDK versions that wrap every transport error wrap the hook's too
            too_large = next((e for e in chain_of(exc) if isinstance(e, ResponseTooLarge)), None)
            if too_large is not None:
                return self._too_large(attempt_id, too_large, self.timer() - started)
            never_sent = connect_failure(exc, self.provider)
            if never_sent is not None:
                self._record(attempt_id, None, (0, 0, None), self.timer() - started,
                             "connection_error", sent=False)
                return Failure("connection_error", True, never_sent, reason=never_sent)
            if isinstance(exc, openai.APITimeoutError):
                self._record(attempt_id, None, (None, None, None), self.timer() - started,
                             "timeout")
                why = f"no response from {self.provider} within {self.target.timeout_s:g} s"
                return Failure("timeout", True, why, reason=why)
            self._record(attempt_id, None, (None, None, None), self.timer() - started,
                         "connection_lost")
            # The SDK's own text is only "Connection error."; its cause (httpx's) says what.
            cause = exc.__cause__ or exc
            return Failure("connection_lost", True, f"{type(cause).__name__}: {cause}",
                            reason=f"{self.provider} dropped the connection before answering")
        except openai.OpenAIError as exc:  # raised before a request was sent: nothing billable
            raise InfraError(redact(f"openai client error: {exc}", self.secrets)) from None
        return self._answered(attempt_id, raw.headers, data, self.timer() - started)

    def _backoff(self, retry_no: int, hint: float | None) -> float:
        wait = self.backoff_base_s * 2 ** (retry_no - 1)
        if hint is not None:
            wait = max(wait, hint)  # never retry sooner than the provider asked
        return min(wait, self.backoff_cap_s)

    async def complete(self, kwargs: dict[str, Any], *, body: bytes | None = None) -> Completion:
        """Return the first choice of a chat completion, retrying transient failures.

        `body`, when given, is `lean.encode_body(kwargs)` already built (the policy joins it from
        each message's kept bytes); the lean path sends it, the SDK path sends `kwargs`.
        """
        self._requests += 1
        failures: list[str] = []
        for try_no in range(1, self.target.max_retries + 2):
            attempt_id = f"r{self._requests:03d}.{try_no}"
            started = self.timer()
            try:
                result = await self._one(attempt_id, kwargs, body)
            except asyncio.CancelledError:  # cut at the hard deadline, or the run interrupted
                self._record_cancelled(attempt_id, self.timer() - started)
                raise
            if isinstance(result, Completion):
                self.failure = None
                return result
            failures.append(result.outcome)
            detail = redact(result.detail, self.secrets)
            self.failure = {"outcome": result.outcome,
                            "reason": redact(result.reason or result.outcome, self.secrets)}
            if not result.retryable:
                self.failure["reason"] = (f"{self.provider} rejected the request "
                                          f"({result.outcome})")
                raise InfraError(
                    f"{self.provider} rejected the request for model {self.target.model!r} "
                    f"({result.outcome}, {detail}); this is a configuration error (model name, "
                    "endpoint, key or decoding parameters), not an agent failure")
            if try_no <= self.target.max_retries:
                wait = self._backoff(try_no, result.wait_hint)
                self.retries.append({"attempt_id": attempt_id, "outcome": result.outcome,
                                     "wait_s": wait})
                # The provider's time from the wait's start, corrected to what it took when
                # it ends (or is cancelled): a campaign's hard cut reads provider_s while the
                # wait runs, and must not count it as the agent's time.
                waited_from = self.clock.now()
                self.provider_s += wait
                try:
                    await self.clock.sleep(wait)
                finally:
                    self.provider_s += self.clock.now() - waited_from - wait
        reason = self.failure["reason"] if self.failure else self.provider
        # The last error follows only when it adds to the reason: for a refused connection
        # or a timeout the two are the same words, which every output would print twice.
        last = "" if detail in reason else f"; last error: {detail}"
        raise InfraError(
            f"{reason}: retry budget exhausted for model {self.target.model!r} after "
            f"{n_counted(len(failures), 'attempts')} ({', '.join(failures)}){last}")
