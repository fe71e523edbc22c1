"""Viewer pages of an Inspect AI `.eval` log: its samples with their scores, one sample's
conversation.

The log is read through the archive's Inspect importer (scores, errors and epochs as
`agm archive audit` reads them); a sample's page reads that sample's member of the zip (bounded
as the importer bounds it) and shows its messages as the episode page shows an LLM episode's
conversation: roles in order, the assistant's text, reasoning and tool calls, each tool's answer
(or error) after the call, long texts folded. Every text is redacted and escaped by `Html`; an
unscored or errored sample shows a null score, never 0.
"""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path
from typing import Any

from starlette.routing import Route

from agentmetrology.archive.model import ArchiveEpisode, ArchiveFormatError
from agentmetrology.inspect_ext.logs.importer import MemberReader, load_inspect, resolved
from agentmetrology.inspect_ext.logs.zip_members import member_names
from agentmetrology.view.html import Html, url
from agentmetrology.view.source import ViewSourceError
from agentmetrology.view.tau2_pages import reward_text
from agentmetrology.view.taubench_pages import Guard, list_and_item_routes
from agentmetrology.view.transcript_view import STYLE, message_turn

NAV = '<a href="/">samples</a>'
_MEMBER = re.compile(r"^samples/(.+)_epoch_(\d+)\.json$")


class InspectFile:
    """An Inspect log held for the viewer: its episodes and which member holds each sample."""

    def __init__(self, path: Path) -> None:
        try:
            self.archive = load_inspect(path)
            with zipfile.ZipFile(path) as zf:
                names = member_names(zf, path)
        except (ArchiveFormatError, zipfile.BadZipFile, OSError) as exc:
            raise ViewSourceError(str(exc)) from exc
        self.path = path
        self.members = {(m[1], int(m[2])): n for n in names if (m := _MEMBER.match(n))}

    def messages(self, ep: ArchiveEpisode) -> list[dict[str, Any]] | None:
        """Return a sample's messages in the shape the conversation shows (None: no member)."""
        name = self.members.get((ep.task, ep.trial))
        if name is None:
            return None
        with zipfile.ZipFile(self.path) as zf:
            rec = MemberReader(self.path, zf).json(name)
        if not isinstance(rec, dict) or not isinstance(rec.get("messages"), list):
            raise ArchiveFormatError(f"{name}: the sample has no list of messages")
        att = rec.get("attachments")
        att = att if isinstance(att, dict) else {}
        return [chat_message(resolved(m, att)) for m in rec["messages"]]


def _content(content: Any) -> str | None:
    """Return a message's content as text: text parts joined, reasoning and others named."""
    if content is None or isinstance(content, str):
        return content
    parts = []
    for p in content if isinstance(content, list) else [content]:
        kind = p.get("type") if isinstance(p, dict) else None
        if kind == "text":
            parts.append(str(p.get("text")))
        elif kind == "reasoning":
            parts.append(f"(reasoning) {p.get('reasoning')}")
        else:
            parts.append(f"[{kind or type(p).__name__} content]")
    return "\n".join(parts)


def chat_message(m: Any) -> dict[str, Any]:
    """Return an Inspect chat message as a chat-completions one (what `message_turn` shows)."""
    if not isinstance(m, dict):
        return {"role": "unknown", "content": repr(m)}
    out: dict[str, Any] = {"role": m.get("role"), "content": _content(m.get("content"))}
    if m.get("role") == "tool":
        out["tool_call_id"] = m.get("tool_call_id")
        if m.get("error"):
            out["content"] = {"result": out["content"], "error": m.get("error")}
    calls = m.get("tool_calls") if isinstance(m.get("tool_calls"), list) else []
    if calls:
        out["tool_calls"] = [{"id": c.get("id"), "function": {
            "name": c.get("function"), "arguments": json.dumps(c.get("arguments"))}}
            for c in calls if isinstance(c, dict)]
    return out


def list_page(h: Html, f: InspectFile) -> str:
    """Return the samples: id, epoch, score (null when unscored or errored), reason."""
    rows = [[h.link(url("/sample", id=e.episode_id), e.task), h.t(e.trial), h.t(reward_text(e)),
             h.t(e.reason_detail or "-")] for e in f.archive.episodes]
    notes = f.archive.notes
    body = (f"<p>Inspect log <code>{h.t(f.archive.source)}</code>: task "
            f"<code>{h.t(notes.get('inspect_task'))}</code>, status "
            f"{h.t(notes.get('log_status'))}, scorer {h.t(notes.get('headline_scorer'))}; "
            f"{len(f.archive.episodes)} samples × epochs.</p>"
            + h.table(["sample", "epoch", "score", "detail"], rows, "samples"))
    return h.page("Inspect samples", body, NAV)


def sample_page(h: Html, f: InspectFile, episode_id: str) -> str:
    """Return one sample: its score and why, then its conversation."""
    ep = next((e for e in f.archive.episodes if e.episode_id == episode_id), None)
    if ep is None:
        raise LookupError(f"no sample {episode_id!r} in this log")
    try:
        messages = f.messages(ep)
    except (ArchiveFormatError, ValueError, OSError, zipfile.BadZipFile) as exc:
        convo = f'<p class="status-INVALID">{h.t(exc)}</p>'
    else:
        convo = ("<p>No sample recorded (planned, never run).</p>" if messages is None else
                 f'{STYLE}<div id="transcript">'
                 + "".join(message_turn(h, m) for m in messages) + "</div>")
    body = (f"<p>Sample <code>{h.t(ep.task)}</code>, epoch {h.t(ep.trial)}. Score "
            f"<strong>{h.t(reward_text(ep))}</strong>"
            f"{': ' + h.t(ep.reason_detail) if ep.reason_detail else ''}.</p>"
            f'<h2 id="conversation">Conversation</h2>{convo}')
    return h.page(f"Sample {ep.task}/{ep.trial}", body, NAV)


def inspect_routes(h: Html, path: Path, guarded: Guard) -> list[Route]:
    """Return the routes of the Inspect log viewer (the log's index is read once, here)."""
    f = InspectFile(path)
    return list_and_item_routes(guarded, lambda: list_page(h, f), "/sample",
                                lambda i: sample_page(h, f, i))
