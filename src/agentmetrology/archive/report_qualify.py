"""Qualify a report now against the store it was built from, without re-running anything.

A report names the evidence digest (the chain head) and chain length it was computed from; it
still qualifies when that head is in the store's chain at that length, the report itself says
its store qualified when it was built, every score row still hashes to its id, and the store
qualifies now (docs/evidence.md, "Reports built from a store").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentmetrology.archive.evidence_check import qualify_store
from agentmetrology.archive.importers.limits import parse_json
from agentmetrology.archive.model import Archive
from agentmetrology.archive.versions import compare_archives
from agentmetrology.edges.files import FileRefused, read_text
from agentmetrology.records.canonical import digest
from agentmetrology.records.errors import UserError
from agentmetrology.store.blob_reads import BlobReads
from agentmetrology.store.ledger_reader import chain_heads
from agentmetrology.store.qualify import INVALID, QUALIFIED, UNAVAILABLE
from agentmetrology.store.verify_ahead import LedgerHalf

MAX_REPORT_BYTES = 256 << 20  # as an archive file (archive.importers): a report is smaller

REPORT_FILES = ("archive.json", "regrade.json", "diagnose.json", "experiment.json")
BINDING_FILE = "evidence.json"  # beside a diagnose or experiment report (write_binding)
BOUND_FIELDS = ("evidence_digest", "chain_length", "result")
RENDERED_FIELD = "rendered"  # the binding's {file name: sha256} of the files rendered beside


def store_evidence(store: Path, reads: BlobReads | None = None,
                   ledger: LedgerHalf | None = None) -> dict[str, Any]:
    """Return the full qualification of a store a report is built from (NotAStoreError if none);
    `reads`: what its import found in the blobs it read, `ledger`: the check's ledger half run
    meanwhile (evidence_check.qualify_store)."""
    return qualify_store(store, "full", reads=reads, ledger=ledger)


def compare_with_evidence(old: tuple[Path, Archive], new: tuple[Path, Archive],
                          crossed: list[Archive | None]) -> tuple[dict[str, Any],
                                                                  dict[str, Any]]:
    """Return the comparison of two archives (each with its source path) and, for those that
    are our own stores, their qualification by side, also carried in the comparison."""
    doc = compare_archives(old[1], new[1], crossed)
    evidence = {side: store_evidence(src) for side, (src, arc) in
                (("old", old), ("new", new)) if arc.format == "agm"}
    if evidence:
        doc["evidence"] = evidence
    return doc, evidence


def write_binding(out: Path, evidence: dict[str, Any],
                  rendered: dict[str, str] | None = None) -> None:
    """Write the evidence digest and chain length `evidence` names into `out`/evidence.json,
    with the sha256 of each file rendered beside the report (`rendered`).

    A diagnose or experiment analysis file stays byte-identical across stores when the store
    qualifies (it carries no digest then), so the binding `agm evidence qualify` checks is
    written next to it (docs/evidence.md).
    """
    binding = {k: evidence.get(k) for k in BOUND_FIELDS}
    if rendered is not None:
        binding[RENDERED_FIELD] = rendered
    (out / BINDING_FILE).write_text(json.dumps(binding, indent=2, sort_keys=True) + "\n",
                                    encoding="utf-8")


def _json_file(path: Path) -> Any:
    """Return a report file's JSON, read as an archive is (a regular file of bounded size and
    nesting): '['*100000 was a RecursionError traceback, a named pipe blocked for ever."""
    return parse_json(read_text(path, MAX_REPORT_BYTES))


def read_binding(report_dir: Path) -> dict[str, Any] | None:
    """Return the binding beside a report, or None when there is none (or it is unreadable)."""
    try:
        doc = _json_file(report_dir / BINDING_FILE)
    except (OSError, ValueError, FileRefused):
        return None
    return doc if isinstance(doc, dict) else None


def read_report(report_dir: Path) -> tuple[Path, dict[str, Any]]:
    """Return a report directory's report file and document, its binding folded in
    (UserError when the directory holds no readable report)."""
    if not report_dir.is_dir():
        raise UserError(f"report directory not found: {report_dir}")
    for name in REPORT_FILES:
        path = report_dir / name
        if path.is_file():
            try:
                doc = _json_file(path)
            except (OSError, ValueError, FileRefused) as exc:
                raise UserError(f"{path}: not a readable report ({exc})") from None
            if not isinstance(doc, dict):
                raise UserError(f"{path}: not a report (a JSON object is expected)")
            binding = read_binding(report_dir)  # diagnose and experiment: beside the report
            if binding is not None and "evidence" not in doc:
                doc["evidence"] = binding
            _check_shape(path, doc)
            return path, doc
    raise UserError(f"{report_dir} holds no report ({' or '.join(REPORT_FILES)})")


def _check_shape(path: Path, doc: dict[str, Any]) -> None:
    """Raise UserError for a report whose binding or score rows are not of a report's shape
    (an `evidence` of 5 was an AttributeError traceback)."""
    evidence, rows = doc.get("evidence"), doc.get("score_rows")
    why = ("its evidence is not a JSON object" if evidence is not None
           and not isinstance(evidence, dict)
           else "its evidence digest is not a string" if isinstance(evidence, dict)
           and not isinstance(evidence.get("evidence_digest"), str | None)
           else "its score_rows are not a list of JSON objects" if rows is not None
           and not (isinstance(rows, list) and all(isinstance(r, dict) for r in rows))
           else "")
    if why:
        raise UserError(f"{path}: not a report: {why} (edited, or not written by agm)")


def _binding_problems(doc: dict[str, Any], heads: dict[str, int], current: dict[str, Any],
                      notes: list[str]) -> list[dict[str, str]]:
    """Return the problems of the report's binding to the chain (notes: the store grew)."""
    problems: list[dict[str, str]] = []
    recorded = (doc.get("evidence") or {}).get("evidence_digest")
    if not recorded:
        problems.append({"kind": "no_evidence_digest", "result": UNAVAILABLE,
                         "detail": "the report names no evidence digest (built before reports "
                                   "were bound, or not from an evidence store)"})
    elif recorded not in heads:
        problems.append({"kind": "evidence_digest_mismatch", "result": INVALID,
                         "detail": f"the report was built from evidence {recorded[:12]}, which "
                                   "is not in the store's chain: the report is of another "
                                   "store (give it with --store), or this ledger was "
                                   "rewritten"})
    elif (doc.get("evidence") or {}).get("chain_length") not in (None, heads[recorded]):
        problems.append({"kind": "evidence_digest_mismatch", "result": INVALID,
                         "detail": f"the report names evidence {recorded[:12]} at chain length "
                                   f"{doc['evidence']['chain_length']}, the store's chain has "
                                   f"it at {heads[recorded]}"})
    elif heads[recorded] != current["chain_length"]:
        notes.append(f"the store grew by {current['chain_length'] - heads[recorded]} chain "
                     "entries since the report: its numbers cover the earlier state")
    return problems


