"""The status numbers of a store that grew: the campaigns its growth did not touch are reused,
the others computed again, with the same numbers a fresh computation gives."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from agentmetrology.store import EvidenceStore, verify_memo
from agentmetrology.store.status_memo import campaign_view, touched_campaigns
from store.incremental_fixtures import append, first_store, fresh_copy


@pytest.fixture(scope="module")
def first(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return first_store(tmp_path_factory)


@pytest.fixture
def store(first: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return fresh_copy(first, tmp_path, monkeypatch)


def _view(store: Path, computed: list[str]) -> dict[str, object]:
    """Return every campaign's status JSON and cells, noting which were computed."""
    with EvidenceStore.open(store, create=False) as st:
        real = st.status

        def spy(name: str) -> object:
            computed.append(name)
            return real(name)
        st.status = spy  # type: ignore[method-assign]
        view = campaign_view(st, st.campaigns(), cells=True)
    return {s.campaign: (s.to_json(), view.cells[s.campaign]) for s in view.statuses}


def test_an_untouched_campaign_is_reused_after_an_append(store: Path) -> None:
    computed: list[str] = []
    _view(store, computed)
    assert computed == ["first"]
    append(store)
    computed.clear()
    grown = _view(store, computed)
    assert computed == ["second"]  # `first` came from the memo
    shutil.rmtree(Path(verify_memo.memo_dir() or ""))
    computed.clear()
    assert _view(store, computed) == grown and computed == ["first", "second"]


def test_a_ledger_edited_without_growing_is_computed_again(store: Path) -> None:
    computed: list[str] = []
    _view(store, computed)
    with sqlite3.connect(store / "ledger.sqlite") as c:
        c.execute("UPDATE episodes SET termination = 'infra_error', measurement_failure = 1 "
                  "WHERE administration = 1")
    computed.clear()
    _view(store, computed)
    assert computed == ["first"]


def test_a_run_of_an_older_campaign_names_it(store: Path) -> None:
    with sqlite3.connect(store / "ledger.sqlite") as c:
        length = c.execute("SELECT MAX(seq) FROM chain").fetchone()[0]
    append(store)
    with EvidenceStore.open(store, create=False, write=True, scrub_env=False) as st:
        run = st.begin_run("first", "inline")
        st.end_run(run, "done")
        assert touched_campaigns(st.ledger.conn, length) == {"first", "second"}
    with sqlite3.connect(store / "ledger.sqlite") as c:  # an entry whose row is gone
        c.execute("DELETE FROM runs WHERE id = (SELECT MAX(id) FROM runs)")
    with EvidenceStore.open(store, create=False) as st:
        assert touched_campaigns(st.ledger.conn, length) is None
