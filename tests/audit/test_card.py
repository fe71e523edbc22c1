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
    # a degenerate decision fails the ownership audit, whatever completeness says: before,
    # this configuration licensed model capability beside the failed non-degeneracy
    assert configuration(None, "gt", "outcome", rows)["licensed_claim"] == SYSTEM
    rows["replay"] = row("pass", {}, None)
    assert configuration(None, "gt", "outcome", rows)["licensed_claim"] == SYSTEM
    rows["non_degeneracy"] = row("not probed", {}, None)
    assert configuration(None, "gt", "outcome", rows)["licensed_claim"] == CAPABILITY
    rows["replay"] = row("fail", {}, None)
    assert configuration(None, "gt", "outcome", rows)["licensed_claim"] == NONE
    rows["replay"] = row("pass", {}, None)
    rows["criterion_sensitivity"] = row("fail", {}, None)
    assert configuration(None, "judge", "shape", rows)["licensed_claim"] == SELF_REPORT


def _rows(**statuses: str) -> dict[str, dict]:
    rows = {k: row("pass", {}, None) for k in ("criterion_sensitivity",
                                                "ownership_completeness", "non_degeneracy",
                                                "replay")}
    rows["scorer_kind"] = row("outcome", {"kind": "outcome"}, None)
    for k, status in statuses.items():
        rows[k] = row(status, {"reason": f"why {k}"} if status == NP else {}, None)
    return rows


def test_a_claim_says_the_rows_it_rests_on_and_the_checks_it_was_licensed_without() -> None:
    # capability rests on criterion, ownership completeness and replay; the lattice licenses it
    # whatever non-degeneracy says, so a non-degeneracy not probed (no model targets offline,
    # no AuditHooks.actions in the tool worlds) is named with its reason, never left implicit.
    from agentmetrology.audit.card import basis_text, claim_basis

    config = configuration("L2", "gt", "outcome", _rows(non_degeneracy=NP))
    assert config["licensed_claim"] == CAPABILITY
    basis = claim_basis(config)
    assert basis == {"claim": CAPABILITY,
                     "rests_on": {"criterion_sensitivity": "pass",
                                  "ownership_completeness": "pass", "replay": "pass"},
                     "not_checked": {"non_degeneracy": "why non_degeneracy"}}
    assert basis_text(basis) == ("model capability rests on criterion sensitivity pass, "
                                 "ownership completeness pass, replay pass; not checked: "
                                 "non degeneracy")
    # a checked non-degeneracy leaves nothing unchecked
    assert claim_basis(configuration("L2", "gt", "outcome", _rows()))["not_checked"] == {}
    # system performance: criterion and the failed ownership; replay bears on it unrequired
    system = claim_basis(configuration("L0", "gt", "outcome",
                                       _rows(ownership_completeness="fail", replay=NP,
                                             non_degeneracy=NP)))
    assert system == {"claim": SYSTEM,
                      "rests_on": {"criterion_sensitivity": "pass",
                                   "ownership_completeness": "fail"},
                      "not_checked": {"replay": "why replay"}}
    # self-report compliance rests on the shape kind and the failed criterion
    shape = _rows(criterion_sensitivity="fail", non_degeneracy=NP)
    shape["scorer_kind"] = row("shape", {"kind": "shape"}, None)
    assert claim_basis(configuration("L0", "judge", "shape", shape)) == {
        "claim": SELF_REPORT, "rests_on": {"scorer_kind": "shape (n = 1 scorer declaration)",
                                           "criterion_sensitivity": "fail"},
        "not_checked": {}}
    # no claim: nothing rests on anything
    assert claim_basis(configuration("L2", "gt", "outcome", _rows(replay=NP))) is None


def test_a_sealed_card_gives_every_configuration_its_claim_basis() -> None:
    from agentmetrology.audit.card import claim_basis
    from agentmetrology.audit.env_audit import seal

    configs = [configuration("L2", "gt", "outcome", _rows(non_degeneracy=NP)),
               configuration("L2", "x", "outcome", _rows(replay=NP))]
    configs[1]["licensed_claim"] = NONE  # a claim changed after `configuration` is read as is
    doc = seal({"card": {"configurations": configs}, "stages": {}})
    assert [c["claim_basis"] for c in doc["card"]["configurations"]] == [
        claim_basis(configs[0]), None]
    assert doc["card"]["configurations"][0]["claim_basis"]["not_checked"] == {
        "non_degeneracy": "why non_degeneracy"}
