"""A submission directory scored streaming: data.jsonl is read in batches of lines, never whole.

`read_streamed_dir` gives both scorers the same view as `read_submission_dir` (same problems,
same evidence digest, same parsed lines, so the same assessments) without holding data.jsonl
in memory: the file is read once to check its UTF-8 and compute the digest, then once per scorer
in batches of `BATCH_LINES` raw lines (blank lines count toward a batch and are then dropped, so
a batch holds at most that many parsed lines). Peak memory is one batch plus what the scorers keep
(the distinct record ids, the distinct dedup keys), so data.jsonl has no size limit here; its
metadata.json and run.log keep theirs. One line is read whole only up to MAX_LINE_BYTES: a longer
line (a file that is one huge line) makes data.jsonl a problem, as invalid UTF-8 does.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from agentmetrology.edges.files import bounded_lines
from agentmetrology.envs.comtrade.scoring.submission import (
    BOM,
    FILE_NAMES,
    MAX_DATA_BYTES,
    WHOLE,
    parse_lines,
    read_text_part,
    submission_root,
)
from agentmetrology.records.canonical import digest

BATCH_LINES: Final = 8192
# One record of data.jsonl is a few hundred bytes; a line longer than the in-memory reader's
# whole-file limit is refused (INVALID, with the reason) after reading at most this much of it.
MAX_LINE_BYTES = MAX_DATA_BYTES
DATA: Final = "data_jsonl"


def _json_str(text: str | None) -> bytes:
    """Return the canonical JSON of a text (records.canonical's encoding of one string)."""
    return json.dumps(text, ensure_ascii=False).encode("utf-8")


def _scan(path: Path, metadata_json: str | None, run_log: str | None) -> tuple[str, str | None]:
    """Return (evidence digest, None) of a valid UTF-8 data file, or (digest, why) if not.

    The digest is sha256 of canonical_json({data_jsonl, metadata_json, run_log}), built from
    the file line by line: JSON string escaping maps each character on its own, so escaping
    lines and concatenating equals escaping the whole text.
    """
    h = hashlib.sha256(b'{"data_jsonl":"')
    offset = 0
    with path.open("rb") as fh:
        for no, raw in enumerate(bounded_lines(fh, MAX_LINE_BYTES), start=1):
            if raw is None:
                why = (f"{FILE_NAMES[DATA]} line {no} is longer than {MAX_LINE_BYTES:,} bytes, "
                       "the limit for one record")
                return _digest(None, metadata_json, run_log), why
            try:
                text = raw.decode("utf-8")  # "\n" is never inside a UTF-8 sequence
            except UnicodeDecodeError as exc:
                bad = raw[exc.start]
                why = (f"{FILE_NAMES[DATA]} is not valid UTF-8 (byte 0x{bad:02x} at offset "
                       f"{offset + exc.start})")
                return _digest(None, metadata_json, run_log), why
            h.update(_json_str(text)[1:-1])
            offset += len(raw)
    h.update(b'",' + _tail(metadata_json, run_log))
    return h.hexdigest(), None


def _tail(metadata_json: str | None, run_log: str | None) -> bytes:
    return (b'"metadata_json":' + _json_str(metadata_json) + b',"run_log":'
            + _json_str(run_log) + b"}")


def _digest(data: str | None, metadata_json: str | None, run_log: str | None) -> str:
    """Return the evidence digest of texts held in memory (Submission.digest's record)."""
    return digest({DATA: data, "metadata_json": metadata_json, "run_log": run_log})


@dataclass(frozen=True)
class StreamedSubmission:
    """A submission whose data.jsonl stays on disk and is parsed in batches of lines."""

    data_path: Path | None
    metadata_json: str | None
    run_log: str | None
    digest: str
    problems: Mapping[str, str] = field(default_factory=dict)
    batch_lines: int = BATCH_LINES

    def present(self, part: str) -> bool:
        """Return True when the part was given and is readable."""
        if part == DATA:
            return self.data_path is not None and DATA not in self.problems
        return getattr(self, part) is not None

    def problems_for(self, *parts: str) -> list[str]:
        """Return the problem reasons affecting the given parts (and the submission as a whole)."""
        return [r for p, r in self.problems.items() if p == WHOLE or p in parts]

    def data_batches(self, *, skip_bom: bool = False) -> Iterator[tuple[Any, ...]]:
        """Yield the parsed non-blank lines of data.jsonl in order, a batch per `batch_lines` lines.

        Blank lines are counted toward a batch before `parse_lines` drops them, so a batch may
        hold fewer values (none, for an all-blank stretch); the batch size bounds memory only.
        With `skip_bom`, a byte order mark that starts the file is left out of its first line.
        """
        if not self.present(DATA):
            return
        assert self.data_path is not None
        pieces: list[str] = []
        first = skip_bom
        with self.data_path.open("rb") as fh:
            for raw in fh:
                piece = raw.decode("utf-8")  # checked when the submission was read
                if first:
                    piece, first = piece.removeprefix(BOM), False
                pieces.append(piece)
                if len(pieces) >= self.batch_lines:
                    yield parse_lines(pieces).values
                    pieces = []
        if pieces:
            yield parse_lines(pieces).values

    def record_batches(self) -> Iterator[tuple[Any, ...]]:
        """Yield the parsed data lines as the valid scorers read them: a leading BOM ignored."""
        return self.data_batches(skip_bom=True)

    @property
    def starts_with_bom(self) -> bool:
        """Return True when data.jsonl starts with a UTF-8 byte order mark."""
        if not self.present(DATA):
            return False
        assert self.data_path is not None
        with self.data_path.open("rb") as fh:
            return fh.read(3) == BOM.encode("utf-8")


def read_streamed_dir(path: str | Path, batch_lines: int = BATCH_LINES) -> StreamedSubmission:
    """Return the submission in a directory with data.jsonl left on disk (no size limit)."""
    root = submission_root(path)
    texts: dict[str, str | None] = {}
    problems: dict[str, str] = {}
    for part in ("metadata_json", "run_log"):
        texts[part], reason = read_text_part(root, part)
        if reason is not None:
            problems[part] = reason
    meta, log = texts["metadata_json"], texts["run_log"]
    data: Path | None = root / FILE_NAMES[DATA]
    assert data is not None
    if not data.exists():
        data, ev = None, _digest(None, meta, log)
    elif not data.is_file():
        problems[DATA] = f"{FILE_NAMES[DATA]} is not a regular file"
        data, ev = None, _digest(None, meta, log)
    else:
        try:
            ev, reason = _scan(data, meta, log)
        except OSError as exc:
            ev, reason = _digest(None, meta, log), (f"{FILE_NAMES[DATA]} cannot be read "
                                                    f"({exc.strerror or exc})")
        if reason is not None:
            problems[DATA] = reason
            data = None
    # Problems in file order, as read_submission_dir records them.
    ordered: dict[str, str] = {p: problems[p] for p in (DATA, "metadata_json", "run_log")
                               if p in problems}
    return StreamedSubmission(data, meta, log, ev, ordered, batch_lines)
