"""The qualification every report built from a store carries, and its banner on stderr."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from agentmetrology.archive.evidence_check import qualify_store
from agentmetrology.store.qualify import banner


def store_evidence(store: Path) -> dict[str, Any]:
    """Return the full qualification of a store a report is built from (NotAStoreError if none)."""
    return qualify_store(store, "full")


def print_banner(evidence: dict[str, Any] | None) -> None:
    """Print the banner of an unqualified store on stderr (nothing when it qualifies)."""
    text = banner(evidence)
    if text is not None:
        typer.secho(text, err=True, fg="red", bold=True)
