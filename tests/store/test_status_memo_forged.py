"""A status memo edited by hand, with a valid key but entries of the wrong shape, is a miss:
the numbers are computed again from the ledger, never a traceback."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from agentmetrology.store import EvidenceStore, status_memo, verify_memo

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from memory_stores import CAMPAIGN, build_store


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("forged-memo") / "s"
    build_store(root, 60)
    return root


def _view(root: Path) -> status_memo.StatusView:
    with EvidenceStore.open(root, create=False) as st:
        return status_memo.campaign_view(st, st.campaigns(), cells=True)


@pytest.mark.parametrize("forge", [
    {"statuses": {CAMPAIGN: {"campaign": 1}}, "cells": {CAMPAIGN: [[1]]}},
    {"statuses": {CAMPAIGN: {"total": "x"}}, "cells": {CAMPAIGN: "not rows"}},
    {"statuses": [1, 2], "cells": [3]},
    {"statuses": {CAMPAIGN: None}, "cells": {CAMPAIGN: [["t", "L0", "none", {"s": [1]}]]}},
])
def test_a_forged_entry_is_computed_again(store: Path, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch,
                                          forge: dict[str, Any]) -> None:
    monkeypatch.setenv(verify_memo.MEMO_ENV, str(tmp_path / "cache"))
    first = _view(store)
    (path,) = (tmp_path / "cache").glob("*.status.json")
    doc = json.loads(path.read_text())
    assert doc["key"] and CAMPAIGN in doc["statuses"]
    path.write_text(json.dumps({**doc, **forge}))
    again = _view(store)
    assert not again.reused
    assert again.statuses == first.statuses
    assert again.cells == first.cells
    assert json.loads(path.read_text())["statuses"] == doc["statuses"]  # kept again, whole
