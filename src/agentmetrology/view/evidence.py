"""The evidence banner of a viewed store: its check, run once when the viewer starts.

The check is the one `agm campaign status` and `agm export` run (archive.evidence_check,
`ledger` mode): answered from the memo while the store is unchanged, incremental from the head
this machine verified last when the chain only grew, the whole ledger check otherwise (chain,
head log, rows, lifecycle, bindings, plan, every episode blob read against its row and billing
rows). It does not hash every blob's bytes: the viewer never shows a blob it has not hashed
(store.blobs refuses a changed or linked blob on read, and the page says so), so a byte check
up front would add the cost of reading the whole store to the start and nothing to a page.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from agentmetrology.records.errors import UserError
from agentmetrology.store.ledger_open import leaving_no_trace
from agentmetrology.store.qualify import banner

NUMBERS = "The numbers on these pages are"


def store_banner(root: Path, notice: Callable[[int], None] | None = None) -> str | None:
    """Return the banner every page of the store at `root` shows, None when it qualifies
    (`notice(chain length)`: told before a whole check of the store runs)."""
    from agentmetrology.archive.evidence_check import qualify_store  # imports environments

    try:
        with leaving_no_trace():  # browsing never writes the store, its check included
            doc = qualify_store(root, "ledger", incremental=True, notice=notice)
    except UserError as exc:  # no readable chain: its numbers cannot be qualified either
        return (f"UNQUALIFIED EVIDENCE: the store could not be checked ({exc}). {NUMBERS} not "
                "qualified; run `agm evidence verify STORE` for why.")
    return banner(doc, numbers=NUMBERS)
