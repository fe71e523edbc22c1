"""Re-sealing cannot hide a forgery, and a store sealed by migration says so in every banner.

Deleting the chain marker (`meta.ledger_chain`) and running `agm evidence seal` once re-sealed
a forged store as found; now a ledger that shows it kept a chain (its chain entries, its head
log or the log's row in `meta`) is refused, and its verification names the removed marker.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import store.verify_fixtures as vf
from agentmetrology.store import EvidenceStore
from agentmetrology.store.head_log import HEAD_LOG_FILE
from agentmetrology.store.qualify import banner
from agentmetrology.store.verify import store_is_sealed, verify_store
from store.verify_fixtures import (  # built_store, store_copy: the built and root fixtures
    built_store,  # noqa: F401
    files,
    store_copy,  # noqa: F401
)
from support.agm_runs import run_main

OLD = Path(__file__).resolve().parents[1] / "fixtures" / "pre_plugin_store"


def _forge_and_unmark(root: Path) -> None:
    vf.execute(root, "UPDATE assessments SET score = 0.0",
               "DELETE FROM meta WHERE key = 'ledger_chain'")


def test_a_store_whose_marker_was_removed_is_not_sealed_again(root: Path) -> None:
    _forge_and_unmark(root)
    assert store_is_sealed(root)  # its chain remains: it is checked, not called unsealed
    before = files(root)
    res = run_main(["evidence", "seal", str(root)])
    assert res.returncode == 2 and "not sealed again" in res.stderr
    assert res.stderr.count("\n") == 1
    assert files(root) == before
    q = verify_store(root)
    assert ("schema_changed", "meta ledger_chain") in {(p.kind, p.where) for p in q.problems}
    assert "row_changed" in {p.kind for p in q.problems}


def test_without_chain_entries_the_head_log_still_refuses(root: Path) -> None:
    _forge_and_unmark(root)
    vf.execute(root, "DELETE FROM chain")
    assert run_main(["evidence", "seal", str(root)]).returncode == 2
    vf.execute(root, "DELETE FROM meta WHERE key = 'head_log'")
    assert run_main(["evidence", "seal", str(root)]).returncode == 2  # the log file remains
    q = verify_store(root, mode="hash-only")
    assert not q.qualified
    assert {"schema_changed", "row_not_sealed", "chain_truncated"} <= {p.kind for p in q.problems}


def test_a_migrated_store_says_it_is_unchained_before_its_seal_in_every_banner(
        tmp_path: Path) -> None:
    root = tmp_path / "old"
    shutil.copytree(OLD, root)
    res = run_main(["evidence", "seal", str(root)])
    assert res.returncode == 0, res.stderr
    assert (root / HEAD_LOG_FILE).exists()  # witnessed from the seal point on
    q = verify_store(root, mode="hash-only")
    assert q.qualified and q.migrated_at
    text = banner(q)
    assert text is not None and text.startswith(f"UNCHAINED EVIDENCE BEFORE {q.migrated_at}")
    res = run_main(["evidence", "verify", str(root), "--hash-only"])
    assert res.returncode == 0 and "UNCHAINED EVIDENCE BEFORE" in res.stdout
    # a later problem keeps the warning beside its own
    vf.execute(root, "UPDATE runs SET outcome = 'forged'")
    text = banner(verify_store(root, mode="hash-only"))
    assert text is not None and text.startswith("UNQUALIFIED EVIDENCE (invalid_binding)")
    assert "UNCHAINED EVIDENCE BEFORE" in text
    # the campaign status banner of a store sealed by migration says it too
    res = run_main(["campaign", "status", "--store", str(root)])
    assert "UNCHAINED EVIDENCE BEFORE" in res.stderr
    with EvidenceStore.open(root, scrub_env=False) as st:
        assert st.seal_existing() == 0  # sealed: nothing changes
