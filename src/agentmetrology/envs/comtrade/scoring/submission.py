"""Submissions (data.jsonl, metadata.json, run.log) and safe parsing that never raises.

Everything here treats its input as untrusted evidence: bytes that are not UTF-8, text that is
too large, values of the wrong type and lines that are not JSON become *problems* or *unparsed
lines* with a reason, never exceptions, so that a scorer can return INVALID or count them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Final, Protocol

import msgspec

from agentmetrology.records.canonical import digest

MIB: Final = 1024 * 1024
# The largest genuine data file (T2, 2,345 rows) is ~0.45 MB; 8 MiB leaves room for every
# legitimate answer while bounding the parse cost of a hostile one.
MAX_DATA_BYTES: Final = 8 * MIB
MAX_METADATA_BYTES: Final = 1 * MIB
MAX_LOG_BYTES: Final = 8 * MIB

PARTS: Final = ("data_jsonl", "metadata_json", "run_log")
FILE_NAMES: Final[dict[str, str]] = {
    "data_jsonl": "data.jsonl", "metadata_json": "metadata.json", "run_log": "run.log",
}
LIMITS: Final[dict[str, int]] = {
    "data_jsonl": MAX_DATA_BYTES, "metadata_json": MAX_METADATA_BYTES, "run_log": MAX_LOG_BYTES,
}
# Key of `Submission.problems` for a problem with the submission as a whole.
WHOLE: Final = "submission"
# A UTF-8 byte order mark decodes to U+FEFF at the start of the text. Python's json refuses
# it as the first character of a value, so the raw parse counts the first line unparsable;
# the valid scorers read rows as RFC 8259 allows a parser to (the mark ignored), the shape
# judge as the original release did.
BOM: Final = "\ufeff"
BOM_REASON: Final = ("data.jsonl starts with a UTF-8 byte order mark (U+FEFF), ignored: "
                     "its first line is read without it")


class _NotJson:
    """Sentinel type for a non-blank line that is not a JSON value."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "NOT_JSON"

    def __reduce__(self) -> str:
        return "NOT_JSON"  # unpickles to the module's singleton, so `is NOT_JSON` still holds


NOT_JSON: Final = _NotJson()

# The C scanner behind json.loads, called directly: it skips json.loads' per-call Python
# overhead (about 40% of the time for a 10-field row) with identical acceptance, because we
# check that the value ends exactly where the stripped line ends.
_SCAN_ONCE: Final[Callable[[str, int], tuple[Any, int]]] = (
    json.JSONDecoder().scan_once)  # type: ignore[attr-defined]


_FAST_DECODE: Final[Callable[[str], Any]] = msgspec.json.Decoder().decode


@dataclass(frozen=True, slots=True)
class ParsedLines:
    """The non-blank lines of a JSONL text, each parsed to a JSON value or NOT_JSON."""

    values: tuple[Any, ...]
    not_json: int

    @property
    def lines(self) -> int:
        """Return the number of non-blank lines."""
        return len(self.values)


def split_lines(text: str) -> list[str]:
    """Return the non-blank lines of `text`, stripped, split on '\\n' only."""
    # Only "\n" separates records: str.splitlines would also split on U+2028/U+0085, which
    # json.dumps(ensure_ascii=False) leaves unescaped inside strings, and break valid rows.
    out = []
    for line in text.split("\n"):
        s = line.strip()
        if s:
            out.append(s)
    return out


def parse_line(line: str) -> Any:
    """Return the JSON value of one stripped, non-blank line, or NOT_JSON."""
    try:
        value, end = _SCAN_ONCE(line, 0)
    except (StopIteration, ValueError, RecursionError):
        # StopIteration: no value at 0; ValueError: bad syntax or an int beyond Python's
        # digit limit; RecursionError: nesting deeper than the interpreter allows.
        return NOT_JSON
    return value if end == len(line) else NOT_JSON


def parse_jsonl(text: str) -> ParsedLines:
    """Return every non-blank line of `text` parsed (NOT_JSON for lines that are not JSON)."""
    pieces = text.split("\n")
    if pieces[-1] == "":
        pieces.pop()  # the final newline's empty piece (any other blank piece fails below)
    try:
        # The usual file, every line one JSON value: msgspec decodes each piece as it is.
        # It skips only JSON whitespace, so a blank piece, one with other whitespace the
        # per-line path would strip, or anything json alone accepts raises, and
        # parse_lines decides line by line; otherwise each value is what the loop would make.
        return ParsedLines(tuple(map(_FAST_DECODE, pieces)), 0)
    except (msgspec.DecodeError, RecursionError):
        return parse_lines(text.split("\n"))


