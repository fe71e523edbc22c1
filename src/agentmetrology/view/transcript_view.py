"""The conversation of an LLM episode, shown above its evidence tables.

Read through the store reader from the transcript the episode binds: every message in order
with its role, each model request with its billable attempts inline (retries included) and the
response as returned (text, reasoning, tool calls, finish reason, usage, request id), each tool
call paired with its result, the harness's and environment's events interleaved where they
happened between the agent's calls, and the scores with their reasons. Long texts fold behind
<details> (the viewer runs no script). Every value is escaped.
"""

from __future__ import annotations

import json
from typing import Any

from agentmetrology.records.episode import EpisodeKey
from agentmetrology.store.errors import StoreError
from agentmetrology.store.reader import StoreReader
from agentmetrology.view.html import Html, cost_text, num, score_text
from agentmetrology.view.reader import is_measurement_failure, pretty_json
from agentmetrology.view.transcript_search import marked, search_form

FOLD = 800  # characters of a tool result or response shown before it folds
FOLD_PROMPT = 4000  # a system prompt or task statement stays open unless it is long
STYLE = """<style>
.turn{border-left:3px solid #ccc;margin:.4rem 0;padding:.2rem .6rem}
.turn-system{border-color:#888}.turn-user{border-color:#2a6}.turn-assistant{border-color:#26a}
.turn-tool{border-color:#a62}.turn-event{border-color:#a2a;font-size:.9em}
.request{background:#f4f6fa;padding:.2rem .6rem;margin-top:.8rem;font-size:.9em}
.role{font-weight:bold;margin-right:.5rem}
</style>"""


def _text(h: Html, value: Any, fold: int = FOLD) -> str:
    """Return a text or JSON value preformatted, folded behind <details> when long."""
    if value is None:
        return '<span class="note">(none)</span>'
    text = value if isinstance(value, str) else pretty_json(value)
    shown = f"<pre>{h.t(text)}</pre>"
    folded = len(text) > fold  # the first line stays readable in the summary
    return (f"<details><summary>{len(text)} characters: <code>{h.t(text[:120])}…</code>"
            f"</summary>{shown}</details>") if folded else shown


def _arguments(raw: Any) -> tuple[Any, bool]:
    """Return a call's arguments for display (parsed when JSON) and whether they are usable."""
    if not isinstance(raw, str) or not raw.strip():
        return raw or {}, True
    try:
        value = json.loads(raw)
    except ValueError:
        return raw, False
    return value, isinstance(value, dict)


def _tool_content(content: Any) -> Any:
    """Return a tool message's content, parsed when it is JSON text."""
    if isinstance(content, str):
        try:
            return json.loads(content)
        except ValueError:
            return content
    return content


class _Events:
    """The episode's events in order, handed out between the agent's calls."""

    def __init__(self, events: list[dict[str, Any]]) -> None:
        self.events = events
        self.at = 0

    def until_call(self, name: str) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
        """Return the events before the agent's next call of `name`, and that call's event;
        ([], None) when the agent makes no further call of `name` (nothing is consumed)."""
        for i in range(self.at, len(self.events)):
            e = self.events[i]
            if e.get("actor") == "agent" and e.get("kind") == "tool_call" \
                    and e.get("name") == name:
                before = [x for x in self.events[self.at:i] if x.get("actor") != "agent"]
                self.at = i + 1
                return before, e
        return [], None

    def rest(self) -> list[dict[str, Any]]:
        """Return the events not handed out yet (what happened after the last request)."""
        rest, self.at = self.events[self.at:], len(self.events)
        return rest


def _event(h: Html, e: dict[str, Any]) -> str:
    who = str(e.get("actor"))
    result = e.get("result")
    return (f'<div class="turn turn-event"><span class="role">{h.t(who)} event '
            f'#{h.t(e.get("seq"))}</span>{h.t(e.get("kind"))} <code>{h.t(e.get("name"))}</code>'
            f" at t={h.t(num(e.get('t')))} s{_text(h, e.get('args')) if e.get('args') else ''}"
            f"{'' if result is None else _text(h, result)}</div>")


