"""One chat-completion request with retries, where every HTTP request is one BillableAttempt.

Two HTTP paths do the request, selected per client (`http_client`, default from the
AGM_LLM_CLIENT variable, else "lean" when aiohttp is installed): "lean" (aiohttp + msgspec,
`lean.py`, about a tenth of the CPU per request) or "sdk" (the official `openai` SDK with its own
retries switched off, max_retries=0). Either way each request the provider sees is recorded here
exactly once, through the same code: request id, tokens, cached
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
  and visible, rather than a silent 0.

Every attempt is handed to `on_attempt` (when given) as soon as its response (or failure)
arrives, before the episode ends, so a campaign can write it to the ledger at once: a killed run
loses at most the request in flight.
"""

from __future__ import annotations

import functools
import inspect
import os
import socket
import ssl
import time
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from agentmetrology.agents.llm import lean
from agentmetrology.agents.llm.redact import env_secrets, redact
from agentmetrology.agents.llm.target import LLMTarget
from agentmetrology.records.clock import Clock
from agentmetrology.records.episode import BillableAttempt
from agentmetrology.records.errors import InfraError

if TYPE_CHECKING:
    from openai import AsyncOpenAI
    from openai.types.chat import ChatCompletion

    from agentmetrology.agents.llm.lean import ChatCompletion as LeanCompletion
    from agentmetrology.agents.llm.lean import LeanTransport

# Sent when no key variable is configured: local servers (vLLM, Ollama, llama.cpp) ignore the
# key, but the SDK insists on one. Never a real credential.
PLACEHOLDER_KEY = "agm-no-key"
DEFAULT_OPENAI_KEY_ENV = "OPENAI_API_KEY"
BACKOFF_BASE_S = 1.0
BACKOFF_CAP_S = 60.0
HTTP_CLIENTS = ("lean", "sdk")
HTTP_CLIENT_ENV = "AGM_LLM_CLIENT"


AttemptSink = Callable[[BillableAttempt], None]


@dataclass(frozen=True, slots=True)
class Completion:
    """A successful chat completion: the first choice's message and why generation stopped."""

    message: Any  # openai.types.chat.ChatCompletionMessage or lean.Message (same fields)
    finish_reason: str | None
    request_id: str | None


def provider_of(target: LLMTarget) -> str:
    """Return the provider label of a target: the endpoint's host[:port], without credentials."""
    if not target.base_url:
        return "api.openai.com"
    parts = urlsplit(target.base_url)
    return (parts.netloc.rsplit("@", 1)[-1] or parts.path or "unknown").lower()


def key_env_of(target: LLMTarget) -> str | None:
    """Return the key variable: the configured one, else OPENAI_API_KEY for api.openai.com."""
    if target.api_key_env:
        return target.api_key_env
    return DEFAULT_OPENAI_KEY_ENV if not target.base_url else None


def resolve_api_key(target: LLMTarget) -> str:
    """Return the API key from the target's variable (or a placeholder), or raise InfraError."""
    name = key_env_of(target)
    if name is None:
        return PLACEHOLDER_KEY
    value = os.environ.get(name)
    if not value:
        raise InfraError(f"the API key variable {name} is not set (target {target.name!r}, "
                         f"endpoint {provider_of(target)}); export it, or name another "
                         "variable with --api-key-env / api_key_env")
    return value


def classify_status(code: int) -> tuple[str, bool]:
    """Return (outcome, retryable) for an HTTP error status."""
    if code == 429:
        return "rate_limited", True
    if code == 408:
        return "timeout", True
    if code == 409:
        return "conflict", True
    if code >= 500:
        return "server_error", True
    names = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
             413: "too_large", 422: "unprocessable"}
    return names.get(code, f"http_{code}"), False


def retry_after_s(headers: Mapping[str, str] | None) -> float | None:
    """Return the server's requested wait in seconds (retry-after-ms / retry-after), if any."""
    if not headers:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        raw = headers.get(name)
        if raw is None:
            continue
        try:
            value = float(raw) * scale
        except ValueError:
            continue  # an HTTP date: fall back to our own backoff
        if value >= 0:
            return value
    return None


def _request_id(headers: Mapping[str, str] | None, fallback: str | None = None) -> str | None:
    if headers:
        for name in ("x-request-id", "request-id"):
            if headers.get(name):
                return str(headers[name])
    return fallback


def _usage(completion: ChatCompletion | LeanCompletion,
           ) -> tuple[int | None, int | None, int | None]:
    u = completion.usage
    if u is None:
        return None, None, None
    details = getattr(u, "prompt_tokens_details", None)
    cached = getattr(details, "cached_tokens", None) if details is not None else None
    return u.prompt_tokens, u.completion_tokens, cached


