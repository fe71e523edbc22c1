"""Named read queries over an open store's ledger: what analyses outside the store ask of it.

They run on the open store's own connection, so they see the same snapshot as its other reads
(`EvidenceStore.episode`, `binding` ...). A ledger SQLite cannot read raises `StoreError`.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from agentmetrology.records.episode import EpisodeKey
from agentmetrology.store.errors import reading
from agentmetrology.store.ledger import KEY_COLUMNS, binding_environment
from agentmetrology.store.verify import open_ledger_readonly

_COLS = ", ".join(KEY_COLUMNS)
_ADM_COLS = ", ".join(f"a.{c}" for c in KEY_COLUMNS)


@dataclass(frozen=True, slots=True)
class RecordedBinding:
    """The key of an administration with a recorded episode, and its sealed binding text."""

    key: EpisodeKey
    binding: str | None

    @property
    def environment(self) -> str:
        """Return the environment the sealed binding names ("" for older stores: they name none)."""
        return binding_environment(self.binding)


class LedgerReader:
    """Read-only questions about one open ledger, each answered with plain records."""

    def __init__(self, conn: sqlite3.Connection, root: Path) -> None:
        self._conn = conn
        self.root = root

    def administration_keys(self, campaign: str) -> list[EpisodeKey]:
        """Return every administration key of a campaign, in plan order."""
        with reading(self.root):
            cur = self._conn.execute(
                f"SELECT {_COLS} FROM administrations WHERE campaign=? ORDER BY ordinal",
                (campaign,))
            return [EpisodeKey(*row) for row in cur]

    def recorded_bindings(self) -> list[RecordedBinding]:
        """Return the administrations with a recorded episode, in campaign and plan order."""
        with reading(self.root):
            rows = self._conn.execute(
                f"SELECT {_ADM_COLS}, a.binding FROM administrations a JOIN episodes e "
                "ON e.administration = a.id ORDER BY a.campaign, a.ordinal").fetchall()
        n = len(KEY_COLUMNS)
        return [RecordedBinding(EpisodeKey(*r[:n]), r[n]) for r in rows]

    def task_spec_digests(self) -> list[tuple[str, str, str]]:
        """Return the distinct (campaign, target, sealed task specification digest) triples."""
        with reading(self.root):
            return list(self._conn.execute(  # distinct in SQLite, not in the caller
                "SELECT DISTINCT campaign, target, task_spec_digest FROM administrations"))

    def assessment_versions(self) -> list[tuple[str, str, str, str]]:
        """Return the distinct (campaign, target, scorer, scorer version) the assessments carry."""
        with reading(self.root):
            return list(self._conn.execute(
                "SELECT DISTINCT a.campaign, a.target, s.scorer, s.scorer_version "
                "FROM assessments s JOIN administrations a ON a.id = s.administration"))


def chain_heads(root: Path) -> dict[str, int]:
    """Return {chain head: sequence number} of a store's ledger (NotAStoreError if no store)."""
    with closing(open_ledger_readonly(root)) as conn, reading(root):
        return {h: int(s) for s, h in conn.execute("SELECT seq, head FROM chain")}
