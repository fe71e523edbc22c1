"""The graders' pages (`/graders`): every judge run whose verdicts the store keeps, and one run's
verdicts beside what the judge wrote — a counted verdict can be checked against its answer.

`agm diagnose --judge-model` keeps each answer in the store it judged (store.grader_verdicts);
these pages read them back. Read-only, like every page of the viewer.
"""

from __future__ import annotations

from typing import Any

from agentmetrology.store.reader import StoreReader
from agentmetrology.view.html import Html, url
from agentmetrology.view.pair_page import key_params
from agentmetrology.view.store_pages import NAV, total_cost

SHORT = 240  # characters of an answer shown before it folds


def graders_page(h: Html, reader: StoreReader) -> str:
    """Return every grader run the store keeps verdicts of, with its counts and cost."""
    rows = []
    for r in reader.grader_runs():
        failed = f" ({r['failed_requests']} failed)" if r["failed_requests"] else ""
        rows.append([h.link(url("/graders", run=r["run"]), r["run"]), h.t(r["grader"]),
                     h.t(r["purpose"]), str(r["verdicts"]),
                     *(str(r[v] or 0) for v in ("PASS", "FAIL", "INSUFFICIENT", "none")),
                     h.t(f"{r['requests']}{failed}"),
                     total_cost(h, r["cost_known"], r["cost_unknown"])])
    body = ("<p>Each row is one run of a grader (an LLM judge of <code>agm diagnose "
            "--judge-model</code>) whose answers the store keeps. <em>none</em> counts answers "
            "no verdict could be read from and failed calls: never a pass or a fail.</p>"
            + (h.table(["run", "grader", "purpose", "verdicts", "PASS", "FAIL", "INSUFFICIENT",
                        "none", "requests", "cost"], rows, "graders") if rows else
               "<p>This store keeps no grader verdicts (no judge audit was run on it, or it "
               "was run before verdicts were kept).</p>"))
    return h.page("Graders", body, NAV)


def _answer(h: Html, text: Any) -> str:
    if text is None:
        return '<span class="null">no answer (the call failed)</span>'
    shown = str(text)
    if len(shown) <= SHORT:
        return h.t(shown)
    return f"<details><summary>{h.t(shown[:SHORT])}…</summary>{h.t(shown)}</details>"


def grader_run_page(h: Html, reader: StoreReader, run: str) -> str:
    """Return one grader run's verdicts, each with the episode it judged and its answer."""
    verdicts, keys = reader.grader_run(run)
    if not verdicts:
        raise LookupError(f"no grader run {run!r} in this store")
    rows = []
    for v in verdicts:
        key = keys.get(str(v["subject"]))
        episode = (h.link(url("/episode", **key_params(key)), v["subject"]) if key else
                   h.t(v["subject"]))
        verdict = (f'<span class="status-{h.t(v["verdict"])}">{h.t(v["verdict"])}</span>'
                   if v["verdict"] else '<span class="null">none</span>')
        rows.append([h.t(v["grader"]), episode, h.t(v["view"]), str(v["call"]), verdict,
                     h.t(v["reason"]), _answer(h, v["answer"])])
    body = (f'<p><a href="/graders">all grader runs</a> · run <code>{h.t(run)}</code>: '
            f"{len(verdicts)} answers, in the order they were given. The verdict is what the "
            "audit counted; the answer is what the judge wrote (redacted like every record)."
            "</p>" + h.table(["grader", "episode", "view", "call", "verdict", "why none",
                              "answer"], rows, "verdicts"))
    return h.page(f"Grader run {run}", body, NAV)

