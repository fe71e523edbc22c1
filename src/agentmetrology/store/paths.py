"""User-given paths resolved inside the store root; anything that escapes it is rejected."""

from __future__ import annotations

import re
from pathlib import Path

_DIGEST = re.compile(r"[0-9a-f]{64}")


class StorePathError(ValueError):
    """Raised when a path would leave the store root or a digest is malformed."""


def inside(root: Path, user_path: str | Path) -> Path:
    """Return `user_path` resolved under `root`; raise StorePathError if it escapes the root."""
    text = str(user_path)
    if not text or "\x00" in text:
        raise StorePathError(f"invalid store path {text!r}")
    base = root.resolve()
    candidate = Path(text)
    if candidate.is_absolute():
        raise StorePathError(f"store path {text!r} is absolute; give a path relative to {base}")
    # resolve() follows symlinks, so a link inside the store pointing outside is caught too.
    resolved = (base / candidate).resolve()
    if resolved != base and base not in resolved.parents:
        raise StorePathError(f"store path {text!r} resolves outside the store root {base}")
    return resolved


def check_digest(digest: str) -> str:
    """Return `digest` if it is 64 lowercase hex characters, else raise StorePathError."""
    if not isinstance(digest, str) or not _DIGEST.fullmatch(digest):
        raise StorePathError(f"not a sha256 digest: {digest!r}")
    return digest


def blob_path(root: Path, digest: str) -> Path:
    """Return where the blob with `digest` lives: root/blobs/ab/cdef…"""
    check_digest(digest)
    return root / "blobs" / digest[:2] / digest[2:]
