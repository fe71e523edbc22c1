"""`make mutation`'s configuration names only what exists (tests/mutation/run.py, equivalent.py).

A core module or a test path that is not there makes mutmut fail only when that module's turn
comes, minutes into a run; an equivalent listed for a module outside the core is never read.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _load(name: str) -> object:
    spec = importlib.util.spec_from_file_location(name, ROOT / "tests" / "mutation" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_core_module_and_test_path_exists() -> None:
    core = _load("run").CORE  # type: ignore[attr-defined]
    # what issue 17 names as the measurement core, at least
    named = {"store/ledger.py", "store/blobs.py", "store/redact.py", "audit/probes.py",
             "audit/card.py", "audit/episodes.py", "archive/coverage.py", "archive/passk.py",
             "archive/cost.py", "archive/versions.py", "serve/mcp_server.py",
             "envs/comtrade/faults.py", "envs/comtrade/generator.py", "scoring/episode.py",
             "stats/bootstrap.py"}
    assert named <= set(core), sorted(named - set(core))
    for module, tests in core.items():
        assert (ROOT / "src" / "agentmetrology" / module).is_file(), module
        assert tests, module
        for test in tests:
            path = test.split("::", 1)[0]
            assert (ROOT / path).exists(), f"{module}: {test}"


def test_every_equivalent_names_a_core_module_and_gives_a_reason() -> None:
    core = _load("run").CORE  # type: ignore[attr-defined]
    prefixes = {"agentmetrology." + m.removesuffix(".py").replace("/", ".") + "." for m in core}
    for name, reason in _load("equivalent").EQUIVALENT.items():  # type: ignore[attr-defined]
        assert any(name.startswith(p) for p in prefixes), name
        assert isinstance(reason, str) and len(reason) > 20, name
