"""`store.status.cell_counts` and the verifier's fast paths give exactly the old numbers."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from agentmetrology.records.canonical import digest, from_plain
from agentmetrology.run.export import cell_scores, export_rows
from agentmetrology.store import EvidenceStore
from agentmetrology.store.blobs import BlobCorruptError
from agentmetrology.store.status import CHUNK, cell_counts
from agentmetrology.store.verify import _plan_digest
from archive.agm_fixtures import build_store


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_store(tmp_path_factory.mktemp("cells") / "s", name="cells")


def test_cell_counts_equal_the_export_cell_scores(store: Path) -> None:
    with EvidenceStore.open(store, create=False) as st:
        old = cell_scores(export_rows(st, ["cells"]))
        new = cell_counts(st.ledger.conn, "cells")
    assert list(new) == list(old)  # the same cells, in the same (sorted) order
    for cell, per in old.items():
        assert list(new[cell]) == list(per)
        for scorer, c in per.items():
            got = new[cell][scorer]
            assert (got.n, got.excluded, got.total) == (c.n, c.excluded, c.total)
    # the fixture has excluded episodes (never_submits is scored; UNKNOWN shape scores exist)
    assert sum(c.n for per in new.values() for c in per.values()) == 24 * 2


def test_cell_counts_refuse_a_binding_that_no_longer_hashes(store: Path, tmp_path: Path) -> None:
    copy = tmp_path / "s"
    import shutil
    shutil.copytree(store, copy)
    with sqlite3.connect(copy / "ledger.sqlite") as c:
        c.execute("UPDATE administrations SET binding = binding || ' ' WHERE ordinal = 3")
    with EvidenceStore.open(copy, create=False) as st:
        with pytest.raises(BlobCorruptError) as old:
            export_rows(st, ["cells"])
        with pytest.raises(BlobCorruptError) as new:
            cell_counts(st.ledger.conn, "cells")
    assert str(new.value) == str(old.value)


def test_cell_rows_are_fetched_in_chunks() -> None:
    """The streaming query never asks for every row at once."""
    import inspect

    from agentmetrology.store import status
    src = inspect.getsource(status._episode_scores)
    assert "fetchmany(CHUNK)" in src and "fetchall" not in src and CHUNK < 10_000


@pytest.mark.parametrize("details", [{"profile": "seeded"}, {"x": {"$float": "nan"}},
                                     {"x": {"$literal": {"a": 1}}}, {"y": [1.5, "é"]}])
def test_plan_digest_fast_path_is_the_canonical_digest(details: dict) -> None:  # type: ignore[type-arg]
    rows = [{"key": {"campaign": "c", "seed": i}, "task": "t", "target": "g", "scorers": {},
             "details": details} for i in range(3)]
    tagged = '"$' in json.dumps(details)
    # rows are parsed sealed texts: their tags are decoded, then canonically encoded again
    assert _plan_digest("c", rows, tagged) == digest(from_plain({"campaign": "c",
                                                                 "bindings": rows}))


def test_the_store_check_streams_its_rows() -> None:
    """Every query of the verifier is iterated, never fetched whole (memory stays flat)."""
    import inspect

    from agentmetrology.store import verify, verify_episodes
    for module in (verify, verify_episodes):
        assert "fetchall" not in inspect.getsource(module)
