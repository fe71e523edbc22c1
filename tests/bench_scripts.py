"""Load a script of benchmarks/ as a module, the way it runs (its sibling modules importable)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def load(name: str) -> ModuleType:
    """Return benchmarks/<name>.py executed as a fresh module named `bench_<name>`."""
    sys.path.insert(0, str(BENCHMARKS))  # scripts import modules beside them
    try:
        spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCHMARKS / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCHMARKS))
