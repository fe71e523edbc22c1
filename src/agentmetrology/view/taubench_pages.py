"""Viewer pages of a tau-bench (v1) results file: the rows with their rewards, one row's
conversation.

The file is read once, through the archive's tau-bench importer (outcomes and endings as
`agm archive audit` reads them). A row's page shows its trajectory as the episode page shows an
LLM episode's conversation: every message in order with its role, an assistant's tool calls
with the tool's answer right after them (tau-bench pairs them by position). Every text is
redacted and escaped by `Html`; an ungraded row shows a null reward, never the stored 0.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.routing import Route

from agentmetrology.archive.importers.limits import count, ident
from agentmetrology.archive.importers.taubench import load_taubench, read_json_file
from agentmetrology.archive.model import ArchiveFormatError
from agentmetrology.view.html import Html, url
from agentmetrology.view.source import ViewSourceError
from agentmetrology.view.tau2_pages import reward_text
from agentmetrology.view.transcript_view import STYLE, message_turn

NAV = '<a href="/">rows</a>'


class TaubenchFile:
    """A tau-bench results file held for the viewer: its episodes and each row's trajectory."""

    def __init__(self, path: Path) -> None:
        try:
            data = read_json_file(path)
            self.archive = load_taubench(path, data)
        except ArchiveFormatError as exc:
            raise ViewSourceError(str(exc)) from exc
        self.traj: dict[str, list[Any]] = {}
        for row in data:
            task = ident(row.get("task_id")) if isinstance(row, dict) else None
            trial = count(row.get("trial", 0)) if isinstance(row, dict) else None
            if task is not None and trial is not None and isinstance(row.get("traj"), list):
                # the importer's episode id: the file's stem, the task, the trial
                self.traj.setdefault(f"{path.stem}/{task}/{trial}", row["traj"])


def list_page(h: Html, f: TaubenchFile) -> str:
    """Return the rows: task, trial, reward (null when ungraded), ending, messages."""
    rows = [[h.link(url("/row", id=e.episode_id), e.task), h.t(e.trial), h.t(reward_text(e)),
             h.t(e.termination or "not recorded"), h.t(len(f.traj.get(e.episode_id) or []))]
            for e in f.archive.episodes]
    body = (f"<p>tau-bench results file <code>{h.t(f.archive.source)}</code>: model "
            f"<code>{h.t(f.archive.notes.get('model_from_file_name'))}</code>; "
            f"{len(f.archive.episodes)} rows.</p>"
            + h.table(["task", "trial", "reward", "ending", "messages"], rows, "rows"))
    return h.page("tau-bench rows", body, NAV)


def row_page(h: Html, f: TaubenchFile, episode_id: str) -> str:
    """Return one row: its reward and ending, then its conversation in order."""
    ep = next((e for e in f.archive.episodes if e.episode_id == episode_id), None)
    if ep is None:
        raise LookupError(f"no row {episode_id!r} in this file")
    traj = f.traj.get(episode_id)
    turns = "".join(message_turn(h, m if isinstance(m, dict) else {"content": m})
                    for m in traj or [])
    body = (f"<p>Task <code>{h.t(ep.task)}</code>, trial {h.t(ep.trial)}. Reward "
            f"<strong>{h.t(reward_text(ep))}</strong>. Ending "
            f"<code>{h.t(ep.termination or 'not recorded')}</code>"
            f"{': ' + h.t(ep.termination_detail) if ep.termination_detail else ''}.</p>"
            + (f'<h2 id="conversation">Conversation</h2>{STYLE}<div id="transcript">{turns}'
               "</div>" if traj else "<p>No trajectory recorded (planned, never run).</p>"))
    return h.page(f"Row {ep.task}/{ep.trial}", body, NAV)


Guard = Callable[[Callable[[Request], str]], Callable[..., Any]]


def list_and_item_routes(guarded: Guard, index: Callable[[], str], item_path: str,
                         item: Callable[[str], str]) -> list[Route]:
    """Return the routes of a file's viewer: its list at `/`, one item at `item_path?id=`."""
    return [Route("/", guarded(lambda r: index())),
            Route(item_path, guarded(lambda r: item(r.query_params.get("id", ""))))]


def taubench_routes(h: Html, path: Path, guarded: Guard) -> list[Route]:
    """Return the routes of the tau-bench file viewer (the file is read once, here)."""
    f = TaubenchFile(path)
    return list_and_item_routes(guarded, lambda: list_page(h, f), "/row",
                                lambda i: row_page(h, f, i))
