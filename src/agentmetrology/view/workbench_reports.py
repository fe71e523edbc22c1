"""The reports the workbench lists (`agm view STORE --workbench --report DIR`), each with its
qualification against the store now: qualified, unavailable or invalid binding, as `agm
evidence qualify` computes it (the same library call). A result is kept until the operator
re-checks it from the page, since qualifying re-verifies the whole store."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agentmetrology.archive.report_qualify import read_report
from agentmetrology.records.errors import UserError
from agentmetrology.report.report_texts import qualify_report_files
from agentmetrology.store.qualify import QUALIFIED
from agentmetrology.view.html import Html


class ReportChecks:
    """The listed report directories and the last qualification of each."""

    def __init__(self, store: Path, reports: Sequence[Path]) -> None:
        self.store, self.reports = store, tuple(reports)
        self.results: dict[int, dict[str, Any]] = {}

    def check(self, index: int) -> dict[str, Any]:
        """Qualify report `index` now and keep the result (UserError: no such report)."""
        if not 0 <= index < len(self.reports):
            raise UserError(f"no listed report {index}")
        try:
            path, doc = read_report(self.reports[index])
            out = qualify_report_files(path, doc, self.store)
        except UserError as exc:  # gone or unreadable since startup: not qualified
            out = {"result": "unavailable", "problems": [{"kind": "unreadable_report",
                                                          "detail": str(exc)}]}
        self.results[index] = out
        return out

    def outcome(self, index: int) -> str:
        """Re-check report `index`; return what the check found, in one line."""
        out = self.check(index)
        return f"{self.reports[index]}: {out['result']}"

    def table(self, h: Html, form: Any) -> str:
        """Return the reports table; `form(index)` renders the re-check form of a report."""
        if not self.reports:
            return ('<p class="note">No report listed: start the workbench with '
                    '<code>--report DIR</code> to check reports built from this store.</p>')
        rows = []
        for i, report in enumerate(self.reports):
            out = self.results.get(i) or self.check(i)
            status = "PASS" if out["result"] == QUALIFIED else "INVALID"
            problems = "; ".join(f"{p['kind']}: {p['detail']}" for p in out["problems"])
            # what was checked: the binding, not the numbers (no --recompute here)
            rederived = "" if out.get("numbers_rederived", True) else \
                f'<br><span class="note">{h.t(out["numbers"])}</span>'
            rows.append([h.t(report), f'<span class="status-{status}" id="report-{i}">'
                         f"{h.t(out['result'])}</span>{rederived}", h.t(problems or "none"),
                         form(i)])
        return h.table(["report", "qualification", "problems", ""], rows, "reports")
