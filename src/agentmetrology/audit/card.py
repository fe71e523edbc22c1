"""The validity card: pass / fail / not probed rows with evidence, and the licensed claim."""

from __future__ import annotations

from typing import Any

from agentmetrology.records.canonical import digest

CLAIMS = {
    "capability": "model capability",
    "system": "model–scaffold system performance",
    "self_report": "self-report compliance",
    "specification": "specification compliance",
    "none": "no claim licensed",
}


def licensed_claim(scorer_kind: str, criterion: str, ownership: str, replay: str) -> str:
    """Return the claim the fixed lattice licenses; a `not probed` row never licenses its claim."""
    if criterion == "fail":
        return CLAIMS["self_report"] if scorer_kind == "shape" else CLAIMS["none"]
    if criterion != "pass":
        return CLAIMS["none"]
    if scorer_kind == "specification" and ownership == "not probed":
        return CLAIMS["specification"]
    if ownership == "pass" and replay == "pass":
        return CLAIMS["capability"]
    if ownership == "fail":
        return CLAIMS["system"]
    return CLAIMS["none"]


def row(status: str, evidence: dict[str, Any], source: Any) -> dict[str, Any]:
    """Return one card cell: its status, the numbers behind it, and the source digest."""
    return {"status": status, "evidence": evidence,
            "source_digest": digest(source) if source is not None else None}


def configuration(level: str | None, scorer: str, scorer_kind: str,
                  rows: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Return one (level, scorer) configuration of the card with its licensed claim."""
    claim = licensed_claim(scorer_kind, rows["criterion_sensitivity"]["status"],
                           rows["ownership_completeness"]["status"], rows["replay"]["status"])
    return {"level": level, "scorer": scorer, "scorer_kind": scorer_kind, "rows": rows,
            "licensed_claim": claim}
