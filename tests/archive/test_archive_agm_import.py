"""The `agm` importer: our own evidence store read as an archive, with actors and grades."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from agentmetrology.archive import ArchiveFormatError, audit_archive, detect_format, load_archive
from agentmetrology.archive.audit import audit_body
from agentmetrology.archive.importers.agm_store import _grade
from agentmetrology.archive.model import ArchiveEpisode
from archive.agm_fixtures import RECORDED, build_store


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_store(tmp_path_factory.mktemp("agm") / "store", planned_only="unrun")


def test_every_episode_with_actor_labels_and_grades(store: Path) -> None:
    assert detect_format(store) == "agm"
    a = load_archive(store)
    assert a.format == "agm" and a.notes["campaigns"] == ["agm-test", "unrun"]
    ran = [e for e in a.episodes if e.run == "agm-test"]
    assert len(ran) == RECORDED and a.problems == []
    assert all(e.events and all(ev.actor is not None for ev in e.events) for e in ran)
    assert {ev.actor for e in ran for ev in e.events} <= {"agent", "harness", "environment"}
    assert all(e.grade is not None for e in ran)
    by_target = Counter((e.model, e.outcome) for e in ran)
    assert by_target[("rule", "pass")] == 8
    # No submission is the agent's failure: graded FAIL, not ungraded.
    never = [e for e in ran if e.model == "never" and e.termination != "submitted"]
    assert never and all(e.outcome == "fail" and e.grade and e.grade.score == 0.0
                         for e in never)
    e = ran[0]
    assert (e.scaffold, e.run) in {("L0", "agm-test"), ("L2", "agm-test")}
    assert e.meta["profile"] == "seeded" and e.meta["key"]["campaign"] == "agm-test"


def test_planned_but_never_recorded_is_ungraded_never_ran(store: Path) -> None:
    a = load_archive(store, "agm")
    unrun = [e for e in a.episodes if e.run == "unrun"]
    assert len(unrun) == 12 and a.notes["never_ran"] == 12
    assert all(e.outcome == "ungraded" and e.reason == "never_ran" and not e.events
               for e in unrun)
    doc = audit_archive(a)
    o = doc["coverage"]["overall"]
    assert (o["planned"], o["graded"], o["counts"]["ungraded"]) == (36, 24, 12)
    assert doc["coverage"]["reason_codes"]["never_ran"].startswith("planned administration")
    # the CLI computes the checks first, while the store's check finishes in its process, then
    # binds the inputs and the qualification: the same document, keys in the same order
    ahead = audit_archive(a, body=audit_body(a))
    assert ahead == doc and list(ahead) == list(doc)
    assert list(doc)[:4] == ["schema", "package", "inputs", "archive"]
    assert list(doc)[-2:] == ["checks", "score_rows"]


def test_infrastructure_failure_is_ungraded_whatever_was_scored() -> None:
    ep = ArchiveEpisode("e", "t", "m")
    _grade(ep, {"termination": "infra_error", "termination_detail": "upstream 503",
                "assessments": [{"scorer": "ground_truth_f1", "scorer_version": "1.0.0",
                                 "status": "FAIL", "score": 0.0, "assessment": {}}]})
    assert ep.outcome == "ungraded" and ep.reason == "infra_error"
    assert ep.reason_detail == "upstream 503"
    ep2 = ArchiveEpisode("e2", "t", "m")
    _grade(ep2, {"termination": "submitted", "assessments": []})
    assert ep2.reason == "no_grade_recorded"


def test_not_a_store(tmp_path: Path) -> None:
    with pytest.raises(ArchiveFormatError, match="not an agm evidence store"):
        load_archive(tmp_path, "agm")
