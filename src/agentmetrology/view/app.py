"""The viewer's ASGI application: read-only routes, a Host-header guard and a path guard."""

from __future__ import annotations

import logging
import mimetypes
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any
from urllib.parse import unquote

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Route

from agentmetrology.store.errors import StoreError
from agentmetrology.store.reader import StoreReader
from agentmetrology.view.episode_page import ACTORS, episode_page
from agentmetrology.view.file_pages import FileReadError, archive_page, audit_page
from agentmetrology.view.html import SECURITY_HEADERS, Html
from agentmetrology.view.params import BadRequest, episode_filter, episode_key, paging
from agentmetrology.view.source import Source
from agentmetrology.view.store_pages import campaign_page, episodes_page, index_page
from agentmetrology.view.tau2_pages import tau2_routes

log = logging.getLogger("agentmetrology.view")
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def host_name(header: str) -> str:
    """Return the host part of a Host header, without port, lowercased ('[::1]' -> '::1')."""
    value = header.strip().lower()
    if value.startswith("["):
        return value[1:value.find("]")] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def unsafe_path(raw: str) -> bool:
    """Return True when a request path tries to leave its tree (.., encoded, absolute, NUL)."""
    text = raw
    for _ in range(4):  # double and triple encodings decode to the same verdict
        decoded = unquote(text)
        if decoded == text:
            break
        text = decoded
    if "\x00" in text or "\\" in text or "//" in text:
        return True
    return any(seg in ("..", ".") for seg in text.split("/"))


class Guard:
    """Refuses foreign Host headers (DNS rebinding), unsafe paths, and methods that write."""

    def __init__(self, app: ASGIApp, hosts: Iterable[str]) -> None:
        self.app = app
        self.hosts = {h.lower().strip("[]") for h in hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Check one request and pass it on, or answer it with an error."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers") or []}
        host = headers.get("host")
        raw = (scope.get("raw_path") or scope.get("path", "").encode()).decode("latin-1")
        raw = raw.split("?", 1)[0]
        response: Response | None = None
        if host is None:
            response = PlainTextResponse("a Host header is required\n", 400)
        elif host_name(host) not in self.hosts:
            # A page of another site whose name resolves to 127.0.0.1 (DNS rebinding).
            log.warning("refused Host %r for %s", host, raw)
            response = PlainTextResponse(f"host {host!r} is not served here\n", 421)
        elif unsafe_path(raw) or unsafe_path(scope.get("path", "")):
            log.warning("refused path %r: outside what the viewer serves", raw)
            response = PlainTextResponse("not found\n", 404)
        elif scope["method"] not in ("GET", "HEAD"):
            response = PlainTextResponse("the viewer is read-only\n", 405,
                                         headers={"Allow": "GET, HEAD"})
        if response is not None:
            response.headers.update(SECURITY_HEADERS)
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


def _html(text: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(text, status, headers=SECURITY_HEADERS)


def create_app(source: Source, *, hosts: Iterable[str] = LOOPBACK_NAMES,
               secrets: Iterable[str] = ()) -> ASGIApp:
    """Return the viewer of `source` as an ASGI app (GET only; Host names in `hosts`)."""
    h = Html(secrets)

    def error(status: int, title: str, message: str) -> HTMLResponse:
        return _html(h.page(title, f'<p class="status-INVALID" id="error">{h.t(message)}</p>',
                            '<a href="/">home</a>'), status)

    def guarded(fn: Callable[[Request], str]) -> Callable[[Request], Response]:
        def endpoint(request: Request) -> Response:
            try:
                return _html(fn(request))
            except BadRequest as exc:
                return error(400, "Bad request", str(exc))
            except LookupError as exc:
                return error(404, "Not found", str(exc.args[0]) if exc.args else "not found")
            except (StoreError, FileReadError) as exc:
                log.error("%s", exc)
                return error(500, "Cannot read", str(exc))
        return endpoint

    routes: list[Route] = []
    if source.kind == "store":
        reader = StoreReader(source.root)

        def campaign(request: Request) -> str:
            name = request.query_params.get("name", "")
            status = reader.campaign(name)
            if status is None:
                raise LookupError(f"no campaign {name!r} in this store")
            return campaign_page(h, reader, status)

        def episodes(request: Request) -> str:
            page, size = paging(request.query_params)
            return episodes_page(h, reader, episode_filter(request.query_params), page, size)

        def episode(request: Request) -> str:
            key = episode_key(request.query_params)
            actor = request.query_params.get("actor") or None
            if actor is not None and actor not in ACTORS:
                raise BadRequest(f"actor must be one of {', '.join(ACTORS)}, not {actor!r}")
            data = reader.episode(key)
            if data is None:
                raise LookupError("no administration with this key in the store")
            return episode_page(h, reader, key, data, actor)

        routes += [Route("/", guarded(lambda r: index_page(h, reader))),
                   Route("/campaign", guarded(campaign)),
                   Route("/episodes", guarded(episodes)),
                   Route("/episode", guarded(episode))]
    elif source.kind == "tau2" and source.archive_file is not None:
        routes += tau2_routes(h, source.archive_file, guarded)
    else:
        if source.kind == "audit":
            routes.append(Route("/", guarded(lambda r: audit_page(h, source))))
        else:
            routes.append(Route("/", guarded(lambda r: archive_page(h, source, r.query_params))))
        allowed = frozenset(source.files)

        def files(request: Request) -> Response:
            name = request.path_params["name"]
            # Only the names found when the viewer started: nothing else in or beyond the dir.
            if name not in allowed:
                log.warning("refused file %r: not one the viewer serves", name)
                return error(404, "Not found", "not found")
            try:
                data = (source.root / name).read_bytes()
            except OSError as exc:
                return error(500, "Cannot read", f"cannot read {name}: {exc}")
            kind = mimetypes.guess_type(name)[0] or "application/octet-stream"
            if kind.startswith("text/") or kind == "application/json":
                kind += "; charset=utf-8"
            return Response(h.redact_bytes(data), 200, headers=SECURITY_HEADERS,
                            media_type=kind)

        routes.append(Route("/files/{name:path}", files))

    async def not_found(request: Request, exc: Exception) -> Response:
        log.warning("not found: %s", request.url.path)
        return error(404, "Not found", f"no page {request.url.path}")

    app = Starlette(routes=routes, exception_handlers={404: not_found})
    return Guard(app, hosts)
