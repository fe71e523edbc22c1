"""The viewer's ASGI application: read-only routes, the Host/Origin guard and a path guard."""

from __future__ import annotations

import logging
import mimetypes
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from types import EllipsisType
from urllib.parse import unquote

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Route

from agentmetrology.edges.files import FileRefused, open_regular
from agentmetrology.edges.http_guard import (
    LOOPBACK_NAMES,
    ASGIApp,
    HttpGuard,
    Message,
    Receive,
    Scope,
    Send,
    prefix,
)
from agentmetrology.store.errors import StoreError
from agentmetrology.store.reader import StoreReader
from agentmetrology.view.episode_page import ACTORS, episode_page
from agentmetrology.view.evidence import store_banner
from agentmetrology.view.file_pages import FileReadError, archive_page, audit_page
from agentmetrology.view.grader_page import grader_run_page, graders_page
from agentmetrology.view.html import SECURITY_HEADERS, Html
from agentmetrology.view.inspect_pages import inspect_routes
from agentmetrology.view.pair_page import pair_page
from agentmetrology.view.params import (
    BadRequest,
    episode_filter,
    episode_key,
    find_text,
    paging,
)
from agentmetrology.view.regrade_page import regrade_page
from agentmetrology.view.report_pages import report_dir_page
from agentmetrology.view.source import Source
from agentmetrology.view.store_pages import campaign_page, episodes_page, index_page
from agentmetrology.view.tau2_pages import tau2_routes
from agentmetrology.view.taubench_pages import taubench_routes
from agentmetrology.view.workbench import workbench_routes
from agentmetrology.view.workbench_auth import WorkbenchAuth

log = logging.getLogger("agentmetrology.view")
# The viewer reads no request body; this bounds what is buffered before a POST is refused.
MAX_BODY_BYTES = 64 * 1024


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
    """Refuses unsafe paths and methods that write (Host and Origin: `HttpGuard` around it);
    with the workbench, a POST to /workbench/ACTION passes on (the workbench checks it)."""

    def __init__(self, app: ASGIApp, writes: bool = False) -> None:
        self.app, self.writes = app, writes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Check one request and pass it on, or answer it with an error."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        raw = (scope.get("raw_path") or scope.get("path", "").encode()).decode("latin-1")
        raw = raw.split("?", 1)[0]
        response: Response | None = None
        if unsafe_path(raw) or unsafe_path(scope.get("path", "")):
            log.warning("refused path %s: outside what the viewer serves", prefix(raw))
            response = PlainTextResponse("not found\n", 404)
        elif scope["method"] not in ("GET", "HEAD") and not (
                self.writes and scope["method"] == "POST"
                and scope.get("path", "").startswith("/workbench/")):
            response = PlainTextResponse("the viewer is read-only\n", 405,
                                         headers={"Allow": "GET, HEAD"})
        if response is not None:
            response.headers.update(SECURITY_HEADERS)
            await response(scope, receive, send)
            return
        await self.app(scope, receive, _with_headers(send))


