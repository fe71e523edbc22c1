"""A case step its writers never record, forged into a sealed store, is a finding of the check.

Before, the check hashed case rows but never read their order: an event appended by hand (and
sealed with one chain entry and one head log line) took a case from proposed to admitted with
no calibration, `agm cases use` then used it, and `agm evidence verify` qualified the store.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

import store.verify_fixtures as vf
from agentmetrology.assess import cases as C
from agentmetrology.records import EpisodeKey
from agentmetrology.store import EvidenceStore
from agentmetrology.store.verify import verify_store
from agentmetrology.store.verify_cases import case_findings
from store.verify_fixtures import texts
from support.agm_runs import agm
from support.small_campaigns import PERMISSION
from support.stores import record_campaign

FAILING = EpisodeKey("perm", "overreach", "flag_overdue", 0, "clean", "L2", 0)


@pytest.fixture(scope="module")
def proposed_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A store holding one case, proposed (built once: copy it before forging)."""
    root = record_campaign(tmp_path_factory.mktemp("cases"), PERMISSION)
    with EvidenceStore.open(root, create=False, write=True) as st:
        return root, C.propose(st, FAILING).id


@pytest.fixture
def store(proposed_store: tuple[Path, str], tmp_path: Path) -> tuple[Path, str]:
    """A fresh copy of the proposed store and its case."""
    return vf.copy(proposed_store[0], tmp_path / "store"), proposed_store[1]


def _event(root: Path, case: str, state: str, action: str) -> int:
    """Append a case event by hand, sealed; return its id."""
    n = int(str(vf.query(root, "SELECT MAX(id) FROM case_events")[0][0])) + 1
    vf.forge(root, [("case_events", n)], (
        "INSERT INTO case_events (id, case_id, state, action, detail, at) VALUES "
        "(?, ?, ?, ?, '{}', '2026-12-07T00:00:00.000+00:00')", (n, case, state, action)))
    return n


def _findings(root: Path, case: str, want: list[tuple[str, str]],
              since: object = None) -> None:
    """Assert every mode (and the incremental check from `since`) finds exactly `want`."""
    expected = [("case_out_of_order", "invalid_binding", where, detail)
                for where, detail in want]
    for mode in ("full", "hash-only", "ledger"):
        assert texts(verify_store(root, mode=mode)) == expected, mode
    if since is not None:
        assert texts(verify_store(root, since=since)) == expected  # type: ignore[arg-type]


def test_admitted_without_calibration(store: tuple[Path, str]) -> None:
    root, case = store
    before = verify_store(root)
    assert before.qualified and before.resume is not None
    ev = _event(root, case, "admitted", "admit")
    with EvidenceStore.open(root, create=False, write=True) as st:
        C.use(st, case, "scripted:within")  # the writers take the forged state as it reads
    _findings(root, case, [(f"case_events id={ev} (case {case})",
                            "the case went from proposed to admitted, skipping calibrated "
                            "(`agm cases calibrate`): admit needs a case that is calibrated")],
              before.resume)
    res = agm("evidence", "verify", str(root))
    assert res.returncode == 1 and f"case_out_of_order: case_events id={ev} (case {case})" \
        in " ".join(res.stdout.split())


def test_active_without_calibration_admission_or_use(store: tuple[Path, str]) -> None:
    root, case = store
    ev = _event(root, case, "active", "first use")
    _findings(root, case, [(f"case_events id={ev} (case {case})",
                            "the case went from proposed to active, skipping calibrated (`agm "
                            "cases calibrate`), admitted (`agm cases admit`): first use needs a "
                            "case that is admitted")])


def test_a_use_of_a_proposed_case(store: tuple[Path, str]) -> None:
    root, case = store
    cols = "agent, level, episode_digest, submission_digest, status, result, used_at"
    digest = vf.query(root, "SELECT episode_digest FROM episodes")[0][0]
    vf.forge(root, [("case_uses", 1)], (
        f"INSERT INTO case_uses (id, case_id, {cols}) VALUES (1, ?, 'scripted:within', 'L2', ?, "
        "NULL, 'PASS', '{}', '2026-12-07T00:00:00.000+00:00')", (case, digest)))
    _findings(root, case, [(f"case_uses id=1 (case {case})",
                            "a use sealed while the case was proposed: a use needs a case that "
                            "is admitted or active")])


def test_steps_after_withdrawal_and_unknown_ones(store: tuple[Path, str]) -> None:
    root, case = store
    with EvidenceStore.open(root, create=False, write=True) as st:
        C.withdraw(st, case, "wrong source")
    admit = _event(root, case, "admitted", "admit")
    other = _event(root, case, "admitted", "approve")
    again = _event(root, case, "proposed", "propose")
    _findings(root, case, [
        (f"case_events id={admit} (case {case})",
         "admit while the case was withdrawn: it needs a case that is calibrated"),
        (f"case_events id={other} (case {case})",
         "'approve' is no step of the case lifecycle (its steps: propose, calibrate, "
         "calibration failed, admit, first use, withdraw)"),
        (f"case_events id={again} (case {case})",
         "proposed again while admitted: a case is proposed once")])


def test_every_step_its_writers_make_qualifies(store: tuple[Path, str]) -> None:
    root, case = store
    before = verify_store(root)
    assert before.resume is not None
    with EvidenceStore.open(root, create=False, write=True) as st:
        assert not C.calibrate(st, case, "scripted:overreach").passed  # recorded, proposed
        assert C.calibrate(st, case, "scripted:within").passed
        C.admit(st, case, "ann", "r1")
        C.use(st, case, "scripted:within")
        C.use(st, case, "scripted:overreach")
        C.withdraw(st, case, "done")
    assert [r[0] for r in vf.query(root, "SELECT action FROM case_events ORDER BY id")] == [
        "propose", "calibration failed", "calibrate", "admit", "first use", "withdraw"]
    for q in (verify_store(root), verify_store(root, mode="hash-only"),
              verify_store(root, since=before.resume)):
        assert q.qualified, texts(q)


def test_a_store_without_case_tables_is_checked_as_before(store: tuple[Path, str]) -> None:
    root, _ = store
    conn = sqlite3.connect(root / "ledger.sqlite")
    try:  # the check reads no case table that is not there (an older store)
        conn.execute("DROP TABLE case_uses")
        assert case_findings(conn, None) == []
    finally:
        conn.close()
