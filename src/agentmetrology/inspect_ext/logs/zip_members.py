"""Reading an Inspect `.eval` log's zip members, bounded.

Members are often zstd-compressed (zip method 93), which the standard library cannot read before
Python 3.14, so we decompress them with the `zstandard` package. Logs come from elsewhere, so
every member is stream-decompressed with a hard cap on the bytes actually produced (a member's
declared size is not trusted), the whole log may inflate to at most TOTAL_FACTOR times that cap,
only stored, deflate and zstd members are read, and a zip naming one member twice is refused
(which copy a reader gets is not something to leave to chance).
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agentmetrology.archive.importers.limits import (
    JSON_MEMORY_FACTOR,
    MAX_MEMBER_BYTES,
    TooCostlyError,
    parse_json,
)
from agentmetrology.archive.model import ArchiveFormatError
from agentmetrology.edges.json_keys import KeyMarks

ZSTD_METHOD = 93
READABLE_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, ZSTD_METHOD)
TOTAL_FACTOR = 16  # the whole log may inflate to this many times the member cap
_CHUNK = 1 << 20
_LOCAL_HEADER = struct.Struct("<4s5H3L2H")


class InflateLimitError(ArchiveFormatError):
    """A member (or the whole log) inflates past the cap: the log is refused, not skipped."""


def looks_like_inspect(path: Path) -> bool:
    """Return True when the file is a zip with an Inspect header or journal member."""
    if not zipfile.is_zipfile(path):
        return False
    try:
        with zipfile.ZipFile(path) as zf:
            names = set(zf.namelist())
    except (zipfile.BadZipFile, OSError, ValueError):
        return False
    return "header.json" in names or "_journal/start.json" in names


def member_names(zf: zipfile.ZipFile, path: Path) -> list[str]:
    """Return the zip's member names; ArchiveFormatError when one name appears twice."""
    names = zf.namelist()
    twice = sorted(n for n, k in Counter(names).items() if k > 1)
    if twice:
        shown = ", ".join(twice[:3]) + (f" and {len(twice) - 3} more" if len(twice) > 3 else "")
        raise ArchiveFormatError(f"{path.name}: the zip holds {shown} more than once; a log "
                                 "names each member once, so which copy is the log's is unknown")
    return names


def loads_tolerant(raw: bytes | str) -> Any:
    """Return parsed JSON accepting bare NaN / Infinity tokens (they become float NaN / inf)."""
    return parse_json(raw)


class MemberReader:
    """Reads zip members with a cap on the bytes actually inflated, per member and in total."""

    def __init__(self, path: Path, zf: zipfile.ZipFile, max_member: int = MAX_MEMBER_BYTES):
        self.path, self.zf, self.cap = path, zf, max_member
        self.total_cap, self.used = max_member * TOTAL_FACTOR, 0

    def _refuse(self, name: str, what: str) -> InflateLimitError:
        return InflateLimitError(
            f"{self.path.name}!{name}: {what}; refused as a possible zip bomb (raise the cap "
            "with --max-member-mb if the log is genuine)")

    def json(self, name: str, marks: KeyMarks | None = None) -> Any:
        """Return one member parsed as JSON, refusing text whose parse would need too much;
        with `marks`, each object in it naming a key twice is marked and counted there."""
        raw = self.read(name)
        try:
            return parse_json(raw, max_memory=JSON_MEMORY_FACTOR * self.cap, marks=marks)
        except TooCostlyError as exc:
            raise self._refuse(name, str(exc)) from exc

    def read(self, name: str) -> bytearray:
        """Return the bytes of one member (stored, deflate or zstd), within the caps."""
        info = self.zf.getinfo(name)
        if info.compress_type not in READABLE_METHODS:
            raise ArchiveFormatError(f"{self.path.name}!{name}: unsupported zip compression "
                                     f"method {info.compress_type}")
        if info.file_size > self.cap:
            raise self._refuse(name, f"declares {info.file_size} bytes, more than the "
                                     f"{self.cap}-byte member cap")
        chunks = (self._zstd_chunks(info) if info.compress_type == ZSTD_METHOD
                  else self._zip_chunks(info))
        buf = bytearray()
        for chunk in chunks:
            buf += chunk
            if len(buf) > info.file_size:  # zipfile stops at the declared size; zstd may not
                raise ArchiveFormatError(f"{self.path.name}!{name}: inflates beyond its declared "
                                         f"{info.file_size} bytes (damaged or hostile member)")
            if self.used + len(buf) > self.total_cap:
                raise self._refuse(name, f"the log inflates past {self.total_cap} bytes in total")
        self.used += len(buf)
        if info.compress_type == ZSTD_METHOD:
            if len(buf) < info.file_size:
                raise ArchiveFormatError(f"{self.path.name}!{name}: zstd member inflates to "
                                         f"{len(buf)} bytes, not the declared {info.file_size}")
            if zlib.crc32(buf) != info.CRC:
                raise ArchiveFormatError(f"{self.path.name}!{name}: CRC mismatch")
        return buf

    def _zip_chunks(self, info: zipfile.ZipInfo) -> Iterator[bytes]:
        """Yield a stored or deflate member in bounded chunks (zipfile checks size and CRC)."""
        try:
            with self.zf.open(info) as fh:
                while chunk := fh.read(_CHUNK):
                    yield chunk
        except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError) as exc:
            raise ArchiveFormatError(f"{self.path.name}!{info.filename}: {exc}") from exc
        except RuntimeError as exc:  # zipfile's "File is encrypted, password required"
            raise ArchiveFormatError(f"{self.path.name}!{info.filename}: {exc}") from exc

    def _zstd_chunks(self, info: zipfile.ZipInfo) -> Iterator[bytes]:
        """Yield a zstd member (method 93, unreadable by zipfile before 3.14) in bounded chunks."""
        try:
            import zstandard
        except ImportError as exc:
            raise ArchiveFormatError(
                "this .eval log has zstd-compressed members: install the 'zstandard' package "
                "with the optional extra, pip install 'agentmetrology[archive]'") from exc
        with self.path.open("rb") as fh:
            fh.seek(info.header_offset)
            head = fh.read(_LOCAL_HEADER.size)
            if len(head) != _LOCAL_HEADER.size or head[:4] != b"PK\x03\x04":
                raise ArchiveFormatError(f"{self.path.name}!{info.filename}: bad local zip header")
            header = _LOCAL_HEADER.unpack(head)
            fh.seek(info.header_offset + _LOCAL_HEADER.size + header[9] + header[10])
            raw = fh.read(info.compress_size)
        try:
            reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(raw))
            while chunk := reader.read(_CHUNK):
                yield chunk
        except zstandard.ZstdError as exc:
            raise ArchiveFormatError(f"{self.path.name}!{info.filename}: zstd: {exc}") from exc
