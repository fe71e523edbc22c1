"""Ledger reads of a key it does not hold, and the older (unsealed) layout staying unsealed
through every write path (docs/evidence.md, "Older stores")."""

from __future__ import annotations

import shutil
from pathlib import Path

from agentmetrology.records import EpisodeKey
from agentmetrology.store import EvidenceStore
from agentmetrology.store.chain import GENESIS, head
from store.evidence_fixtures import key, make_episode, register

OLD = Path(__file__).resolve().parents[1] / "fixtures" / "pre_plugin_store"
UNKNOWN = EpisodeKey("nope", "t", "T1_single_page", 0, "clean", "L2", 0)


def test_reads_of_a_key_the_ledger_does_not_hold(store: EvidenceStore) -> None:
    register(store, 1)
    ledger = store.ledger
    assert ledger.binding(UNKNOWN) is None and ledger.superseded(UNKNOWN) == []
    assert ledger.episode(UNKNOWN) is None and ledger.attempts(UNKNOWN) == []
    assert ledger.administration(UNKNOWN) is None
    assert ledger.superseded(key(0)) == []  # held, never superseded


def test_an_unsealed_ledger_stays_unsealed_when_failures_are_superseded(tmp_path: Path) -> None:
    root = tmp_path / "old"
    shutil.copytree(OLD, root)
    with EvidenceStore.open(root, scrub_env=False) as st:
        assert not st.sealed
        register(st, 2, campaign="c9")
        adm = st.ledger.administration(key(0, "c9"))
        assert adm is not None
        ep, scored = make_episode(key(0, "c9"), "infra_error")
        st.record_episode(st.start_attempt(adm, None, "inline"), ep, scored)
        assert st.supersede_measurement_failures("c9", None) == 1
        assert [r["termination"] for r in st.superseded(key(0, "c9"))] == ["infra_error"]
        assert head(st.ledger.conn) == (0, GENESIS)  # no partial chain started
        assert not st.sealed
