"""The process a user's scorer runs in: `python -m agentmetrology.audit.scorer_worker IN OUT`.

IN and OUT are pipe file descriptors carrying `multiprocessing.connection` messages. The first
message is `(sys_path, file, function, sha256)`; the worker imports the scorer if the file's
bytes still have that sha256 and answers `("ready", "")` or `("error", why)`. Then each
`(task_id, seed, submission)` is answered with `(value, status, message)`, and `None` ends the
process. Any exception the user's code raises (even `SystemExit` or `KeyboardInterrupt`) is
an INVALID answer, never the end of this loop.

A plain subprocess (not multiprocessing's spawn or forkserver) because those re-import the
parent's `__main__`, which breaks any program that calls the auditor without a main guard.
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import math
import numbers
import os
import signal
import sys
import threading
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from agentmetrology.audit.target import ScoreOutcome

# The largest score a user's scorer may return: half the float range, so that the difference of
# two scores (a 2x2 spread, a tie test) is a finite number too; a larger one is INVALID.
MAX_SCORE = sys.float_info.max / 2


class ScorerLoadError(ValueError):
    """Raised when `FILE.py:function` cannot be loaded; the message says how to fix it."""


def coerce_score(raw: Any) -> ScoreOutcome:
    """Return the number in `raw` (a number or a dict with `total`), or INVALID with why."""
    if isinstance(raw, dict):
        if "total" not in raw:
            return ScoreOutcome(None, "INVALID", "scorer returned a dict without 'total'")
        raw = raw["total"]
    # Any real number: numpy's scalars (np.float32(0.5), np.int64(3): what a scorer built on
    # numpy returns) and fractions register as numbers.Real; a bool (Python's or numpy's),
    # a Decimal, a complex or an array do not, and are refused.
    if isinstance(raw, bool) or not isinstance(raw, numbers.Real):
        return ScoreOutcome(None, "INVALID",
                            f"scorer returned {type(raw).__name__}, not a number")
    try:
        value = float(raw)
    except OverflowError:  # an int beyond the float range, e.g. 10**400
        value = math.inf
    if not math.isfinite(value):
        shown = ("an integer too large for a float" if isinstance(raw, numbers.Integral)
                 else str(value))
        return ScoreOutcome(None, "INVALID", f"scorer returned {shown}: not a finite number")
    if abs(value) > MAX_SCORE:
        return ScoreOutcome(None, "INVALID", f"scorer returned {value:g}: beyond ±{MAX_SCORE:.3g}"
                                             f" (half the float range, so differences of scores"
                                             f" stay finite)")
    return ScoreOutcome(value)


def describe(exc: BaseException) -> str:
    """Return `Type: message` for an exception, even when its own `str()` fails."""
    try:
        text = str(exc)
    except Exception:  # a user exception whose __str__ raises still gets its type reported
        text = "<the exception's message could not be read>"
    name = type(exc).__name__
    return f"{name}: {text}" if text else name


def import_scorer(path: Path, function: str, sha256: str | None = None) -> Any:
    """Import `path` and return its callable `function` (raises ScorerLoadError); with
    `sha256`, only if the file's bytes still have that digest (the one the card names)."""
    data = path.read_bytes()
    found = hashlib.sha256(data).hexdigest()
    if sha256 is not None and found != sha256:  # edited since the audit began: not its code
        raise ScorerLoadError(f"{path.name} changed during the audit (sha256 {found[:12]}…, "
                              f"the card names {sha256[:12]}…); rerun the audit")
    module_name = "agm_user_scorer_" + found[:12]
    spec_obj = importlib.util.spec_from_file_location(module_name, path)
    if spec_obj is None or spec_obj.loader is None:
        raise ScorerLoadError(f"cannot import {str(path)!r} as a Python module")
    module = importlib.util.module_from_spec(spec_obj)
    sys.modules[module_name] = module
    try:
        # the bytes hashed are the bytes run: the loader would read the file (or a cached
        # .pyc) again, after the check
        exec(compile(data, str(path), "exec"), module.__dict__)
    except BaseException as exc:  # SystemExit at import time is a load failure too
        raise ScorerLoadError(f"importing {path.name} failed: {describe(exc)}") from None
    fn = getattr(module, function, None)
    if not callable(fn):
        raise ScorerLoadError(f"{path.name} has no callable named {function!r}")
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):  # a builtin without one: its calls will say
        return fn
    try:  # a wrong signature fails every call alike: said once, before the audit runs
        signature.bind("task", 0, {})
    except TypeError:
        raise ScorerLoadError(f"{path.name}:{function}{signature} cannot be called as "
                              f"{function}(task_id, seed, submission)") from None
    return fn


def _orphan_watch(parent: int) -> None:
    """End this process when the audit that started it is gone (even mid-call, even hung)."""
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(3)


def serve(inbox: Connection, outbox: Connection) -> None:
    """Import the scorer named by the first message, then answer scoring requests."""
    sys_path, file, function, sha256 = inbox.recv()
    sys.path[:] = list(dict.fromkeys([*sys_path, *sys.path]))
    try:
        fn = import_scorer(Path(file), function, sha256)
    except ScorerLoadError as exc:
        outbox.send(("error", str(exc)))
        return
    except BaseException as exc:
        outbox.send(("error", f"loading {Path(file).name} failed: {describe(exc)}"))
        return
    outbox.send(("ready", ""))
    while True:
        try:
            request = inbox.recv()
        except (EOFError, OSError):
            return
        if request is None:
            return
        task_id, seed, submission = request
        try:
            out = coerce_score(fn(task_id, seed, submission))
        except BaseException as exc:  # the user's code: any failure is an INVALID cell
            out = ScoreOutcome(None, "INVALID", describe(exc))
        outbox.send((out.value, out.status, out.message))


def main() -> None:
    """Run the worker on the pipe descriptors given on the command line."""
    # A real Ctrl-C is the audit's to handle (it kills this process).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Whatever the user's code prints goes to stderr, never into `agm audit --json` output.
    os.dup2(2, 1)
    threading.Thread(target=_orphan_watch, args=(os.getppid(),), daemon=True).start()
    serve(Connection(int(sys.argv[1]), writable=False),
          Connection(int(sys.argv[2]), readable=False))


if __name__ == "__main__":
    main()
