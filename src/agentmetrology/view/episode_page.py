"""The episode page: key and bindings, attempts and billing, the event timeline, the
submission, the termination and every assessment with its reasons."""

from __future__ import annotations

import json
from typing import Any

from agentmetrology.records.episode import EpisodeKey
from agentmetrology.store.errors import StoreError
from agentmetrology.store.reader import StoreReader
from agentmetrology.store.reader_queries import KEY_FIELDS
from agentmetrology.store.schema import served_episode
from agentmetrology.view.html import Html, cost_text, num, score_text, url
from agentmetrology.view.pair_page import key_params, original_key
from agentmetrology.view.reader import is_measurement_failure, pretty_json
from agentmetrology.view.store_pages import NAV
from agentmetrology.view.transcript_view import conversation_section

PREVIEW = 600  # characters of a long argument or observation shown before "show all"
ACTORS = ("agent", "harness", "environment", "grader", "user", "adversary")


def _block(h: Html, value: Any) -> str:
    """Return a value as preformatted JSON, folded behind <details> when long."""
    if value is None or value == {}:
        return ""
    text = value if isinstance(value, str) else pretty_json(value)
    if len(text) <= PREVIEW:
        return f"<pre>{h.t(text)}</pre>"
    return (f"<details><summary><pre>{h.t(text[:PREVIEW])}…</pre> show all "
            f"({len(text)} characters)</summary><pre>{h.t(text)}</pre></details>")


def timeline(h: Html, events: list[dict[str, Any]], actor: str | None) -> str:
    """Return the event timeline; repeated tool calls (same name and arguments) are retries."""
    seen: dict[str, int] = {}
    rows = []
    shown = 0
    for e in events:
        name, kind, who = str(e.get("name", "")), str(e.get("kind", "")), str(e.get("actor"))
        note = ""
        if kind == "tool_call":
            sig = name + "\x00" + json.dumps(e.get("args"), sort_keys=True, default=str)
            if sig in seen:
                note = f'<span class="retry">retry of #{seen[sig]}</span>'
            else:
                seen[sig] = int(e.get("seq", 0))
        if kind == "decision":
            note = '<span class="retry">decision</span>'
        if "submit" in name.lower():
            note = (note + " " if note else "") + "<strong>submission</strong>"
        if actor is not None and who != actor:
            continue
        shown += 1
        seq = h.t(e.get("seq"))
        rows.append(
            f'<tr id="event-{seq}" class="ev-{h.t(who)}"><td><a href="#event-{seq}">{seq}</a>'
            f"</td><td>{h.t(num(e.get('t')))}</td>"
            f'<td><span class="actor actor-{h.t(who)}">{h.t(who)}</span></td>'
            f"<td>{h.t(kind)}</td><td>{h.t(name)} {note}</td>"
            f"<td>{_block(h, e.get('args'))}</td><td>{_block(h, e.get('result'))}</td></tr>")
    head = ("<tr><th>#</th><th>t (s)</th><th>actor</th><th>kind</th><th>name</th>"
            "<th>arguments</th><th>observation / result</th></tr>")
    return (f'<p class="note">{shown} of {len(events)} events shown.</p>'
            f'<table id="timeline"><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table>')


def _actor_links(h: Html, key: EpisodeKey, events: list[dict[str, Any]],
                 current: str | None) -> str:
    counts: dict[str, int] = {}
    for e in events:
        counts[str(e.get("actor"))] = counts.get(str(e.get("actor")), 0) + 1
    base = {k: getattr(key, k) for k in KEY_FIELDS}
    links = [h.link(url("/episode", **base) + "#timeline", f"all ({len(events)})")]
    for a in [*ACTORS, *sorted(set(counts) - set(ACTORS))]:
        if a in counts:
            text = f"{a} ({counts[a]})" + (" ✓" if a == current else "")
            links.append(h.link(url("/episode", **base, actor=a) + "#timeline", text))
    return "<p>Actors: " + " · ".join(links) + "</p>"