def parse_lines(pieces: Iterable[str]) -> ParsedLines:
    """Return the non-blank pieces of a JSONL text (split on '\\n' only), stripped and parsed."""
    values = []
    bad = 0
    scan = _SCAN_ONCE
    fast = _FAST_DECODE
    for line in pieces:
        s = line.strip()
        if not s:
            continue
        # Inlined parse_line: this loop is the per-episode hot path of both scorers. msgspec
        # parses standard JSON ~4x faster; anything it rejects (NaN literals, huge ints, lone
        # surrogates, garbage) goes through json's scanner, so acceptance is exactly json's.
        try:
            value = fast(s)
        except (msgspec.DecodeError, RecursionError):
            try:
                value, end = scan(s, 0)
                if end != len(s):
                    value = NOT_JSON
            except (StopIteration, ValueError, RecursionError):
                value = NOT_JSON
        if value is NOT_JSON:
            bad += 1
        values.append(value)
    return ParsedLines(tuple(values), bad)


# Below this many opening brackets a document nests too shallowly for either decoder's
# recursion limit (which they reach at slightly different depths), so msgspec may answer.
_SHALLOW: Final = 500


def parse_json(text: str) -> tuple[Any, str | None]:
    """Return (value, None) for a JSON document, or (None, reason) when it is not JSON."""
    if text.count("[") + text.count("{") < _SHALLOW:
        # msgspec decodes standard JSON to the values json.loads makes, several times faster;
        # whatever it rejects (NaN, 1e400, lone surrogates, escaped or raw, bad syntax)
        # json.loads decides (a RecursionError too: little stack left, json gives the reason).
        try:
            return _FAST_DECODE(text), None
        except (msgspec.DecodeError, UnicodeEncodeError, RecursionError):
            pass
    try:
        return json.loads(text), None
    except json.JSONDecodeError as exc:
        return None, f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
    except (ValueError, RecursionError) as exc:
        return None, f"not valid JSON ({type(exc).__name__}: {str(exc)[:120]})"


def _text_problem(part: str, value: str) -> str | None:
    """Return why `value` cannot stand as the text of `part` (too large, not UTF-8), or None."""
    limit = LIMITS[part]
    name = FILE_NAMES[part]
    if len(value) > limit:  # every character is at least one byte: no need to encode
        return (f"submission too large: {name} has {len(value):,} characters "
                f"(limit {limit:,} bytes)")
    if value.isascii():  # O(1) in CPython: bytes == characters, and nothing to validate
        return None
    try:
        size = len(value.encode("utf-8"))
    except UnicodeEncodeError as exc:
        return f"{name} is not valid Unicode text (lone surrogate at index {exc.start})"
    if size > limit:
        return f"submission too large: {name} is {size:,} bytes (limit {limit:,})"
    return None


def decode_part(part: str, raw: bytes) -> tuple[str | None, str | None]:
    """Return (text, None) for UTF-8 bytes within the part's limit, else (None, reason)."""
    limit = LIMITS[part]
    name = FILE_NAMES[part]
    if len(raw) > limit:
        return None, f"submission too large: {name} is {len(raw):,} bytes (limit {limit:,})"
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        bad = raw[exc.start]
        return None, f"{name} is not valid UTF-8 (byte 0x{bad:02x} at offset {exc.start})"


@dataclass(frozen=True)
class Submission:
    """A submission's three texts (None when absent) and the problems that made parts unreadable.

    Construction validates each text (size limit, encodability); a part that fails is set to
    None and its reason recorded in `problems` under the part's name, so a scorer can tell an
    unreadable part (INVALID) from a missing one.
    """

    data_jsonl: str | None = None
    metadata_json: str | None = None
    run_log: str | None = None
    problems: Mapping[str, str] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        found = dict(self.problems)
        for part in PARTS:
            value = getattr(self, part)
            if value is None:
                continue
            reason = (_text_problem(part, value) if isinstance(value, str)
                      else f"{FILE_NAMES[part]} is {type(value).__name__}, not text")
            if reason is not None:
                found[part] = reason
                object.__setattr__(self, part, None)  # frozen: set once, during construction
        if found or self.problems:
            object.__setattr__(self, "problems", found)

    def problems_for(self, *parts: str) -> list[str]:
        """Return the problem reasons affecting the given parts (and the submission as a whole)."""
        return [r for p, r in self.problems.items() if p == WHOLE or p in parts]

    def present(self, part: str) -> bool:
        """Return True when the part was given and is readable."""
        return getattr(self, part) is not None

    def data_batches(self) -> Iterator[tuple[Any, ...]]:
        """Yield the parsed data lines: one batch, the whole file (shared by both scorers)."""
        yield self.parsed_data.values

    def record_batches(self) -> Iterator[tuple[Any, ...]]:
        """Yield the parsed data lines as the valid scorers read them: a leading BOM ignored."""
        text = self.data_jsonl or ""
        if text.startswith(BOM):
            yield parse_jsonl(text[1:]).values  # rare: a second parse, the judge keeps its own
        else:
            yield from self.data_batches()

    @property
    def starts_with_bom(self) -> bool:
        """Return True when data.jsonl starts with a UTF-8 byte order mark."""
        return (self.data_jsonl or "").startswith(BOM)

    @cached_property
    def parsed_data(self) -> ParsedLines:
        """Return data.jsonl parsed line by line (cached: both scorers share one parse)."""
        return parse_jsonl(self.data_jsonl or "")

    def parse_cached(self) -> bool:
        """Return True once data.jsonl has been parsed (or its parse adopted)."""
        return "parsed_data" in self.__dict__

    def adopt_parse(self, parsed: ParsedLines) -> None:
        """Cache `parsed` as the parse of data.jsonl; the caller guarantees it equals
        parse_jsonl(data_jsonl), value for value and type for type (scoring/genuine.py)."""
        self.__dict__["parsed_data"] = parsed  # where cached_property keeps its value

    @cached_property
    def digest(self) -> str:
        """Return the evidence digest: digest of {data_jsonl, metadata_json, run_log} texts."""
        # The same record the scaffolds digest as an episode's "submission", so a submission
        # scored from a directory and the episode that produced it carry the same digest.
        return digest({p: getattr(self, p) for p in PARTS})