def message_turn(h: Html, m: dict[str, Any]) -> str:
    """Return one message as a turn: its role, its text (folded when long), its calls."""
    role = str(m.get("role"))
    extra = ""
    if role == "tool":
        extra = f" for call <code>{h.t(m.get('tool_call_id'))}</code>"
        body = _text(h, _tool_content(m.get("content")))
    else:
        body = _text(h, m.get("content"), FOLD_PROMPT if role in ("system", "user") else FOLD)
    for call in m.get("tool_calls") or []:
        fn = call.get("function") or {}
        body += f"<p>calls <code>{h.t(fn.get('name'))}</code> {_text(h, fn.get('arguments'))}</p>"
    return (f'<div class="turn turn-{h.t(role)}"><span class="role">{h.t(role)}</span>{extra}'
            f"{body}</div>")


def _attempts(h: Html, ids: list[Any], attempts: dict[str, dict[str, Any]]) -> str:
    rows = []
    for i, aid in enumerate(ids):
        a = attempts.get(str(aid), {})
        rows.append([h.t(aid) + (" (retry)" if i else ""), h.t(a.get("outcome")),
                     h.t(a.get("request_id")), h.t(num(a.get("input_tokens"))),
                     h.t(num(a.get("output_tokens"))), h.t(num(a.get("cached_tokens"))),
                     cost_text(a.get("cost")), h.t(num(a.get("latency_s")))])
    return h.table(["attempt", "outcome", "request id", "input", "output", "cached", "cost",
                    "latency s"], rows) if rows else ""


def _calls(h: Html, response: dict[str, Any], results: dict[str, Any],
           events: _Events) -> str:
    """Return the response's tool calls, each with the events before it and its result."""
    out: list[str] = []
    for call in response.get("tool_calls") or []:
        fn = call.get("function") or {}
        name, call_id = fn.get("name"), call.get("id")
        args, usable = _arguments(fn.get("arguments"))
        before, event = events.until_call(str(name)) if usable else ([], None)
        out.extend(_event(h, e) for e in before)
        if call_id in results:
            result, source = results[call_id], "sent back to the model"
        elif event is not None:
            result, source = event.get("result"), "from the episode's events"
        else:
            result, source = None, "no result recorded"
        out.append(f'<div class="turn turn-tool"><span class="role">tool call</span><code>'
                   f"{h.t(name)}</code> (id <code>{h.t(call_id)}</code>)"
                   f"{'' if usable else ' <strong>malformed arguments: not executed</strong>'}"
                   f"{_text(h, args)}<p>result ({h.t(source)}):</p>{_text(h, result)}</div>")
    return "".join(out)


def _response(h: Html, response: dict[str, Any], results: dict[str, Any],
              events: _Events) -> str:
    usage = response.get("usage") or {}
    reasoning = response.get("reasoning_content", response.get("reasoning"))
    out = ['<div class="turn turn-assistant"><span class="role">assistant</span>'
           f"finish reason <code>{h.t(response.get('finish_reason'))}</code>, request id "
           f"<code>{h.t(response.get('request_id'))}</code>, reported usage "
           f"{h.t(', '.join(f'{k} {v}' for k, v in usage.items() if v is not None))}"]
    if reasoning is not None:
        out.append(f"<details><summary>reasoning</summary>{_text(h, reasoning)}</details>")
    if response.get("content") is not None:
        out.append(_text(h, response.get("content")))
    out.append("</div>")
    out.append(_calls(h, response, results, events))
    return "".join(out)


