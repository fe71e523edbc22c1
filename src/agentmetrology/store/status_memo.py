"""A memo of `campaign status`'s numbers, reused only while the ledger file is unchanged.

Every number of `campaign status` (counts, cost, scores, the cells per level and condition)
is read from the ledger alone, and on a 100,000-episode store the queries cost over a second
(benchmarks/results/memory.json, "status numbers (computed)"). They are kept in the same
cache as the ledger check's memo (store.verify_memo, same folder, same `AGM_VERIFY_CACHE`
switch, never in the store) under a fingerprint of the ledger file and its write-ahead log
(device, inode, size, mtime, ctime: any write moves ctime, which cannot be set back) and of
the code that computes them. A miss computes them and keeps them
when the ledger did not change meanwhile. A campaign whose cells cannot be computed (a binding
that no longer hashes to its digest) is never kept: it is computed, and refused, every time.

A store that grew keeps the numbers of the campaigns the growth did not touch: the memo also
records the chain's length and head it was computed at, and when the chain still has that head
there and grew, only the campaigns its new entries name (a campaign, run, administration,
attempt, episode, assessment, superseded row or billed request of it) are computed again. Every
number here is read from sealed rows, except the launch note a run writes (`not_launched`),
which a run writes after sealing its `runs` row (so its campaign is named too). A ledger that
changed without its chain growing (only an edit does that), or an entry whose campaign cannot
be told (a row since removed), computes every campaign again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from agentmetrology.store import verify_memo
from agentmetrology.store.blobs import BlobError
from agentmetrology.store.chain import head
from agentmetrology.store.status import CampaignStatus, Cell, CellScore, Counts, cell_counts
from agentmetrology.store.store import EvidenceStore

# status.py and every store module it imports (a test holds them to its imports), the ledger's
# layout (ledger.py, schema.py) and this memo's own code
_CODE = ("status.py", "status_scores.py", "blobs.py", "paths.py", "status_memo.py", "ledger.py",
         "schema.py", "verify_memo.py")
KIND = "status"
T = TypeVar("T")


@dataclass
class StatusView:
    """The status of some campaigns, their cells (when asked for) and why any are missing."""

    statuses: list[CampaignStatus]
    cells: dict[str, dict[Cell, dict[str, CellScore]]] = field(default_factory=dict)
    cell_errors: dict[str, str] = field(default_factory=dict)  # campaign -> why not shown
    reused: bool = False  # every part came from the memo


def ledger_key(root: Path) -> str:
    """Return the fingerprint of the ledger and the status code ("" when it cannot be had)."""
    code = verify_memo.code_digest(_CODE)
    if code is None:
        return ""
    return hashlib.sha256(code + verify_memo.ledger_lines(root).encode()).hexdigest()


def campaign_view(st: EvidenceStore, names: list[str], *, cells: bool) -> StatusView:
    """Return the status of campaigns `names` of the open store (and their cells if `cells`)."""
    folder = verify_memo.memo_dir()
    key = ledger_key(st.root) if folder is not None else ""
    path = verify_memo.memo_path(folder, st.root, KIND) if folder is not None and key else None
    doc = (verify_memo.read_doc(path, key) if path is not None else None) or {}
    at = head(st.ledger.conn)  # before the numbers are read: an append meanwhile is new
    if not doc and path is not None:  # the ledger changed: keep the campaigns it did not touch
        doc = _untouched(st, verify_memo.read_doc(path, None) or {}, at)
    kept_status: dict[str, Any] = _mapping(doc.get("statuses"))
    kept_cells: dict[str, Any] = _mapping(doc.get("cells"))
    view = StatusView([], reused=True)
    for name in names:
        memo = _decoded(_status_from, kept_status.get(name))
        if memo is not None:
            view.statuses.append(memo)
        else:
            s = st.status(name)
            view.statuses.append(s)
            kept_status[name] = _status_to(s)
            view.reused = False
        if not cells:
            continue
        memo_cells = _decoded(_cells_from, kept_cells.get(name))
        if memo_cells is not None:
            view.cells[name] = memo_cells
            continue
        view.reused = False
        try:
            view.cells[name] = cell_counts(st.ledger.conn, name)
        except BlobError as exc:  # a binding that no longer matches its digest: not kept
            view.cell_errors[name] = str(exc)
            continue
        kept_cells[name] = _cells_to(view.cells[name])
    if path is not None and not view.reused and ledger_key(st.root) == key:
        verify_memo.write_doc(path, {"format": verify_memo.FORMAT, "key": key,
                                     "store": str(st.root.resolve()), "chain": list(at),
                                     "code": _code_hex(), "statuses": kept_status,
                                     "cells": kept_cells},
                             sort_keys=False)  # the dicts' order is the output's
    return view


def _code_hex() -> str:
    code = verify_memo.code_digest(_CODE)
    return "" if code is None else code.hex()


def _untouched(st: EvidenceStore, doc: dict[str, Any], at: tuple[int, str]) -> dict[str, Any]:
    """Return an older memo with only the campaigns the chain's growth since did not touch."""
    try:
        length, h = int(doc["chain"][0]), str(doc["chain"][1])
    except (KeyError, TypeError, ValueError, IndexError):
        return {}
    if doc.get("code") != _code_hex() or not _code_hex() or at[0] <= length:
        return {}  # other code, or a ledger changed without growing: compute everything
    row = st.ledger.conn.execute("SELECT head FROM chain WHERE seq=?", (length,)).fetchone()
    if length and (row is None or row[0] != h):
        return {}
    touched = touched_campaigns(st.ledger.conn, length)
    if touched is None:
        return {}
    return {part: {n: v for n, v in _mapping(doc.get(part)).items() if n not in touched}
            for part in ("statuses", "cells")}


