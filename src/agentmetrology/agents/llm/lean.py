"""The lean HTTP path for chat completions: aiohttp for the request, msgspec for the bodies.

The `openai` SDK spends about 1.5 ms of CPU per request here (its cost is httpx's), which caps
one process near 600 requests/s; aiohttp with msgspec bodies costs a tenth of that. This module
does only the transport: send one JSON body, return status, headers and the decoded completion,
or raise one of three errors that say how far the request got (never connected, no answer in
time, connection lost after sending). Retries, billing, cost and redaction stay in
`client.ChatClient`, identical for both paths.
"""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import Mapping
from typing import Any, ClassVar
from urllib.parse import urlsplit, urlunsplit
from urllib.request import proxy_bypass_environment  # type: ignore[attr-defined]

import msgspec

from agentmetrology.agents.llm.body_cap import read_capped

DEFAULT_BASE_URL = "https://api.openai.com/v1"
USER_AGENT = "agentmetrology-lean/1"


class _Function(msgspec.Struct):
    name: str | None = None
    arguments: str | None = None


class _ToolCall(msgspec.Struct):
    id: str | None = None
    type: str | None = None
    function: _Function | None = None


class Message(msgspec.Struct):
    """The assistant message of a completion (the fields the policy reads)."""

    role: str | None = None
    content: str | None = None
    tool_calls: list[_ToolCall] | None = None
    # Reasoning some providers return beside the content (kept in the transcript); Any, so
    # that an unexpected shape never makes a usable completion unreadable.
    reasoning_content: Any = None
    reasoning: Any = None


class _Choice(msgspec.Struct):
    message: Message
    finish_reason: str | None = None
    index: int = 0


# The counts are Any: a count of the wrong type (100.5, "100", true) is checked where usage is
# (usage.py: unknown, kept as reported), as on the SDK path; the completion stays usable.
class _Details(msgspec.Struct):
    cached_tokens: Any = None


class Usage(msgspec.Struct):
    """Token counts of a completion, as reported (checked in usage.py)."""

    prompt_tokens: Any = None
    completion_tokens: Any = None
    prompt_tokens_details: _Details | None = None


class ChatCompletion(msgspec.Struct):
    """A chat completion body; unknown fields are ignored, wrong types are an error."""

    id: str | None = None
    choices: list[_Choice] = msgspec.field(default_factory=list)
    usage: Usage | None = None


class _ErrorBody(msgspec.Struct):
    message: str | None = None


class _ErrorEnvelope(msgspec.Struct):
    error: _ErrorBody | str | None = None


_DECODE = msgspec.json.Decoder(ChatCompletion)
_DECODE_ERROR = msgspec.json.Decoder(_ErrorEnvelope)
_ENCODE = msgspec.json.Encoder()


class NeverConnected(Exception):
    """No connection was established: the request was never sent (nothing billable)."""


class NoAnswerInTime(Exception):
    """The request was sent (or may have been) and no answer came within the timeout."""


class ConnectionLost(Exception):
    """The connection broke after the request was sent, before a full answer."""


class Unsendable(Exception):
    """The request cannot be made at all (an invalid URL): a configuration error."""


def available() -> str | None:
    """Return why the lean path cannot run here (aiohttp missing), or None when it can."""
    try:
        import aiohttp  # noqa: F401
    except ImportError as exc:
        return f"the lean HTTP client needs aiohttp ({exc}); pip install aiohttp"
    return None


def endpoint_url(base_url: str | None) -> str:
    """Return the chat-completions URL of a base URL, without userinfo (the key is the auth).

    No base URL means api.openai.com. Unlike the SDK, OPENAI_BASE_URL is never read: the
    endpoint is the target's (recorded in its configuration and every attempt's provider), so
    a variable cannot send a campaign's requests somewhere its records do not name.
    """
    base = base_url or DEFAULT_BASE_URL
    parts = urlsplit(base)
    netloc = parts.netloc.rsplit("@", 1)[-1]
    path = parts.path.rstrip("/") + "/chat/completions"
    return urlunsplit((parts.scheme, netloc, path, parts.query, ""))


def encode_json(value: Any) -> bytes:
    """Return the compact JSON bytes of `value`, as every request body is written."""
    return _ENCODE.encode(value)


def encode_body(kwargs: Mapping[str, Any]) -> bytes:
    """Return the JSON request body of create(**kwargs): extra_body merged in, as the SDK does."""
    body = {k: v for k, v in kwargs.items() if k != "extra_body"}
    extra = kwargs.get("extra_body")
    if extra:
        body.update(extra)
    return _ENCODE.encode(body)


def decode_completion(data: bytes) -> ChatCompletion:
    """Return the decoded completion; ValueError (with what is wrong) when it is unusable."""
    try:
        return _DECODE.decode(data)
    except msgspec.DecodeError as exc:  # ValidationError is a DecodeError
        raise ValueError(str(exc)) from None


def error_message(data: bytes) -> str:
    """Return the provider's error message from an error body, else the body's start."""
    try:
        env = _DECODE_ERROR.decode(data)
    except msgspec.DecodeError:
        env = None
    if env is not None and isinstance(env.error, _ErrorBody) and env.error.message:
        return env.error.message
    if env is not None and isinstance(env.error, str) and env.error:
        return env.error
    return data[:500].decode("utf-8", "replace") or "(empty body)"


