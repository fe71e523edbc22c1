"""The verifier's checks of transcripts: the document an episode binds and every blob it names.

An episode blob that records `digests.transcript` binds its transcript document; the document
names one blob per distinct message and one of the tool declarations. Each must be a file of
the store (`transcript_missing`, unavailable) whose bytes hash to its name (`transcript_changed`,
in the full mode; the cheap mode checks presence), and the document must be one
(`transcript_unreadable`). Blobs shared by many episodes (a system prompt) are checked once.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from pathlib import Path

from agentmetrology.records.transcript import part_digests
from agentmetrology.store.blobs import BlobCorruptError, contents, problem
from agentmetrology.store.qualify import INVALID, UNAVAILABLE


class TranscriptChecks(ABC):
    """The transcript checks of `store.verify._Verifier` (a base class of it)."""

    mode: str
    checked: dict[str, int]
    blob_ok: dict[str, bool]

    @abstractmethod
    def bad(self, kind: str, where: str, detail: str, result: str = INVALID) -> None:
        """Record a problem (the verifier's own)."""

    @abstractmethod
    def present(self, d: str) -> bool:
        """Return True when the blob file of `d` exists."""

    @abstractmethod
    def linked(self, d: str) -> bool:
        """Return True when the blob of `d` is a symbolic link."""

    @abstractmethod
    def blob_path(self, d: str) -> Path:
        """Return the file of blob `d`."""

    def transcript(self, where: str, digest: str) -> None:
        """Check the transcript an episode binds and every blob it names."""
        where = f"{where} transcript"
        self.checked["transcripts"] = self.checked.get("transcripts", 0) + 1
        if not self.transcript_blob(where, digest, hash_it=True):
            return
        try:
            parts = part_digests(json.loads(contents(self.blob_path(digest).read_bytes())))
        except (OSError, ValueError, BlobCorruptError, RecursionError) as exc:
            self.bad("transcript_unreadable", where, f"document {digest[:12]} is not a "
                     f"transcript ({exc})")
            return
        for i, d in enumerate(parts):
            name = "tool declarations" if i == len(parts) - 1 else f"message {i}"
            self.transcript_blob(f"{where} {name}", d)

    def transcript_blob(self, where: str, d: str, *, hash_it: bool = False) -> bool:
        """Check one transcript blob (hashed in the full mode, or when `hash_it`, since its
        JSON is read); return True when it can be read as stored."""
        if d in self.blob_ok and not hash_it:
            ok = self.blob_ok[d]
            if not ok:
                self.bad("transcript_missing" if not self.present(d) else "transcript_changed",
                         where, f"blob {d[:12]} (see above)",
                         UNAVAILABLE if not self.present(d) else INVALID)
            return ok
        self.checked["transcript_blobs"] = self.checked.get("transcript_blobs", 0) + 1
        if self.linked(d) or not self.present(d):
            self.blob_ok[d] = False
            self.bad("transcript_missing", where, f"blob {d} is not a file of the store",
                     UNAVAILABLE)
            return False
        if self.mode == "ledger" and not hash_it:
            self.blob_ok[d] = True
            return True
        why = problem(self.blob_path(d).read_bytes(), d)  # inflated when compressed
        self.blob_ok[d] = why is None
        if why is not None:
            self.bad("transcript_changed", where, f"blob {d[:12]}'s {why.removeprefix('its ')}")
        return why is None
