"""Shared fixtures for the archive tests: the real tau-bench file and a tiny zip writer."""

from __future__ import annotations

import os
import struct
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# AGM_SHARED_DATA names another data folder (a checkout elsewhere, a git worktree), as in
# tau2_files.py
TAUBENCH = (Path(os.environ.get("AGM_SHARED_DATA") or (REPO / "../shared/data")).resolve()
            / "taubench" / "gpt-4o-airline.json")


@pytest.fixture(scope="session")
def taubench_file() -> Path:
    """Return the shared tau-bench archive, or skip visibly when the shared folder is absent."""
    if not TAUBENCH.is_file():
        pytest.skip(f"shared tau-bench data not found at {TAUBENCH}")
    return TAUBENCH


@pytest.fixture
def stated_tau2_verdicts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Replace the tau2 do-nothing evaluator by stated verdicts (see archive/tau2_files.py)."""
    from archive.tau2_files import stated_verdicts

    stated_verdicts(monkeypatch)


@pytest.fixture
def zip_writer() -> Callable[..., None]:
    """Return `write_zip`, a minimal zip writer that can use any compression method id."""
    return write_zip


def write_zip(path: Path, members: dict[str, bytes], method: int = 0,
              compress: Callable[[bytes], bytes] | None = None) -> None:
    """Write a minimal zip whose members use `method` (e.g. 93 = zstd) with `compress(data)`."""
    body, central = bytearray(), bytearray()
    for name, data in members.items():
        raw = compress(data) if compress else data
        crc, fname, offset = zlib.crc32(data), name.encode(), len(body)
        body += struct.pack("<4s5H3L2H", b"PK\x03\x04", 63, 0, method, 0, 0, crc, len(raw),
                            len(data), len(fname), 0) + fname + raw
        central += struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 63, 63, 0, method, 0, 0, crc,
                               len(raw), len(data), len(fname), 0, 0, 0, 0, 0, offset) + fname
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, len(members), len(members),
                      len(central), len(body), 0)
    path.write_bytes(bytes(body + central + end))
