"""Audits of archived runs: coverage and bounds, cost over trace trees, provenance, versions.

Importers turn our own evidence store, tau-bench result files, Inspect AI `.eval` logs and
generic JSONL into the typed records of `archive.model`; the analyses read only those records
and return JSON-able dicts; `audit_archive` assembles the canonical `archive.json`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Imported when first asked for (PEP 562): `agm campaign status` reads the store's evidence
# check from `archive.evidence_check` and must not pay for the importers and analyses at start.
_HOME = {"audit_archive": "audit", "FORMATS": "importers", "detect_format": "importers",
         "load_archive": "importers", "recover_grades": "recovery",
         "regrade_store": "regrade", "compare_archives": "versions",
         **dict.fromkeys(("Archive", "ArchiveEpisode", "ArchiveEvent", "ArchiveFormatError",
                          "ExecutedCall", "LoadProblem", "ReplaySpec", "StoredGrade",
                          "TraceSpan"), "model")}

if TYPE_CHECKING:
    from agentmetrology.archive.audit import audit_archive
    from agentmetrology.archive.importers import FORMATS, detect_format, load_archive
    from agentmetrology.archive.model import (
        Archive,
        ArchiveEpisode,
        ArchiveEvent,
        ArchiveFormatError,
        ExecutedCall,
        LoadProblem,
        ReplaySpec,
        StoredGrade,
        TraceSpan,
    )
    from agentmetrology.archive.recovery import recover_grades
    from agentmetrology.archive.regrade import regrade_store
    from agentmetrology.archive.versions import compare_archives

__all__ = [
    "FORMATS",
    "Archive",
    "ArchiveEpisode",
    "ArchiveEvent",
    "ArchiveFormatError",
    "ExecutedCall",
    "LoadProblem",
    "ReplaySpec",
    "StoredGrade",
    "TraceSpan",
    "audit_archive",
    "compare_archives",
    "detect_format",
    "load_archive",
    "recover_grades",
    "regrade_store",
]


def __getattr__(name: str) -> Any:
    """Return a public name of the package, importing its module on first use."""
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
