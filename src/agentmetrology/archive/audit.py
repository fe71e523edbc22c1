"""Run every applicable archive check and return the canonical `archive.json` content.

The result is plain JSON data (no NaN: undefined values are None), bound to the sha256 digests
of the input files and the package version, and free of timestamps so the same inputs give
byte-identical output.
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from fractions import Fraction
from pathlib import Path
from typing import Any

from agentmetrology import __version__
from agentmetrology.archive.cost import cost_section
from agentmetrology.archive.coverage import coverage, pass_k_section, task_view
from agentmetrology.archive.model import Archive
from agentmetrology.archive.provenance import provenance_section
from agentmetrology.archive.score_row import audit_rows
from agentmetrology.archive.tau2_donothing import Evaluator
from agentmetrology.archive.tau2_section import tau2_section
from agentmetrology.records.canonical import to_plain

SCHEMA = "agentmetrology.archive-audit/1"
MAX_PROBLEMS = 200


def file_digest(path: Path) -> dict[str, Any]:
    """Return {name, sha256, bytes} for an input file (streamed, any size)."""
    h = hashlib.sha256()
    size = 0
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
            size += len(block)
    return {"name": path.name, "sha256": h.hexdigest(), "bytes": size}


def input_digests(inputs: list[tuple[str, Path]]) -> list[dict[str, Any]]:
    """Return the `inputs` entries of archive.json: {role, name, sha256, bytes} of each file."""
    return [{"role": role, **file_digest(p)} for role, p in inputs]


def _accuracy_by_run(archive: Archive) -> tuple[dict[str, float], dict[str, int]]:
    """Return each run's pass rate over graded episodes, and its unresolved (excluded) count.

    A measurement failure is never a score: unresolved episodes are left out of the rate, and
    counted. A run with nothing graded has no accuracy.
    """
    graded: dict[str, list[bool]] = defaultdict(list)
    unresolved: Counter[str] = Counter()
    for ep in archive.episodes:
        if not ep.run:
            continue
        if ep.outcome in ("pass", "fail"):
            graded[ep.run].append(ep.outcome == "pass")
        else:
            unresolved[ep.run] += 1
    runs = sorted(set(graded) | set(unresolved))
    return ({r: float(Fraction(sum(graded[r]), len(graded[r]))) for r in runs if graded[r]},
            {r: unresolved[r] for r in runs})


def _cost(archive: Archive) -> dict[str, Any]:
    accuracy, unresolved = _accuracy_by_run(archive)
    section = cost_section(archive, accuracy)
    pareto = section.get("pareto")
    if isinstance(pareto, dict) and pareto.get("applicable"):
        pareto["accuracy_basis"] = "passes over graded episodes; unresolved episodes excluded"
        for row in pareto["rows"]:
            row["unresolved_excluded"] = unresolved.get(row["run"], 0)
    return section


def _replay_section(archive: Archive) -> dict[str, Any]:
    declared = [e for e in archive.episodes if e.replay is not None]
    invalid = [e for e in declared if e.invalid_replay is not None]
    return {"declared": len(declared), "invalid": len(invalid),
            "reasons": dict(sorted(Counter(e.invalid_replay or "" for e in invalid).items()))}


def _checks(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """Return the list of checks with whether each applied and its headline number."""
    cov = doc["coverage"]["overall"]
    cost, prov = doc["cost"], doc["provenance"]
    return [
        {"check": "coverage", "applicable": True, "unresolved": cov["planned"] - cov["graded"]},
        {"check": "cost", "applicable": cost["applicable"],
         "multiplicity": cost.get("multiplicity")},
        {"check": "provenance", "applicable": prov["applicable"],
         "candidates": prov.get("candidates")},
        {"check": "replay_gate", "applicable": doc["replay"]["declared"] > 0,
         "invalid": doc["replay"]["invalid"]},
    ]


def audit_body(archive: Archive, claim: tuple[str, dict[str, Any]] | None = None,
               evaluator: Evaluator | None = None) -> dict[str, Any]:
    """Return the part of archive.json that reads the archive alone (every check, before the
    inputs' digests and the store's qualification are bound to it): a store's audit computes
    it while its check's other process finishes (cli.archive_cmd)."""
    tasks = {e.task for e in archive.episodes}
    body: dict[str, Any] = {
        "archive": {"source": archive.source, "format": archive.format,
                    "episodes": len(archive.episodes), "tasks": len(tasks),
                    "cells": len({(e.model, e.scaffold) for e in archive.episodes}),
                    "runs": len({e.run for e in archive.episodes if e.run}),
                    "spans": len(archive.spans)},
        "load": {"problem_count": len(archive.problems),
                 "problems": [str(p) for p in archive.problems[:MAX_PROBLEMS]],
                 "notes": archive.notes},
        "coverage": coverage(archive),
        "pass_hat_k": pass_k_section(archive),
        "tasks": task_view(archive),
        "cost": _cost(archive),
        "provenance": provenance_section(archive),
        "replay": _replay_section(archive),
    }
    if archive.format == "tau2":
        body["tau2"] = tau2_section(archive, claim, evaluator)
    body["checks"] = _checks(body)
    return body


def audit_archive(archive: Archive, inputs: list[tuple[str, Path]] | None = None,
                  qualification: dict[str, Any] | None = None,
                  facts: dict[str, Any] | None = None,
                  claim: tuple[str, dict[str, Any]] | None = None,
                  evaluator: Evaluator | None = None,
                  digested: list[dict[str, Any]] | None = None,
                  body: dict[str, Any] | None = None) -> dict[str, Any]:
    """Return the archive.json dict: provenance of inputs, and every applicable check.

    For an evidence store, `qualification` (store.verify) and `facts` (score_row.store_facts)
    bind the score rows to the store's chain head, task revision, builds and prices; a store
    that does not qualify carries that in `evidence` and every report shows it. A tau2 file
    gets its own section; `claim` is the number its submission reports (see tau2_reported).
    `digested`: `input_digests(inputs)`, when taken already (else taken here); `body`:
    `audit_body(archive, claim, evaluator)`, when computed already.
    """
    if body is None:
        body = audit_body(archive, claim, evaluator)
    doc: dict[str, Any] = {  # the keys in the order they always had
        "schema": SCHEMA,
        "package": {"name": "agentmetrology", "version": __version__},
        "inputs": input_digests(inputs or []) if digested is None else digested,
        **body,
    }
    if qualification is not None:
        doc["evidence"] = qualification
    doc["score_rows"] = audit_rows(doc, facts, qualification)
    plain: dict[str, Any] = to_plain(doc)  # raises on NaN: undefined values must be None
    return plain
