"""Viewer pages of a tau2-bench results file: the simulation list with filters, one simulation.

The file is read once, through the archive's tau2 importer (outcomes, terminations, costs as
`agm archive audit` reads them); a simulation's page shows its conversation as recorded (user,
assistant, tool calls and their results), the reward breakdown and how it ended. Every text is
redacted and escaped by `Html`; an ungraded simulation shows a null reward, never 0.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.routing import Route

from agentmetrology.archive.importers.tau2 import load_tau2, read_tau2_json
from agentmetrology.archive.model import ArchiveEpisode, ArchiveFormatError
from agentmetrology.view.html import Html, money, num, url
from agentmetrology.view.source import ViewSourceError
from agentmetrology.view.transcript_view import STYLE, message_turn

NAV = '<a href="/">simulations</a>'
FILTERS = ("outcome", "termination", "task")
MAX_CONTENT = 20_000  # characters of one message shown; the rest is cut, and says so


class Tau2File:
    """A tau2 results file held for the viewer: its episodes and its raw simulations."""

    def __init__(self, path: Path) -> None:
        try:
            data = read_tau2_json(path)
            self.archive = load_tau2(path, data)
        except ArchiveFormatError as exc:
            raise ViewSourceError(str(exc)) from exc
        sims = data if isinstance(data, list) else data.get("simulations") or []
        # Each episode's own record, by its position in the file as imported (the first of a
        # repeated task and trial, as the importer keeps it): not by simulation id, which two
        # simulations may share (the page then showed one conversation for both).
        self.raw: dict[str, dict[str, Any]] = {
            ep.episode_id: sims[ep.meta["simulation_index"]] for ep in self.archive.episodes
            if "simulation_index" in ep.meta}


def reward_text(ep: ArchiveEpisode) -> str:
    """Return a stored reward with its outcome, or null with why it is no measurement."""
    if ep.outcome in ("pass", "fail"):
        return f"{num(ep.stored_score)} ({ep.outcome})"
    return f"null ({ep.outcome}: {ep.reason})"


def list_page(h: Html, f: Tau2File, params: Mapping[str, str]) -> str:
    """Return the simulation list, filtered by outcome, termination and task."""
    want = {k: params.get(k) or "" for k in FILTERS}
    eps = [e for e in f.archive.episodes
           if (not want["outcome"] or e.outcome == want["outcome"])
           and (not want["termination"]
                or (e.meta.get("termination_reason") or "not recorded") == want["termination"])
           and (not want["task"] or want["task"] in e.task)]
    notes = f.archive.notes.get("tau2") or {}
    rows = [[h.link(url("/simulation", id=e.episode_id), e.task), h.t(e.trial),
             h.t(reward_text(e)), h.t(e.meta.get("termination_reason") or "not recorded"),
             h.t(e.meta.get("ended_by") or "-"), h.t(len(e.events)),
             h.t("-" if e.meta.get("agent_cost") is None else money(e.meta["agent_cost"]))]
            for e in eps]
    links = " · ".join(h.link(url("/", **{k: v}), f"{k}={v}") for k, vals in (
        ("outcome", ("pass", "fail", "ungraded")),
        ("termination", sorted({e.meta.get("termination_reason") or "not recorded"
                                for e in f.archive.episodes if not e.meta.get("never_ran")})))
        for v in vals)
    body = (f"<p>tau2 results file <code>{h.t(f.archive.source)}</code>: agent "
            f"<code>{h.t(notes.get('agent_model'))}</code> on <code>{h.t(notes.get('domain'))}"
            f"</code>; {len(eps)} of {len(f.archive.episodes)} planned simulations shown.</p>"
            f"<p>Filters: {links} · {h.link('/', 'all')}</p>"
            + h.table(["task", "trial", "reward", "termination", "ended by", "tool calls",
                       "agent cost"], rows, "simulations"))
    return h.page("Simulations", body, NAV)


def as_chat(m: Any) -> dict[str, Any]:
    """Return a tau2 message in the chat shape the conversation view draws: tool calls as
    calls with JSON arguments (who asked: the agent or the user simulator), a tool result
    naming the call it answers (an error result marked), long text cut and said so."""
    if not isinstance(m, dict):
        return {"role": "unknown", "content": str(m)}
    text = str(m.get("content") or "")
    if len(text) > MAX_CONTENT:
        text = text[:MAX_CONTENT] + f" … ({len(text) - MAX_CONTENT} more characters)"
    out: dict[str, Any] = {"role": str(m.get("role")), "content": text}
    if m.get("role") == "tool":
        out["tool_call_id"] = m.get("id")
        if m.get("error"):
            out["content"] = f"(error) {text}"
    calls = [c for c in m.get("tool_calls") or [] if isinstance(c, dict)]
    if calls:
        out["tool_calls"] = [{"id": c.get("id"), "function": {
            "name": c.get("name"), "arguments": json.dumps(c.get("arguments"))}}
            for c in calls]
    return out


def _conversation(h: Html, messages: list[Any]) -> str:
    """Return the simulation's messages as turns, in order (each turn an item of a list)."""
    items = "".join(f'<li class="role-{h.t(as_chat(m)["role"])}">{message_turn(h, as_chat(m))}'
                    "</li>" for m in messages)
    return (f'<h2>Conversation</h2>{STYLE}<ol id="conversation" class="turns">{items}</ol>')


def simulation_page(h: Html, f: Tau2File, sid: str) -> str:
    """Return one simulation: termination, reward breakdown, the conversation."""
    ep = next((e for e in f.archive.episodes if e.episode_id == sid), None)
    if ep is None:
        raise LookupError(f"no simulation {sid!r} in this file")
    raw = f.raw.get(sid) or {}
    parts = ep.meta.get("reward") or {}
    breakdown = ", ".join(f"{k}: {num(v)}" for k, v in (parts.get("breakdown") or {}).items())
    body = (f"<p>Task <code>{h.t(ep.task)}</code>, trial {h.t(ep.trial)}. Reward "
            f"<strong>{h.t(reward_text(ep))}</strong>. Termination "
            f"<code>{h.t(ep.meta.get('termination_reason') or 'not recorded')}</code>, ended by "
            f"{h.t(ep.meta.get('ended_by') or '-')}.</p>"
            f"<p>Reward basis {h.t('+'.join(parts.get('basis') or []) or '-')}; breakdown "
            f"{h.t(breakdown or '-')}; gold actions matched "
            f"{h.t(sum(a['match'] for a in parts.get('actions') or []))} of "
            f"{h.t(len(parts.get('actions') or []))}; NL assertions met "
            f"{h.t(sum(parts.get('nl') or []))} of {h.t(len(parts.get('nl') or []))}.</p>"
            + (_conversation(h, list(raw.get("messages") or []))
               if raw else "<p>No simulation recorded (planned, never run).</p>"))
    return h.page(f"Simulation {ep.task}/{ep.trial}", body, NAV)


def tau2_routes(h: Html, path: Path,
                guarded: Callable[[Callable[[Request], str]], Callable[..., Any]]) -> list[Route]:
    """Return the routes of the tau2 file viewer (the file is read once, here)."""
    f = Tau2File(path)
    return [Route("/", guarded(lambda r: list_page(h, f, r.query_params))),
            Route("/simulation", guarded(lambda r: simulation_page(
                h, f, r.query_params.get("id", ""))))]