def qualify_report(path: Path, doc: dict[str, Any], store: Path,
                   found: list[dict[str, str]] | None = None,
                   noted: list[str] | None = None) -> dict[str, Any]:
    """Return the qualification of the report `doc` (read from `path`) against `store` now;
    `found` and `noted`: problems and notes a caller found in the report's files
    (report.report_texts)."""
    current = qualify_store(store, "full")
    recorded = (doc.get("evidence") or {}).get("evidence_digest")
    notes: list[str] = list(noted or [])
    problems = _binding_problems(doc, chain_heads(store), current, notes) + list(found or [])
    if (doc.get("evidence") or {}).get("result") not in (None, QUALIFIED):
        problems.append({"kind": "built_from_unqualified_store", "result": INVALID,
                         "detail": "the report itself says its store did not qualify when it "
                                   f"was built ({doc['evidence']['result']})"})
    for row in doc.get("score_rows") or []:
        content = {k: v for k, v in row.items() if k != "row_id"}
        if digest(content) != row.get("row_id"):
            problems.append({"kind": "score_row_changed", "result": INVALID,
                             "detail": f"score row {str(row.get('row_id'))[:12]} no longer "
                                       "hashes to its id (edited)"})
    if not current["qualified"]:
        problems.append({"kind": "store_not_qualified", "result": current["result"],
                         "detail": f"the store does not qualify now: "
                                   f"{current['problem_count']} problem(s)"})
    out = {"report": str(path), "store": str(store), "result": QUALIFIED, "qualified": True,
           "report_evidence_digest": recorded,
           "store_evidence_digest": current["evidence_digest"], "problems": [],
           "notes": notes, "store_qualification": current}
    return with_findings(out, problems, [])


def with_findings(out: dict[str, Any], problems: list[dict[str, str]],
                  notes: list[str]) -> dict[str, Any]:
    """Return a report's qualification `out` with more problems and notes, its result
    derived again (invalid over unavailable over qualified)."""
    found = [*out["problems"], *problems]
    result = (INVALID if any(p["result"] == INVALID for p in found)
              else UNAVAILABLE if found else QUALIFIED)
    return {**out, "problems": found, "notes": [*out["notes"], *notes], "result": result,
            "qualified": result == QUALIFIED}