def _results_sent(messages: list[dict[str, Any]], request: list[int],
                  start: int) -> dict[str, Any]:
    """Return {call id: result} of the tool messages a request adds after position `start`."""
    out: dict[str, Any] = {}
    for index in request[start:]:
        m = messages[index] if 0 <= index < len(messages) else {}
        if m.get("role") == "tool":
            out.setdefault(str(m.get("tool_call_id")), _tool_content(m.get("content")))
    return out


def conversation(h: Html, transcript: dict[str, Any], episode: dict[str, Any],
                 find: str | None = None) -> str:
    """Return the conversation, the turns containing `find` (when given) marked."""
    blocks = _blocks(h, transcript, episode)
    return marked(h, blocks, find) if find else "".join(blocks)


def _blocks(h: Html, transcript: dict[str, Any], episode: dict[str, Any]) -> list[str]:
    """Return the conversation's turns: new messages of each request, its attempts and
    response (with its tool calls), then the events after the last request."""
    messages = list(transcript.get("messages") or [])
    exchanges = list(transcript.get("exchanges") or [])
    attempts = {str(a.get("attempt_id")): a
                for a in (episode.get("usage") or {}).get("attempts") or []}
    events = _Events(list(episode.get("events") or []))
    out: list[str] = []
    shown = 0
    for i, x in enumerate(exchanges):
        request = list(x.get("messages") or [])
        response = x.get("response")
        for index in request[shown:]:
            m = messages[index] if 0 <= index < len(messages) else {}
            if m.get("role") != "tool":  # results are shown with their calls
                out.append(message_turn(h, m))
        out.append(f'<div class="request" id="request-{h.t(x.get("request"))}">Request '
                   f"{h.t(x.get('request'))} ({len(request)} messages"
                   f"{', tools offered' if x.get('with_tools') else ', no tools'}), t="
                   f"{h.t(num(x.get('started_t')))}–{h.t(num(x.get('ended_t')))} s"
                   f"{_attempts(h, list(x.get('attempts') or []), attempts)}</div>")
        nxt = exchanges[i + 1].get("messages") or [] if i + 1 < len(exchanges) else []
        if response is None:
            out.append('<p class="status-INVALID">No attempt succeeded: no response.</p>')
        else:
            out.append(_response(h, response, _results_sent(messages, nxt, len(request) + 1),
                                 events))
        shown = len(request) + (1 if response is not None else 0)
    out.extend(_event(h, e) for e in events.rest() if e.get("actor") != "agent"
               or e.get("kind") != "tool_call")
    return out


def _scores(h: Html, assessments: list[dict[str, Any]], failure: bool) -> str:
    rows = [[h.t(a["scorer"]), score_text(h, a["status"], a["score"], failure),
             "<br>".join(h.t(r) for r in (a.get("record") or {}).get("reasons") or [])
             or '<span class="note">none</span>'] for a in assessments]
    return h.table(["scorer", "score", "reasons"], rows, "conversation-scores") if rows else ""


def conversation_section(h: Html, reader: StoreReader, data: dict[str, Any],
                         key: EpisodeKey, find: str | None = None) -> list[str]:
    """Return the episode page's conversation section with its search box ([] for an
    episode without one)."""
    ep = data.get("episode")
    if ep is None:
        return []
    try:
        doc = reader.blob_json(ep["episode_digest"])
    except StoreError:
        return []  # the evidence sections below name the problem
    digest = (doc.get("digests") or {}).get("transcript") if isinstance(doc, dict) else None
    if not isinstance(digest, str):
        return []
    head = '<h2 id="conversation">Conversation</h2>' + STYLE
    try:
        transcript = reader.transcript(digest)
    except StoreError as exc:
        return [f'{head}<p class="status-INVALID">{h.t(exc)}</p>']
    ended = ((data.get("episode") or {}).get("termination"))
    return [head + _scores(h, data.get("assessments") or [], is_measurement_failure(ended))
            + search_form(h, key, find)
            + f'<div id="transcript">{conversation(h, transcript, doc, find)}</div>'
            + "<h2>Evidence</h2>"]
