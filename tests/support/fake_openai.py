"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1, for tests.

Each POST to /v1/chat/completions takes the next reply of the script. A reply is a dict
{"status", "body", "headers", "delay"} or a callable that receives the request's JSON body and
returns one (so a test can play a model that reacts to the tool results it is sent). Every
request is recorded (body and headers) for assertions. It runs in a daemon thread and stops on
context exit; nothing leaves the loopback interface.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = dict[str, Any]
Script = Iterable[Reply | Callable[[dict[str, Any]], Reply]]


def usage(prompt: int = 100, completion: int = 20, cached: int | None = None) -> dict[str, Any]:
    """Return a usage block (with prompt_tokens_details.cached_tokens when `cached` is given)."""
    out: dict[str, Any] = {"prompt_tokens": prompt, "completion_tokens": completion,
                           "total_tokens": prompt + completion}
    if cached is not None:
        out["prompt_tokens_details"] = {"cached_tokens": cached}
    return out


def completion(message: dict[str, Any], *, finish_reason: str = "stop",
               use: dict[str, Any] | None = None, headers: dict[str, str] | None = None) -> Reply:
    """Return a 200 reply carrying one choice with `message`."""
    body: dict[str, Any] = {
        "id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": "fake",
        "choices": [{"index": 0, "message": {"role": "assistant", **message},
                     "finish_reason": finish_reason}],
    }
    if use is not None:
        body["usage"] = use
    return {"status": 200, "body": body, "headers": headers or {}}


def tool_calls(*calls: tuple[str, dict[str, Any] | str] | tuple[str, dict[str, Any] | str, str],
               use: dict[str, Any] | None = None, content: str | None = None) -> Reply:
    """Return a reply with tool calls (name, args dict or raw arguments string[, id])."""
    out = []
    for i, call in enumerate(calls):
        name, args = call[0], call[1]
        call_id = call[2] if len(call) > 2 else f"call_{i}"
        raw = args if isinstance(args, str) else json.dumps(args)
        out.append({"id": call_id, "type": "function",
                    "function": {"name": name, "arguments": raw}})
    return completion({"content": content, "tool_calls": out}, finish_reason="tool_calls",
                      use=use if use is not None else usage())


def text(content: str, use: dict[str, Any] | None = None) -> Reply:
    """Return a reply with plain text and no tool call."""
    return completion({"content": content}, use=use if use is not None else usage())


def http_error(status: int, message: str = "error", *,
               headers: dict[str, str] | None = None) -> Reply:
    """Return an OpenAI-style error reply with `status`."""
    return {"status": status, "headers": headers or {},
            "body": {"error": {"message": message, "type": "fake_error", "code": None}}}


def read_request(conn: socket.socket) -> bytes:
    """Read one whole HTTP request (headers and content-length body) from a raw connection.

    A raw-socket server that answers after one recv() may close with request bytes unread,
    which resets the connection (the client sees a reset, not the answer under test).
    """
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    return data


class FakeOpenAI:
    """The server: `with FakeOpenAI(script) as srv: ... srv.base_url ... srv.requests`."""

    def __init__(self, script: Script) -> None:
        self._script = list(script)
        self._lock = threading.Lock()
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.exhausted = False
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,),
                                        daemon=True)  # short poll: quick shutdown

    @property
    def base_url(self) -> str:
        """Return the OpenAI-style base URL (ending in /v1)."""
        port = self._server.server_address[1]
        return f"http://127.0.0.1:{port}/v1"

    def _next(self, body: dict[str, Any], headers: dict[str, str]) -> Reply:
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)
            if not self._script:
                self.exhausted = True
                return http_error(400, "fake server: script exhausted")
            reply = self._script.pop(0)
        return reply(body) if callable(reply) else reply

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go out at once: no 40 ms stalls

            def log_message(self, format: str, *args: Any) -> None:
                pass  # keep test output clean

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                if not self.path.endswith("/chat/completions"):
                    reply = http_error(404, f"fake server: no route {self.path}")
                else:
                    reply = fake._next(json.loads(raw or b"{}"),
                                       {k.lower(): v for k, v in self.headers.items()})
                    time.sleep(float(reply.get("delay", 0.0)))
                payload = reply["body"]
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                n = len(fake.requests)
                try:
                    self.send_response(int(reply["status"]))
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.send_header("x-request-id", f"req_{n}")
                    for k, v in reply.get("headers", {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

        return Handler

    def __enter__(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


@contextmanager
def raw_server(answer: Callable[[socket.socket], None], connections: int = 2
               ) -> Iterator[str]:
    """Accept `connections` raw connections on 127.0.0.1, hand each to `answer` and close it;
    yield the base URL (`http://127.0.0.1:PORT/v1`). For answers no HTTP server would give
    (a connection dropped, a body cut short or without end)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen()
    port = srv.getsockname()[1]

    def serve() -> None:
        for _ in range(connections):
            try:
                conn, _ = srv.accept()
            except OSError:  # closed: the client stopped early
                return
            try:
                answer(conn)
            finally:
                conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        srv.close()
        thread.join(timeout=30)
