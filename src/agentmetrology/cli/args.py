"""Parsing of CLI argument values that typer cannot check by itself (name lists)."""

from __future__ import annotations


def split_nonempty_names(text: str) -> list[str]:
    """Return the non-empty comma-separated names of `text`, skipping empty ones."""
    return [p.strip() for p in text.split(",") if p.strip()]
