"""DNS-rebinding protection of the HTTP transport: a foreign Host or Origin is refused.

The app under test is the one `serve_http` actually builds (uvicorn is replaced by a stub that
captures its config), so building it with a non-loopback host, which turns the SDK's check off,
fails these tests. The positive control shows the same requests pass when the check is off, so
the refusals are the check's doing and not some other 4xx.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.testclient import TestClient

from agentmetrology.edges import http_guard
from agentmetrology.serve import McpEpisode, build_server
from agentmetrology.serve.mcp_server import LOOPBACK, serve_http
from support.comtrade_runs import COMTRADE

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "probe", "version": "0"}}}
ACCEPT = "application/json, text/event-stream"
PORT = 8765


def _episode(tmp_path: Path) -> McpEpisode:
    return McpEpisode(COMTRADE, "T1_single_page", 0, out_dir=tmp_path, transport="http")


class BoundSocket:
    """What `serve_http` binds, stubbed: the address it asked for, no real port taken."""

    def __init__(self, host: str, port: int) -> None:
        self.address = (host, port)
        self.closed = False

    def getsockname(self) -> tuple[str, int]:
        return self.address

    def close(self) -> None:
        self.closed = True


def stub_bind(monkeypatch: pytest.MonkeyPatch, seen: dict[str, Any]) -> None:
    """Replace the loopback binder of `serve_http`; the socket it hands out goes in `seen`."""
    from agentmetrology.serve import mcp_server

    def bind(host: str, port: int) -> BoundSocket:
        seen["socket"] = BoundSocket(host, port)
        return seen["socket"]  # type: ignore[no-any-return]

    monkeypatch.setattr(mcp_server, "bind", bind)


def _served_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    """Run `serve_http` with uvicorn stubbed out; return the app it would serve and the
    socket it would serve it on."""
    seen: dict[str, Any] = {}

    class CapturingServer:
        def __init__(self, config: uvicorn.Config) -> None:
            seen["config"] = config

        async def serve(self, sockets: Any = None) -> None:
            seen["sockets"] = sockets

    monkeypatch.setattr(uvicorn, "Server", CapturingServer)
    stub_bind(monkeypatch, seen)
    asyncio.run(serve_http(_episode(tmp_path), port=PORT))
    assert seen["sockets"] == [seen["socket"]] and seen["socket"].closed
    return seen["config"].app, seen["socket"]


def _statuses(app: Starlette, *requests: tuple[str, str | None]) -> list[int]:
    """POST an initialize for each (Host, Origin) pair; the app's lifespan runs once."""
    out = []
    with TestClient(app) as client:
        for host, origin in requests:
            headers = {"host": host, "accept": ACCEPT, "content-type": "application/json"}
            if origin is not None:
                headers["origin"] = origin
            out.append(client.post("/mcp", json=INIT, headers=headers).status_code)
    return out


def test_served_app_binds_loopback_only(tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    _, sock = _served_app(tmp_path, monkeypatch)
    assert sock.address == (LOOPBACK, PORT) and LOOPBACK == "127.0.0.1"


def test_loopback_host_and_origin_accepted(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    app, _ = _served_app(tmp_path, monkeypatch)
    assert _statuses(app, (f"127.0.0.1:{PORT}", None),
                     (f"localhost:{PORT}", f"http://localhost:{PORT}")) == [200, 200]


def test_foreign_host_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app, _ = _served_app(tmp_path, monkeypatch)
    [status] = _statuses(app, ("evil.example", None))
    assert 400 <= status < 500
    assert status == 421  # Misdirected Request: the SDK's answer to an unknown Host


def test_foreign_origin_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app, _ = _served_app(tmp_path, monkeypatch)
    [status] = _statuses(app, (f"127.0.0.1:{PORT}", "http://evil.example"))
    assert status == 403


def test_origin_on_another_port_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Another port on this machine is another origin (another local server's pages).
    app, _ = _served_app(tmp_path, monkeypatch)
    assert _statuses(app, (f"127.0.0.1:{PORT}", "http://localhost:9999"),
                     (f"127.0.0.1:{PORT}", f"http://127.0.0.1:{PORT}")) == [403, 200]


def test_malformed_host_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app, _ = _served_app(tmp_path, monkeypatch)
    assert _statuses(app, ("localhost:80@evil.example", None)) == [421]


def test_oversized_body_refused_without_echo(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http_guard, "MAX_BODY_BYTES", 1000)
    app, _ = _served_app(tmp_path, monkeypatch)
    body = b'{"jsonrpc": "2.0", "pad": "' + b"X" * 5000 + b'"}'
    with TestClient(app) as client:
        r = client.post("/mcp", content=body, headers={
            "host": f"127.0.0.1:{PORT}", "accept": ACCEPT, "content-type": "application/json"})
    assert r.status_code == 413 and b"XXXXXXXXXX" not in r.content


def test_positive_control_check_off_accepts_foreign(tmp_path: Path) -> None:
    # Built for 0.0.0.0 the SDK turns the check off: the same requests now pass, so the
    # refusals above come from the DNS-rebinding check and the tests can fail.
    app = build_server(_episode(tmp_path)).streamable_http_app(host="0.0.0.0")
    assert _statuses(app, ("evil.example", None),
                     (f"127.0.0.1:{PORT}", "http://evil.example")) == [200, 200]
