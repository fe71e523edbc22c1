"""The campaign page's overview and the front page's totals kept across viewer runs while the
ledger file is unchanged.

A campaign's overview (store.campaign_overview) walks the whole campaign, and the front page's
totals (`StoreReader.summaries`) every administration; a viewer restarted on an unchanged store
would walk them again on the first visit (about a second at a million episodes). Both are
kept in the same cache as the ledger check's and the status's memos (store.verify_memo: same
folder, same `AGM_VERIFY_CACHE` switch, never in the store) under a fingerprint of the ledger
file and its write-ahead log (any write moves their ctime) and of the code that computes them.
A miss computes the answer and keeps it when the ledger did not change meanwhile.
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
# Every module of this package the overview and the totals import, directly or not (a test
# holds the list to the imports): a change to any of them may change what they count.
_CODE = ("blob_reads.py", "blobs.py", "campaign_overview.py", "chain.py", "episode_head.py",
         "errors.py", "evidence.py", "forked.py", "head_log.py", "ledger.py",
         "ledger_reader.py", "ledger_records.py", "lock.py", "overview_memo.py", "paths.py",
         "qualify.py", "reader.py", "reader_choices.py", "reader_queries.py", "redact.py",
         "schema.py", "status.py", "status_scores.py", "store.py", "supersede.py",
         "transcripts.py", "verify.py",
         "verify_ahead.py", "verify_bindings.py", "verify_blobs.py", "verify_episodes.py",
         "verify_heads.py", "verify_json.py", "verify_lifecycle.py", "verify_memo.py",
         "verify_plan.py", "verify_schema.py", "verify_scope.py", "verify_split.py",
         "verify_texts.py", "verify_transcripts.py", "verify_values.py", "verify_cases.py",
         "case_steps.py", "grader_verdicts.py", "verify_billing.py",
         "ledger_open.py", "verify_attempts.py")


def _key(root: Path) -> str:
    code = verify_memo.code_digest(_CODE)
    if code is None:
        return ""
    return hashlib.sha256(code + verify_memo.ledger_lines(root).encode()).hexdigest()


def _write(path: Path, key: str, root: Path, doc: dict[str, Any], **part: Any) -> None:
    """Write the memo with `part` replacing its field, keeping the other (overviews, totals)."""
    kept: dict[str, Any] = {k: doc[k] for k in ("campaigns", "summaries") if k in doc}
    verify_memo.write_doc(path, {"format": verify_memo.FORMAT, "key": key,
                                 "store": str(root.resolve()), **kept, **part},
                          sort_keys=False)  # the grid's and the front page's order are kept


def _opened(root: Path) -> tuple[Path, str, dict[str, Any]] | None:
    """Return the memo's path, its key and what it keeps under that key ({} when nothing),
    or None when the memo is off (or the code cannot be fingerprinted)."""
    folder = verify_memo.memo_dir()
    key = _key(root) if folder is not None else ""
    if folder is None or not key:
        return None
    path = verify_memo.memo_path(folder, root, KIND)
    return path, key, verify_memo.read_doc(path, key) or {}


def kept_summaries(root: Path,
                   compute: Callable[[], list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Return the front page's per-campaign totals kept while the ledger is unchanged, else
    compute()'s (kept for next time)."""
    opened = _opened(root)
    if opened is None:
        return compute()
    path, key, doc = opened
    hit = doc.get("summaries")
    if isinstance(hit, list) and all(isinstance(r, dict) for r in hit):
        return hit
    rows = compute()
    if _key(root) == key:  # nothing was written meanwhile
        _write(path, key, root, doc, summaries=rows)
    return rows


def kept_overview(root: Path, campaign: str,
                  compute: Callable[[], CampaignOverview | None]) -> CampaignOverview | None:
    """Return the kept overview of `campaign` when the ledger is unchanged, else compute()'s
    (kept for next time)."""
    opened = _opened(root)
    if opened is None:
        return compute()
    path, key, doc = opened
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
        _write(path, key, root, doc, campaigns=kept)
    return overview