def _assessments(h: Html, rows: list[dict[str, Any]], failure: bool) -> str:
    out = []
    for a in rows:
        rec = a.get("record") or {}
        reasons = rec.get("reasons") or []
        out.append([h.t(a["scorer"]), h.t(a["scorer_version"]),
                    score_text(h, a["status"], a["score"], failure),
                    "<br>".join(h.t(r) for r in reasons) or '<span class="note">none</span>',
                    _block(h, rec.get("components")),
                    f"<code>{h.t(str(a['evidence_digest'])[:12])}</code>"])
    if not out:
        return "<p>No assessments recorded.</p>"
    return h.table(["scorer", "version", "score", "reasons", "components", "evidence"], out,
                   "assessments")


SERVED = "served to an outside client, whose model requests this store never sees"


def _attempts(h: Html, attempts: list[dict[str, Any]], served: bool) -> str:
    rows = []
    bill = []
    for i, t in enumerate(attempts):
        rows.append([h.t(t["id"]), h.t(t["status"]) + (" (retry)" if i else ""),
                     h.t(t["backend"]), h.t(t.get("worker")), h.t(t["started_at"]),
                     h.t(t.get("ended_at")), h.t(t.get("detail"))])
        for b in t["billable"]:
            bill.append([h.t(t["id"]), h.t(b["billing_id"]), h.t(b["provider"]),
                         h.t(b["model"]), h.t(b.get("request_id")), h.t(num(b["input_tokens"])),
                         h.t(num(b["output_tokens"])), h.t(num(b["cached_tokens"])),
                         cost_text(b["cost"]), h.t(f"{b['latency_s']:.3f}"), h.t(b["outcome"])])
    out = h.table(["attempt", "status", "backend", "worker", "started", "ended", "detail"],
                  rows, "attempts") if rows else "<p>Never attempted.</p>"
    out += "<h3>Billable provider requests (ledger)</h3>"
    out += h.table(["attempt", "billing id", "provider", "model", "request id", "input",
                    "output", "cached", "cost", "latency s", "outcome"], bill, "billable") \
        if bill else ("<p>None recorded in the ledger (the episode was "
                      f"{SERVED}).</p>" if served else
                      "<p>None recorded in the ledger (a model-free agent makes none).</p>")
    return out


def _tokens(h: Html, ep: dict[str, Any], attempts: list[dict[str, Any]]) -> str:
    """Return the episode's token counts in words: the ledger row sums the known counts, so
    when a request of its attempt has none they are a lower bound, said so (never a plain 0);
    an episode served to an outside client has none known at all."""
    if served_episode(ep["cost"], ep["model_attempts"]):
        return f"token counts unknown ({SERVED})"
    unknown = sum(1 for t in attempts if t["id"] == ep["attempt"] for b in t["billable"]
                  if b["input_tokens"] is None or b["output_tokens"] is None)
    counts = f"{h.t(ep['input_tokens'])} input and {h.t(ep['output_tokens'])} output tokens"
    if not unknown:
        return counts
    return (f"at least {counts} ({unknown} request{'s' if unknown > 1 else ''} with unknown "
            "token counts)")


def _usage(h: Html, usage: dict[str, Any]) -> str:
    rows = []
    for a in usage.get("attempts") or []:
        rows.append([h.t(a.get("attempt_id")), h.t(a.get("provider")), h.t(a.get("model")),
                     h.t(a.get("request_id")), h.t(num(a.get("input_tokens"))),
                     h.t(num(a.get("output_tokens"))), h.t(num(a.get("cached_tokens"))),
                     cost_text(a.get("cost")), h.t(a.get("outcome"))])
    head = (f"<p>{h.t(usage.get('tool_calls', 0))} tool calls, "
            f"{h.t(usage.get('requests', 0))} requests, {len(rows)} billable model "
            "attempts (retries included).</p>")
    if not rows:
        return head
    return head + h.table(["attempt", "provider", "model", "request id", "input", "output",
                           "cached", "cost", "outcome"], rows, "usage")


