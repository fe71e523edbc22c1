"""The validity card's fixed claim lattice, case by case (docs/audit.md, "The card")."""

from __future__ import annotations

import pytest

from agentmetrology.audit.card import configuration, licensed_claim, row
from agentmetrology.records.canonical import digest

CAPABILITY = "model capability"
SYSTEM = "model–scaffold system performance"
SELF_REPORT = "self-report compliance"
SPECIFICATION = "specification compliance"
NONE = "no claim licensed"
NP = "not probed"


@pytest.mark.parametrize(("kind", "criterion", "ownership", "replay", "claim"), [
    # capability: replay, criterion sensitivity and ownership completeness all pass
    ("outcome", "pass", "pass", "pass", CAPABILITY),
    ("shape", "pass", "pass", "pass", CAPABILITY),
    ("specification", "pass", "pass", "pass", CAPABILITY),
    ("outcome", "pass", "pass", "fail", NONE),
    ("outcome", "pass", "pass", NP, NONE),  # a not-probed replay never licenses capability
    # system performance: criterion passes, ownership fails
    ("outcome", "pass", "fail", "pass", SYSTEM),
    ("outcome", "pass", "fail", "fail", SYSTEM),
    ("llm_judge", "pass", "fail", NP, SYSTEM),
    # self-report compliance: the scorer is shape-based and the criterion fails
    ("shape", "fail", "pass", "pass", SELF_REPORT),
    ("shape", "fail", NP, NP, SELF_REPORT),
    ("outcome", "fail", "pass", "pass", NONE),
    ("specification", "fail", NP, "pass", NONE),
    # specification compliance: a specification scorer passes and ownership is not probed
    ("specification", "pass", NP, NP, SPECIFICATION),
    ("specification", "pass", NP, "pass", SPECIFICATION),
    ("outcome", "pass", NP, "pass", NONE),
    ("llm_judge", "pass", NP, "pass", NONE),
    # a not-probed criterion licenses nothing, whatever else passed
    ("shape", NP, "pass", "pass", NONE),
    ("specification", NP, NP, NP, NONE),
    ("outcome", NP, "fail", "pass", NONE),
])
def test_licensed_claim_lattice(kind: str, criterion: str, ownership: str, replay: str,
                                claim: str) -> None:
    assert licensed_claim(kind, criterion, ownership, replay) == claim


def test_row_carries_status_evidence_and_source_digest() -> None:
    source = {"probe": "fabricated", "scores": [1.0, 0.0]}
    assert row("pass", {"gap": 1.0}, source) == {
        "status": "pass", "evidence": {"gap": 1.0}, "source_digest": digest(source)}
    assert row(NP, {}, None) == {"status": NP, "evidence": {}, "source_digest": None}
    # a falsy source is still a source: only None means "no artifact"
    assert row("fail", {}, [])["source_digest"] == digest([])


def test_configuration_reads_each_row_for_its_own_role() -> None:
    rows = {"criterion_sensitivity": row("pass", {}, None),
            "ownership_completeness": row("fail", {}, None),
            "replay": row("pass", {}, None), "non_degeneracy": row("fail", {}, None)}
    assert configuration("L0", "judge", "outcome", rows) == {
        "level": "L0", "scorer": "judge", "scorer_kind": "outcome", "rows": rows,
        "licensed_claim": SYSTEM}
    rows["ownership_completeness"] = row("pass", {}, None)
    rows["replay"] = row("fail", {}, None)
    assert configuration(None, "gt", "outcome", rows)["licensed_claim"] == NONE
    rows["replay"] = row("pass", {}, None)
    assert configuration(None, "gt", "outcome", rows)["licensed_claim"] == CAPABILITY
    rows["criterion_sensitivity"] = row("fail", {}, None)
    assert configuration(None, "judge", "shape", rows)["licensed_claim"] == SELF_REPORT
