"""Load a user's scorer from `FILE.py:function` and call it safely (docs/audit.md).

The callable is `function(task_id: str, seed: int | None, submission: dict) -> number` (or a
dict with a numeric `total`), where `submission` has string fields `data_jsonl`,
`metadata_json` and `run_log`.

It runs in a separate worker process (scorer_worker.py; one, reused across calls) so that no
behaviour of the user's code can take the audit down with it: an exception of any kind
(`SystemExit`, a `KeyboardInterrupt` the code raises, ...) becomes an INVALID cell carrying its
message; a call that does not answer within the timeout is killed with its process (a thread
could not be) and is INVALID "timeout after S s"; a process that dies is INVALID with its exit
code. The process is restarted for the next call. After MAX_CONSECUTIVE_FAILURES such failures
in a row the scorer is not called again (each later cell is INVALID "not called: ..."), so a
scorer that hangs on everything costs seconds, not hours. Every message is redacted (credential
patterns and the values of credential-named environment variables) before it can reach
audit.json or the terminal. The user's Ctrl-C is never a cell: the worker runs in a session of
its own and ignores SIGINT, so the KeyboardInterrupt is raised here, in the audit, which stops
(`agm audit` exits 130) and kills the worker on its way out.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import os
import signal
import subprocess
import sys
import weakref
from multiprocessing.connection import Connection
from pathlib import Path

import agentmetrology
from agentmetrology.audit.scorer_worker import ScorerLoadError, coerce_score, describe
from agentmetrology.audit.target import ScoreOutcome
from agentmetrology.edges.files import resolved
from agentmetrology.edges.redaction import env_secret_values, redactor

__all__ = ["DEFAULT_TIMEOUT", "ScorerLoadError", "UserScorer", "coerce_score", "load_scorer"]

DEFAULT_TIMEOUT = 10.0  # seconds per call
LOAD_TIMEOUT_MIN = 60.0  # importing a scorer (numpy, a tokenizer, ...) may take a while
MAX_CONSECUTIVE_FAILURES = 3  # timeouts or crashes of the process, then it is not called
MAX_MESSAGE_CHARS = 2000  # an error text quoting a whole submission is cut (after redaction)
REDACTED = "[redacted]"
_redact = redactor(REDACTED)


def _src_root() -> str:
    """Return the directory the `agentmetrology` package is imported from."""
    return str(Path(agentmetrology.__file__).resolve().parents[1])


def _kill(proc: subprocess.Popen[bytes] | None, conns: tuple[Connection, ...]) -> None:
    """Kill a worker (and anything it started) and close its pipes; safe to call twice."""
    for c in conns:
        c.close()
    if proc is None:
        return
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # its own session: the user's children go too
        except OSError:
            proc.kill()
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(5)


class UserScorer:
    """A scorer callable loaded from a file, with its identity (path, function, sha256).

    Calling it scores one submission in the worker process; `close()` (or garbage collection,
    or the end of the program) stops the process.
    """

    def __init__(self, path: Path, function: str, sha256: str,
                 timeout: float = DEFAULT_TIMEOUT) -> None:
        self.path = path
        self.function = function
        self.sha256 = sha256
        self.timeout = timeout
        self.calls = 0
        self.starts = 0
        self._proc: subprocess.Popen[bytes] | None = None
        self._send: Connection | None = None
        self._recv: Connection | None = None
        self._failures_in_row = 0  # calls that timed out or killed the process, in a row
        self._last_failure = ""
        self._secrets = tuple(env_secret_values())
        self._finalizer = weakref.finalize(self, _kill, None, ())

    @property
    def label(self) -> str:
        """Return `file.py:function` for reports."""
        return f"{self.path.name}:{self.function}"

    def identity(self) -> dict[str, str | float]:
        """Return what names the code under audit: the file's name, the function, the sha256
        of the file's bytes and the seconds one call may take (the card binds all four)."""
        return {"file": self.path.name, "function": self.function, "sha256": self.sha256,
                "timeout_s": self.timeout}

    def start(self) -> None:
        """Start the worker process and import the scorer in it (raises ScorerLoadError)."""
        self.close()
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            p for p in (_src_root(), os.environ.get("PYTHONPATH", "")) if p)}
        try:
            proc = subprocess.Popen(
                [sys.executable, "-m", "agentmetrology.audit.scorer_worker", str(to_child_r),
                 str(from_child_w)], pass_fds=(to_child_r, from_child_w),
                stdin=subprocess.DEVNULL, env=env, start_new_session=True)
        except OSError as exc:
            for fd in (to_child_r, to_child_w, from_child_r, from_child_w):
                os.close(fd)
            raise ScorerLoadError(f"cannot start a process for the scorer: {exc}") from None
        os.close(to_child_r)
        os.close(from_child_w)
        send = Connection(to_child_w, readable=False)
        recv = Connection(from_child_r, writable=False)
        self._proc, self._send, self._recv = proc, send, recv
        self._finalizer = weakref.finalize(self, _kill, proc, (send, recv))
        self.starts += 1
        wait = max(LOAD_TIMEOUT_MIN, self.timeout)
        try:
            send.send((sys.path, str(self.path), self.function, self.sha256))
            ready = recv.recv() if recv.poll(wait) else None
        except (EOFError, OSError):
            ready = ("error", f"the scorer's process exited while importing {self.path.name}"
                              f" (exit code {self._exit_code()})")
        if ready is None:
            self.close()
            raise ScorerLoadError(f"importing {self.path.name} took longer than {wait:g} s")
        if ready[0] != "ready":
            self.close()
            raise ScorerLoadError(self._clean(str(ready[1])))

    def close(self) -> None:
        """Stop the worker process (the next call starts a new one)."""
        if self._send is not None and self._proc is not None and self._proc.poll() is None:
            with contextlib.suppress(OSError, subprocess.TimeoutExpired):
                self._send.send(None)  # ask it to finish first; it is killed anyway
                self._proc.wait(0.5)
        self._finalizer()
        self._proc = self._send = self._recv = None

    def __enter__(self) -> UserScorer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _exit_code(self) -> int | None:
        proc = self._proc
        if proc is None:
            return None
        try:
            return proc.wait(1)
        except subprocess.TimeoutExpired:
            return None

    def _clean(self, message: str) -> str:
        """Return `message` with secrets removed, cut to MAX_MESSAGE_CHARS."""
        text = _redact(message, self._secrets)
        if len(text) > MAX_MESSAGE_CHARS:
            text = text[:MAX_MESSAGE_CHARS] + f"… ({len(text) - MAX_MESSAGE_CHARS} more characters)"
        return text

    def _invalid(self, message: str) -> ScoreOutcome:
        return ScoreOutcome(None, "INVALID", self._clean(message))

    def _failed(self, reason: str) -> ScoreOutcome:
        """Kill the process (a hung call with it), count the failure and return INVALID."""
        self._finalizer()
        self._proc = self._send = self._recv = None
        self._failures_in_row += 1
        self._last_failure = reason
        return self._invalid(reason)

    def _died(self) -> ScoreOutcome:
        return self._failed(f"the scorer's process died (exit code {self._exit_code()})")

    def __call__(self, task_id: str, seed: int | None, submission: dict[str, str]) -> ScoreOutcome:
        """Score one submission in the worker process; any failure is an INVALID outcome."""
        if self._failures_in_row >= MAX_CONSECUTIVE_FAILURES:
            return self._invalid(f"not called: the scorer failed {self._failures_in_row} times "
                                 f"in a row (last: {self._last_failure})")
        self.calls += 1
        if self._send is None:
            try:
                self.start()
            except ScorerLoadError as exc:
                return self._failed(f"the scorer could not be restarted: {exc}")
        send, recv = self._send, self._recv
        assert send is not None and recv is not None
        try:
            send.send((task_id, seed, dict(submission)))
        except (BrokenPipeError, EOFError, OSError):
            return self._died()
        except Exception as exc:  # the submission itself cannot be pickled
            return self._invalid(f"the submission cannot be passed to the scorer: "
                                 f"{describe(exc)}")
        if not recv.poll(self.timeout):
            return self._failed(f"timeout after {self.timeout:g} s")
        try:
            value, status, message = recv.recv()
        except (EOFError, OSError):
            return self._died()
        self._failures_in_row = 0
        if status != "ok":
            return self._invalid(str(message))
        return ScoreOutcome(value)


def load_scorer(spec: str, *, root: Path | None = None,
                timeout: float = DEFAULT_TIMEOUT) -> UserScorer:
    """Load `FILE.py:function` in its worker process; relative paths resolve against `root`."""
    file_part, sep, func = spec.rpartition(":")
    if not sep or not file_part or not func:
        raise ScorerLoadError(f"bad --scorer {spec!r}: use FILE.py:function")
    if not (timeout > 0 and math.isfinite(timeout)):
        raise ScorerLoadError(f"the scorer timeout must be a positive number of seconds "
                              f"(got {timeout!r})")
    path = Path(file_part).expanduser()
    if not path.is_absolute():
        path = (root or Path.cwd()) / path
    path = resolved(path)
    if not path.is_file() or path.suffix != ".py":
        raise ScorerLoadError(f"scorer file {str(path)!r} is not an existing .py file")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ScorerLoadError(f"cannot read {str(path)!r}: {exc.strerror or exc}") from None
    scorer = UserScorer(path, func, hashlib.sha256(data).hexdigest(), timeout)
    scorer.start()
    return scorer
