"""The campaign page's overview kept across viewer runs while the ledger file is unchanged.

A campaign's overview (store.campaign_overview) walks the whole campaign; a viewer restarted on
an unchanged store would walk it again on the first visit. It is kept in the same cache as the
ledger check's and the status's memos (store.verify_memo: same folder, same `AGM_VERIFY_CACHE`
switch, never in the store) under a fingerprint of the ledger file and its write-ahead log
(any write moves their ctime) and of the code that computes it. A miss computes the overview
and keeps it when the ledger did not change meanwhile.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from agentmetrology.store import verify_memo
from agentmetrology.store.campaign_overview import CampaignOverview

KIND = "view"
_CODE = ("campaign_overview.py", "reader_queries.py", "overview_memo.py", "schema.py")


def _key(root: Path) -> str:
    code = verify_memo.code_digest(_CODE)
    if code is None:
        return ""
    return hashlib.sha256(code + verify_memo.ledger_lines(root).encode()).hexdigest()


def kept_overview(root: Path, campaign: str,
                  compute: Callable[[], CampaignOverview | None]) -> CampaignOverview | None:
    """Return the kept overview of `campaign` when the ledger is unchanged, else compute()'s
    (kept for next time)."""
    folder = verify_memo.memo_dir()
    key = _key(root) if folder is not None else ""
    if folder is None or not key:
        return compute()
    path = verify_memo.memo_path(folder, root, KIND)
    doc = verify_memo.read_doc(path, key) or {}
    found = doc.get("campaigns")
    kept: dict[str, Any] = found if isinstance(found, dict) else {}
    hit = kept.get(campaign)
    if isinstance(hit, dict):
        try:
            return CampaignOverview(**hit)
        except TypeError:  # a document of another shape: computed again
            pass
    overview = compute()
    if overview is not None and _key(root) == key:  # nothing was written meanwhile
        kept[campaign] = asdict(overview)
        verify_memo.write_doc(path, {"format": verify_memo.FORMAT, "key": key,
                                     "store": str(root.resolve()), "campaigns": kept},
                              sort_keys=False)  # the grid's order is the page's
    return overview
