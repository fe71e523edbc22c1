"""The verifier's checks of blob files: every referenced blob is a file of the store, unchanged.

A blob is a regular file under `blobs/ab/cdef...`; one that is a symbolic link is a named
problem in every mode (`blob_not_regular`), because its bytes live outside the store and can
change under it without touching the store. Presence is read from one listing of the blob
folders (never one stat per reference); bytes are hashed in the full and hash-only checks.
"""

from __future__ import annotations

import os
import re
import sqlite3
import stat
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from agentmetrology.store.blob_reads import BlobRead, BlobReads
from agentmetrology.store.blobs import BlobCorruptError, contents, problem, resolve
from agentmetrology.store.episode_head import episode_fields
from agentmetrology.store.qualify import INVALID, UNAVAILABLE
from agentmetrology.store.verify_episodes import episode_token
from agentmetrology.store.verify_scope import Checkpoint

_DIGEST = re.compile("[0-9a-f]{3,}")  # what store.paths accepts as a blob name


class BlobChecks(ABC):
    """The blob checks of `store.verify._Verifier` (a base class of it)."""

    root: Path
    c: sqlite3.Connection
    mode: str
    checked: dict[str, int]
    blob_ok: dict[str, bool]
    blob_base: str
    _listing: tuple[set[str], set[str]] | None
    since: Checkpoint | None  # incremental: blobs looked up one by one
    kinds: dict[str, str | None]
    reads: BlobReads | None  # verdicts of the blobs the import read (store.blob_reads)

    @abstractmethod
    def only(self, table: str, column: str, join: str = "WHERE",
             extra: Iterable[str] = ()) -> tuple[str, tuple[str, ...]]:
        """Return the SQL condition keeping the rows an incremental check re-checks."""

    @abstractmethod
    def bad(self, kind: str, where: str, detail: str, result: str = INVALID) -> None:
        """Record a problem (the verifier's own)."""

    @abstractmethod
    def billed_since(self) -> dict[str, set[str]]:
        """Return the episodes (by table) an incremental check re-reads for their billing."""

    @abstractmethod
    def has_table(self, table: str) -> bool:
        """Return True when the ledger has this table."""

    def referenced(self) -> Iterator[tuple[str, str]]:
        """Yield (digest, where) of every blob the ledger references."""
        where, params = self.only("campaigns", "name")
        for name, cfg, src in self.c.execute(
                "SELECT name, config_digest, source_digest FROM campaigns" + where, params):
            yield cfg, f"campaign {name} config"
            if src is not None:
                yield src, f"campaign {name} source"
        for table, ident in (("episodes", "administration"), ("superseded_episodes", "id")):
            where, params = self.only(table, ident, extra=self.billed_since().get(table, ()))
            for ref, ep, sub in self.c.execute(
                    f"SELECT {ident}, episode_digest, submission_digest FROM {table}{where}",
                    params):
                yield ep, f"{table} {ident}={ref} episode"
                if sub is not None:
                    yield sub, f"{table} {ident}={ref} submission"
        if self.has_table("case_uses"):  # a consumption receipt names the episode it recorded
            where, params = self.only("case_uses", "id")
            for ref, ep, sub in self.c.execute(
                    "SELECT id, episode_digest, submission_digest FROM case_uses" + where,
                    params):
                yield ep, f"case_uses id={ref} episode"
                if sub is not None:
                    yield sub, f"case_uses id={ref} submission"

    def blobs(self) -> None:
        """Check that every referenced blob is a file of the store (and its bytes, unless cheap)."""
        n = hashed = 0
        ok, linked, present = self.blob_ok, *self._lookups()
        for d, where in self.referenced():
            n += 1
            if linked(d):
                ok[d] = False
                self.bad("blob_not_regular", where, f"blob {d[:12]} is a symbolic link, not a "
                         "file of the store")
                continue
            if d in ok:
                if not ok[d]:
                    self.bad("blob_missing" if not present(d) else
                             "blob_changed", where, f"blob {d[:12]} (see above)",
                             UNAVAILABLE if not present(d) else INVALID)
                continue
            if not present(d):
                ok[d] = False
                self.bad("blob_missing", where, f"blob {d} is not in the store", UNAVAILABLE)
                continue
            if self.mode == "ledger":
                ok[d] = True
                continue
            why = self.verdict(d, where.endswith(" episode"))
            hashed += 1
            ok[d] = why is None
            if why is not None:
                self.bad("blob_changed", where, f"blob {d[:12]}'s {why.removeprefix('its ')}")
        self.checked["blob_references"] = n
        self.checked["blobs_hashed"] = hashed  # a missing blob is not hashed (nor counted)

    def _lookups(self) -> tuple[Callable[[Any], bool], Callable[[Any], bool]]:
        """Return `linked` and `present` for one pass over the references: on the listing's
        two sets when the whole store is checked (20,000 references of a 10,000-episode store
        went through two method calls and a regex each), else the methods themselves."""
        if self.since is not None:
            return self.linked, self.present
        names, links = self._names()
        match = _DIGEST.fullmatch

        def present(d: Any) -> bool:  # as `present`, the set first: most names are files
            return d in names and type(d) is str and match(d) is not None

        return links.__contains__, present

    def forget_blobs(self) -> None:
        """Forget every blob verdict, kind and the folders' listing: the next step reads anew."""
        self.blob_ok, self.kinds, self._listing = {}, {}, None

    def verdict(self, d: str, episode: bool = False) -> str | None:
        """Return why the file of blob `d` is not the blob (None: it is), hashing its bytes
        (inflated when compressed) unless the import already did in this process. An
        `episode` blob a full check hashes here keeps the token of what the episode checks
        compare with its row (store.blob_reads), so that they need not read and inflate it
        again (they did: twice per episode blob, a sixth of a whole check)."""
        seen = None if self.reads is None else self.reads.seen(d)
        if seen is not None:
            return seen.why
        raw = self.blob_path(d).read_bytes()
        if not episode or self.mode != "full":
            return problem(raw, d)
        stored, why = resolve(raw, d)
        if stored is not None:
            self._keep_token(d, stored)
        return why or None

    def _keep_token(self, d: str, stored: bytes) -> None:
        """Keep the token of episode blob `d` (its checked bytes `stored`), when it has one."""
        try:
            found = episode_token(episode_fields(stored))
        except RecursionError:  # nested too deep: the episode check reads it and names it
            return
        if found is not None:
            if self.reads is None:
                self.reads = BlobReads()
            self.reads.keep(d, BlobRead(None, *found))

    def blob_path(self, d: str) -> Path:
        """Return the file of blob `d` (a name no blob has when `d` is not a blob name)."""
        if not _DIGEST.fullmatch(d):
            return self.root / "blobs" / "invalid-digest"
        return self.root / "blobs" / d[:2] / d[2:]

    def _names(self) -> tuple[set[str], set[str]]:
        if self._listing is None:
            self._listing = blob_names(self.root / "blobs")
        return self._listing

    def present(self, d: str) -> bool:
        """Return True when the blob file of `d` exists (one directory listing, then a set;
        incremental: its own lookup, since it reads only the blobs appended)."""
        if type(d) is not str or _DIGEST.fullmatch(d) is None:  # a raw BLOB: no blob name
            return False
        return self._kind(d) == "file" if self.since is not None else d in self._names()[0]

    def linked(self, d: str) -> bool:
        """Return True when the blob of `d` is a symbolic link."""
        return self._kind(d) == "link" if self.since is not None else d in self._names()[1]

    def _kind(self, d: str) -> str | None:
        """Return "file", "link" (the file or its folder) or None, as `blob_names` tells them."""
        if d not in self.kinds:
            folder = os.path.join(self.blob_base, d[:2])
            try:
                st = os.lstat(os.path.join(folder, d[2:]))
            except OSError:
                self.kinds[d] = None
            else:
                link = (stat.S_ISLNK(st.st_mode) or os.path.islink(folder)
                        or os.path.islink(self.blob_base))
                self.kinds[d] = "link" if link else "file" if stat.S_ISREG(st.st_mode) else None
        return self.kinds[d]

    def episode_json(self, d: str) -> Any | None:
        """Return a verified episode blob's JSON (at least the fields checked), or None."""
        if not self.blob_ok.get(d):
            return None
        try:  # a plain string path: pathlib's joins were a tenth of reading 100,000 blobs
            with open(os.path.join(self.blob_base, d[:2], d[2:]), "rb") as f:
                data = contents(f.read())
        except (OSError, BlobCorruptError):
            return None
        return episode_fields(data)


def blob_names(base: Path) -> tuple[set[str], set[str]]:
    """Return the digests of the blob files and of the symbolic links under `base`."""
    names: set[str] = set()
    links: set[str] = set()
    try:
        subdirs = [e for e in os.scandir(base) if e.is_dir()]
    except OSError:
        return names, links
    outside = base.is_symlink()  # `blobs` itself linked: every blob is outside the store
    for sub in subdirs:
        linked = outside or sub.is_symlink()  # a folder elsewhere: so is every blob in it
        with os.scandir(sub.path) as entries:
            for e in entries:
                if linked or e.is_symlink():
                    links.add(sub.name + e.name)
                elif e.is_file(follow_symlinks=False):
                    names.add(sub.name + e.name)
    return names, links