def episode_page(h: Html, reader: StoreReader, key: EpisodeKey,
                 data: dict[str, Any], actor: str | None, find: str | None = None) -> str:
    """Return the page of one administration and its recorded episode (if any)."""
    adm, ep = data["administration"], data["episode"]
    title = f"{key.target} · {key.task} · seed {key.seed} · {key.level} · {key.condition}"
    facts = [["campaign", h.link(url("/campaign", name=key.campaign), key.campaign)]]
    facts += [[k, h.t(getattr(key, k))] for k in KEY_FIELDS[1:]]
    facts += [["administration", h.t(adm["id"])], ["sealed at", h.t(adm["sealed_at"])],
              ["binding digest", f"<code>{h.t(adm['binding_digest'])}</code>"],
              ["bindings", _block(h, _json_or_text(adm["binding"]))]]
    if adm.get("not_launched"):
        facts.append(["not launched", h.t(adm["not_launched"])])
    if original_key(key) is not None:  # a mutated episode: beside its original
        facts.append(["paired view", h.link(url("/pair", **key_params(key)),
                                            "original and mutated side by side")])
    if ep is not None:  # old vs new verdict on the same transcript, as archive regrade
        facts.append(["re-grade", h.link(url("/regrade", **key_params(key)),
                                         "stored vs current scorers' verdicts")])
    parts = [*conversation_section(h, reader, data, key, find),
             h.table(["field", "value"], facts, "key")]
    if ep is None:
        parts.append("<h2>Termination</h2><p id=\"termination\">No episode recorded "
                     "(pending): no score, and nothing is counted as 0.</p>")
    else:
        failure = is_measurement_failure(ep["termination"])
        parts.append(
            f"<h2>Termination</h2><p id=\"termination\"><strong>{h.t(ep['termination'])}"
            f"</strong>{': ' + h.t(ep['termination_detail']) if ep['termination_detail'] else ''}"
            + (" — a measurement failure: it says nothing about the agent and its scores are "
               "excluded" if failure else "") + "</p>"
            f"<p>Cost {cost_text(ep['cost'])}; {_tokens(h, ep, data['attempts'])}; "
            f"{h.t(ep['tool_calls'])} tool calls; "
            f"{h.t(ep['model_attempts'])} billable model attempts; recorded "
            f"{h.t(ep['recorded_at'])}.</p>")
    parts.append("<h2>Assessments</h2>" + _assessments(
        h, data["assessments"], ep is not None and is_measurement_failure(ep["termination"])))
    served = ep is not None and served_episode(ep["cost"], ep["model_attempts"])
    parts.append("<h2>Attempts</h2>" + _attempts(h, data["attempts"], served))
    if ep is not None:
        try:
            doc = reader.blob_json(ep["episode_digest"])
        except StoreError as exc:
            parts.append(f"<h2>Events</h2><p class=\"status-INVALID\">{h.t(exc)}</p>")
        else:
            events = list(doc.get("events") or [])
            parts.append("<h2>Usage</h2>" + _usage(h, doc.get("usage") or {}))
            parts.append(f"<h2>Events</h2>{_actor_links(h, key, events, actor)}"
                         + timeline(h, events, actor))
            parts.append("<h2>Submission</h2>" + _submission(h, doc.get("submission")))
            if doc.get("meta"):
                parts.append("<h2>Episode metadata</h2>" + _block(h, doc["meta"]))
    for s in data["superseded"]:
        parts.append(
            f"<h2>Superseded episode (attempt {h.t(s['attempt'])})</h2><p>"
            f"{h.t(s['termination'])}: {h.t(s['termination_detail'])}; re-opened "
            f"{h.t(s['superseded_at'])}; cost {cost_text(s['cost'])}.</p>"
            + _assessments(h, s["assessments"], is_measurement_failure(s["termination"])))
    return h.page(title, "\n".join(parts), NAV + h.link(
        url("/episodes", campaign=key.campaign, target=key.target, task=key.task),
        "this target and task"))


def _json_or_text(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def _submission(h: Html, sub: Any) -> str:
    if sub is None:
        return '<p id="submission">No submission.</p>'
    if not isinstance(sub, dict):
        return f'<div id="submission">{_block(h, sub)}</div>'
    rows = [[h.t(k), _block(h, v)] for k, v in sorted(sub.items())]
    return f'<div id="submission">{h.table(["field", "value"], rows)}</div>'


