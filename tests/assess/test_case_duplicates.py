"""Semantic duplicates: the same violation from another seed is not admitted twice.

Two seeds of the permission world's overreaching agent break the same obligation
(`within_authority`) the same way; once the seed-0 case is admitted, proposing seed 1 through
`agm cases propose` is refused (exit 2, one line) naming the admitted case, and the ledger is
unchanged. Before admission nothing is a duplicate yet (the spec: duplicates of admitted cases).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agentmetrology.assess import cases as C
from agentmetrology.store import EvidenceStore
from assess.test_cases import PERMISSION, failing, snapshot
from support.agm_runs import agm
from support.stores import record_campaign


@pytest.fixture
def perm(tmp_path: Path) -> Path:
    return record_campaign(tmp_path, PERMISSION)


def _propose(store: Path, seed: int) -> tuple[int, str, str]:
    res = agm("cases", "propose", "--store", str(store), "--campaign", "perm", "--target",
              "overreach", "--task", "flag_overdue", "--seed", str(seed))
    return res.returncode, res.stdout, res.stderr


def test_same_violation_from_another_seed_duplicates_the_admitted_case(perm: Path) -> None:
    with EvidenceStore.open(perm, create=False, write=True) as st:
        case = C.propose(st, failing(seed=0))
        assert C.calibrate(st, case.id, "scripted:within").passed
        C.admit(st, case.id, "ann", "rev-1")
        sig = case.source["failure_signature"]
        assert sig["obligations"] == {"within_authority": "FAIL"}
        assert sig["environment"] == "permission" and sig["task"] == "flag_overdue"
    before = snapshot(perm)
    code, out, err = _propose(perm, 1)
    assert code == 2 and out == ""
    assert f"duplicates case {case.id} (admitted; seed 0)" in err
    assert "within_authority" in err and len(err.strip().splitlines()) == 1
    assert snapshot(perm) == before  # not proposed, nothing recorded


def test_before_admission_another_seed_is_its_own_proposal(perm: Path) -> None:
    code, out, _ = _propose(perm, 0)
    assert code == 0
    code, out, err = _propose(perm, 1)
    assert code == 0 and "proposed from perm/overreach/flag_overdue/seed=1" in out, err