@dataclass(slots=True)
class _Failure:
    outcome: str
    retryable: bool
    detail: str
    wait_hint: float | None = None
    reason: str = ""  # one stable line per failure mode (same cause, same text), no secrets


def _chain(exc: BaseException) -> list[BaseException]:
    """Return an exception and its causes/contexts, outermost first (cycles cut)."""
    out: list[BaseException] = []
    cur: BaseException | None = exc
    while cur is not None and cur not in out:
        out.append(cur)
        cur = cur.__cause__ or cur.__context__
    return out


def connect_failure(exc: BaseException, endpoint: str) -> str | None:
    """Return why no connection to `endpoint` was established, or None if one was.

    The HTTP stack raises a Connect* error (ConnectError, ConnectTimeout) only before a single
    byte of the request is sent; every later failure (read, write, protocol) may follow a request
    the provider received and billed.
    """
    chain = _chain(exc)
    if not any(type(e).__name__ in ("ConnectError", "ConnectTimeout") for e in chain):
        return None
    if any(isinstance(e, ConnectionRefusedError) for e in chain):
        return f"connection refused by {endpoint}"
    if any(isinstance(e, socket.gaierror) for e in chain):
        return f"cannot resolve the host of {endpoint}"
    if any(type(e).__name__ == "ConnectTimeout" for e in chain):
        return f"no connection to {endpoint} (connect timeout)"
    return f"cannot connect to {endpoint}"


def resolve_http_client(choice: str | None = None) -> str:
    """Return the HTTP path to use: `choice`, else $AGM_LLM_CLIENT, else lean if it can run.

    ValueError for a name that is neither "lean" nor "sdk", or for "lean" without aiohttp.
    """
    from agentmetrology.agents.llm.lean import available

    name = (choice or os.environ.get(HTTP_CLIENT_ENV) or "").strip().lower()
    if not name:
        return "lean" if available() is None else "sdk"
    if name not in HTTP_CLIENTS:
        source = "http_client" if choice else HTTP_CLIENT_ENV
        raise ValueError(f"unknown LLM HTTP client {name!r} ({source}); use lean or sdk")
    problem = available() if name == "lean" else None
    if problem is not None:
        raise ValueError(problem)
    return name


