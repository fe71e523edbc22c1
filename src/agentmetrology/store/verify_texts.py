"""The verifier's checks of sealed texts: each binding and assessment hashes to its digest."""

from __future__ import annotations

import hashlib
import sqlite3
from abc import ABC, abstractmethod

from agentmetrology.store.qualify import INVALID
from agentmetrology.store.verify_values import not_text


class TextChecks(ABC):
    """The text checks of `store.verify._Verifier` (a base class of it)."""

    c: sqlite3.Connection

    @abstractmethod
    def only(self, table: str, column: str, join: str = "WHERE") -> tuple[str, tuple[str, ...]]:
        """Return the SQL condition keeping the rows an incremental check re-checks."""

    @abstractmethod
    def bad(self, kind: str, where: str, detail: str, result: str = INVALID) -> None:
        """Record a problem (the verifier's own)."""

    def texts(self) -> None:
        """Check every sealed text (bindings, assessments) against its digest, in table order."""
        self._sealed("administrations", "binding", "binding_text_changed", "administration {}",
                     "the sealed binding no longer hashes to binding_digest")
        for table in ("assessments", "superseded_assessments"):
            self._sealed(table, "assessment", "assessment_text_changed", f"{table} id={{}}",
                         "the assessment no longer hashes to assessment_digest")

    def _sealed(self, table: str, column: str, kind: str, where_at: str, detail: str) -> None:
        where, params = self.only(table, "id")
        for rid, text, d in self.c.execute(
                f"SELECT id, {column}, {column}_digest FROM {table}{where}", params):
            try:
                changed = hashlib.sha256(text.encode("utf-8")).hexdigest() != d
            except AttributeError:  # a raw BLOB a forger stored: no sealed text
                changed = True
            if changed:
                self.bad(kind, where_at.format(rid), detail + not_text(text))
