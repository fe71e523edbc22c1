"""A Ray cluster that stays on 127.0.0.1: `ray start` with Ray's loopback rewrite turned off.

Ray (2.60 checked) replaces a loopback host with this machine's interface address wherever it
meets one (`ray start --node-ip-address=127.0.0.1`, `--address=127.0.0.1:PORT`, `ray.init` of
such an address): the node then advertises that address and its servers listen on every
interface. With the rewrite off, a node given `--node-ip-address=127.0.0.1` advertises
127.0.0.1, and its GCS, raylet and agents listen on 127.0.0.1 only (Ray binds its servers to
loopback alone when the node's address is 127.0.0.1).

    python -m agentmetrology.run.campaign.ray_loopback start --head --node-ip-address=127.0.0.1 ...
    python -m agentmetrology.run.campaign.ray_loopback start --address=127.0.0.1:PORT \\
        --node-ip-address=127.0.0.1 ...

take the arguments of `ray start`. The campaign driver (`ray_cluster.connect`) turns the rewrite
off too, so `--ray-address 127.0.0.1:PORT` reaches such a cluster on loopback.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, BinaryIO

LOOPBACK = ("127.0.0.1", "::1")


def keep_loopback() -> bool:
    """Make Ray keep 127.0.0.1 and ::1 as given in this process; return False if this Ray has
    no such rewrite to turn off (nothing to do)."""
    try:
        from ray._private import services
    except ImportError:
        return False
    original: Any = getattr(services, "resolve_ip_for_localhost", None)
    if original is None or getattr(original, "agm_keeps_loopback", False):
        return original is not None

    def resolve(host: str) -> str:
        # "localhost" still goes through Ray: only a literal loopback address is kept.
        return host if host in LOOPBACK else str(original(host))

    resolve.agm_keeps_loopback = True  # type: ignore[attr-defined]
    # Every caller looks it up on the module at call time (services.resolve_ip_for_localhost).
    services.resolve_ip_for_localhost = resolve
    return True


def reload_auth() -> None:
    """Make Ray in this process read RAY_AUTH_MODE and RAY_AUTH_TOKEN again (it reads them once:
    a process that imported Ray before setting them would not present the token)."""
    import ray._raylet as raylet  # a compiled module: no type stubs for these two

    raylet.Config.initialize("")  # type: ignore[attr-defined]
    raylet.AuthenticationTokenLoader.instance().reset_cache()  # type: ignore[attr-defined]


def free_port() -> int:
    """Return a TCP port nothing listens on at 127.0.0.1 now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LoopbackNode:
    """One Ray node of a cluster on this machine (`ray start --block`, loopback only), in a
    session of its own: `kill` ends the node and every process it started, as a lost machine.

    Each node gets its own agent and metrics ports (two nodes on one machine would otherwise
    both want Ray's defaults). `env` is the nodes' environment: the API key variables LLM
    targets name, and Ray's token authentication (RAY_AUTH_MODE=token and the same
    RAY_AUTH_TOKEN for every node and the driver).
    """

    def __init__(self, args: list[str], env: dict[str, str], temp_dir: Path,
                 log: BinaryIO | int = subprocess.DEVNULL) -> None:
        ports = [f"--{name}={free_port()}" for name in (
            "dashboard-agent-listen-port", "dashboard-agent-grpc-port",
            "runtime-env-agent-port", "metrics-export-port")]
        cmd = [sys.executable, "-m", __name__, "start", "--block",
               "--node-ip-address=127.0.0.1", "--disable-usage-stats", f"--temp-dir={temp_dir}",
               *ports, *args]
        self.proc = subprocess.Popen(cmd, env=env, start_new_session=True, stdout=log,
                                     stderr=subprocess.STDOUT)

    @classmethod
    def head(cls, port: int, num_cpus: int, env: dict[str, str], temp_dir: Path,
             log: BinaryIO | int = subprocess.DEVNULL) -> LoopbackNode:
        """Start a head node whose GCS listens on 127.0.0.1:`port` (no dashboard)."""
        return cls(["--head", f"--port={port}", f"--num-cpus={num_cpus}",
                    "--include-dashboard=false"], env, temp_dir, log)

    @classmethod
    def worker(cls, address: str, num_cpus: int, env: dict[str, str], temp_dir: Path,
               resources: str = "{}", log: BinaryIO | int = subprocess.DEVNULL) -> LoopbackNode:
        """Start a node that joins the cluster at `address`, with its CPUs and resources."""
        return cls([f"--address={address}", f"--num-cpus={num_cpus}",
                    f"--resources={resources}"], env, temp_dir, log)

    def wait_listening(self, port: int, timeout_s: float = 60.0) -> None:
        """Return once something accepts connections on 127.0.0.1:`port`; raise RuntimeError
        if the node exits or the timeout passes first."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the Ray node exited with {self.proc.returncode}")
            try:
                socket.create_connection(("127.0.0.1", port), 1.0).close()
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"no Ray node listens on 127.0.0.1:{port} after {timeout_s:g} s")

    def pids(self) -> list[int]:
        """Return the pids of this node's session (`ray start` and what it started)."""
        return session_pids(self.proc.pid)

    def kill(self) -> None:
        """Kill the node and every process of its session (SIGKILL), and reap `ray start`."""
        for pid in [self.proc.pid, *self.pids()]:
            with contextlib.suppress(ProcessLookupError):  # already gone
                os.kill(pid, signal.SIGKILL)
        self.proc.wait()


def session_pids(sid: int) -> list[int]:
    """Return the pids of the processes in session `sid` (Linux /proc; empty elsewhere)."""
    out = []
    for entry in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = entry.read_bytes().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue  # gone meanwhile
        if int(fields[3]) == sid:  # after the name: state, ppid, pgrp, session
            out.append(int(entry.parent.name))
    return out


def main(argv: list[str] | None = None) -> int:
    """Run Ray's CLI (`ray start ...`, `ray status ...`) with loopback kept."""
    keep_loopback()
    from ray.scripts.scripts import cli

    args = sys.argv[1:] if argv is None else argv
    try:
        cli.main(args=args, prog_name="ray", standalone_mode=True)
    except SystemExit as exc:
        return int(exc.code or 0) if not isinstance(exc.code, str) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
