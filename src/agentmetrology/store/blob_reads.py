"""What a reader of a store found in the blobs it read, handed to the full check of that store.

`agm archive audit` of our own store reads every episode blob to import it (read, inflated,
hashed against its name), then runs the full store check (store.verify), which hashed every
blob again and read every episode blob a third time to compare its key, digests, usage and
termination with the ledger row. A `BlobReads` filled by the import hands the check what those
reads found, so that each blob is read and inflated once:
- each blob's verdict: why its bytes are not the blob (`blobs.resolve`, the test the check
  applies), or None when they are; the check takes it in place of hashing the file again (and
  counts it hashed, as it is: once);
- for an episode blob, a token of what the check compares with the ledger row
  (`verify_episodes.episode_token`); when it equals the row's token, the blob agrees with the
  row and the check does not read it again (it still checks the transcript the blob binds).
Anything else (a blob the import did not read, an episode without a token, a token unlike the
row's) takes the check's own read, so what it reports is what it reported before. A symbolic
link and a missing blob are told from the check's own listing, before any verdict is used. The
verdicts are those of the bytes the import read in this process: the bytes its numbers come from.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from agentmetrology.store.blobs import BlobCorruptError, BlobStore
from agentmetrology.store.verify_episodes import episode_token


class BlobRead(NamedTuple):
    """One blob as a reader found it: why it is not the blob (None: it is), and for an episode
    blob the token of its checked fields, the transcript it binds and the digest of its
    provider requests (store.verify_billing; None when none)."""

    why: str | None
    token: bytes | None = None
    transcript: str | None = None
    billed: str | None = None


class BlobReads:
    """The blobs read through `get` in this process, by digest (see the module docstring)."""

    __slots__ = ("_seen",)

    def __init__(self) -> None:
        self._seen: dict[str, BlobRead] = {}

    def __len__(self) -> int:
        return len(self._seen)

    def get(self, blobs: BlobStore, digest: str) -> bytes:
        """Return the checked contents of blob `digest` as `blobs.get` does (same errors, same
        messages), keeping its verdict when its file could be read."""
        out, why = blobs.read(digest)
        self._seen[digest] = BlobRead(why or None)
        if out is None:
            raise BlobCorruptError(f"blob {digest} is corrupt: {why}")
        return out

    def episode(self, digest: str, plain: Any) -> None:
        """Keep the token of an episode blob read through `get` and decoded as `plain`."""
        seen = self._seen.get(digest)
        if seen is None or seen.why is not None:
            return
        found = episode_token(plain)
        if found is not None:
            self._seen[digest] = BlobRead(None, *found)

    def keep(self, digest: str, read: BlobRead) -> None:
        """Keep what a reader of blob `digest` found through `get` and `episode` elsewhere (a
        reader process of the same import: archive.importers.agm_ahead)."""
        self._seen[digest] = read

    def seen(self, digest: str) -> BlobRead | None:
        """Return what was found of blob `digest`, None when it was not read here."""
        return self._seen.get(digest)
