"""The score row: one immutable record per reported score, bound to what produced it.

A row names the score (subject, scorer, value), the evidence it was computed from (the store's
chain head, or the input files' digests for a foreign archive) and that evidence's
qualification, the task revision (a digest over the sealed task specification digests), the
evaluator build (scorer name and version), the pricing-table version (a digest of the price
tables sealed in the campaign configuration), the grading boundary (what counts as graded) and
four counts: planned, graded, ungraded, invalid (with success and failure beside them). Its id
is the digest of its content, so it cannot be edited without changing its id; a correction is
a new row whose `corrects` names the old id, with a per-task diff.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from agentmetrology.records.canonical import digest, to_plain
from agentmetrology.store import EvidenceStore
from agentmetrology.store.qualify import QUALIFIED

SCHEMA = "agentmetrology.score-row/1"
CAMPAIGN_BOUNDARY = ("graded = PASS, FAIL or PARTIAL from this scorer on recorded episodes "
                     "that are not measurement failures; UNKNOWN, INVALID, measurement "
                     "failures and unrecorded administrations are not scores")
ARCHIVE_BOUNDARY = ("graded = pass or fail by the stored grade; ungraded episodes and invalid "
                    "replays are not scores (grades recovered by replay are reported apart)")


def score_row(*, subject: dict[str, Any], scorer: dict[str, Any], value: float | None,
              evidence: dict[str, Any], task_revision: str | None, pricing: str | None,
              boundary: str, counts: dict[str, int], corrects: str | None = None,
              diff: list[Any] | None = None) -> dict[str, Any]:
    """Return one score row with its content-derived id."""
    row: dict[str, Any] = {
        "schema": SCHEMA, "subject": subject, "score": value, "evaluator": scorer,
        "evidence": evidence, "task_revision": task_revision, "pricing_table": pricing,
        "grading_boundary": boundary,
        "counts": {k: int(counts.get(k, 0)) for k in ("planned", "graded", "ungraded",
                                                        "invalid", "success", "failure")},
        "corrects": corrects, "diff": diff or [],
    }
    plain: dict[str, Any] = to_plain(row)
    plain["row_id"] = digest(plain)
    return plain


def evidence_of(qualification: dict[str, Any] | None, inputs: list[dict[str, Any]] | None = None
                ) -> dict[str, Any]:
    """Return the evidence block: digest and qualification (store) or input digests (files)."""
    if qualification is not None:
        return {"kind": "evidence-store", "digest": qualification.get("evidence_digest"),
                "qualification": qualification.get("result"),
                "qualified": qualification.get("result") == QUALIFIED}
    files = sorted(f"{i['name']}:{i['sha256']}" for i in inputs or [])
    return {"kind": "files", "digest": digest(files) if files else None,
            "qualification": "not applicable (not an evidence store)", "qualified": None}


def task_revisions(store: EvidenceStore) -> dict[tuple[str, str], str]:
    """Return {(campaign, target): digest of the sealed task specification digests}."""
    acc: dict[tuple[str, str], set[str]] = defaultdict(set)
    for campaign, target, spec in store.reader.task_spec_digests():
        acc[(campaign, target)].add(spec)
    return {k: digest(sorted(v)) for k, v in acc.items()}


def pricing_tables(store: EvidenceStore) -> dict[str, str | None]:
    """Return {campaign: digest of its targets' sealed price tables} (None if unreadable)."""
    out: dict[str, str | None] = {}
    for name in store.campaigns():
        row = store.ledger.campaign(name) or {}
        try:
            config = store.get_json(str(row.get("config_digest")))
        except Exception:
            out[name] = None
            continue
        prices = {str(t.get("name")): t.get("price") for t in config.get("targets") or []
                  if isinstance(t, dict)}
        out[name] = digest(dict(sorted(prices.items())))
    return out


def campaign_rows(store: EvidenceStore, statuses: list[Any],
                  qualification: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Return one score row per (campaign, target, scorer) of `campaign status`."""
    revisions = task_revisions(store)
    pricing = pricing_tables(store)
    versions = _stored_versions(store)
    rows = []
    for s in statuses:
        for target, scorers in s.scores.items():
            planned = s.targets[target].planned
            for scorer, sc in scorers.items():
                st = sc.get("statuses") or {}
                graded = int(sc.get("scored") or 0)
                invalid = int(st.get("INVALID", 0))
                rows.append(score_row(
                    subject={"campaign": s.campaign, "registration_id": s.registration_id,
                             "plan_digest": s.plan_digest, "target": target},
                    scorer={"name": scorer,
                            "version": versions.get((s.campaign, target, scorer))},
                    value=sc.get("mean_score"), evidence=evidence_of(qualification),
                    task_revision=revisions.get((s.campaign, target)),
                    pricing=pricing.get(s.campaign), boundary=CAMPAIGN_BOUNDARY,
                    counts={"planned": planned, "graded": graded, "invalid": invalid,
                            "ungraded": planned - graded - invalid,
                            "success": int(st.get("PASS", 0)),
                            "failure": int(st.get("FAIL", 0))}))
    return rows


def _stored_versions(store: EvidenceStore) -> dict[tuple[str, str, str], str]:
    """Return {(campaign, target, scorer): version(s) the assessments carry, joined by ','}."""
    acc: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    for campaign, target, scorer, version in store.reader.assessment_versions():
        acc[(campaign, target, scorer)].add(version)
    return {k: ",".join(sorted(v)) for k, v in acc.items()}


def store_facts(store: EvidenceStore) -> dict[str, Any]:
    """Return the task revision, pricing and grading-scorer versions of a whole store."""
    revisions = task_revisions(store)
    pricing = pricing_tables(store)
    versions: dict[str, set[str]] = defaultdict(set)
    for (_, _, scorer), v in _stored_versions(store).items():
        versions[scorer].update(v.split(","))
    return {"task_revision": digest(sorted(revisions.values())) if revisions else None,
            "pricing_table": digest(sorted(str(p) for p in pricing.values()))
            if pricing else None,
            "versions": {k: ",".join(sorted(v)) for k, v in sorted(versions.items())}}


def audit_rows(doc: dict[str, Any], facts: dict[str, Any] | None,
               qualification: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Return the score rows of an archive audit: the overall score and one per cell."""
    evidence = evidence_of(qualification, doc.get("inputs"))
    facts = facts or {}
    # The stored grade comes from each environment's grading scorer; every build the store's
    # assessments carry is named (a foreign archive's evaluator build is unknown).
    builds = facts.get("versions") or None
    cov = doc["coverage"]
    cells = [("overall", cov["overall"])] + [(c["cell"], c) for c in cov["cells"]]
    rows = []
    for name, c in cells:
        counts = c["counts"]
        rows.append(score_row(
            subject={"archive": doc["archive"]["source"], "format": doc["archive"]["format"],
                     "cell": name},
            scorer={"name": "stored grade", "builds": builds},
            value=c["score_stored"], evidence=evidence,
            task_revision=facts.get("task_revision"), pricing=facts.get("pricing_table"),
            boundary=ARCHIVE_BOUNDARY,
            counts={"planned": c["planned"], "graded": c["graded"],
                    "ungraded": counts["ungraded"], "invalid": counts["invalid_replay"],
                    "success": counts["pass"], "failure": counts["fail"]}))
    return rows


def regrade_rows(scorer: str, version: str, pairs: list[tuple[dict[str, Any], dict[str, Any]]],
                 planned: int, store: dict[str, Any], facts: dict[str, Any],
                 qualification: dict[str, Any] | None, limit: int) -> list[dict[str, Any]]:
    """Return the stored score row of a scorer and, if anything differs, its correction.

    `pairs` are (episode row, stored/current pair) of every recorded episode of the scorer.
    """
    evidence = evidence_of(qualification)
    out = []
    for side in ("stored", "current"):
        graded = [p[f"{side}_score"] for r, p in pairs if not r["infra"]
                  and p[f"{side}_status"] not in ("UNKNOWN", "INVALID")
                  and p[f"{side}_score"] is not None]
        invalid = sum(p[f"{side}_status"] == "INVALID" for _, p in pairs)
        statuses = [p[f"{side}_status"] for r, p in pairs if not r["infra"]]
        builds = sorted({p[f"{side}_version"] for _, p in pairs}) if side == "stored" \
            else [version]
        value = round(sum(graded) / len(graded), 6) if graded else None
        out.append(score_row(
            subject={"store": store["source"], "campaigns": store["campaigns"]},
            scorer={"name": scorer, "version": ",".join(builds)}, value=value,
            evidence=evidence, task_revision=facts.get("task_revision"),
            pricing=facts.get("pricing_table"), boundary=CAMPAIGN_BOUNDARY,
            counts={"planned": planned, "graded": len(graded), "invalid": invalid,
                    "ungraded": planned - len(graded) - invalid,
                    "success": statuses.count("PASS"), "failure": statuses.count("FAIL")}))
    stored, current = out
    if current["row_id"] == stored["row_id"]:
        return [stored]  # nothing changed: the same row, no correction
    diff = [{"episode": r["episode_id"], "stored": [p["stored_status"], p["stored_score"]],
             "current": [p["current_status"], p["current_score"]]}
            for r, p in pairs if (p["stored_status"], p["stored_score"])
            != (p["current_status"], p["current_score"])]
    fields = {k: v for k, v in current.items() if k not in ("row_id", "corrects", "diff")}
    correction = score_row(subject=fields["subject"], scorer=fields["evaluator"],
                           value=fields["score"], evidence=fields["evidence"],
                           task_revision=fields["task_revision"], pricing=fields["pricing_table"],
                           boundary=fields["grading_boundary"], counts=fields["counts"],
                           corrects=stored["row_id"], diff=diff[:limit])
    return [stored, correction]
