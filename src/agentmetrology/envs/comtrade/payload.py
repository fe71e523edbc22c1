"""Row cleaning, metadata and the run log in the harness format, shared by harness and agents."""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from itertools import compress, repeat
from typing import Any

import msgspec

from agentmetrology.envs.comtrade import encoded
from agentmetrology.envs.comtrade.generator import DEDUP_KEY, ROW_FIELDS

# Below this many rows a page goes through the row loop: the bulk path's fixed cost, and its
# wasted work when a page has duplicates, outweigh what it saves on a short page.
BULK_MIN_ROWS = 64


@dataclass(slots=True)
class RowCollector:
    """Collects rows across pages, optionally dropping totals rows and duplicates."""

    dedup: bool = True
    drop_totals: bool = True
    rows: list[dict[str, Any]] = field(default_factory=list)
    totals_dropped: int = 0
    duplicates_dropped: int = 0
    ids: set[str] = field(default_factory=set)  # distinct record ids seen, totals excluded
    _seen: set[tuple[Any, ...]] = field(default_factory=set)

    def add(self, rows: Any) -> None:
        """Absorb a page's rows (anything that is not a dict is ignored)."""
        if not isinstance(rows, list) or (len(rows) >= BULK_MIN_ROWS and self._add_plain(rows)):
            return
        # Called for every page by both the harness and the scripted agents. A plain row (a
        # dict without totals flags whose key fields are all there: every generated row) is
        # tested and keyed here in a few C-level steps: its hs and record id are in its dedup
        # key, and one set insertion says whether the key was new. Any other row goes through
        # `_add_row`, the general test, before anything is done for it.
        seen, dedup = self._seen, self.dedup
        # bound methods and builtins as locals: a page of a small task is a few dozen rows,
        # and these lookups were a tenth of each row's cost
        seen_add, id_add, keep, size = seen.add, self.ids.add, self.rows.append, len
        hs_at, rid_at, key_of = _HS_AT, _RID_AT, _KEY
        dropped = 0  # added once at the end (_add_row adds its own as it goes)
        for row in rows:
            if type(row) is not dict or "isTotal" in row or "is_total" in row:
                self._add_row(row)
                continue
            try:
                key = key_of(row)
            except KeyError:  # a key field missing
                self._add_row(row)
                continue
            if key[hs_at] == "TOTAL":  # a totals row
                self._add_row(row)
                continue
            if dedup:
                before = size(seen)
                try:
                    seen_add(key)
                except TypeError:  # an unhashable value: nothing was done for this row yet
                    self._add_row(row)
                    continue
                if size(seen) == before:
                    dropped += 1
                    if type(rid := key[rid_at]) is str:
                        id_add(rid)
                    continue
            if type(rid := key[rid_at]) is str:  # every non-totals row's id, a duplicate's too
                id_add(rid)
            keep(row)
        self.duplicates_dropped += dropped

    def _add_row(self, row: Any) -> None:
        """Absorb one row by the general rule (generator.is_totals_row, then the dedup key)."""
        if not isinstance(row, dict):
            return
        get = row.get
        if get("isTotal") or get("is_total") or get("hs") == "TOTAL":
            if self.drop_totals:
                self.totals_dropped += 1
                return
        elif type(rid := get("record_id")) is str:
            self.ids.add(rid)
        if self.dedup:
            key = _dedup_key(row)
            if key in self._seen:
                self.duplicates_dropped += 1
                return
            self._seen.add(key)
        self.rows.append(row)

    def _add_plain(self, rows: list[Any]) -> bool:
        """Absorb a page of plain rows in bulk; return False, absorbing nothing, else.

        Plain: every row a dict, totals rows only when they are dropped, and (when deduplicating)
        every dedup key present and hashable. Then the loop would keep each non-totals row whose
        key it has not seen (on an earlier page or earlier on this one), so the page is a few
        C-level passes, and a pass over the keys only when some key repeats.
        """
        if not rows or set(map(type, rows)) != {dict}:
            return False
        at = _totals_at(rows)
        totals = len(at)
        if totals:
            if not self.drop_totals:
                return False
            if at == {0}:  # the totals family's page: its one summary row first
                rows = rows[1:]
            else:
                keep = [True] * len(rows)
                for i in at:
                    keep[i] = False
                rows = list(compress(rows, keep))
        kept = rows
        if self.dedup:
            try:
                fresh = set(map(_KEY, rows))
            except (KeyError, TypeError):
                return False
            seen = self._seen
            if len(fresh) == len(rows) and seen.isdisjoint(fresh):
                seen |= fresh
            else:  # a repeated key: the loop keeps each key's first row, as this does
                kept = []
                for row, key in zip(rows, map(_KEY, rows), strict=True):
                    if key not in seen:
                        seen.add(key)
                        kept.append(row)
                self.duplicates_dropped += len(rows) - len(kept)
        try:  # the loop adds the id of every non-totals row, a duplicate's too
            rids = list(map(_RID, rows))
        except KeyError:
            rids = list(map(_GET_RID, rows))
        if set(map(type, rids)) == {str}:
            self.ids.update(rids)
        else:
            self.ids.update(rid for rid in rids if type(rid) is str)
        self.totals_dropped += totals
        self.rows.extend(kept)
        return True


_KEY = operator.itemgetter(*DEDUP_KEY)
_HS_AT, _RID_AT = DEDUP_KEY.index("hs"), DEDUP_KEY.index("record_id")
_GET_HS = operator.methodcaller("get", "hs")
_GET_RID = operator.methodcaller("get", "record_id")
_RID = operator.itemgetter("record_id")
_HS = operator.itemgetter("hs")


