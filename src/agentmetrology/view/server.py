"""Serve the viewer with uvicorn on a socket bound before the server starts."""

from __future__ import annotations

import errno
import ipaddress
import socket
from collections.abc import Callable, Sequence
from pathlib import Path

from agentmetrology.records.errors import UserError
from agentmetrology.view.app import LOOPBACK_NAMES, create_app
from agentmetrology.view.source import Source
from agentmetrology.view.workbench_auth import WorkbenchAuth

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765


class PortError(UserError):
    """Raised when the viewer cannot bind its address (in use, not allowed, unknown host)."""


def is_loopback(host: str) -> bool:
    """Return True for 127.0.0.0/8, ::1 and localhost."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def bind(host: str, port: int) -> socket.socket:
    """Return a listening socket on host:port; PortError (one line) when it cannot be had."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise PortError(f"cannot resolve host {host!r}: {exc.strerror}") from None
    family, _, _, _, addr = infos[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        # SO_REUSEADDR lets a restart reuse a port in TIME_WAIT; it never shares a listener.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(addr)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise PortError(f"port {port} on {host} is in use; choose another with --port "
                            "(or --port 0 for any free port)") from None
        raise PortError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    return sock


def serve(source: Source, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT,
          announce: Callable[[str], None] = print,
          workbench: WorkbenchAuth | None = None, reports: Sequence[Path] = ()) -> None:
    """Serve `source` until interrupted; `announce` gets the URL once the port is bound (and,
    with the workbench, the login URL holding the run's token)."""
    import uvicorn

    sock = bind(host, port)
    bound_port = sock.getsockname()[1]
    hosts = {*LOOPBACK_NAMES, host}
    if not is_loopback(host):  # reached by this machine's names from elsewhere
        hosts |= {socket.gethostname(), socket.getfqdn()}
    app = create_app(source, hosts=hosts, port=bound_port, workbench=workbench,
                     reports=reports)
    shown = f"[{host}]" if ":" in host else host
    base = f"http://{shown}:{bound_port}/"
    mode = "read-only" if workbench is None else "workbench: writes need the login URL below"
    announce(f"agm view: {base} ({source.kind} {source.root}; {mode}; Ctrl-C to stop)")
    if workbench is not None:
        announce(f"agm view: workbench login (keep it private): {workbench.login_url(base)}")
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off",
                            server_header=False)
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
