"""Run a command with a pseudo-terminal as its stdout and stderr (what a user's shell gives)."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import time
from collections.abc import Sequence


def run_in_tty(argv: Sequence[str], env: dict[str, str] | None = None,
               cwd: str | None = None, timeout: float = 300) -> tuple[int, str]:
    """Return the exit code and everything the command wrote to its terminal (ANSI kept)."""
    main, secondary = pty.openpty()
    proc = subprocess.Popen(list(argv), stdin=subprocess.DEVNULL, stdout=secondary,
                            stderr=secondary, env=env, cwd=cwd, close_fds=True)
    os.close(secondary)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([main], [], [], 0.2)
        if ready:
            try:
                data = os.read(main, 65536)
            except OSError:  # the terminal closed: the command has ended
                break
            if not data:
                break
            chunks.append(data)
        elif proc.poll() is not None:
            break
    else:
        proc.kill()
    os.close(main)
    return proc.wait(timeout=30), b"".join(chunks).decode("utf-8", "replace")