class Scorable(Protocol):
    """What the scorers read of a submission: in memory (Submission) or streamed from a file."""

    @property
    def metadata_json(self) -> str | None:
        """Return the metadata text (None when absent or unreadable)."""
        ...

    @property
    def run_log(self) -> str | None:
        """Return the run log text (None when absent or unreadable)."""
        ...

    @property
    def digest(self) -> str:
        """Return the evidence digest of the three texts."""
        ...

    def present(self, part: str) -> bool:
        """Return True when the part was given and is readable."""
        ...

    def problems_for(self, *parts: str) -> list[str]:
        """Return the problem reasons affecting the given parts."""
        ...

    def data_batches(self) -> Iterator[tuple[Any, ...]]:
        """Yield the parsed data lines in batches, in file order."""
        ...

    def record_batches(self) -> Iterator[tuple[Any, ...]]:
        """Yield the parsed data lines as the valid scorers read them: a leading BOM ignored."""
        ...

    @property
    def starts_with_bom(self) -> bool:
        """Return True when data.jsonl starts with a UTF-8 byte order mark."""
        ...


def make_submission(data_jsonl: object = None, metadata_json: object = None,
                    run_log: object = None) -> Submission:
    """Return a Submission from raw parts (str, UTF-8 bytes or None; anything else a problem)."""
    texts: dict[str, Any] = {}
    problems: dict[str, str] = {}
    for part, value in zip(PARTS, (data_jsonl, metadata_json, run_log), strict=True):
        if isinstance(value, bytes | bytearray | memoryview):
            text, reason = decode_part(part, bytes(value))
            texts[part] = text
            if reason is not None:
                problems[part] = reason
        else:
            texts[part] = value  # str / None pass; other types become problems in __post_init__
    return Submission(**texts, problems=problems)


def submission_from_mapping(mapping: object) -> Submission | None:
    """Return the Submission in a {data_jsonl, metadata_json, run_log} mapping (None → None)."""
    if mapping is None:
        return None
    if not isinstance(mapping, Mapping):
        return Submission(problems={WHOLE: f"submission is {type(mapping).__name__}, "
                                           "not an object"})
    return make_submission(*(mapping.get(p) for p in PARTS))


def _read_part(path: Path, part: str) -> tuple[bytes | None, str | None]:
    """Return (bytes, None), (None, None) when absent, or (None, reason) when unreadable."""
    name = FILE_NAMES[part]
    if not path.exists():
        return None, None
    if not path.is_file():
        return None, f"{name} is not a regular file"
    limit = LIMITS[part]
    try:
        with path.open("rb") as fh:
            raw = fh.read(limit + 1)  # never pull an arbitrarily large file into memory
    except OSError as exc:
        return None, f"{name} cannot be read ({exc.strerror or exc})"
    if len(raw) > limit:
        try:
            size = f"{path.stat().st_size:,} bytes"
        except OSError:
            size = "more than the limit"
        return None, f"submission too large: {name} is {size} (limit {limit:,})"
    return raw, None


class SubmissionDirError(FileNotFoundError):
    """Raised when a submission directory does not exist or is not a directory."""


def submission_root(path: str | Path) -> Path:
    """Return a submission directory's path, or raise SubmissionDirError if it is not one."""
    root = Path(path)
    if not root.is_dir():
        raise SubmissionDirError(f"submission directory {str(root)!r} does not exist "
                                 "or is not a directory")
    return root


def read_text_part(root: Path, part: str) -> tuple[str | None, str | None]:
    """Return (text, problem) of one part's file (text None when absent or unreadable)."""
    raw, reason = _read_part(root / FILE_NAMES[part], part)
    text = None
    if raw is not None:
        text, reason = decode_part(part, raw)
    return text, reason


def read_submission_dir(path: str | Path) -> Submission:
    """Return the Submission in a directory (data.jsonl, metadata.json, run.log; absent → None)."""
    root = submission_root(path)
    texts: dict[str, str | None] = {}
    problems: dict[str, str] = {}
    for part in PARTS:
        texts[part], reason = read_text_part(root, part)
        if reason is not None:
            problems[part] = reason
    return Submission(**texts, problems=problems)