def _totals_at(rows: list[dict[str, Any]]) -> set[int]:
    """Return the positions of the totals rows (generator.is_totals_row) among dicts.

    The test is `get("isTotal") or get("is_total") or get("hs") == "TOTAL"`; a flag can only
    be truthy where its key is present, so the C-level passes find the few candidates (a
    totals-family page has one, at the front) and only those are looked at one by one.
    """
    where = range(len(rows))
    flagged = set(compress(where, map(operator.contains, rows, repeat("isTotal"))))
    flagged.update(compress(where, map(operator.contains, rows, repeat("is_total"))))
    at = {i for i in flagged if rows[i].get("isTotal") or rows[i].get("is_total")}
    try:
        hs = list(map(_HS, rows))
    except KeyError:  # a row without hs: get() gives None there, never "TOTAL"
        hs = list(map(_GET_HS, rows))
    if "TOTAL" in hs:  # one C-level scan first: most pages have no such row
        i = -1
        try:  # list.index compares as `in` does, in C, from each hit on: few rows are totals
            while True:
                i = hs.index("TOTAL", i + 1)
                at.add(i)
        except ValueError:  # no further one
            pass
    return at


def _dedup_key(row: dict[str, Any]) -> Any:
    """Return the six-field dedup key of a row, hashable whatever the values are."""
    try:
        key = _KEY(row)
        hash(key)
        return key
    except (KeyError, TypeError):  # missing fields or unhashable values: compare by repr
        return tuple(repr(row.get(k)) for k in DEDUP_KEY)


@dataclass(slots=True)
class RunLog:
    """The run log in the harness format (`task_id=…`, `step=k tool=name`, `request=n …`)."""

    lines: list[str] = field(default_factory=list)
    requests: int = 0
    retries: int = 0
    # A plain dict: a Counter costs more to make than the rest of the log (an episode makes
    # one or two logs); counts are added with get, as a Counter would.
    statuses: dict[str, int] = field(default_factory=dict)

    @classmethod
    def start(cls, task_id: str) -> RunLog:
        """Return a log opened with the task id."""
        return cls([f"task_id={task_id}"])

    def step(self, k: int, tool: str) -> None:
        """Log tool call number k."""
        self.lines.append(f"step={k} tool={tool}")

    def request(self, page: Any, attempt: int | None = None, result: Any = None) -> None:
        """Log one request (every attempt counts); the rule baseline omits the attempt.

        Only a call the service counted is a request: its result is a page (`rows`) or an
        HTTP-style error (`status`). The budget error, and a call refused before it reached
        the service (an unknown or missing argument, arguments that are not an object), were
        not counted, so they are not logged: the self-report must match what the service
        counted (the metadata's request_count is this log's count).
        """
        if isinstance(result, dict) and "rows" not in result and "status" not in result:
            return
        self.requests += 1
        line = f"request={self.requests} page={page}"
        self.lines.append(line if attempt is None else f"{line} attempt={attempt}")

    def retry(self, status: Any, attempt: int, wait_s: float) -> None:
        """Log a retry after a failed attempt."""
        self.retries += 1
        key = str(status)
        self.statuses[key] = self.statuses.get(key, 0) + 1
        self.lines.append(f"retry status={status} attempt={attempt} wait_s={wait_s:g}")

    def skip(self, status: Any, page: Any) -> None:
        """Log a page given up after a fault."""
        key = str(status)
        self.statuses[key] = self.statuses.get(key, 0) + 1
        self.lines.append(f"skip status={status} page={page}")

    def page(self, page: Any) -> None:
        """Log a page received."""
        self.lines.append(f"page={page}")

    def finish(self, complete: bool) -> str:
        """Close the log with the retry count and completeness; return its text."""
        self.lines.append(f"retry_count={self.retries}")
        self.lines.append(f"complete={'true' if complete else 'false'}")
        return "\n".join(self.lines) + "\n"


def build_metadata(task_id: str, query: dict[str, Any], rows: list[dict[str, Any]], *,
                   totals_enabled: bool, totals_dropped: int,
                   request_count: int | None = None,
                   request_stats: dict[str, Any] | None = None,
                   execution_time_seconds: float | None = None) -> dict[str, Any]:
    """Return the metadata object in the harness's shape (optional fields only when given)."""
    schema = list(rows[0].keys()) if rows else list(ROW_FIELDS)
    meta: dict[str, Any] = {
        "task_id": task_id,
        "query": dict(query),
        "row_count": len(rows),
        "schema": schema,
        "dedup_key": list(DEDUP_KEY),
        "totals_handling": {"enabled": totals_enabled, "rows_dropped": totals_dropped},
    }
    if request_count is not None:
        meta["request_count"] = request_count
    if request_stats is not None:
        meta["request_stats"] = request_stats
    if execution_time_seconds is not None:
        meta["execution_time_seconds"] = round(execution_time_seconds, 3)
    return meta


# msgspec writes compact JSON lines an order of magnitude faster than json.dumps per row.
_LINES = msgspec.json.Encoder()


def encode_payload(rows: list[dict[str, Any]], metadata: dict[str, Any],
                   run_log: str) -> dict[str, str]:
    """Return the three submission strings (compact JSONL, indented metadata, the log)."""
    data = _LINES.encode_lines(rows).decode("utf-8") if rows else ""
    encoded.note(data, rows)  # for the acknowledgement and the scorers of this very text
    meta = msgspec.json.format(_LINES.encode(metadata), indent=2).decode("utf-8")
    return {"data_jsonl": data, "metadata_json": meta, "run_log": run_log}
