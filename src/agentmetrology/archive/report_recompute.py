"""An archive audit or a store regrade, derived again from the store, for comparison.

`agm evidence qualify --recompute` (report.recompute): the checks without it bind a report's
score rows and chain head to the store, but not the numbers the report derives from them
(coverage, pass^k, cost, provenance; a regrade's changed scores): a forger who edits a number in
archive.json, renders the files again and records their digests passes them. Deriving the
report again from the store at the report's chain length and comparing every section catches
that. The input files' digests, the evidence block (the qualification now), the rendered files'
digests and the store's name as given are not compared: they describe where and when, not what
the store holds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentmetrology.archive.audit import SCHEMA as AUDIT_SCHEMA
from agentmetrology.archive.audit import audit_archive
from agentmetrology.archive.inputs import load_checked, read_from
from agentmetrology.archive.regrade import SCHEMA as REGRADE_SCHEMA
from agentmetrology.archive.regrade import regrade_store
from agentmetrology.archive.score_row import store_facts
from agentmetrology.records.canonical import to_plain
from agentmetrology.store.opening import open_store

NOT_COMPARED = frozenset({"inputs", "evidence", "rendered"})


def _section(doc: dict[str, Any], key: str) -> dict[str, Any]:
    """Return a top-level object of the report ({} when absent or not an object)."""
    value = doc.get(key)
    return value if isinstance(value, dict) else {}


def _without(doc: dict[str, Any], section: str, key: str) -> dict[str, Any]:
    """Return the report as plain JSON, the compared sections only, `section.key` left out."""
    plain = to_plain({k: v for k, v in doc.items() if k not in NOT_COMPARED})
    inner = dict(_section(plain, section))
    inner.pop(key, None)
    return {**plain, section: inner}


def audit_of_store(doc: dict[str, Any]) -> bool:
    """Return True when archive.json `doc` says it is an audit of an evidence store."""
    return doc.get("schema") == AUDIT_SCHEMA and _section(doc, "archive").get("format") == "agm"


def audit_other_inputs(doc: dict[str, Any]) -> str | None:
    """Return why an audit of a store needs inputs the store does not hold (None: it needs
    none but the store)."""
    inputs = doc.get("inputs")
    if not isinstance(inputs, list) or any(not isinstance(i, dict) or i.get("role") != "archive"
                                           for i in inputs):
        return "the report lists inputs other than the store (spans, a claim) or none it can read"
    return None


def audit_again(store: Path, current: dict[str, Any]) -> dict[str, Any]:
    """Return the archive audit of `store` derived again (its qualification now: `current`)."""
    archive = load_checked(store, "agm")
    with open_store(store, readonly=True) as st:
        facts = store_facts(st)
    return audit_archive(archive, read_from(store), current, facts)


def audit_comparable(doc: dict[str, Any]) -> dict[str, Any]:
    """Return an audit's compared sections as plain JSON (the store's name as given left out)."""
    return _without(doc, "archive", "source")


def regrade_of_store(doc: dict[str, Any]) -> bool:
    """Return True when regrade.json `doc` says it is a regrade of an evidence store (a tau2
    results file's regrade has a schema of its own)."""
    return doc.get("schema") == REGRADE_SCHEMA


def regrade_again(store: Path, current: dict[str, Any]) -> dict[str, Any]:
    """Return the regrade of `store` derived again (its qualification now: `current`)."""
    return regrade_store(store, current)


def regrade_comparable(doc: dict[str, Any]) -> dict[str, Any]:
    """Return a regrade's compared sections as plain JSON (the store's name left out)."""
    return _without(doc, "store", "source")
