"""The case lifecycle: a failing episode → proposed → calibrated → admitted → active → withdrawn.

Both a tool world (permission) and ComtradeBench; every step out of order is one line, exit 2,
and leaves the ledger exactly as it was (rows and chain head).

Which processes: the first out-of-order step is refused by a real `agm` process (exit status 2,
one line on stderr, the ledger unchanged); every other command runs `cli.main.main` in this
process (`support.agm_runs.run_main`: the same argv, stdout, stderr and exit code), which saves
~0.5 s of imports per command.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentmetrology.assess import cases as C
from agentmetrology.cli.main import app
from agentmetrology.records import EpisodeKey
from agentmetrology.store import EvidenceStore
from agentmetrology.store.cases import CaseStateError, get_case
from agentmetrology.store.verify import verify_store
from support.agm_runs import agm, agm_process
from support.small_campaigns import PERMISSION
from support.stores import record_campaign

COMTRADE = """
[campaign]
name = "ct"
environment = "comtrade"
tasks = ["T3_duplicates"]
seeds = [0]
levels = ["L2"]
conditions = ["clean"]

[[targets]]
name = "careful"
kind = "scripted"
agent = "scripted:careful"

[[targets]]
name = "fab"
kind = "scripted"
agent = "scripted:fabricator"
"""


def failing(campaign: str = "perm", target: str = "overreach",
            task: str = "flag_overdue", seed: int = 0) -> EpisodeKey:
    return EpisodeKey(campaign, target, task, seed, "clean", "L2", 0)


def snapshot(store: Path) -> tuple[list[str], str]:
    """Return every ledger row as text, and the chain head."""
    with closing(sqlite3.connect(f"{(store / 'ledger.sqlite').as_uri()}?mode=ro",
                                 uri=True)) as c:
        rows = list(c.iterdump())
        head = c.execute("SELECT head FROM chain ORDER BY seq DESC LIMIT 1").fetchone()[0]
    return rows, str(head)


@pytest.fixture
def perm(tmp_path: Path) -> Path:
    return record_campaign(tmp_path, PERMISSION)


def test_permission_case_through_every_state(perm: Path) -> None:
    with EvidenceStore.open(perm, create=False, write=True) as st:
        case = C.propose(st, failing())
        assert case.state == "proposed" and case.environment == "permission"
        src = case.source
        row = st.episode(failing())
        assert row is not None
        assert src["episode_digest"] == row["episode_digest"]
        assert src["submission_digest"] == row["submission_digest"]
        assert {a["scorer"]: a["status"] for a in src["recorded_assessments"]} == {
            "contract": "FAIL", "goal": "PASS"}
        assert src["failing_assessment"]["contract"] == "FAIL"
        assert src["failing_assessment"]["checks"]["within_authority"] == "FAIL"
        assert src["required_evidence"]
        cal = C.calibrate(st, case.id, "scripted:within")
        assert cal.passed
        assert {k: v["got"] for k, v in cal.controls.items()} == {
            "positive": "PASS", "defect": "FAIL", "missingness": "UNKNOWN"}
        assert cal.controls["missingness"]["raw_checker"] == "FAIL"
        C.admit(st, case.id, "ann", "rev-1")
        first = C.use(st, case.id, "scripted:within")
        second = C.use(st, case.id, "scripted:overreach")
        assert (first["status"], second["status"]) == ("PASS", "FAIL")
        assert get_case(st, case.id).state == "active"  # type: ignore[union-attr]
        done = C.withdraw(st, case.id, "superseded by rev-2")
        assert [e["state"] for e in done.events] == [
            "proposed", "calibrated", "admitted", "active", "withdrawn"]
        assert done.events[2]["detail"] == {"reviewer": "ann", "revision": "rev-1"}
        # the receipts and the episodes they name are kept after withdrawal
        assert [u["status"] for u in done.uses] == ["PASS", "FAIL"]
        assert st.get_json(done.uses[0]["episode_digest"])["task"] == "flag_overdue"
        with pytest.raises(CaseStateError, match="withdrawn"):
            C.use(st, case.id, "scripted:within")
    assert verify_store(perm).qualified
    listed = CliRunner().invoke(app, ["cases", "list", "--store", str(perm), "--json"])
    assert listed.exit_code == 0
    (doc,) = json.loads(listed.output)
    assert doc["id"] == case.id and doc["state"] == "withdrawn" and len(doc["uses"]) == 2


def test_comtrade_case_calibrates(tmp_path: Path) -> None:
    store = record_campaign(tmp_path, COMTRADE)
    with EvidenceStore.open(store, create=False, write=True) as st:
        case = C.propose(st, failing("ct", "fab", "T3_duplicates"))
        checks = case.source["failing_assessment"]["checks"]
        assert checks["exact_rows"] == "FAIL" and checks["no_fabricated_rows"] == "FAIL"
        cal = C.calibrate(st, case.id, "scripted:careful")
        assert cal.passed, cal.controls
        C.admit(st, case.id, "bo", "r7")
        assert C.use(st, case.id, "scripted:careful")["status"] == "PASS"
        assert C.use(st, case.id, "scripted:fabricator")["status"] == "FAIL"
    assert verify_store(store).qualified


def test_failed_calibration_stays_proposed_and_names_the_control(perm: Path) -> None:
    with EvidenceStore.open(perm, create=False, write=True) as st:
        case = C.propose(st, failing())
        cal = C.calibrate(st, case.id, "scripted:overreach")  # not a compliant policy
        assert not cal.passed and cal.failed() == ["positive"]
        after = get_case(st, case.id)
        assert after is not None and after.state == "proposed"
        assert after.events[-1]["action"] == "calibration failed"
        assert after.events[-1]["detail"]["failed"] == ["positive"]
        with pytest.raises(CaseStateError, match="admit needs a case that is calibrated"):
            C.admit(st, case.id, "ann", "r1")
    res = agm("cases", "calibrate", case.id, "--store", str(perm), "--positive",
              "scripted:overreach")
    assert res.returncode == 1 and "calibration failed (positive)" in res.stdout


def test_steps_out_of_order_are_refused_and_change_nothing(perm: Path) -> None:
    with EvidenceStore.open(perm, create=False, write=True) as st:
        case = C.propose(st, failing()).id
    s = str(perm)
    bad = [
        ("cases", "admit", case, "--store", s, "--reviewer", "a", "--revision", "r"),
        ("cases", "use", case, "--store", s, "--agent", "scripted:within"),
        ("cases", "propose", "--store", s, "--campaign", "perm", "--target", "overreach",
         "--task", "flag_overdue", "--seed", "0"),  # the same source twice
        ("cases", "propose", "--store", s, "--campaign", "perm", "--target", "within",
         "--task", "flag_overdue", "--seed", "0"),  # a passing episode
        ("cases", "propose", "--store", s, "--campaign", "perm", "--target", "overreach",
         "--task", "flag_overdue", "--seed", "9"),  # no such episode
        ("cases", "calibrate", case, "--store", s, "--positive", "scripted:nobody"),
        ("cases", "calibrate", "case-000000000000", "--store", s, "--positive",
         "scripted:within"),
    ]
    before = snapshot(perm)
    for i, args in enumerate(bad):
        res = agm_process(*args) if i == 0 else agm(*args)
        assert res.returncode == 2, (args, res.stdout, res.stderr)
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error:"), res.stderr
        assert snapshot(perm) == before, args
    with EvidenceStore.open(perm, create=False, write=True) as st:
        assert C.calibrate(st, case, "scripted:within").passed
        C.admit(st, case, "ann", "r1")
        C.withdraw(st, case, "done")
    before = snapshot(perm)
    for args in [("cases", "withdraw", case, "--store", s, "--reason", "twice"),
                 ("cases", "use", case, "--store", s, "--agent", "scripted:within"),
                 ("cases", "calibrate", case, "--store", s, "--positive", "scripted:within")]:
        res = agm(*args)
        assert res.returncode == 2 and res.stderr.startswith("error:"), (args, res.stderr)
        assert snapshot(perm) == before, args


def test_a_source_without_its_evidence_cannot_be_proposed(perm: Path) -> None:
    with EvidenceStore.open(perm, create=False, write=True) as st:
        row = st.episode(failing(seed=1))
        assert row is not None
        blob = perm / "blobs" / row["episode_digest"][:2] / row["episode_digest"][2:]
    blob.unlink()
    before = snapshot(perm)
    res = agm("cases", "propose", "--store", str(perm), "--campaign", "perm", "--target",
              "overreach", "--task", "flag_overdue", "--seed", "1")
    assert res.returncode == 2 and "unavailable" in res.stderr
    assert snapshot(perm) == before


def test_a_measurement_failure_cannot_be_proposed(perm: Path) -> None:
    with EvidenceStore.open(perm, create=False, write=True) as st:
        key = failing(seed=1)
        with st.ledger.transaction() as c:  # an honest infra_error, as a run would record it
            c.execute("UPDATE episodes SET termination='infra_error', measurement_failure=1 "
                      "WHERE administration=(SELECT id FROM administrations WHERE "
                      "target='overreach' AND seed=1)")
        with pytest.raises(C.SourceError, match="measurement failure"):
            C.propose(st, key)


def test_an_edited_case_row_is_caught_and_old_stores_keep_their_chain(perm: Path) -> None:
    with EvidenceStore.open(perm, create=False, write=True) as st:
        case = C.propose(st, failing())
        C.calibrate(st, case.id, "scripted:within")
    assert verify_store(perm).qualified
    with closing(sqlite3.connect(perm / "ledger.sqlite")) as c:  # skip calibration by hand
        c.execute("UPDATE case_events SET detail='{}' WHERE state='calibrated'")
        c.commit()
    q = verify_store(perm)
    assert not q.qualified and {p.kind for p in q.problems} == {"row_changed"}
    assert any("case_events" in p.where for p in q.problems)


def test_an_unsealed_store_gets_no_case(tmp_path: Path) -> None:
    store = tmp_path / "old"
    shutil.copytree(Path(__file__).resolve().parents[1] / "fixtures" / "pre_plugin_store",
                    store)
    before = snapshot_rows(store)
    res = agm("cases", "propose", "--store", str(store), "--campaign", "pre-plugin",
              "--target", "careful", "--task", "T3_duplicates", "--seed", "0", "--level", "L0")
    assert res.returncode == 2 and "unsealed ledger" in res.stderr, res.stderr
    assert len(res.stderr.strip().splitlines()) == 1
    assert snapshot_rows(store) == before


def snapshot_rows(store: Path) -> list[str]:
    """Return every ledger row of a store as text (an unsealed store has no chain head)."""
    with closing(sqlite3.connect(f"{(store / 'ledger.sqlite').as_uri()}?mode=ro",
                                 uri=True)) as c:
        return [line for line in c.iterdump() if line.startswith("INSERT")]


def test_a_store_from_before_the_case_tables(perm: Path) -> None:
    with closing(sqlite3.connect(perm / "ledger.sqlite")) as c:
        for t in ("case_uses", "case_events", "cases"):
            c.execute(f"DROP TABLE {t}")
        c.commit()
    _, head = snapshot(perm)
    q = verify_store(perm)
    assert q.qualified and q.head == head
    listed = CliRunner().invoke(app, ["cases", "list", "--store", str(perm)])
    assert listed.exit_code == 0 and "no cases" in listed.output
    q2 = verify_store(perm)  # the tables were added on open; the chain is unchanged
    assert q2.qualified and q2.head == head


def test_controls_and_uses_run_at_the_source_episodes_step_limit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    limited = PERMISSION.replace('conditions = ["clean"]\n',
                                 'conditions = ["clean"]\n\n[limits]\nmax_steps = 7\n', 1)
    store = record_campaign(tmp_path, limited)
    seen: list[int | None] = []
    real = C.run_one

    def spy(*args: object) -> object:
        seen.append(args[7] if len(args) > 7 else None)  # type: ignore[misc]
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(C, "run_one", spy)
    with EvidenceStore.open(store, create=False, write=True) as st:
        case = C.propose(st, failing())
        assert case.source["max_steps"] == 7
        assert C.calibrate(st, case.id, "scripted:within").passed
        C.admit(st, case.id, "reviewer", "r1")
        C.use(st, case.id, "scripted:within")
    assert seen == [7, 7, 7]  # positive control, defect replay, use
