"""The validity card: pass / fail / not probed rows with evidence, and the licensed claim."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agentmetrology.records.canonical import digest
from agentmetrology.records.verdict import INSUFFICIENT, Verdict

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


def ownership_status(rows: dict[str, dict[str, Any]]) -> str:
    """Return the ownership audit's status for the lattice: completeness, failed as well when
    a probed decision is degenerate (the audit is completeness and non-degeneracy: a model
    that always takes one action owns the decision in name only)."""
    if (rows.get("non_degeneracy") or {}).get("status") == "fail":
        return "fail"
    return str(rows["ownership_completeness"]["status"])


# Rows a card holds only when its audit probes them (an Inspect scorer's determinism, which
# `agm audit inspect` checks by scoring every output twice); a card without them prints as before.
OPTIONAL_ROWS = {"scorer_determinism": "scorer determinism"}


def optional_rows(configs: list[dict[str, Any]]) -> list[str]:
    """Return the optional rows some configuration holds (printed after the fixed rows)."""
    return [k for k in OPTIONAL_ROWS if any(k in (c.get("rows") or {}) for c in configs)]


def row_cell(config: dict[str, Any], key: str) -> dict[str, Any]:
    """Return a configuration's row `key` (an optional row it lacks reads `not probed`)."""
    return (config.get("rows") or {}).get(key) or {"status": "not probed", "evidence": {}}


def row(status: str, evidence: dict[str, Any], source: Any) -> dict[str, Any]:
    """Return one card cell: its status, the numbers behind it, and the source digest."""
    return {"status": status, "evidence": evidence,
            "source_digest": digest(source) if source is not None else None}


def withhold(cell: dict[str, Any]) -> None:
    """Show a pass or fail whose verdict is below its minimum as the verdict reads it
    (`insufficient evidence`), keeping the status the check judged as `evidence.withheld`."""
    ev = cell.get("evidence") or {}
    v = ev.get("verdict")
    if v and not v["sufficient"] and cell["status"] in ("pass", "fail"):
        ev["withheld"] = cell["status"]
        cell["status"] = INSUFFICIENT


def judged_status(cell: dict[str, Any]) -> str:
    """Return a row's status as its check judged it, before `withhold` replaced it."""
    return str((cell.get("evidence") or {}).get("withheld", cell["status"]))


def configuration(level: str | None, scorer: str, scorer_kind: str,
                  rows: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Return one (level, scorer) configuration of the card with its licensed claim."""
    withhold(rows["criterion_sensitivity"])  # its status never says what its verdict withheld
    claim = licensed_claim(scorer_kind, rows["criterion_sensitivity"]["status"],
                           ownership_status(rows), rows["replay"]["status"])
    kind_ev = rows.get("scorer_kind", {}).get("evidence")
    if isinstance(kind_ev, dict):  # a declared kind rests on one declaration, needs no more
        kind_ev.setdefault("verdict", Verdict(scorer_kind, 1, "scorer declarations", 0,
                                              why="declared by the scorer").to_dict())
    crit = rows["criterion_sensitivity"].get("evidence", {}).get("verdict")
    if crit and not (crit["sufficient"] and crit["stable"]):
        claim = CLAIMS["none"]  # too few samples compared, or halves that disagree
    return {"level": level, "scorer": scorer, "scorer_kind": scorer_kind, "rows": rows,
            "licensed_claim": claim}


# The rows each claim of the lattice is licensed on (docs/audit.md, "The card").
RESTS_ON = {
    CLAIMS["capability"]: ("criterion_sensitivity", "ownership_completeness", "replay"),
    CLAIMS["system"]: ("criterion_sensitivity", "ownership_completeness"),
    CLAIMS["self_report"]: ("scorer_kind", "criterion_sensitivity"),
    CLAIMS["specification"]: ("scorer_kind", "criterion_sensitivity", "ownership_completeness"),
}
# The checks that bear on a claim though the lattice licenses it without them: the ownership
# audit's non-degeneracy on a claim about the model (an offline audit has no model targets, a
# tool world no AuditHooks.actions), replay on the others. A claim says which of them was not
# probed, so a reader never takes it as checked; a claim about the scorer or the system says
# nothing about who owns the decisions, so non-degeneracy is not its to check.
BEARS_ON = {
    CLAIMS["capability"]: ("non_degeneracy",),
    CLAIMS["system"]: ("replay",),
    CLAIMS["self_report"]: ("replay",),
    CLAIMS["specification"]: ("replay",),
}


def claim_basis(config: dict[str, Any]) -> dict[str, Any] | None:
    """Return what a configuration's licensed claim rests on (each row the lattice read, as
    printed) and the checks bearing on it that it was licensed without (not probed: why);
    None for no claim."""
    claim = str(config.get("licensed_claim"))
    rests = RESTS_ON.get(claim)
    rows = config.get("rows") or {}
    if rests is None or not all(k in rows for k in rests):
        return None
    if claim == CLAIMS["system"] and (rows.get("non_degeneracy") or {}).get("status") == "fail":
        rests = (*rests, "non_degeneracy")  # the failed half of ownership it rests on
    unchecked = {k: str((rows[k].get("evidence") or {}).get("reason") or "no reason recorded")
                 for k in BEARS_ON[claim]
                 if k in rows and rows[k].get("status") not in ("pass", "fail")}
    return {"claim": claim, "rests_on": {k: cell_text(rows[k]) for k in rests},
            "not_checked": unchecked}


def explain_claims(card: dict[str, Any]) -> None:
    """Give each configuration of a finished card its `claim_basis` (after every step that
    may change a claim, so the basis always reads the claim as licensed)."""
    for c in card.get("configurations") or []:
        c["claim_basis"] = claim_basis(c)


def basis_text(basis: dict[str, Any] | None) -> str:
    """Return a claim basis as one sentence: `rests on ...; not checked: ...` ('' for none)."""
    if not basis:
        return ""
    rests = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in basis["rests_on"].items())
    text = f"{basis['claim']} rests on {rests}"
    if basis["not_checked"]:
        text += "; not checked: " + ", ".join(k.replace("_", " ")
                                              for k in basis["not_checked"])
    return text


def cell_text(cell: dict[str, Any]) -> str:
    """Return a card cell as printed: its verdict with n when it has one, else its status."""
    ev = cell.get("evidence") or {}
    v = ev.get("verdict")
    if ev.get("by_definition") and str(ev.get("reason") or "").startswith("not informative"):
        return "not informative (by definition)"  # a check that could not fail: not a pass
    if not v or cell["status"] == "not probed":  # nothing was judged: no n to rest on
        return str(cell["status"])
    text = (str(v["text"]) if v["verdict"] == cell["status"] or not v["sufficient"]
            else f"{cell['status']} (n = {v['n']} {v['counted']})")
    return text if v.get("stable", True) else f"{text}, unstable across split halves"


def scorer_code_text(card: dict[str, Any], wrap: Callable[[str], str] = str) -> str | None:
    """Return the card's line naming the user's scorer code it audited (file:function, sha256
    of the file's bytes, timeout), identifiers passed through `wrap` (report.md: a code span
    that holds any file name whole); None without a user scorer."""
    code = card.get("scorer_code")
    if not code:
        return None
    timeout = code["timeout_s"]  # as audit.json holds it: 10.0 prints 10, 2.5 prints 2.5
    seconds = str(int(timeout)) if float(timeout).is_integer() else str(timeout)
    return (f"scorer code: {wrap(str(code['file']) + ':' + str(code['function']))} (timeout "
            f"{seconds} s), sha256 {wrap(str(code['sha256']))}")
