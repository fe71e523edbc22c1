"""Run `agm` as a user does, cheaper: `main()` in this process, or many argv in one fresh one.

A fresh `agm` process costs ~0.5 s of CPU in imports before it does any work, and most tests
that ran `agm` in a subprocess did not test the process boundary. Two ways to run the same
`agentmetrology.cli.main.main` with the same argv and read the same three things a
subprocess gives (exit code, stdout, stderr):

- `run_main(args)`: in this process. sys.argv, sys.stdout and sys.stderr are swapped for the
  call; the exit code is what the interpreter would exit with for the SystemExit that `main()`
  raises (None -> 0, an int -> itself, anything else -> 1 with it printed on stderr), and an
  uncaught exception becomes a traceback on stderr and exit code 1, as in a process (so does
  outliving an optional timeout, which needs the main thread: it uses SIGALRM). What a child
  process could never change in its parent is restored afterwards: the process environment
  (`main()` loads ./.env into os.environ), the working directory, the warning filters and the
  root logger.
- `run_batch(argvs, env)`: runs this file as a script in ONE fresh interpreter (the given
  environment, e.g. a PYTHONPATH with a plug-in's dist-info) that calls `run_main` once per
  argv, each with its own stdout, stderr and exit code. The interpreter is as fresh as one per
  command: nothing is imported or registered before the first command, so a plug-in can only
  be found by its entry point. What it does not test is the operating system's exit status and
  a fresh interpreter per command; every test module that uses it keeps at least one real
  `agm` process for the paths it covers (see each module's docstring).
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import signal
import subprocess
import sys
import tempfile
import traceback
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

# `agm` in a fresh interpreter, as the console script runs it.
AGM = [sys.executable, "-c", "from agentmetrology.cli.main import entry; entry()"]


@dataclass(frozen=True)
class AgmResult:
    """What a finished `agm` run gives: the names of subprocess.CompletedProcess's fields."""

    returncode: int
    stdout: str
    stderr: str


def _stream() -> io.TextIOWrapper:
    """A text stream with a byte buffer underneath, like a pipe's (`sys.stdout.buffer`)."""
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)


def _text(stream: io.TextIOWrapper) -> str:
    stream.flush()
    buffer = stream.buffer
    assert isinstance(buffer, io.BytesIO)
    return buffer.getvalue().decode("utf-8")


def _exit_code(code: object, stderr: io.TextIOWrapper) -> int:
    """The interpreter's exit status for `SystemExit(code)` (and what it prints)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=stderr)
    return 1


@contextlib.contextmanager
def isolated(cwd: Path | str | None) -> Iterator[None]:
    """Restore what a child process could not change in its parent, on the way out.

    os.environ, the working directory, sys.argv/stdout/stderr, the warning filters and the
    root logger's handlers and level (`agm view` calls logging.basicConfig).
    """
    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    saved = sys.argv, sys.stdout, sys.stderr
    root = logging.getLogger()
    saved_log = root.handlers[:], root.level
    try:
        if cwd is not None:
            os.chdir(cwd)
        with warnings.catch_warnings():
            yield
    finally:
        sys.argv, sys.stdout, sys.stderr = saved
        root.handlers[:], root.level = saved_log
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)


# What the subprocess calls that run_main replaced waited at most (60-300 s): a hang fails the
# test instead of blocking an xdist worker for ever.
DEFAULT_TIMEOUT = 300.0


class CommandTimeout(Exception):
    """A command run in-process outlived its timeout (e.g. it served instead of refusing)."""


@contextlib.contextmanager
def _deadline(timeout: float | None) -> Iterator[None]:
    """Raise CommandTimeout in the main thread after `timeout` seconds (a subprocess's timeout)."""
    if timeout is None:
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise CommandTimeout(f"still running after {timeout} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run_main(args: Sequence[str], cwd: Path | str | None = None,
             timeout: float | None = DEFAULT_TIMEOUT) -> AgmResult:
    """Run `agm ARGS` through cli.main.main() in this process; capture it like a subprocess.

    A command still running after `timeout` seconds (one that hangs, or serves instead of
    refusing) is interrupted and ends with exit code 1 and the traceback on stderr, as a
    subprocess run with a timeout would have failed; None waits for ever.
    """
    from agentmetrology.cli.main import main

    out, err = _stream(), _stream()
    with isolated(cwd), _deadline(timeout):
        sys.argv = ["agm", *args]
        sys.stdout, sys.stderr = out, err
        try:
            main()
            code = 0
        except SystemExit as exc:
            code = _exit_code(exc.code, err)
        except Exception:  # a process would print the traceback and exit 1 (Ctrl-C stops)
            traceback.print_exc(file=err)
            code = 1
    return AgmResult(code, _text(out), _text(err))


def run_batch(argvs: Sequence[Sequence[str]], env: dict[str, str] | None = None,
              cwd: Path | None = None, timeout: float = 600) -> list[AgmResult]:
    """Run every argv through `run_main` in one fresh interpreter; one result per argv."""
    with tempfile.TemporaryDirectory(prefix="agm-batch-") as tmp:
        results = Path(tmp) / "results.json"
        # Results go to a file, not stdout: a command's own children may write to fd 1.
        proc = subprocess.run([sys.executable, __file__, str(results)],
                              input=json.dumps([list(a) for a in argvs]), env=env, cwd=cwd,
                              capture_output=True, text=True, timeout=timeout, check=False)
        if proc.returncode != 0 or not results.exists():
            raise AssertionError(f"the batch runner failed ({proc.returncode}): {proc.stderr}")
        docs = json.loads(results.read_text())
    return [AgmResult(d["returncode"], d["stdout"], d["stderr"]) for d in docs]


def agm(*args: str) -> AgmResult:
    """Run `agm ARGS` in this process (run_main with the default timeout)."""
    return run_main(args)


def agm_process(*args: str) -> subprocess.CompletedProcess[str]:
    """Run `agm ARGS` in a real subprocess, for the paths that test the process boundary."""
    return subprocess.run([*AGM, *args], capture_output=True, text=True,
                          timeout=DEFAULT_TIMEOUT, check=False)


def _forget_loaded_environments() -> None:
    """Make the next command find every environment again, as a fresh process would: by its
    entry point (the registry keeps what it loaded; nothing is imported before the first one)."""
    registry = sys.modules.get("agentmetrology.envs.registry")
    if registry is not None:
        registry.ENV_REGISTRY.refresh()


def _batch_main() -> None:
    """Script entry: argv lists as JSON on stdin; results as JSON into the file argv[1]."""
    argvs = json.loads(sys.stdin.read())
    docs = []
    for args in argvs:
        _forget_loaded_environments()
        docs.append(vars(run_main(args)))
    Path(sys.argv[1]).write_text(json.dumps(docs))


if __name__ == "__main__":
    _batch_main()
