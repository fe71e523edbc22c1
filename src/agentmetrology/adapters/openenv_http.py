"""The OpenEnv server's HTTP edge: the shared request guard and error answers that never echo.

OpenEnv's FastAPI app answers a malformed request with the validation errors, each holding the
input it rejected (a 300 MB string came back whole) and, for a non-finite number, failing to
serialise them (a 500 with a traceback). Here every error lists where and what was wrong, quotes
at most a short prefix of what the client sent (on the WebSocket too: OpenEnv's error frames are
rewritten on their way out), and the whole app sits behind `edges.http_guard` (loopback Host,
the server's own Origin, MAX_BODY_BYTES).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable
from typing import Any

from agentmetrology.adapters.session import AdapterError
from agentmetrology.edges import http_guard
from agentmetrology.edges.http_guard import (
    PREFIX_CHARS,
    ASGIApp,
    HttpGuard,
    Message,
    Receive,
    Scope,
    Send,
)

log = logging.getLogger("agentmetrology.openenv")
# An error message of ours names a value and what is allowed (an unknown task lists the known
# ones, ~250 characters); longer means it quotes input.
MAX_MESSAGE_CHARS = 320
_LONG_WORD = re.compile(rf"\S{{{PREFIX_CHARS + 1},}}")


def clip(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """Return `text` with every run of over PREFIX_CHARS non-blank characters (a quoted value)
    cut to a prefix, and the whole cut to `limit` characters; each cut is marked."""
    text = _LONG_WORD.sub(lambda m: m.group()[:PREFIX_CHARS] + "...", text)
    return text if len(text) <= limit else f"{text[:limit]}... (cut at {limit} characters)"


def plain_errors(errors: Any) -> Any:
    """Return validation errors as where/what/type only: the rejected input is never echoed."""
    if not isinstance(errors, list):
        return clip(str(errors))
    out: list[Any] = []
    for e in errors:
        if not isinstance(e, dict):
            out.append(clip(str(e), PREFIX_CHARS))
            continue
        loc = [part if isinstance(part, int) else clip(str(part), PREFIX_CHARS)
               for part in e.get("loc", ())]
        out.append({"loc": loc, "msg": clip(str(e.get("msg", "")), PREFIX_CHARS * 4),
                    "type": str(e.get("type", ""))[:PREFIX_CHARS]})
    return out


def install_handlers(app: Any) -> None:
    """Answer refusals (400), invalid requests (422) and HTTP errors without echoing input."""
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import JSONResponse
    from starlette.exceptions import HTTPException

    async def refused(request: Any, exc: Exception) -> Any:
        return JSONResponse({"error": clip(str(exc))}, status_code=400)

    async def invalid(request: Any, exc: Exception) -> Any:
        errors = exc.errors() if isinstance(exc, RequestValidationError) else str(exc)
        return JSONResponse({"detail": plain_errors(errors)}, status_code=422)

    async def http_error(request: Any, exc: Exception) -> Any:
        assert isinstance(exc, HTTPException)
        return JSONResponse({"detail": plain_errors(exc.detail)}, status_code=exc.status_code,
                            headers=exc.headers)

    # OpenEnv's plain-HTTP routes are stateless (a fresh environment per request): a refused
    # request there (e.g. /step without a session) is a 400 with the reason, not a traceback.
    app.add_exception_handler(AdapterError, refused)
    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(HTTPException, http_error)


def quiet_frame(text: str) -> str:
    """Return a WebSocket frame, its error message clipped and its validation errors plain."""
    if not text.startswith('{"type":"error"'):
        return text  # only OpenEnv's error frames quote the client's input
    try:
        frame = json.loads(text)
    except ValueError:
        return text
    data = frame.get("data")
    if not isinstance(data, dict):
        return text
    data = dict(data)
    if "message" in data:
        data["message"] = clip(str(data["message"]))
    if "errors" in data:
        data["errors"] = plain_errors(data["errors"])
    return json.dumps({**frame, "data": data})


def quiet_errors(app: ASGIApp) -> ASGIApp:
    """Return `app` with its WebSocket error frames rewritten by `quiet_frame` on the way out."""

    async def serve(scope: Scope, receive: Receive, send: Send) -> None:
        async def quiet(message: Message) -> None:
            if message["type"] == "websocket.send" and message.get("text"):
                message = {**message, "text": quiet_frame(message["text"])}
            await send(message)
        # Only a WebSocket sends frames; HTTP responses go out as the app wrote them.
        await app(scope, receive, quiet if scope["type"] == "websocket" else send)
    return serve


def guarded(app: Any, port: int, hosts: Iterable[str] = ()) -> HttpGuard:
    """Return `app` behind the shared guard for a server on 127.0.0.1:`port` (+ `hosts`)."""
    return HttpGuard(quiet_errors(app), hosts={*http_guard.LOOPBACK_NAMES, *hosts}, port=port,
                     max_body=http_guard.MAX_BODY_BYTES, log=log)