def _with_headers(send: Send) -> Send:
    """Return a send that adds each security header a response lacks (the framework's own
    answers, a slash redirect or a 405 of a route, set none), keeping those a page set."""
    async def wrapped(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = list(message.get("headers") or [])
            have = {k.lower() for k, _ in headers}
            headers += [(k.lower().encode("latin-1"), v.encode("latin-1"))
                        for k, v in SECURITY_HEADERS.items()
                        if k.lower().encode("latin-1") not in have]
            message = {**message, "headers": headers}
        await send(message)
    return wrapped


def _html(text: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(text, status, headers=SECURITY_HEADERS)


class _Endpoints:
    """The viewer's HTML error pages, and the wrapper turning a page's refusals into them."""

    def __init__(self, h: Html) -> None:
        self.h = h

    def error(self, status: int, title: str, message: str) -> HTMLResponse:
        """Return an error page."""
        h = self.h
        return _html(h.page(title, f'<p class="status-INVALID" id="error">{h.t(message)}</p>',
                            '<a href="/">home</a>'), status)

    def guarded(self, fn: Callable[[Request], str]) -> Callable[[Request], Response]:
        """Return an endpoint serving fn's page; its refusals become 400/404/500 pages."""
        def endpoint(request: Request) -> Response:
            try:
                return _html(fn(request))
            except BadRequest as exc:
                return self.error(400, "Bad request", str(exc))
            except LookupError as exc:
                return self.error(404, "Not found", str(exc.args[0]) if exc.args else "not found")
            except (StoreError, FileReadError) as exc:
                log.error("%s", exc)
                return self.error(500, "Cannot read", str(exc))
        return endpoint


def _store_routes(ep: _Endpoints, source: Source) -> list[Route]:
    """Return the routes of a store: index, campaign, episodes, episode."""
    h, reader = ep.h, StoreReader(source.root)

    def campaign(request: Request) -> str:
        name = request.query_params.get("name", "")
        overview = reader.overview(name)
        if overview is None:
            raise LookupError(f"no campaign {name!r} in this store")
        return campaign_page(h, overview)

    def episodes(request: Request) -> str:
        page, size = paging(request.query_params)
        return episodes_page(h, reader, episode_filter(request.query_params), page, size)

    def episode(request: Request) -> str:
        key = episode_key(request.query_params)
        actor = request.query_params.get("actor") or None
        if actor is not None and actor not in ACTORS:
            raise BadRequest(f"actor must be one of {', '.join(ACTORS)}, not {actor!r}")
        find = find_text(request.query_params)
        data = reader.episode(key)
        if data is None:
            raise LookupError("no administration with this key in the store")
        return episode_page(h, reader, key, data, actor, find)

    def pair(request: Request) -> str:
        return pair_page(h, reader, episode_key(request.query_params))

    def regrade(request: Request) -> str:
        return regrade_page(h, reader, episode_key(request.query_params))

    def graders(request: Request) -> str:
        run = request.query_params.get("run")
        return graders_page(h, reader) if run is None else grader_run_page(h, reader, run)

    return [Route("/", ep.guarded(lambda r: index_page(h, reader))),
            Route("/campaign", ep.guarded(campaign)),
            Route("/episodes", ep.guarded(episodes)),
            Route("/episode", ep.guarded(episode)),
            Route("/pair", ep.guarded(pair)),
            Route("/regrade", ep.guarded(regrade)),
            Route("/graders", ep.guarded(graders))]


class _NotRegular(OSError):
    """A served name that is now a symlink or not a regular file."""


def _read_regular(path: Path) -> bytes:
    """Return the bytes of `path`, refusing a symlink or anything but a regular file.

    Checked when the file is opened, not only at startup: whoever can write the folder could
    swap a served file for a symlink to a file of the operator's while the viewer runs."""
    try:
        fh = open_regular(path, follow=False)
    except (FileRefused, IsADirectoryError):
        raise _NotRegular(str(path)) from None
    with fh:
        return fh.read()


def _file_routes(ep: _Endpoints, source: Source) -> list[Route]:
    """Return the routes of an audit or archive directory: its page and its files by name."""
    h = ep.h
    if source.kind == "audit":
        index = Route("/", ep.guarded(lambda r: audit_page(h, source)))
    elif source.kind == "report":
        index = Route("/", ep.guarded(lambda r: report_dir_page(h, source)))
    else:
        index = Route("/", ep.guarded(lambda r: archive_page(h, source, r.query_params)))
    allowed = frozenset(source.files)

    def files(request: Request) -> Response:
        name = request.path_params["name"]
        # Only the names found when the viewer started: nothing else in or beyond the dir.
        if name not in allowed:
            log.warning("refused file %s: not one the viewer serves", prefix(name))
            return ep.error(404, "Not found", "not found")
        try:
            data = _read_regular(source.root / name)
        except _NotRegular:
            log.warning("refused file %s: no longer a regular file", prefix(name))
            return ep.error(404, "Not found", "not found")
        except OSError as exc:
            return ep.error(500, "Cannot read", f"cannot read {name}: {exc}")
        kind = mimetypes.guess_type(name)[0] or "application/octet-stream"
        if kind.startswith("text/") or kind == "application/json":
            kind += "; charset=utf-8"
        return Response(h.redact_bytes(data), 200, headers=SECURITY_HEADERS, media_type=kind)

    return [index, Route("/files/{name:path}", files)]


def create_app(source: Source, *, hosts: Iterable[str] = LOOPBACK_NAMES,
               secrets: Iterable[str] = (), port: int | None = None,
               workbench: WorkbenchAuth | None = None,
               reports: Sequence[Path] = (),
               banner: str | EllipsisType | None = ...) -> ASGIApp:
    """Return the viewer of `source` as an ASGI app (GET only; Host names in `hosts`).

    Origin must be the viewer's own (`port`, or the port a request arrived on when None).
    With `workbench` (a store only) the operator workbench's POSTs are served too, and it
    lists `reports` (report directories) with their qualification against the store.
    `banner`: shown above every page of a store (view.evidence.store_banner, None: it
    qualifies); by default the store is checked here, once.
    """
    if banner is ... and source.kind == "store":
        banner = store_banner(source.root)
    ep = _Endpoints(Html(secrets, None if banner is ... else banner))
    if workbench is not None and source.kind != "store":
        raise ValueError("the workbench needs an evidence store")
    if source.kind == "store":
        routes = _store_routes(ep, source)
        if workbench is not None:
            routes += workbench_routes(source.root, ep.h, workbench, reports)
    elif source.kind == "tau2" and source.archive_file is not None:
        routes = tau2_routes(ep.h, source.archive_file, ep.guarded)
    elif source.kind == "taubench" and source.archive_file is not None:
        routes = taubench_routes(ep.h, source.archive_file, ep.guarded)
    elif source.kind == "inspect" and source.archive_file is not None:
        routes = inspect_routes(ep.h, source.archive_file, ep.guarded)
    else:
        routes = _file_routes(ep, source)

    async def not_found(request: Request, exc: Exception) -> Response:
        # Quoted and cut: a path is what any web page can make a browser send (an <img> needs
        # no Origin), and raw it would write its escape sequences to the operator's terminal.
        log.warning("not found: %s", prefix(request.url.path))
        return ep.error(404, "Not found", f"no page {prefix(request.url.path)}")

    app = Starlette(routes=routes, exception_handlers={404: not_found})
    return HttpGuard(Guard(app, writes=workbench is not None), hosts=hosts, port=port,
                     max_body=MAX_BODY_BYTES, headers=SECURITY_HEADERS, log=log)
