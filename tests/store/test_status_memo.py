"""The memo of `campaign status`'s numbers: the same numbers, reused only while the ledger holds.

The store is the benchmark's realistic one (benchmarks/memory_stores.py, small): several
targets, levels and conditions, measurement failures, ungraded episodes, billable attempts,
interrupted and failed attempts, administrations not launched.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentmetrology.cli.campaign_cmd import campaign_app
from agentmetrology.store import EvidenceStore, status_memo, verify_memo
from agentmetrology.store.status import cell_counts

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from memory_stores import CAMPAIGN, build_store

runner = CliRunner()


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("status-memo") / "s"
    built = build_store(root, 600)
    assert built["not_launched"] and built["interrupted"] and built["failed"]
    return root


@pytest.fixture
def store(built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the built store per test: tests edit its ledger, never a blob.

    The blobs (~850 files, written once and never edited in place by the store) are hard links
    to the built store's, not copies; the ledger is copied.
    """
    monkeypatch.setenv(verify_memo.MEMO_ENV, str(tmp_path / "cache"))
    copy = tmp_path / "store"

    def link_blobs(src: str, dst: str) -> None:
        if Path(src).relative_to(built).parts[0] == "blobs":
            os.link(src, dst)
        else:
            shutil.copy2(src, dst)

    shutil.copytree(built, copy, copy_function=link_blobs)
    return copy


def _view(root: Path, cells: bool = True) -> status_memo.StatusView:
    with EvidenceStore.open(root, create=False) as st:
        return status_memo.campaign_view(st, st.campaigns(), cells=cells)


def _refuse(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*a: object, **k: object) -> None:
        raise AssertionError("computed again")
    monkeypatch.setattr(status_memo, "cell_counts", refuse)
    monkeypatch.setattr(EvidenceStore, "status", refuse)


def test_a_hit_gives_back_exactly_what_was_computed(store: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    first = _view(store)
    assert not first.reused and first.statuses[0].campaign == CAMPAIGN
    with EvidenceStore.open(store, create=False) as st:
        assert first.statuses == [st.status(CAMPAIGN)]
        direct = cell_counts(st.ledger.conn, CAMPAIGN)
    _refuse(monkeypatch)
    again = _view(store)
    assert again.reused
    assert again.statuses == first.statuses  # dataclass equality: every field, floats exact
    assert {k: {s: (c.n, c.excluded, c.total) for s, c in v.items()}
            for k, v in again.cells[CAMPAIGN].items()} == \
        {k: {s: (c.n, c.excluded, c.total) for s, c in v.items()} for k, v in direct.items()}
    assert list(again.cells[CAMPAIGN]) == list(direct)  # the table's row order
    t = again.statuses[0].total
    assert t.cost_unknown > 0 and t.unrecorded_requests > 0 and t.not_launched > 0


def test_the_command_prints_the_same_bytes_computed_or_reused(store: Path) -> None:
    for extra in ([], ["--json"]):
        cold = runner.invoke(campaign_app, ["status", "--store", str(store), *extra])
        warm = runner.invoke(campaign_app, ["status", "--store", str(store), *extra])
        assert cold.exit_code == warm.exit_code == 0, cold.output
        assert cold.stdout == warm.stdout and cold.stderr == warm.stderr
    doc = json.loads(warm.stdout)
    assert doc["evidence"]["result"] == "qualified" and doc["score_rows"]
    memo = verify_memo.memo_path(Path(os.environ[verify_memo.MEMO_ENV]), store, "status")
    assert memo.is_file()


def test_an_edit_of_the_ledger_misses_even_with_its_mtime_restored(
        store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = _view(store).statuses[0]
    ledger = store / "ledger.sqlite"
    st0 = ledger.stat()
    with sqlite3.connect(ledger) as c:
        c.execute("UPDATE episodes SET cost = cost + 1.5 WHERE cost IS NOT NULL AND "
                  "administration = (SELECT MIN(administration) FROM episodes "
                  "WHERE cost IS NOT NULL)")
    with sqlite3.connect(ledger) as c:
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    os.utime(ledger, ns=(st0.st_atime_ns, st0.st_mtime_ns))  # touch -d: ctime moves on
    after = _view(store)
    assert not after.reused
    assert after.statuses[0].total.cost == pytest.approx(before.total.cost + 1.5)
    # and the banner of the same command reports the edit (the ledger check misses too)
    res = runner.invoke(campaign_app, ["status", "--store", str(store)])
    assert "UNQUALIFIED EVIDENCE" in res.stderr and "row_changed" in res.stderr, res.stderr


def test_cells_that_cannot_be_computed_are_refused_every_time(store: Path) -> None:
    with sqlite3.connect(store / "ledger.sqlite") as c:
        c.execute("UPDATE administrations SET binding = binding || ' ' WHERE id = "
                  "(SELECT MIN(administration) FROM episodes)")
    for _ in range(2):
        view = _view(store)
        assert CAMPAIGN in view.cell_errors and CAMPAIGN not in view.cells
        assert "no longer hash" in view.cell_errors[CAMPAIGN]
    res = runner.invoke(campaign_app, ["status", "--store", str(store)])
    assert "scores per level and condition not shown" in res.stderr
    assert "UNQUALIFIED EVIDENCE" in res.stderr and "binding_text_changed" in res.stderr


def test_json_first_then_the_text_computes_only_the_cells(store: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    assert _view(store, cells=False).cells == {}
    calls: list[str] = []
    monkeypatch.setattr(EvidenceStore, "status", lambda *a: calls.append("status"))
    view = _view(store)
    assert calls == [] and CAMPAIGN in view.cells and not view.reused
    assert _view(store).reused


def test_turned_off_nothing_is_kept(store: Path, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(verify_memo.MEMO_ENV, "")
    first, second = _view(store), _view(store)
    assert not first.reused and not second.reused and first.statuses == second.statuses
    assert not (tmp_path / "cache").exists()


def test_changed_status_code_misses(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _view(store)
    key = status_memo.ledger_key(store)
    monkeypatch.setattr(status_memo, "_CODE", (*status_memo._CODE, "blobs.py"))
    assert status_memo.ledger_key(store) not in ("", key)
    assert not _view(store).reused
