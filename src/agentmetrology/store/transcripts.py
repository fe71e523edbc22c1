"""An episode's transcript as store blobs: one document naming one blob per distinct message.

The episode binds the document's digest (`digests.transcript` in its JSON). Redaction may
change a message's bytes, hence its digest: `cleaned` then renames it in the document, and the
document's new digest in the episode's bytes, so every reference names the bytes stored.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agentmetrology.records.canonical import sha256_hex
from agentmetrology.records.transcript import Transcript, part_digests

Clean = Callable[[bytes], bytes]


@dataclass(frozen=True, slots=True)
class TranscriptBlobs:
    """A transcript's document and the blobs it names (messages, then tool declarations)."""

    document: bytes
    parts: tuple[bytes, ...]

    @property
    def digest(self) -> str:
        """Return the document's digest (what the episode binds)."""
        return sha256_hex(self.document)

    @classmethod
    def of(cls, transcript: Transcript) -> TranscriptBlobs:
        """Return the blobs of a transcript record (digests those of its own bytes)."""
        document, parts = transcript.encoded()
        return cls(document, tuple(parts))


def cleaned(blobs: TranscriptBlobs, body: bytes, clean: Clean) -> tuple[TranscriptBlobs, bytes]:
    """Return the blobs and the episode's bytes after `clean`, references renamed to match."""
    parts = []
    document = blobs.document
    for data in blobs.parts:
        new = clean(data)
        if new != data:  # its digest changes: the document must name the new one
            document = document.replace(sha256_hex(data).encode(), sha256_hex(new).encode())
        parts.append(new)
    out = TranscriptBlobs(clean(document), tuple(parts))
    if out.digest != blobs.digest:
        body = body.replace(blobs.digest.encode(), out.digest.encode())
    return out, body


def resolve(document: Any, get_json: Callable[[str], Any]) -> dict[str, Any]:
    """Return a stored transcript with its messages and tools read from their blobs."""
    digests = part_digests(document)
    return {**document, "messages": [get_json(d) for d in digests[:-1]],
            "tools": get_json(digests[-1])}