class ChatClient:
    """Chat completions for one target and one episode, recording every HTTP attempt."""

    def __init__(self, target: LLMTarget, clock: Clock, *,
                 timer: Callable[[], float] = time.perf_counter,
                 backoff_base_s: float = BACKOFF_BASE_S,
                 backoff_cap_s: float = BACKOFF_CAP_S,
                 on_attempt: AttemptSink | None = None,
                 http_client: str | None = None) -> None:
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
            http = DefaultAsyncHttpxClient(verify=shared_ssl_context())
            self._sdk = AsyncOpenAI(base_url=self.target.base_url,
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

    def _record(self, attempt_id: str, request_id: str | None, tokens: tuple[int | None, ...],
                latency: float, outcome: str, *, sent: bool = True) -> None:
        inp, out, cached = tokens
        # A request never sent costs nothing, whatever the prices are.
        cost = self.target.prices.cost(inp, out, cached) if sent else 0.0
        if cost is None:
            if inp is None or out is None:
                self._warn(f"{self.target.name}: an attempt reported no token counts "
                           f"(outcome {outcome}); its cost is unknown (null)")
            else:
                self._warn(f"{self.target.name}: no complete price for model "
                           f"{self.target.model!r}; attempt costs are null, not 0")
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

    def _one(self, attempt_id: str, kwargs: dict[str, Any],
             body: bytes | None) -> Coroutine[Any, Any, Completion | _Failure]:
        # The path's coroutine itself, not one wrapping it: every resumption of a request in
        # flight passes through each coroutine level once.
        if self.http_client == "lean":
            return self._one_lean(attempt_id, kwargs if body is None else body)
        return self._one_sdk(attempt_id, kwargs)

    async def _one_lean(self, attempt_id: str,
                        request: dict[str, Any] | bytes) -> Completion | _Failure:
        transport = self._transport()
        body = request if isinstance(request, bytes) else lean.encode_body(request)
        started = self.timer()
        try:
            status, headers, data = await transport.post(body)
        except lean.NeverConnected as exc:
            self._record(attempt_id, None, (0, 0, None), self.timer() - started,
                         "connection_error", sent=False)
            return _Failure("connection_error", True, str(exc), reason=str(exc))
        except lean.NoAnswerInTime:
            self._record(attempt_id, None, (None, None, None), self.timer() - started,
                         "timeout")
            why = f"no response from {self.provider} within {self.target.timeout_s:g} s"
            return _Failure("timeout", True, why, reason=why)
        except lean.ConnectionLost as exc:
            self._record(attempt_id, None, (None, None, None), self.timer() - started,
                         "connection_lost")
            return _Failure("connection_lost", True, str(exc),
                            reason=f"{self.provider} dropped the connection before answering")
        except lean.Unsendable as exc:  # nothing was sent: nothing billable
            raise InfraError(redact(f"lean client error: {exc}", self.secrets)) from None
        latency = self.timer() - started
        if status >= 400:
            outcome, retryable = classify_status(status)
            self._record(attempt_id, _request_id(headers), (0, 0, None), latency, outcome)
            return _Failure(outcome, retryable, f"HTTP {status}: {lean.error_message(data)}",
                            retry_after_s(headers),
                            f"{self.provider} answered HTTP {status} ({outcome})")
        try:
            completion = lean.decode_completion(data)
        except ValueError as exc:
            self._record(attempt_id, _request_id(headers), (None, None, None), latency,
                         "invalid_response")
            return _Failure("invalid_response", True, f"unusable response body: {exc}",
                            reason=f"unusable responses from {self.provider}")
        rid = _request_id(headers, completion.id)
        if not completion.choices:
            self._record(attempt_id, rid, (None, None, None), latency, "invalid_response")
            return _Failure("invalid_response", True, "response has no choices",
                            reason=f"unusable responses from {self.provider}")
        self._record(attempt_id, rid, _usage(completion), latency, "ok")
        choice = completion.choices[0]
        return Completion(choice.message, choice.finish_reason, rid)

    async def _one_sdk(self, attempt_id: str, kwargs: dict[str, Any]) -> Completion | _Failure:
        import openai

        sdk = self._client()
        started = self.timer()
        try:
            raw = await sdk.chat.completions.with_raw_response.create(**kwargs)
            parsed = raw.parse()  # synchronous in the SDK's legacy raw-response wrapper
            completion = await parsed if inspect.isawaitable(parsed) else parsed
        except openai.APIStatusError as exc:
            outcome, retryable = classify_status(exc.status_code)
            headers = exc.response.headers
            self._record(attempt_id, _request_id(headers, exc.request_id), (0, 0, None),
                         self.timer() - started, outcome)
            return _Failure(outcome, retryable, f"HTTP {exc.status_code}: {exc.message}",
                            retry_after_s(headers),
                            f"{self.provider} answered HTTP {exc.status_code} ({outcome})")
        except openai.APIConnectionError as exc:  # APITimeoutError is one too
            never_sent = connect_failure(exc, self.provider)
            if never_sent is not None:
                self._record(attempt_id, None, (0, 0, None), self.timer() - started,
                             "connection_error", sent=False)
                return _Failure("connection_error", True, never_sent, reason=never_sent)
            if isinstance(exc, openai.APITimeoutError):
                self._record(attempt_id, None, (None, None, None), self.timer() - started,
                             "timeout")
                why = f"no response from {self.provider} within {self.target.timeout_s:g} s"
                return _Failure("timeout", True, why, reason=why)
            self._record(attempt_id, None, (None, None, None), self.timer() - started,
                         "connection_lost")
            return _Failure("connection_lost", True, f"{type(exc).__name__}: {exc}",
                            reason=f"{self.provider} dropped the connection before answering")
        except (openai.APIResponseValidationError, ValueError) as exc:
            self._record(attempt_id, None, (None, None, None), self.timer() - started,
                         "invalid_response")
            return _Failure("invalid_response", True, f"unusable response body: {exc}",
                            reason=f"unusable responses from {self.provider}")
        except openai.OpenAIError as exc:  # raised before a request was sent: nothing billable
            raise InfraError(redact(f"openai client error: {exc}", self.secrets)) from None
        latency = self.timer() - started
        rid = _request_id(raw.headers, getattr(completion, "id", None))
        choices = getattr(completion, "choices", None)
        if not choices:
            self._record(attempt_id, rid, (None, None, None), latency, "invalid_response")
            return _Failure("invalid_response", True, "response has no choices",
                            reason=f"unusable responses from {self.provider}")
        self._record(attempt_id, rid, _usage(completion), latency, "ok")
        return Completion(choices[0].message, choices[0].finish_reason, rid)

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
            result = await self._one(attempt_id, kwargs, body)
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
                await self.clock.sleep(wait)
        raise InfraError(
            f"{self.failure['reason'] if self.failure else self.provider}: retry budget "
            f"exhausted for model {self.target.model!r} after {len(failures)} attempts "
            f"({', '.join(failures)}); last error: {detail}")


@functools.cache
def shared_ssl_context() -> ssl.SSLContext:
    """Return the process-wide TLS context (SSL_CERT_FILE, else certifi, else system roots)."""
    cafile = os.environ.get("SSL_CERT_FILE")
    if not cafile:
        try:
            import certifi

            cafile = certifi.where()
        except ImportError:  # no certifi: the system's trust store
            cafile = None
    return ssl.create_default_context(cafile=cafile)

