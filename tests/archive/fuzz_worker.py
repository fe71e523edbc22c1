"""Runs `agm archive` on every case of a fuzz manifest, in one process under a memory cap.

Usage: fuzz_worker.py MANIFEST RESULTS MEMORY_BYTES SECONDS_PER_CASE. Each manifest entry is
{"name", "args"}; each result is {"name", "exit_code", "traceback", "stderr", "seconds",
"peak_kib"}. A case that raises past the CLI (any exception but SystemExit) is recorded with its
traceback; one that runs past the time limit is recorded as such; the worker itself never stops
early, so one result exists per case unless the process is killed.
"""

from __future__ import annotations

import json
import resource
import signal
import sys
import time
import traceback
from pathlib import Path
from typing import Any


class CaseTimeout(BaseException):
    """Raised by the alarm: derived from BaseException so no importer can swallow it."""


def _alarm(_signum: int, _frame: Any) -> None:
    raise CaseTimeout()


def _peak_kib() -> int:
    """Return this process's peak RSS (KiB) since it was started.

    Not getrusage's ru_maxrss: Linux carries the parent's high-water mark across fork and exec,
    so a worker started by a 1 GiB pytest process would report 1 GiB before its first case.
    VmHWM belongs to the address space exec created.
    """
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # no procfs: the upper bound


def main(manifest: str, results: str, memory: int, seconds: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    from typer.testing import CliRunner

    from agentmetrology.cli.main import app

    # CPU time, not wall time: a loaded machine must not turn a slow case into a failure.
    signal.signal(signal.SIGPROF, _alarm)
    out: list[dict[str, Any]] = []
    for case in json.loads(Path(manifest).read_text()):
        start = time.monotonic()
        result: dict[str, Any] = {"name": case["name"], "traceback": None, "timeout": False}
        signal.setitimer(signal.ITIMER_PROF, seconds)
        try:
            res = CliRunner().invoke(app, ["archive", *case["args"]])
            result["exit_code"] = res.exit_code
            result["stderr"] = res.stderr[-400:]
            if res.exception is not None and not isinstance(res.exception, SystemExit):
                result["traceback"] = "".join(traceback.format_exception(res.exception))[-1500:]
        except CaseTimeout:
            result.update(exit_code=None, timeout=True, stderr="")
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
        result["seconds"] = round(time.monotonic() - start, 3)
        result["peak_kib"] = _peak_kib()
        out.append(result)
        Path(results).write_text(json.dumps(out))  # written as we go: a crash keeps the rest


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
