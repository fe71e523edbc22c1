"""A check of a store a campaign is writing reads one snapshot of the ledger: the chain it
walks, the rows it counts and the verified head it keeps agree, so a later incremental check
of the finished store qualifies it (it said row_count_mismatch, and only --full-check cleared
it, while `agm evidence verify` qualified the store)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentmetrology.archive.evidence_check import qualify_store
from agentmetrology.store.verify import _Verifier
from support.stores import record_into

CAMPAIGN = """
[campaign]
name = "{name}"
tasks = ["T3_duplicates"]
seeds = "0-1"
levels = ["L2"]

[[targets]]
name = "rule"
kind = "rule"
agent = "rule"
"""


def _record(root: Path, name: str) -> None:
    record_into(root, CAMPAIGN.format(name=name))


def test_a_check_while_a_writer_appends_keeps_a_head_later_checks_agree_with(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "store"
    _record(root, "first")
    real = _Verifier.heads
    wrote: list[int] = []

    def heads_then_a_write(self: Any, length: int) -> None:
        if not wrote:  # between the chain walk and the row counts: a campaign records one
            wrote.append(length)
            _record(root, "during")
        real(self, length)

    with monkeypatch.context() as m:
        m.setattr(_Verifier, "heads", heads_then_a_write)
        during = qualify_store(root, "ledger", incremental=True)
    assert wrote and during["qualified"], during["problems"]
    assert during["chain_length"] == wrote[0]  # the snapshot the walk began with
    _record(root, "after")
    after = qualify_store(root, "ledger", incremental=True)  # from the head kept during
    assert after["qualified"], after.get("problems")
    assert after["chain_length"] > wrote[0]
    assert qualify_store(root, "full")["qualified"]
