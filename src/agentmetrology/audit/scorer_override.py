"""Load a user's scorer from `FILE.py:function` and call it safely (specs/audit.md).

The callable is `function(task_id: str, seed: int | None, submission: dict) -> number` (or a
dict with a numeric `total`), where `submission` has string fields `data_jsonl`,
`metadata_json` and `run_log`. It runs in-process; any exception it raises becomes an INVALID
probe cell carrying the message, never a crash of the audit.
"""

from __future__ import annotations

import hashlib
import importlib.util
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentmetrology.audit.target import ScoreOutcome


class ScorerLoadError(ValueError):
    """Raised when `FILE.py:function` cannot be loaded; the message says how to fix it."""


@dataclass(frozen=True, slots=True)
class UserScorer:
    """A scorer callable loaded from a file, with its identity (path, function, sha256)."""

    path: Path
    function: str
    sha256: str
    fn: Callable[..., Any]

    @property
    def label(self) -> str:
        """Return `file.py:function` for reports."""
        return f"{self.path.name}:{self.function}"

    def __call__(self, task_id: str, seed: int | None, submission: dict[str, str]) -> ScoreOutcome:
        """Call the user's function and turn its answer (or exception) into a ScoreOutcome."""
        try:
            raw = self.fn(task_id, seed, dict(submission))
        except Exception as exc:  # the user's code: any failure is an INVALID cell
            return ScoreOutcome(None, "INVALID", f"{type(exc).__name__}: {exc}")
        return coerce_score(raw)


def coerce_score(raw: Any) -> ScoreOutcome:
    """Return the number in `raw` (a number or a dict with `total`), or INVALID with why."""
    if isinstance(raw, dict):
        if "total" not in raw:
            return ScoreOutcome(None, "INVALID", "scorer returned a dict without 'total'")
        raw = raw["total"]
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        return ScoreOutcome(None, "INVALID",
                            f"scorer returned {type(raw).__name__}, not a number")
    value = float(raw)
    if not math.isfinite(value):
        return ScoreOutcome(None, "INVALID", f"scorer returned a non-finite number ({value})")
    return ScoreOutcome(value)


def load_scorer(spec: str, *, root: Path | None = None) -> UserScorer:
    """Load `FILE.py:function`; the file must exist (relative paths resolve against `root`)."""
    file_part, sep, func = spec.rpartition(":")
    if not sep or not file_part or not func:
        raise ScorerLoadError(f"bad --scorer {spec!r}: use FILE.py:function")
    path = Path(file_part).expanduser()
    if not path.is_absolute():
        path = (root or Path.cwd()) / path
    path = path.resolve()
    if not path.is_file() or path.suffix != ".py":
        raise ScorerLoadError(f"scorer file {str(path)!r} is not an existing .py file")
    data = path.read_bytes()
    module_name = "agm_user_scorer_" + hashlib.sha256(data).hexdigest()[:12]
    spec_obj = importlib.util.spec_from_file_location(module_name, path)
    if spec_obj is None or spec_obj.loader is None:
        raise ScorerLoadError(f"cannot import {str(path)!r} as a Python module")
    module = importlib.util.module_from_spec(spec_obj)
    sys.modules[module_name] = module
    try:
        spec_obj.loader.exec_module(module)
    except Exception as exc:
        raise ScorerLoadError(f"importing {path.name} failed: {type(exc).__name__}: {exc}") \
            from None
    fn = getattr(module, func, None)
    if not callable(fn):
        raise ScorerLoadError(f"{path.name} has no callable named {func!r}")
    return UserScorer(path, func, hashlib.sha256(data).hexdigest(), fn)
