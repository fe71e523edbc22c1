"""benchmarks/status_profile.py times each phase of `agm campaign status` with the code it profiles.

It reaches into the command's modules and the verifier's steps, so a refactor there broke it
without a failing test once (benchmarks/memory.py then stopped with an ImportError).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentmetrology.cli.campaign_cmd import campaign_app
from agentmetrology.store import verify_memo
from bench_scripts import BENCHMARKS, load

sys.path.insert(0, str(BENCHMARKS))
from memory_stores import build_store

STEPS = ("chain", "rows", "texts", "blobs", "bindings", "episodes")


def test_cold_then_warm_phases(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(verify_memo.MEMO_ENV, str(tmp_path / "cache"))
    root = tmp_path / "store"
    build_store(root, 120)
    profile = load("status_profile").profile

    cold = profile(root, True)
    assert cold["state"] == "cold"
    assert list(cold["phases"]) == ["interpreter and package", "imports",
                                    "status numbers (computed)", "blob fingerprint",
                                    *(f"ledger check: {s}" for s in STEPS), "rendering"]

    result = CliRunner().invoke(campaign_app, ["status", "--store", str(root)])
    assert result.exit_code == 0, result.output  # leaves the memos a warm status reads
    warm = profile(root, False)
    assert "status numbers (memo hit)" in warm["phases"]
    assert "ledger check (memo hit, specifications re-opened)" in warm["phases"]
    assert warm["cpu_s"] == pytest.approx(sum(p["cpu_s"] for p in warm["phases"].values()),
                                          abs=0.01)
