"""The zero-latency OpenAI-compatible model of the LLM benchmarks, and how a run is metered.

The server is a bare asyncio HTTP/1.1 server in a subprocess: it answers every chat completion
at once with the next `fetch_page` call, and plain text ("done") once it has been shown the last
page, and reports its own requests and CPU time. `Meter` takes wall time, this process's CPU
and the server's requests around a measured run; `GCMeter` the garbage collector's CPU.
Used by benchmarks/llm_throughput.py, llm_peer_inspect.py, llm_policy_profile.py and
llm_campaign_ray.py.
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import time
from typing import Any
from urllib.request import urlopen

# The model's replies; also what `policy_alone` answers with in-process.
REPLIES = r'''
import json

LAST = b'has_more\\": false'  # the last page, as a tool result quoted in a JSON string
DONE = json.dumps({"id": "bench", "object": "chat.completion", "created": 0, "model": "zero",
    "choices": [{"index": 0, "finish_reason": "stop",
                 "message": {"role": "assistant", "content": "done"}}],
    "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}}).encode()

def page_reply(page):
    call = {"id": f"call_{page}", "type": "function",
            "function": {"name": "fetch_page", "arguments": json.dumps({"page": page})}}
    return json.dumps({"id": "bench", "object": "chat.completion", "created": 0,
        "model": "zero", "choices": [{"index": 0, "finish_reason": "tool_calls",
        "message": {"role": "assistant", "content": None, "tool_calls": [call]}}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}}).encode()

PAGES = [page_reply(p) for p in range(1, 200)]

def reply_to(body):
    return DONE if LAST in body else PAGES[body.count(b'"tool_call_id"')]
'''

SERVER = REPLIES + r'''
import asyncio, sys, time

STATS = {"requests": 0}

def response(body, status=b"200 OK"):
    return (b"HTTP/1.1 " + status + b"\r\ncontent-type: application/json\r\ncontent-length: "
            + str(len(body)).encode() + b"\r\nx-request-id: bench\r\n\r\n" + body)

class Conn(asyncio.Protocol):
    def connection_made(self, transport):
        self.t, self.buf = transport, b""
    def data_received(self, data):
        self.buf += data
        while True:
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                return
            head = self.buf[:end].lower()
            i = head.find(b"content-length:")
            eol = head.find(b"\r\n", i)
            n = 0 if i < 0 else int(head[i + 15:eol if eol > 0 else None])
            if len(self.buf) < end + 4 + n:
                return
            body, self.buf = self.buf[end + 4:end + 4 + n], self.buf[end + 4 + n:]
            if head.startswith(b"get /stats"):
                STATS["cpu_s"] = time.process_time()
                self.t.write(response(json.dumps(STATS).encode()))
                continue
            STATS["requests"] += 1
            self.t.write(response(reply_to(body)))

async def main():
    loop = asyncio.get_running_loop()
    server = await loop.create_server(Conn, "127.0.0.1", 0, backlog=1024)
    print(server.sockets[0].getsockname()[1], flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)  # until EOF

asyncio.run(main())
'''


def canned_replies(pages: int = 8) -> list[bytes]:
    """Return the server's replies to one episode of `pages` pages, in order (the bytes the
    server sends: for answering in-process, benchmarks/llm_policy_profile.py)."""
    ns: dict[str, Any] = {}
    exec(REPLIES, ns)  # the same code the server runs: the same reply bytes
    return [*ns["PAGES"][:pages], ns["DONE"]]


class ServerHandle:
    """The running zero-latency model at `port`; `stats()` returns its requests and CPU."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.base_url = f"http://127.0.0.1:{port}/v1"

    def stats(self) -> dict[str, float]:
        """Return {"requests", "cpu_s"} of the server so far."""
        with urlopen(f"http://127.0.0.1:{self.port}/stats", timeout=10) as resp:
            return dict(json.loads(resp.read()))


class Server(ServerHandle):
    """The zero-latency model, started in a subprocess for the `with` block."""

    def __init__(self) -> None:
        pass  # the port is known once the server runs

    def __enter__(self) -> Server:
        self.proc = subprocess.Popen([sys.executable, "-c", SERVER], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        super().__init__(int(self.proc.stdout.readline()))
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


def _pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


class Meter:
    """Wall, process CPU and server requests/CPU around one measured run."""

    def __init__(self, server: ServerHandle) -> None:
        self.server = server

    def __enter__(self) -> Meter:
        self.s0 = self.server.stats()
        self.w0, self.c0 = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall = time.perf_counter() - self.w0
        self.cpu = time.process_time() - self.c0
        s1 = self.server.stats()
        self.steps = int(s1["requests"] - self.s0["requests"])
        self.server_cpu = s1["cpu_s"] - self.s0["cpu_s"]

    def result(self, latencies: list[float], **extra: Any) -> dict[str, Any]:
        """Return the measured figures."""
        steps = max(self.steps, 1)
        return {"steps": self.steps, "wall_s": round(self.wall, 3),
                "steps_per_s": round(self.steps / self.wall, 1),
                "cpu_ms_per_step": round(self.cpu / steps * 1e3, 3),
                "server_cpu_ms_per_step": round(self.server_cpu / steps * 1e3, 3),
                "latency_ms_p50": _ms(_pct(latencies, 0.50)),
                "latency_ms_p99": _ms(_pct(latencies, 0.99)), **extra}


class GCMeter:
    """CPU seconds the garbage collector ran for while inside (gc.callbacks, every pass)."""

    def __enter__(self) -> GCMeter:
        self.cpu_s, self._start = 0.0, 0.0
        gc.callbacks.append(self._on)
        return self

    def _on(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._start = time.process_time()
        else:
            self.cpu_s += time.process_time() - self._start

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self._on)


def _ms(value: float | None) -> float | None:
    return None if value is None else round(value * 1e3, 3)
