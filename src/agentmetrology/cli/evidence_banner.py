"""The banner of an unqualified store on stderr, over every report built from it."""

from __future__ import annotations

from typing import Any

import typer

from agentmetrology.store.qualify import banner


def print_banner(evidence: dict[str, Any] | None) -> None:
    """Print the banner of an unqualified store on stderr (nothing when it qualifies)."""
    text = banner(evidence)
    if text is not None:
        typer.secho(text, err=True, fg="red", bold=True)
