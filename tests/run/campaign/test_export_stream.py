"""The streamed export gives the bytes of the whole-export path, row for row.

The store is the benchmark's realistic one (benchmarks/memory_stores.py, small) with a second
campaign appended: measurement failures, ungraded episodes, billed requests, unrecorded and
not-launched administrations, two campaigns in one store.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agentmetrology.run.export import export_rows, stream_rows
from agentmetrology.run.export_write import render, stream_bytes
from agentmetrology.store import EvidenceStore

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
from memory_stores import build_store


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("export-stream") / "s"
    build_store(root, 600)
    build_store(root, 600, name="second")
    return root


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
@pytest.mark.parametrize("campaigns", [None, ["second"]])
def test_the_stream_is_the_whole_export(store: Path, fmt: str,
                                        campaigns: list[str] | None) -> None:
    with EvidenceStore.open_readonly(store, scrub_env=False) as st:
        whole = export_rows(st, campaigns)
        stream = stream_rows(st, campaigns)
        streamed = b"".join(stream_bytes(stream.columns, stream.rows, fmt, batch=7))
    assert whole.rows and any(r["measurement_failure"] for r in whole.rows)
    assert streamed == render(whole, fmt)
    assert (stream.columns, stream.scorers, stream.unrecorded) == (
        whole.columns, whole.scorers, whole.unrecorded) and whole.unrecorded > 0


def test_an_empty_selection_is_a_header_only(store: Path, tmp_path: Path) -> None:
    with EvidenceStore.open_readonly(store, scrub_env=False) as st:
        stream = stream_rows(st, [])
        assert b"".join(stream_bytes(stream.columns, stream.rows, "csv")) == render(
            export_rows(st, []), "csv")
