"""Security rules: foreign Host headers, paths outside what the viewer was pointed at,
read-only methods, and redaction of served files."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from agentmetrology.edges.http_guard import host_name
from agentmetrology.view import create_app, detect_source
from agentmetrology.view.app import unsafe_path
from view.view_fixtures import live_server

TRAVERSALS = [
    "/../etc/passwd", "/files/../../etc/passwd", "/files/%2e%2e/%2e%2e/etc/passwd",
    "/files/%252e%252e/secret.txt", "/files//etc/passwd", "/files/..%2fsecret.txt",
    "/files/..%5csecret.txt", "/%2fetc/passwd", "/files/report.html%00.txt",
    "/files/./card.json", "//etc/passwd",
]


def _asgi(app: Any, raw_path: bytes, host: bytes | None = b"127.0.0.1:8765",
          method: str = "GET", extra: tuple[tuple[bytes, bytes], ...] = ()) -> tuple[int, bytes]:
    """Send one request to an ASGI app exactly as given (no client normalises the path)."""
    from urllib.parse import unquote

    path = unquote(raw_path.decode("latin-1"))
    headers = ([(b"host", host)] if host is not None else []) + list(extra)
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": method, "scheme": "http", "path": path, "raw_path": raw_path,
             "query_string": b"", "root_path": "", "headers": headers,
             "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 8765)}
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return status, body


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.1:8765", "localhost:8765", "[::1]:80",
                                  "LOCALHOST"])
def test_loopback_hosts_are_served(store_dir: Path, host: str) -> None:
    status, _ = _asgi(create_app(detect_source(store_dir)), b"/", host.encode())
    assert status == 200


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8765", "127.0.0.1.evil.example",
                                  "localhost.evil", "10.0.0.1", "[::2]:80"])
def test_foreign_hosts_are_refused(store_dir: Path, host: str,
                                   caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, "agentmetrology.view"):
        status, body = _asgi(create_app(detect_source(store_dir)), b"/", host.encode())
    assert status == 421 and b"not served here" in body
    assert any("refused Host" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("host", ["localhost:80@evil.example", "127.0.0.1:8765/evil.example",
                                  "localhost:http", "localhost:99999", "127.0.0.1 evil.example"])
def test_malformed_hosts_are_refused(store_dir: Path, host: str) -> None:
    status, body = _asgi(create_app(detect_source(store_dir)), b"/", host.encode())
    assert status == 421 and b"not served here" in body


@pytest.mark.parametrize(("origin", "status"), [
    ("http://127.0.0.1:8765", 200), ("http://localhost:8765", 200),
    ("http://localhost:9999", 403), ("http://evil.example:8765", 403), ("null", 403)])
def test_origin_must_be_the_viewers_own(store_dir: Path, origin: str, status: int) -> None:
    # _asgi's server is 127.0.0.1:8765: another port on the same machine is another origin
    app = create_app(detect_source(store_dir))
    assert _asgi(app, b"/", extra=((b"origin", origin.encode()),))[0] == status


def test_missing_host_is_400(store_dir: Path) -> None:
    assert _asgi(create_app(detect_source(store_dir)), b"/", None)[0] == 400


@pytest.mark.parametrize("raw", TRAVERSALS)
def test_traversal_is_404_and_logged(audit_dir: Path, raw: str,
                                     caplog: pytest.LogCaptureFixture) -> None:
    app = create_app(detect_source(audit_dir))
    with caplog.at_level(logging.WARNING, "agentmetrology.view"):
        status, body = _asgi(app, raw.encode())
    assert status == 404, raw
    assert b"Validity card" not in body and b"passwd" not in body
    assert any("refused" in r.getMessage() or "not found" in r.getMessage()
               for r in caplog.records)


def test_an_unknown_path_is_logged_quoted_and_cut(store_dir: Path,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    """Any web page can make a browser GET a path (an <img> sends no Origin): its escape
    sequences reached the operator's terminal raw in the not-found log line, and a 100,000
    character path was logged and echoed whole."""
    app = create_app(detect_source(store_dir))
    with caplog.at_level(logging.WARNING, "agentmetrology.view"):
        status, _ = _asgi(app, b"/%1b%5b2J%1b%5b31mRED%e2%80%ae")
        long_status, body = _asgi(app, b"/" + b"a" * 100_000)
    assert status == long_status == 404
    lines = [r.getMessage() for r in caplog.records]
    assert lines[0] == r"not found: '/\x1b[2J\x1b[31mRED\u202e'"
    assert lines[1] == ("not found: '/" + "a" * 63 + "' (cut at 64 of 100,001 characters)")
    assert len(body) < 5_000


def test_traversal_over_a_real_socket(archive_file: Path) -> None:
    # The neighbour secret.txt is beside the archive file, which alone was given.
    with live_server(detect_source(archive_file)) as url:
        port = int(url.rsplit(":", 1)[1])
        for raw in ("/files/../secret.txt", "/files/secret.txt", "/../secret.txt",
                    "/files/%2e%2e/secret.txt", "/files/archive.json"):
            with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
                s.sendall(f"GET {raw} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                          "Connection: close\r\n\r\n".encode())
                reply = b""
                while chunk := s.recv(65536):
                    reply += chunk
            assert reply.startswith(b"HTTP/1.1 404"), (raw, reply[:100])
            assert b"do not serve" not in reply


def test_only_the_files_an_audit_writes_are_served(audit_dir: Path) -> None:
    client = TestClient(create_app(detect_source(audit_dir)), base_url="http://127.0.0.1")
    page = client.get("/")
    assert page.status_code == 200 and "self-report compliance" in page.text
    assert client.get("/files/card.json").json()["benchmark"] == "comtrade"
    assert client.get("/files/notes.txt").status_code == 404  # in the dir, but not an audit's
    assert client.get("/files/missing.html").status_code == 404
    report = client.get("/files/report.html")
    assert report.status_code == 200 and report.headers["content-type"].startswith("text/html")
    assert "sk-proj-ABCDEFGHIJKLMNOP1234" not in report.text and "[redacted]" in report.text
    assert "default-src 'none'" in report.headers["content-security-policy"]


def test_a_symlink_out_of_the_audit_dir_is_not_served(tmp_path: Path) -> None:
    from view.view_fixtures import build_audit_dir

    root = build_audit_dir(tmp_path / "audit")
    outside = tmp_path / "outside.html"
    outside.write_text("<p>outside</p>")
    (root / "report.html").unlink()
    (root / "report.html").symlink_to(outside)
    client = TestClient(create_app(detect_source(root)), base_url="http://127.0.0.1")
    assert client.get("/files/report.html").status_code == 404


def test_writing_methods_are_refused(store_dir: Path) -> None:
    app = create_app(detect_source(store_dir))
    for method in ("POST", "PUT", "DELETE", "PATCH"):
        assert _asgi(app, b"/", method=method)[0] == 405


def test_host_name_and_unsafe_path() -> None:
    assert host_name("[::1]:8080") == "::1" and host_name("Example.COM:1") == "example.com"
    # strictly host[:port]: a bare IPv6 address, userinfo or a non-numeric port is no Host
    for malformed in ("::1", "localhost:80@evil.example", "localhost:x", "localhost:", ""):
        assert host_name(malformed) is None, malformed
    assert unsafe_path("/files/%252e%252e/x") and not unsafe_path("/files/report.html")
    assert not unsafe_path("/episode")


def test_control_characters_in_shown_text_become_visible_escapes() -> None:
    from agentmetrology.view.html import Html

    assert Html(()).t("m\x1b[5m<b>\u202e") == "m\\x1b[5m&lt;b&gt;\\u202e"


def test_a_form_value_is_exact_but_escaped_and_holds_no_nul() -> None:
    from agentmetrology.view.html import form_value

    assert form_value('token:abcdefghijkl"><b>\x1b') == "token:abcdefghijkl&quot;&gt;&lt;b&gt;\x1b"
    assert form_value("a\x00b") == "a\ufffdb"


@pytest.mark.parametrize(("method", "path", "status"), [
    ("GET", "/episodes/", 307),  # the framework's slash redirect
    ("GET", "/workbench/propose", 405),  # a POST-only route's 405
    ("POST", "/workbench/", 307),
    ("GET", "/", 200), ("GET", "/nope", 404), ("OPTIONS", "/", 405)])
def test_every_response_carries_the_security_headers(store_dir: Path, method: str, path: str,
                                                     status: int) -> None:
    """The framework's own answers (a slash redirect, a route's 405) went out without
    nosniff, the Content-Security-Policy or no-store: every response carries them now."""
    from agentmetrology.view.html import SECURITY_HEADERS
    from agentmetrology.view.workbench_auth import WorkbenchAuth

    app = create_app(detect_source(store_dir), workbench=WorkbenchAuth())
    r = TestClient(app, base_url="http://127.0.0.1", follow_redirects=False).request(method,
                                                                                      path)
    assert r.status_code == status
    for name, value in SECURITY_HEADERS.items():
        assert r.headers[name] == value, (name, path)
    if "text" in r.headers.get("content-type", "text"):
        assert "charset=utf-8" in r.headers.get("content-type", "charset=utf-8")


def test_a_page_s_own_referrer_policy_is_kept(store_dir: Path) -> None:
    from agentmetrology.view.workbench_auth import WorkbenchAuth

    auth = WorkbenchAuth()
    client = TestClient(create_app(detect_source(store_dir), workbench=auth),
                        base_url="http://127.0.0.1")
    r = client.get(f"/workbench/login?token={auth.token}")
    assert r.status_code == 200 and r.headers["referrer-policy"] == "same-origin"
    assert r.headers.get_list("referrer-policy") == ["same-origin"]


def test_a_file_swapped_for_a_symlink_after_start_is_not_served(tmp_path: Path) -> None:
    """Served names were checked for symlinks only at startup: whoever could write the folder
    could swap report.html for a symlink to one of the operator's files while the viewer ran,
    and any local user could then read it from 127.0.0.1. Now checked as the file is opened."""
    from view.view_fixtures import build_audit_dir

    root = build_audit_dir(tmp_path / "audit")
    client = TestClient(create_app(detect_source(root)), base_url="http://127.0.0.1")
    assert client.get("/files/report.md").status_code == 200
    private = tmp_path / "id_private"
    private.write_text("PRIVATE KEY MATERIAL")
    (root / "report.md").unlink()
    (root / "report.md").symlink_to(private)
    r = client.get("/files/report.md")
    assert r.status_code == 404 and "PRIVATE" not in r.text
    (root / "report.md").unlink()
    os.mkfifo(root / "report.md")  # a pipe would block the request forever
    assert client.get("/files/report.md").status_code == 404
