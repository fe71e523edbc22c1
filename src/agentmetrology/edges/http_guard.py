"""The one request guard of every local HTTP server (viewer, MCP over HTTP, OpenEnv).

A server on 127.0.0.1 is still reachable from any web page the user opens: a page whose name
resolves to 127.0.0.1 (DNS rebinding) sends its own name as Host, and a page of another site
sends its own Origin. The guard answers before the application sees the request:

- Host must be exactly `host[:port]` (a name or an address, IPv6 in brackets, a numeric port)
  naming one of the server's own names; anything else is 421, a missing Host 400.
- Origin, when sent, must be exactly one of the server's own `http://host:port` forms (another
  port on the same machine is another origin); anything else is 403.
- A body is read in full, up to `max_body` bytes, before the application sees it; more is 413
  and is not read further.
- An exception the application lets out is a bare 500 and one log line, never a traceback.
- Error bodies and log lines quote at most `PREFIX_CHARS` characters of what the client sent.

It is plain ASGI (no framework), so every server layer can wrap its app in it.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping, MutableMapping
from typing import Any

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
# The largest request body a JSON server (MCP, OpenEnv) accepts: a tool call or an action with
# its arguments is a few KB; 8 MiB leaves room for a large submission and bounds the memory a
# client can make the server hold (the body is read before it is parsed).
MAX_BODY_BYTES = 8 * 1024 * 1024
# Quoted input in error messages and logs: enough to recognise a value, never a whole body.
PREFIX_CHARS = 64

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# A DNS name or IPv4 address, or an IPv6 address in brackets; then an optional numeric port.
_HOST = re.compile(r"(?P<name>[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?|\[[0-9a-f:.]+\])"
                   r"(?::(?P<port>[0-9]{1,5}))?")


def prefix(value: str | bytes, limit: int = PREFIX_CHARS) -> str:
    """Return repr of at most `limit` characters of `value`, marked when cut."""
    text = value.decode("latin-1") if isinstance(value, bytes) else value
    cut = text[:limit]
    return repr(cut) + (f" (cut at {limit} of {len(text):,} characters)" if cut != text else "")


def parse_host(header: str) -> tuple[str, int | None] | None:
    """Return (lowercased name, port or None) of a strict `host[:port]`; None when malformed.

    IPv6 addresses come without brackets ('[::1]:80' -> ('::1', 80)); userinfo, paths,
    spaces, empty or non-numeric ports and ports above 65535 are malformed.
    """
    m = _HOST.fullmatch(header.lower())
    if m is None:
        return None
    port = None if m["port"] is None else int(m["port"])
    if port is not None and not 0 < port <= 65535:
        return None
    return m["name"].strip("[]"), port


def host_name(header: str) -> str | None:
    """Return the name part of a strict Host header, lowercased ('[::1]:80' -> '::1'); else None."""
    parsed = parse_host(header)
    return None if parsed is None else parsed[0]


def origins(names: Iterable[str], port: int, scheme: str = "http") -> frozenset[str]:
    """Return the exact Origin values of a server reached by `names` on `port`."""
    out = set()
    for name in names:
        shown = f"[{name}]" if ":" in name else name
        out.add(f"{scheme}://{shown}:{port}")
        if (scheme, port) in (("http", 80), ("https", 443)):
            out.add(f"{scheme}://{shown}")  # a browser omits the default port
    return frozenset(out)


class HttpGuard:
    """Answers a foreign or malformed Host (421), a foreign Origin (403), a body over the limit
    (413); passes every other request, with its body read in full, to `app`."""

    def __init__(self, app: ASGIApp, *, hosts: Iterable[str] = LOOPBACK_NAMES,
                 port: int | None = None, max_body: int = 0,
                 headers: Mapping[str, str] | None = None,
                 log: logging.Logger | None = None) -> None:
        self.app = app
        self.hosts = frozenset(h.lower().strip("[]") for h in hosts)
        self.port = port  # None: the port the request arrived on (the ASGI server's)
        self.max_body = max_body
        self.headers = dict(headers or {})
        self.log = log or logging.getLogger("agentmetrology.http")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Check one request and pass it on, or answer it with an error."""
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        refusal = self.refusal(scope)
        if refusal is None and scope["type"] == "http":
            body = await self._body(scope, receive)
            if body is None:
                refusal = (413, f"a request body is limited to {self.max_body:,} bytes\n")
            else:
                receive = _replay(body, receive)
        if refusal is None:
            await self._pass(scope, receive, send)
        elif scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})  # before accept: HTTP 403
        else:
            await self._answer(send, *refusal)

    async def _pass(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Run the app; an exception it lets out is one log line and a bare 500, no traceback."""
        started = False

        async def watch(message: Message) -> None:
            nonlocal started
            started = started or message["type"] in ("http.response.start", "websocket.accept",
                                                     "websocket.close")
            await send(message)
        try:
            await self.app(scope, receive, watch)
        except Exception as exc:
            self.log.error("internal error on %s: %s", prefix(scope.get("path", "")),
                           type(exc).__name__)
            if not started and scope["type"] == "http":
                await self._answer(send, 500, "internal error\n")

    def refusal(self, scope: Scope) -> tuple[int, str] | None:
        """Return (status, message) when the request's Host or Origin is not this server's."""
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers") or []}
        host = headers.get("host")
        if host is None:
            return 400, "a Host header is required\n"
        if host_name(host) not in self.hosts:
            # A page of another site whose name resolves to 127.0.0.1 (DNS rebinding).
            self.log.warning("refused Host %s for %s", prefix(host), prefix(scope.get("path", "")))
            return 421, f"host {prefix(host)} is not served here\n"
        origin = headers.get("origin")
        if origin is not None and origin.lower() not in self._origins(scope):
            self.log.warning("refused Origin %s", prefix(origin))
            return 403, f"origin {prefix(origin)} may not use this server\n"
        return None

    def _origins(self, scope: Scope) -> frozenset[str]:
        port = self.port
        if port is None:
            server = scope.get("server")
            port = server[1] if server and server[1] is not None else 80
        scheme = "https" if scope.get("scheme") in ("https", "wss") else "http"
        return origins(self.hosts, port, scheme)

    async def _body(self, scope: Scope, receive: Receive) -> bytes | None:
        """Return the whole request body, or None once it exceeds max_body (read no further)."""
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length", b"").strip()
        if declared and (not declared.isdigit() or int(declared) > self.max_body):
            return None
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return b"".join(chunks)  # a disconnect: the app sees what there was
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    async def _answer(self, send: Send, status: int, text: str) -> None:
        body = text.encode("utf-8")
        headers = [(b"content-type", b"text/plain; charset=utf-8"),
                   (b"content-length", str(len(body)).encode()),
                   *((k.lower().encode("latin-1"), v.encode("latin-1"))
                     for k, v in self.headers.items())]
        if status == 413:
            headers.append((b"connection", b"close"))  # the rest of the body is never read
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def _replay(body: bytes, receive: Receive) -> Receive:
    """Return a receive that yields `body` once, then waits on the real one (disconnects)."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()
    return replay
