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
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from agentmetrology.store import verify_memo
from agentmetrology.store.blobs import BlobError
from agentmetrology.store.status import CampaignStatus, Cell, CellScore, Counts, cell_counts
from agentmetrology.store.store import EvidenceStore

_CODE = ("status.py", "status_memo.py", "ledger.py", "schema.py", "verify_memo.py")
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
                                     "store": str(st.root.resolve()),
                                     "statuses": kept_status, "cells": kept_cells},
                             sort_keys=False)  # the dicts' order is the output's
    return view


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
