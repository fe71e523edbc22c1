"""Names derived from user text (campaign names, file names): one slugger for every caller."""

from __future__ import annotations


def slug(text: str) -> str:
    """Return `text` with every character but letters, digits and `-._` replaced by `-`."""
    return "".join(c if c.isalnum() or c in "-._" else "-" for c in text)
