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
        where, params = self.only("administrations", "id")
        for adm, text, d in self.c.execute(
                "SELECT id, binding, binding_digest FROM administrations" + where, params):
            try:
                changed = hashlib.sha256(text.encode("utf-8")).hexdigest() != d
            except AttributeError:  # a raw BLOB a forger stored: no sealed text
                changed = True
            if changed:
                self.bad("binding_text_changed", f"administration {adm}",
                         "the sealed binding no longer hashes to binding_digest"
                         + not_text(text))
        for table in ("assessments", "superseded_assessments"):
            where, params = self.only(table, "id")
            for aid, text, d in self.c.execute(
                    f"SELECT id, assessment, assessment_digest FROM {table}{where}", params):
                try:
                    changed = hashlib.sha256(text.encode("utf-8")).hexdigest() != d
                except AttributeError:  # a raw BLOB a forger stored: no sealed text
                    changed = True
                if changed:
                    self.bad("assessment_text_changed", f"{table} id={aid}",
                             "the assessment no longer hashes to assessment_digest"
                             + not_text(text))
