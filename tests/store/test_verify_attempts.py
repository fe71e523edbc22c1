"""The store check holds an attempt's status to the episodes recorded for it
(docs/evidence.md, `attempt_end_disagrees`).

Before this check, a forger who marked an interrupted attempt finished (its detail cleared, so
`agm campaign status` no longer counted the interruption) and rebuilt the chain and its head log
left a store that qualified.
"""

from __future__ import annotations

from pathlib import Path

import store.verify_fixtures as vf
from agentmetrology.store.verify import verify_store

# the billed store (recorded, superseded and interrupted attempts), a fresh copy per test
from store.test_verify_billing import billed_copy, billed_store  # noqa: F401 (fixtures)

KIND = "attempt_end_disagrees"


def _findings(root: Path, mode: str = "full") -> list[tuple[str, str, str, str]]:
    return [t for t in vf.texts(verify_store(root, mode=mode)) if t[0] == KIND]


def _interrupted(root: Path) -> int:
    [(ref,)] = vf.query(root, "SELECT id FROM attempts WHERE status='interrupted'")
    return int(str(ref))


def test_every_status_of_an_honest_store_agrees(root: Path) -> None:
    statuses = {str(s) for (s,) in vf.query(root, "SELECT status FROM attempts")}
    assert statuses == {"finished", "interrupted"}
    assert vf.query(root, "SELECT COUNT(*) FROM superseded_episodes")[0][0] == 1
    for mode in ("full", "ledger"):
        assert _findings(root, mode) == []


def test_an_interruption_relabelled_finished_is_found(root: Path) -> None:
    ref = _interrupted(root)
    vf.reseal(root, f"UPDATE attempts SET status='finished', detail=NULL WHERE id={ref}",
              rows=(("attempts", ref),))
    for mode in ("full", "ledger", "hash-only"):  # the only finding: every byte agrees
        assert vf.texts(verify_store(root, mode=mode)) == [(
            KIND, "invalid_binding", f"attempts id={ref}", "finished, but no episode (recorded "
            "or superseded) names it: the ledger finishes an attempt only with its episode")]


def test_a_recorded_episode_whose_attempt_reads_failed_is_found(root: Path) -> None:
    [(ref,)] = vf.query(root, "SELECT attempt FROM episodes WHERE administration=1")
    vf.reseal(root, f"UPDATE attempts SET status='failed' WHERE id={ref}",
              rows=(("attempts", ref),))
    assert _findings(root) == [(
        KIND, "invalid_binding", f"attempts id={ref}", "failed, but an episode names it: the "
        "ledger marks an attempt finished when it records its episode")]


def test_an_appended_relabelling_is_found_incrementally(root: Path) -> None:
    first = verify_store(root)
    assert first.qualified and first.resume is not None
    ref = _interrupted(root)
    vf.execute(root, f"UPDATE attempts SET status='finished', detail=NULL WHERE id={ref}")
    vf.forge(root, [("attempts", ref)])  # appended, as a writer appends an attempt's end
    q = verify_store(root, since=first.resume)
    assert q.since is not None
    assert KIND in [p.kind for p in q.problems]
