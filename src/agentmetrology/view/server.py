"""Serve the viewer with uvicorn on a socket bound before the server starts."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Sequence
from pathlib import Path

from agentmetrology.edges.listen import bind
from agentmetrology.store.qualify import NOTICE_FROM
from agentmetrology.view.app import LOOPBACK_NAMES, create_app
from agentmetrology.view.evidence import store_banner
from agentmetrology.view.source import Source
from agentmetrology.view.workbench_auth import WorkbenchAuth

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765


def is_loopback(host: str) -> bool:
    """Return True for 127.0.0.0/8, ::1 and localhost."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def banner(source: Source, base: str, mode: str) -> str:
    """Return the line announcing the viewer: its URL and what it shows, the file itself when
    one file was given (a tau2 results file was announced as its folder, as if all were read)."""
    shown = source.archive_file if source.archive_file is not None and not source.files \
        else source.root
    return f"agm view: {base} ({source.kind} {shown}; {mode}; Ctrl-C to stop)"


def _checking(announce: Callable[[str], None]) -> Callable[[int], None]:
    """Return what says, before a whole check of a large store, why the viewer waits."""
    def notice(length: int) -> None:
        if length >= NOTICE_FROM:
            announce(f"agm view: checking all {length:,} chain entries of the store before "
                     "serving (once: later starts check only what was appended)")
    return notice


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
    evidence = store_banner(source.root, _checking(announce)) if source.kind == "store" \
        else None
    app = create_app(source, hosts=hosts, port=bound_port, workbench=workbench,
                     reports=reports, banner=evidence)
    shown = f"[{host}]" if ":" in host else host
    base = f"http://{shown}:{bound_port}/"
    mode = "read-only" if workbench is None else "workbench: writes need the login URL below"
    announce(banner(source, base, mode))
    if evidence is not None:  # checked once, here: every page shows it
        announce(f"agm view: {evidence}")
    if workbench is not None:
        announce(f"agm view: workbench login (keep it private): {workbench.login_url(base)}")
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off",
                            server_header=False)
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
