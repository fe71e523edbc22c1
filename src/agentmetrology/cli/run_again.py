"""What an interrupted `agm run` / `agm campaign run` tells the user, and SIGTERM read as Ctrl-C.

Both commands resume: the same command against the same store runs only what the store does not
hold yet (docs/campaigns.md, "Resume semantics"). An interruption says so in one line with the
command to run, rebuilt from the parsed parameters (any spelling or order the user typed means
the same command), never from `sys.argv`, which names a script or a test runner as often as
`agm`. SIGTERM (a `kill`, a CI job cancelled, a container stopped) used to end the process at
once, silently, its attempts left `started` until the next run; within `stop_on_sigterm` it ends
the run as Ctrl-C does: the same cleanup, the same line, exit 143 instead of 130.
"""

from __future__ import annotations

import shlex
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import typer

from agentmetrology.edges.redaction import redact_patterns

SIGINT_EXIT, SIGTERM_EXIT = 130, 143  # 128 + the signal's number, as a shell reports them


def same_command(prefix: str, ctx: typer.Context) -> str:
    """Return `prefix` (e.g. "agm campaign run") and the command's parameters as given,
    defaults left out, shell-quoted, with credential-shaped text (URL userinfo) redacted."""
    words = prefix.split()
    for p in ctx.command.params:
        value: Any = ctx.params.get(p.name or "")
        if p.param_type_name == "argument":
            words.append(str(value))
            continue
        if value is None or value == p.default or (p.multiple and not value):
            continue
        flag = next((o for o in p.opts if o.startswith("--")), p.opts[0])
        if getattr(p, "is_flag", False):
            words += [flag] if value else []
        elif p.multiple:
            for v in value:
                words += [flag, str(v)]
        else:
            words += [flag, str(value)]
    return redact_patterns(shlex.join(words), "[redacted]")


@dataclass
class Stop:
    """How a run was stopped: `terminated` when SIGTERM did it."""

    terminated: bool = False

    @property
    def code(self) -> int:
        """Return the exit code: 143 after SIGTERM, 130 after Ctrl-C."""
        return SIGTERM_EXIT if self.terminated else SIGINT_EXIT

    def said(self) -> str:
        """Return the word that starts the line: 'interrupted' ('interrupted (SIGTERM)')."""
        return "interrupted (SIGTERM)" if self.terminated else "interrupted"


def resumes(stop: Stop, again: str) -> str:
    """Return the line of a stopped campaign or experiment run: what is kept, and `again`, the
    command that resumes it."""
    return (f"{stop.said()}: the episodes recorded so far are kept and are not run again "
            "(attempts in flight are recorded as interrupted); to resume, run the same "
            f"command: {again}")


@contextmanager
def stop_on_sigterm() -> Iterator[Stop]:
    """Within the block, SIGTERM stops the run as Ctrl-C does (it raises SIGINT, so asyncio's
    and the backends' Ctrl-C handling runs unchanged); the handler before is restored after.

    Left alone where Ctrl-C itself is not the default (outside the main thread, or SIGINT
    ignored, as in a background job of a shell without job control): turning SIGTERM into an
    ignored SIGINT would make the process unkillable by it. During a run's cleanup, which
    ignores further Ctrl-C, a SIGTERM is ignored too: the run is already ending.
    """
    stop = Stop()
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        yield stop
        return

    def on_sigterm(signum: int, frame: Any) -> None:
        stop.terminated = True
        signal.raise_signal(signal.SIGINT)

    previous = signal.signal(signal.SIGTERM, on_sigterm)
    try:
        yield stop
    finally:
        signal.signal(signal.SIGTERM, previous)