# (table, how its ref names a campaign) for every table status numbers read
_CAMPAIGN_OF = {
    "campaigns": "SELECT name, name FROM campaigns WHERE name IN ",
    "runs": "SELECT id, campaign FROM runs WHERE id IN ",
    "administrations": "SELECT id, campaign FROM administrations WHERE id IN ",
    "episodes": "SELECT id, campaign FROM administrations WHERE id IN ",
    "attempts": "SELECT t.id, a.campaign FROM attempts t JOIN administrations a "
                "ON a.id = t.administration WHERE t.id IN ",
    "assessments": "SELECT s.id, a.campaign FROM assessments s JOIN administrations a "
                   "ON a.id = s.administration WHERE s.id IN ",
    "superseded_episodes": "SELECT s.id, a.campaign FROM superseded_episodes s JOIN "
                           "administrations a ON a.id = s.administration WHERE s.id IN ",
    "superseded_assessments": "SELECT s.id, a.campaign FROM superseded_assessments s JOIN "
                              "administrations a ON a.id = s.administration WHERE s.id IN ",
    "billable_attempts": "SELECT b.id, a.campaign FROM billable_attempts b JOIN attempts t "
                         "ON t.id = b.attempt JOIN administrations a ON a.id = t.administration "
                         "WHERE b.id IN ",
}


def touched_campaigns(c: Any, since: int) -> set[str] | None:
    """Return the campaigns the chain entries after `since` name, None when one cannot be told
    (its row was removed since)."""
    refs: dict[str, set[str]] = {}
    for tbl, ref in c.execute("SELECT tbl, ref FROM chain WHERE seq > ?", (since,)):
        refs.setdefault(tbl, set()).add(ref)
    out: set[str] = set()
    for tbl, wanted in refs.items():
        sql = _CAMPAIGN_OF.get(tbl)
        if sql is None:
            continue  # graders, cases: not in any campaign's numbers
        found = {str(r): str(n) for r, n in c.execute(
            sql + "(SELECT value FROM json_each(?))", (json.dumps(sorted(wanted)),))}
        if len(found) != len(wanted):
            return None
        out.update(found.values())
    return out


def _mapping(kept: Any) -> dict[str, Any]:
    return dict(kept) if isinstance(kept, dict) else {}


def _decoded(decode: Callable[[Any], T], kept: Any) -> T | None:
    """Return the memo entry decoded, or None when absent or not of the shape this code writes
    (a memo file edited by hand is a miss, computed again, never a traceback)."""
    if kept is None:
        return None
    try:
        return decode(kept)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def _status_to(s: CampaignStatus) -> dict[str, Any]:
    # The raw fields (not to_json: that rounds and derives), so the memo gives back the object.
    return {"campaign": s.campaign, "registration_id": s.registration_id,
            "plan_digest": s.plan_digest, "total": asdict(s.total),
            "targets": {t: asdict(c) for t, c in s.targets.items()}, "scores": s.scores,
            "not_launched_reasons": s.not_launched_reasons}


def _status_from(d: dict[str, Any]) -> CampaignStatus:
    return CampaignStatus(d["campaign"], d["registration_id"], d["plan_digest"],
                          Counts(**d["total"]),
                          {t: Counts(**c) for t, c in d["targets"].items()},
                          d["scores"], d["not_launched_reasons"])


def _cells_to(cells: dict[Cell, dict[str, CellScore]]) -> list[Any]:
    return [[*cell, {sc: [c.n, c.excluded, c.total] for sc, c in per.items()}]
            for cell, per in cells.items()]


def _cells_from(rows: list[Any]) -> dict[Cell, dict[str, CellScore]]:
    return {(t, lv, cond): {sc: CellScore(n, ex, total) for sc, (n, ex, total) in per.items()}
            for t, lv, cond, per in rows}
