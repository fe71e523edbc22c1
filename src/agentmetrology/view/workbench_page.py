"""The workbench page: the store's cases with the step each may take next, and the failing
episodes a case can be proposed from. Every form posts to /workbench/ACTION with the csrf
field; the page runs no script."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentmetrology.envs.registry import get_env
from agentmetrology.records.errors import UserError
from agentmetrology.report.html import escape
from agentmetrology.store import EvidenceStore
from agentmetrology.store.cases import CaseRecord, list_cases
from agentmetrology.store.reader import StoreReader
from agentmetrology.store.reader_queries import KEY_FIELDS, EpisodeFilter
from agentmetrology.view.html import Html, form_value, url
from agentmetrology.view.store_pages import NAV
from agentmetrology.view.workbench_reports import ReportChecks

MAX_SOURCES = 50  # failing episodes listed to propose from (the episodes page has the rest)
CONTRACT = "contract"  # the scorer whose FAIL a case is proposed from


def _form(h: Html, action: str, csrf: str, fields: dict[str, Any], inputs: str,
          label: str) -> str:
    hidden = "".join(f'<input type="hidden" name="{escape(k)}" value="{form_value(v)}">'
                     for k, v in {"csrf": csrf, **fields}.items())
    return (f'<form method="post" action="/workbench/{action}" class="filters">{hidden}'
            f'{inputs}<button type="submit" name="do" value="{action}">{h.t(label)}</button>'
            "</form>")


def _text(h: Html, name: str, placeholder: str, value: str = "") -> str:
    return (f'<label>{h.t(name)} <input name="{h.t(name)}" placeholder="{h.t(placeholder)}" '
            f'value="{h.t(value)}" required></label>')


def _agents(h: Html, name: str, environment: str) -> str:
    try:
        agents = sorted(get_env(environment).agents)
    except UserError:
        agents = []
    options = "".join(f'<option value="{h.t(a)}">{h.t(a)}</option>' for a in agents)
    return f'<label>{h.t(name)} <select name="{h.t(name)}">{options}</select></label>'


def _next_step(h: Html, case: CaseRecord, csrf: str) -> str:
    """Return the forms of the steps the case may take next (none once withdrawn)."""
    f = {"case": case.id}
    if case.state == "proposed":
        return _form(h, "calibrate", csrf, f, _agents(h, "positive", case.environment),
                     "calibrate")
    if case.state == "calibrated":
        return _form(h, "admit", csrf, f, _text(h, "reviewer", "who approved it")
                     + _text(h, "revision", "approved revision id"), "admit")
    if case.state in ("admitted", "active"):
        return (_form(h, "use", csrf, f, _agents(h, "agent", case.environment), "use")
                + _form(h, "withdraw", csrf, f, _text(h, "reason", "why it is withdrawn"),
                        "withdraw"))
    return '<span class="note">no further step</span>'


def _cases(h: Html, cases: list[CaseRecord], csrf: str) -> str:
    if not cases:
        return '<p class="note">No case yet: propose one from a failing episode below.</p>'
    rows = [[f'<span id="case-{h.t(c.id)}">{h.t(c.id)}</span>',
             f'<span class="state-{h.t(c.state)}">{h.t(c.state)}</span>',
             h.t(f"{c.environment}/{c.task}/seed={c.seed}/{c.condition}/{c.level}"),
             h.t(len(c.uses)), _next_step(h, c, csrf)] for c in cases]
    return h.table(["case", "state", "environment / task / seed / condition / level", "uses",
                    "next step"], rows, "cases")


def _sources(h: Html, reader: StoreReader, cases: list[CaseRecord], csrf: str) -> str:
    rows, total = reader.episodes(EpisodeFilter(scorer=CONTRACT, verdict="FAIL"),
                                  MAX_SOURCES, 0)
    proposed = [c.source["store_key"] for c in cases]
    out = []
    for r in rows:
        key = {k: r[k] for k in KEY_FIELDS}
        link = h.link(url("/episode", **key), f"{r['target']} · {r['task']} · seed "
                                              f"{r['seed']} · {r['level']} · {r['condition']}")
        done = key in proposed
        action = ('<span class="note">a case exists</span>' if done else
                  _form(h, "propose", csrf, key, "", "propose a case"))
        out.append([link, action])
    if not out:
        return '<p class="note">No episode with a failing contract in this store.</p>'
    more = (f'<p class="note">{total - len(out)} more: see the episodes page.</p>'
            if total > len(out) else "")
    return h.table(["failing episode (contract FAIL)", ""], out, "sources") + more


def _recheck(h: Html, csrf: str, index: int) -> str:
    return _form(h, "qualify", csrf, {"report": index}, "", "re-check")


def workbench_page(h: Html, root: Path, csrf: str, reports: ReportChecks, message: str = "",
                   ok: bool = True) -> str:
    """Return the workbench page of the store at `root`, with the outcome of the last step."""
    with EvidenceStore.open_readonly(root, scrub_env=False) as store:
        cases = list_cases(store)
    reader = StoreReader(root)
    shown = "" if not message else (
        f'<p id="outcome" class="{"status-PASS" if ok else "status-INVALID"}">'
        f"{h.t(message)}</p>")
    body = (shown + "<p>Every step is the library call `agm cases` makes, recorded in the store "
            "with its receipt; a step out of order is refused and changes nothing.</p>"
            "<h2>Cases</h2>" + _cases(h, cases, csrf)
            + "<h2>Propose from a failing episode</h2>" + _sources(h, reader, cases, csrf)
            + "<h2>Reports</h2>" + reports.table(h, lambda i: _recheck(h, csrf, i)))
    return h.page("Workbench", body, NAV + '<a href="/workbench">workbench</a>')
