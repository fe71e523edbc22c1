"""Connecting to Ray: a fresh local instance on 127.0.0.1 by default, or an existing cluster.

The local instance is started with the driver's environment, so its workers inherit the API key
variables the campaign names (Ray never sees a key as an argument or in a runtime env, whose
contents Ray writes to its logs). On an existing cluster the variables must be exported where
the Ray nodes were started; the LLM actors check that before any episode runs.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from agentmetrology.records.errors import UserError
from agentmetrology.run.campaign.ray_loopback import keep_loopback

# host:port, or a Ray Client address ray://host:port.
_ADDRESS = re.compile(r"^(ray://)?[A-Za-z0-9_.\-\[\]:]+:\d{1,5}$")


class BackendError(RuntimeError, UserError):
    """Raised when a backend cannot start (unknown name, Ray not installed, no cluster)."""


@dataclass(frozen=True, slots=True)
class RayOptions:
    """Where Ray runs and how LLM episodes spread over it."""

    address: str | None = None  # None: $RAY_ADDRESS if set, else a new local instance
    num_cpus: int | None = None  # of a new local instance (default: this machine's)
    actors: int | None = None  # LLM actors (default: min(2, cluster CPUs))
    concurrency: int | None = None  # LLM episodes in flight per actor (default: see llm_slots)
    init: dict[str, Any] | None = None  # extra ray.init arguments (tests: _temp_dir)


def import_ray() -> ModuleType:
    """Return the ray module, or raise BackendError saying how to install it."""
    try:
        import ray
    except ImportError:
        raise BackendError("the ray backend needs the optional extra: pip install "
                           "'agentmetrology[ray]'") from None
    return ray


def first_line(exc: BaseException) -> str:
    """Return the first line of a (Ray) exception's message, or its type's name if it has none."""
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def check_address(address: str) -> str:
    """Return a stripped Ray address, or raise BackendError (one line) if it cannot be one."""
    addr = address.strip()
    if addr in ("auto", "local") or _ADDRESS.match(addr):
        return addr
    raise BackendError(f"--ray-address {address!r} is not a Ray address (expected HOST:PORT, "
                       "ray://HOST:PORT, auto or local)")


def connect(options: RayOptions) -> bool:
    """Initialise Ray unless it already is; return True if this call did (and must shut down).

    An explicit address that cannot be reached raises BackendError with one line.
    """
    ray = import_ray()
    if ray.is_initialized():
        return False
    given = options.address or os.environ.get("RAY_ADDRESS") or None
    # Normalised before the comparison: " local" must get the loopback-only local instance.
    address = None if given is None else check_address(given)
    # Ray would otherwise turn 127.0.0.1 (of a local instance or an address) into this
    # machine's interface address: the cluster stays on loopback (ray_loopback.py).
    keep_loopback()
    kwargs: dict[str, Any] = {"log_to_driver": False, "configure_logging": False,
                              **(options.init or {})}
    if address is None or address == "local":
        # A new instance, never one another user left running; loopback only, no dashboard.
        kwargs.update(address="local", include_dashboard=False, _node_ip_address="127.0.0.1")
        kwargs["num_cpus"] = options.num_cpus or os.cpu_count() or 1
    else:
        kwargs["address"] = address
        _reachable(address)
    with _sigterm_kept():
        try:
            ray.init(**kwargs)
        except (ConnectionError, ValueError, RuntimeError, TimeoutError) as exc:
            raise BackendError(f"cannot connect to the Ray cluster at {kwargs['address']}: "
                               f"{first_line(exc)}") from None
    return True


@contextmanager
def _sigterm_kept() -> Iterator[None]:
    """Put back a SIGTERM handler the caller installed, which `ray.init` replaces with its own
    (`sys.exit(15)`): a campaign run's, which ends the run as Ctrl-C does (cli.run_again), must
    survive Ray starting inside it; where none was installed, Ray's stays."""
    main = threading.current_thread() is threading.main_thread()
    before = signal.getsignal(signal.SIGTERM) if main else None
    try:
        yield
    finally:
        if main and callable(before) and signal.getsignal(signal.SIGTERM) is not before:
            signal.signal(signal.SIGTERM, before)


# Ray itself waits a minute or more on an address nobody listens on; a plain TCP connect answers
# at once (refused) or within this many seconds (unroutable).
REACH_TIMEOUT_S = 5.0


def _reachable(address: str) -> None:
    """Raise BackendError unless something accepts TCP connections at a HOST:PORT address."""
    if address == "auto":
        return  # Ray finds the running cluster itself
    host, _, port = address.removeprefix("ray://").rpartition(":")
    try:
        socket.create_connection((host.strip("[]"), int(port)), REACH_TIMEOUT_S).close()
    except OSError as exc:
        raise BackendError(f"cannot connect to the Ray cluster at {address}: "
                           f"{exc.strerror or exc}") from None


def ray_worker() -> str:
    """Return where this Ray worker runs, as an attempt's `worker`: `node=<node id> pid=<pid>`."""
    return f"node={import_ray().get_runtime_context().get_node_id()} pid={os.getpid()}"


def cluster_cpus() -> int:
    """Return the CPUs of the connected cluster (at least 1)."""
    ray = import_ray()
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def llm_slots(options: RayOptions, campaign_concurrency: int) -> tuple[int, int]:
    """Return (actors, episodes per actor) for LLM episodes.

    By default two actors at most (a driver and two actors keep a 2-core machine busy without
    oversubscribing it), sharing the campaign's `concurrency` between them (rounded up).
    """
    actors = options.actors or min(2, cluster_cpus())
    per_actor = options.concurrency or max(1, -(-campaign_concurrency // actors))
    return actors, per_actor
