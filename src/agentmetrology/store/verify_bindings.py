"""The verifier's checks of sealed bindings: each administration against its sealed binding and
its campaign, and each campaign's plan digest recomputed from its sealed bindings (see
store.verify). An incremental check reads the administrations appended since its verified head
and every administration of a campaign registered since (its plan is recomputed from all).
"""

from __future__ import annotations

import sqlite3
from abc import ABC, abstractmethod
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentmetrology.store.blobs import BlobError, read_blob_file
from agentmetrology.store.ledger import KEY_COLUMNS
from agentmetrology.store.paths import StorePathError, blob_path
from agentmetrology.store.qualify import INVALID
from agentmetrology.store.verify_episodes import short_text
from agentmetrology.store.verify_json import loads
from agentmetrology.store.verify_plan import (
    PlanDigests,
    PlanGrids,
    UnhashablePlan,
    details,
    plan_row,
)
from agentmetrology.store.verify_scope import Checkpoint, refs_param

# (environment, task, profile) -> the task specification digest now, or None if not installed
Reopen = Callable[[str, str, str], str | None]


class BindingChecks(ABC):
    """The binding checks of `store.verify._Verifier` (a base class of it)."""

    c: sqlite3.Connection
    root: Path
    checked: dict[str, int]
    reopen: Reopen | None
    since: Checkpoint | None
    touched: dict[str, dict[str, str | None]]

    @abstractmethod
    def bad(self, kind: str, where: str, detail: str, result: str = INVALID) -> None:
        """Record a problem (the verifier's own)."""

    @abstractmethod
    def only(self, table: str, column: str, join: str = "WHERE") -> tuple[str, tuple[str, ...]]:
        """Return the SQL condition keeping the rows an incremental check re-checks."""

    def bindings(self) -> None:
        regs = {n: (r, p, planned, cfg) for n, r, p, planned, cfg in self.c.execute(
            "SELECT name, registration_id, plan_digest, planned, config_digest FROM campaigns")}
        plans, grids = PlanDigests(regs), PlanGrids(regs)
        cols = ", ".join(KEY_COLUMNS)
        # incremental: the administrations appended, and every one of a campaign registered
        # since (its plan digest is recomputed from all of them)
        where, params = self.only("administrations", "id")
        if self.since is not None:
            where += " OR campaign IN (SELECT value FROM json_each(?))"
            params += (refs_param(self.touched.get("campaigns", {})),)
            regs_planned = {n: v for n, v in regs.items() if n in self.touched.get("campaigns", {})}
        else:
            regs_planned = regs
        n = 0
        tagged = False  # a binding text holding a tag-like key needs the full canonical walk
        for row in self.c.execute(
                f"SELECT id, {cols}, task_spec_digest, target_config_digest, scorer_versions, "
                f"registration_id, binding FROM administrations{where} "
                "ORDER BY campaign, ordinal", params):
            n += 1
            adm, key = row[0], dict(zip(KEY_COLUMNS, row[1:8], strict=True))
            spec, target, versions_text, reg, text = row[8:13]
            where = f"administration {adm}"
            if type(text) is not str:  # a raw BLOB (the row check names it)
                self.bad("binding_unreadable", where, f"the sealed binding is no text but a "
                         f"{type(text).__name__}")
                continue
            tagged = tagged or '"$' in text or "\\u00" in text  # "\u0024float" spells one too
            try:
                bound = loads(text)
                versions = loads(versions_text)
            except ValueError:
                self.bad("binding_unreadable", where, "the sealed binding is not JSON")
                continue
            except RecursionError:  # no writer nests so deep: Python cannot read it
                self.bad("binding_unreadable", where, "the sealed binding is nested too deep "
                         "to read")
                continue
            if not isinstance(bound, dict) or not isinstance(versions, dict):
                self.bad("binding_unreadable", where, "the sealed binding is not a JSON object")
                continue
            try:  # read, but too deep for what shows or hashes it (a forger's nesting)
                self._sealed_fields(where, bound, key, (spec, target, versions, reg))
                self.reopened(where, details(bound), key["task"], bound.get("task_spec_digest"))
            except RecursionError:
                self.bad("binding_unreadable", where, "the sealed binding is nested too deep "
                         "to check")
            campaign = regs.get(key["campaign"])
            if campaign is None:
                self.bad("registration_mismatch", where, f"campaign {key['campaign']!r} is "
                         "not registered")
                continue
            if reg != campaign[0]:
                self.bad("registration_mismatch", where, f"registration {reg[:12]} is not the "
                         f"campaign's ({campaign[0][:12]})")
            plans.add(key["campaign"], plan_row(bound))
            grids.add(key["campaign"], key)
        self.checked["administrations"] = n
        self._plans(regs_planned, plans, tagged)
        for name, (*_, config_digest) in regs_planned.items():
            for detail in grids.gaps(name, plans.counts[name], self._config(config_digest)):
                self.bad("scope_mismatch", f"campaign {name}", detail)

    def _config(self, d: Any) -> Any:
        """Return a campaign's stored configuration decoded, None when its blob cannot be read
        as JSON (the blob checks name a missing or changed blob)."""
        try:
            return loads(read_blob_file(blob_path(self.root, d), d))
        except (OSError, BlobError, StorePathError, ValueError, RecursionError):
            return None

    def _sealed_fields(self, where: str, bound: dict[str, Any], key: dict[str, Any],
                       ledger: tuple[Any, Any, Any, Any]) -> None:
        """Name every field whose sealed value differs from what the ledger says now."""
        spec, target, versions, reg = ledger
        checks = (("scope_mismatch", "key", bound.get("key"), key),
                  ("seed_mismatch", "seed", bound.get("seed"), key["seed"]),
                  ("specification_mismatch", "task_spec_digest",
                   bound.get("task_spec_digest"), spec),
                  ("target_mismatch", "target_config_digest",
                   bound.get("target_config_digest"), target),
                  ("instrument_mismatch", "scorer_versions", bound.get("scorer_versions"),
                   versions),
                  ("registration_mismatch", "registration_id", bound.get("registration_id"),
                   reg))
        for kind, name, sealed, now in checks:
            if sealed != now:
                self.bad(kind, where, f"sealed {name} {short_text(sealed)} but the ledger "
                         f"says {short_text(now)}")

    def _plans(self, regs: dict[str, tuple[Any, Any, Any, Any]], plans: PlanDigests,
               tagged: bool) -> None:
        """Check each campaign's sealed bindings against its planned count and plan digest."""
        for name, (_, plan_digest, planned, _) in regs.items():
            count = plans.counts[name]
            if count != planned:
                self.bad("scope_mismatch", f"campaign {name}", f"{count} administrations "
                         f"sealed, {planned} planned")
            try:
                again = plans.digest(name, tagged, self._plan_rows)
            except UnhashablePlan as exc:
                self.bad("plan_mismatch", f"campaign {name}", f"the sealed bindings give no plan "
                         f"digest ({exc}), the campaign was registered with {plan_digest[:12]}")
                continue
            if again != plan_digest:
                self.bad("plan_mismatch", f"campaign {name}", f"the sealed bindings give plan "
                         f"{again[:12]}, the campaign was registered with {plan_digest[:12]}")

    def _plan_rows(self, campaign: str) -> list[dict[str, Any]]:
        """Return a campaign's plan rows read again, as `bindings` reads them (the rare plan
        `PlanDigests` cannot hash as it goes)."""
        rows = []
        for text, versions_text in self.c.execute(
                "SELECT binding, scorer_versions FROM administrations WHERE campaign=? "
                "ORDER BY ordinal", (campaign,)):
            try:
                bound, versions = loads(text), loads(versions_text)
            except (ValueError, RecursionError, TypeError):  # named by `bindings` already
                continue
            if isinstance(bound, dict) and isinstance(versions, dict):
                rows.append(plan_row(bound))
        return rows

    def reopened(self, where: str, details: dict[str, Any], task: str, sealed: Any) -> None:
        if self.reopen is None:
            return
        # As sealed: "" for a binding that names no environment (or profile), as older stores'
        # do; the caller's `reopen` reads "" as its default, as for the profile.
        env = str(details.get("environment") or "")
        now = self.reopen(env, task, str(details.get("profile") or ""))
        self.checked["specifications_reopened"] = self.checked.get(
            "specifications_reopened", 0) + (now is not None)
        if now is not None and now != sealed:
            self.bad("specification_mismatch", where, f"task {task} of "
                     f"{env or 'the default environment'} now has "
                     f"specification {now[:12]}, sealed {short_text(sealed)}")
