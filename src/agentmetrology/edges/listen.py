"""A listening socket bound before a server starts: a port in use is one line, never a log."""

from __future__ import annotations

import errno
import socket

from agentmetrology.records.errors import UserError


class PortError(UserError):
    """Raised when a server (the viewer, OpenEnv, MCP over HTTP) cannot bind its address (in
    use, not allowed, unknown host)."""


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
