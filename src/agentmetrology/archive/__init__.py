"""Audits of archived runs: coverage and bounds, cost over trace trees, provenance, versions.

Importers turn our own evidence store, tau-bench result files, Inspect AI `.eval` logs and
generic JSONL into the typed records of `archive.model`; the analyses read only those records
and return JSON-able dicts; `audit_archive` assembles the canonical `archive.json`.
"""

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
