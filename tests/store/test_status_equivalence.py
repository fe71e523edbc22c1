"""`campaign_status` after the query rewrite gives exactly what the old queries gave.

The store is the benchmark's realistic one (benchmarks/memory_stores.py, small): several
targets, levels and conditions, measurement failures, ungraded episodes, billable attempts
with and without a price, interrupted and failed attempts, administrations not launched.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agentmetrology.archive.evidence_check import qualify_store
from agentmetrology.run.export import cell_scores, export_rows
from agentmetrology.store import EvidenceStore, status
from agentmetrology.store.status import cell_counts

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from memory_stores import CAMPAIGN, build_store

# The queries as they were before (per-target counts read the administrations' rows).
OLD_EPISODE_COUNTS = """
SELECT a.target, COUNT(*), COUNT(e.administration),
       COALESCE(SUM(e.termination = 'submitted'), 0),
       COALESCE(SUM(e.termination != 'submitted' AND e.measurement_failure = 0), 0),
       COALESCE(SUM(e.measurement_failure = 1), 0),
       COALESCE(SUM(e.administration IS NULL AND a.not_launched IS NOT NULL), 0),
       COALESCE(SUM(e.administration IS NOT NULL AND e.cost IS NULL), 0),
       TOTAL(e.cost), TOTAL(e.input_tokens), TOTAL(e.output_tokens)
FROM administrations a LEFT JOIN episodes e ON e.administration = a.id
WHERE a.campaign = ? GROUP BY a.target
"""
OLD_ATTEMPT_COUNTS = """
SELECT a.target, t.status, COUNT(*) FROM attempts t
JOIN administrations a ON a.id = t.administration
WHERE a.campaign = ? GROUP BY a.target, t.status
"""
OLD_ERRORED = """
SELECT a.target, COUNT(*) FROM administrations a
WHERE a.campaign = ?
  AND NOT EXISTS (SELECT 1 FROM episodes e WHERE e.administration = a.id)
  AND (SELECT t.status FROM attempts t WHERE t.administration = a.id
       ORDER BY t.id DESC LIMIT 1) = 'failed'
GROUP BY a.target
"""
OLD_NOT_LAUNCHED = """
SELECT a.not_launched, COUNT(*) FROM administrations a
LEFT JOIN episodes e ON e.administration = a.id
WHERE a.campaign = ? AND e.administration IS NULL AND a.not_launched IS NOT NULL
GROUP BY a.not_launched
"""


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("realistic") / "s"
    built = build_store(root, 1200)
    assert built["not_launched"] and built["interrupted"] and built["failed"]
    return root


def test_status_counts_equal_the_old_queries(store: Path) -> None:
    with EvidenceStore.open(store, create=False) as st:
        s = st.status(CAMPAIGN)
        c = st.ledger.conn
        new_counts = {r[0]: r for r in c.execute(status._EPISODE_COUNTS, (CAMPAIGN,))}
        for r in c.execute(OLD_EPISODE_COUNTS, (CAMPAIGN,)):
            t = s.targets[r[0]]
            assert (t.planned, t.done, t.submitted, t.failed_agent, t.failed_infra,
                    t.not_launched) == tuple(r[1:7])
            # the sums (cost, tokens) are the old ones bit for bit: same rows, same order
            assert new_counts[r[0]][6:10] == r[7:]
            assert new_counts[r[0]][10] == 0  # served episodes (none in this store)
        attempts = {(t, st_): n for t, st_, n in c.execute(OLD_ATTEMPT_COUNTS, (CAMPAIGN,))}
        errored = dict(c.execute(OLD_ERRORED, (CAMPAIGN,)).fetchall())
        reasons = {str(k): int(n) for k, n in c.execute(OLD_NOT_LAUNCHED, (CAMPAIGN,))}
    assert s.not_launched_reasons == reasons and sum(reasons.values()) == s.total.not_launched
    for name, t in s.targets.items():
        assert t.interrupted_attempts == attempts.get((name, "interrupted"), 0)
        assert t.failed_attempts == attempts.get((name, "failed"), 0)
        assert t.errored == errored.get(name, 0)
    assert s.total.failed_attempts and s.total.interrupted_attempts and s.total.errored


def test_cells_equal_the_export_on_the_realistic_store(store: Path) -> None:
    with EvidenceStore.open(store, create=False) as st:
        old = cell_scores(export_rows(st, [CAMPAIGN]))
        new = cell_counts(st.ledger.conn, CAMPAIGN)
    assert {k: {s: (c.n, c.excluded, c.total) for s, c in v.items()} for k, v in new.items()} \
        == {k: {s: (c.n, c.excluded, c.total) for s, c in v.items()} for k, v in old.items()}
    assert sum(c.excluded for per in new.values() for c in per.values()) > 0


def test_the_realistic_store_qualifies(store: Path, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGM_VERIFY_CACHE", str(tmp_path / "memo"))
    assert qualify_store(store, "full")["result"] == "qualified"
    cold = qualify_store(store, "ledger")
    assert cold["result"] == "qualified" and qualify_store(store, "ledger") == cold