def never_connected_reason(exc: BaseException, endpoint: str) -> str:
    """Return the one-line reason of a connection that was never established."""
    os_error = getattr(exc, "os_error", None)
    if isinstance(os_error, ConnectionRefusedError):
        return f"connection refused by {endpoint}"
    if isinstance(os_error, socket.gaierror) or type(exc).__name__ == "ClientConnectorDNSError":
        return f"cannot resolve the host of {endpoint}"
    if isinstance(exc, asyncio.TimeoutError):
        return f"no connection to {endpoint} (connect timeout)"
    return f"cannot connect to {endpoint}"


def payload_error_text(exc: BaseException) -> str:
    """Return what went wrong with a response body that ended early, in aiohttp's words.

    aiohttp's own text quotes its parser error's repr (`<ContentLengthError: 400, ...>`), whose
    400 is a code of the parser, not a status the server sent: the parser's message alone.
    """
    cause = exc.__cause__
    message = getattr(cause, "message", None)
    if isinstance(message, str) and message:
        return f"the response body ended early: {message.rstrip('.')}"
    return f"the response body ended early: {type(exc).__name__}: {exc}"


def env_proxy(url: str) -> str | None:
    """Return the proxy for `url` from HTTP(S)_PROXY / ALL_PROXY unless NO_PROXY exempts it."""
    parts = urlsplit(url)

    def get(name: str) -> str:  # lower case first, as urllib and httpx read them
        return os.environ.get(name) or os.environ.get(name.upper()) or ""

    proxy = get(f"{parts.scheme}_proxy") or get("all_proxy")
    if not proxy or proxy_bypass_environment(parts.hostname or "", {"no": get("no_proxy")}):
        return None
    return proxy


class _Pool:
    """One aiohttp session (one connection pool) per event loop, shared by every transport.

    Reference-counted: the last transport of a loop to close closes it, so concurrent episodes
    reuse each other's keep-alive connections and nothing is left open when the run ends.
    """

    sessions: ClassVar[dict[asyncio.AbstractEventLoop, tuple[Any, int]]] = {}

    @classmethod
    def acquire(cls) -> Any:
        import aiohttp

        loop = asyncio.get_running_loop()
        session, refs = cls.sessions.get(loop, (None, 0))
        if session is None or session.closed:
            session, refs = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=0),
                # trust_env=False: aiohttp would look proxies and ~/.netrc up again on every
                # request (a thread hop, ~0.3 ms of CPU each); env_proxy() does it once.
                trust_env=False), 0
        cls.sessions[loop] = (session, refs + 1)
        return session

    @classmethod
    async def release(cls, session: Any) -> None:
        loop = asyncio.get_running_loop()
        current, refs = cls.sessions.get(loop, (None, 0))
        if current is not session:  # not the pool's (already replaced): close it alone
            await session.close()
            return
        if refs <= 1:
            del cls.sessions[loop]
            await session.close()
        else:
            cls.sessions[loop] = (session, refs - 1)


class LeanTransport:
    """Posts chat-completion bodies to one endpoint over the event loop's shared pool.

    Create it inside the running event loop; `aclose()` it in the same loop.
    """

    def __init__(self, url: str, api_key: str, timeout_s: float, endpoint: str) -> None:
        import aiohttp

        from agentmetrology.agents.llm.endpoint import shared_ssl_context

        self.url = url
        self.endpoint = endpoint
        self.headers = {"Authorization": f"Bearer {api_key}",
                        "Content-Type": "application/json", "Accept": "application/json",
                        "User-Agent": USER_AGENT}
        # As httpx's single timeout: connect and every read wait at most timeout_s.
        self.timeout = aiohttp.ClientTimeout(total=None, connect=None, sock_connect=timeout_s,
                                             sock_read=timeout_s)
        self.ssl = shared_ssl_context() if url.startswith("https:") else True
        self.proxy = env_proxy(url)  # HTTP(S)_PROXY / NO_PROXY, as httpx
        self.session: Any = _Pool.acquire()

    async def post(self, body: bytes) -> tuple[int, Mapping[str, str], bytes]:
        """Send one body; return (status, headers, raw body) or raise a transport error."""
        import aiohttp

        try:
            async with self.session.post(self.url, data=body, headers=self.headers,
                                         proxy=self.proxy, timeout=self.timeout,
                                         ssl=self.ssl) as resp:
                return resp.status, resp.headers, await read_capped(resp)
        except aiohttp.InvalidURL as exc:
            raise Unsendable(f"invalid endpoint URL: {exc}") from exc
        except aiohttp.ClientConnectorError as exc:  # refused, DNS, TLS handshake, proxy
            raise NeverConnected(never_connected_reason(exc, self.endpoint)) from exc
        except aiohttp.ConnectionTimeoutError as exc:
            raise NeverConnected(never_connected_reason(exc, self.endpoint)) from exc
        except (TimeoutError, aiohttp.ServerTimeoutError) as exc:
            raise NoAnswerInTime(str(exc)) from exc
        except aiohttp.ClientPayloadError as exc:
            raise ConnectionLost(payload_error_text(exc)) from exc
        except (aiohttp.ClientError, OSError) as exc:  # disconnected, reset, bad HTTP
            raise ConnectionLost(f"{type(exc).__name__}: {exc}") from exc

    async def aclose(self) -> None:
        """Give the shared pool back (the loop's last transport closes it)."""
        if self.session is not None:
            session, self.session = self.session, None
            await _Pool.release(session)
