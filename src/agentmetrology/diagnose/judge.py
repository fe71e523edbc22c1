"""The fixed-trajectory judge audit (docs/diagnose.md): the same saved trajectories, several views.

Each recorded original episode is shown to an LLM judge as text in four views — `original`, an
identical `repeat`, `alias` (tools renamed as the alias mutation renames them) and `format`
(observation keys reordered) — several calls per view. A judge whose verdicts move between views
that carry the same facts is measuring presentation, not the work. Reported: per view, the
share of episodes whose majority verdict differs from the original view's, beside the same share
for the identical repeat (the baseline), and raw agreement and Cohen's kappa with the native
reward and between judges. An unparseable verdict or a failed call is UNKNOWN, counted and
excluded, never a pass or a fail.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agentmetrology.agents.llm.client import ChatClient
from agentmetrology.agents.llm.target import LLMTarget
from agentmetrology.mutations.apply import name_map, reorder
from agentmetrology.records.clock import RealClock
from agentmetrology.records.episode import Episode
from agentmetrology.records.errors import InfraError
from agentmetrology.stats import agreement

VIEWS: tuple[str, ...] = ("original", "repeat", "alias", "format")
JUDGE_PROMPT_VERSION = "judge-1"
MAX_RESULT_CHARS = 400
SYSTEM = ("You grade an AI agent's work from its trajectory. Answer with one word: PASS if the "
          "agent completed the task correctly, FAIL otherwise.")
_WORD = re.compile(r"\b(PASS|FAIL)\b")


def trajectory_text(ep: Episode, view: str, tool_names: Sequence[str]) -> str:
    """Return the episode as the judge reads it under `view` (facts identical in every view)."""
    names = name_map("alias", tool_names) if view == "alias" else {}
    lines = [f"Task {ep.task} (seed {ep.seed}).", "Trajectory:"]
    for e in ep.events:
        if e.kind not in ("tool_call", "intercepted"):
            continue
        result = reorder(e.result) if view == "format" else e.result
        text = json.dumps(result, ensure_ascii=False)
        if len(text) > MAX_RESULT_CHARS:
            text = text[:MAX_RESULT_CHARS] + " ..."
        args = json.dumps(reorder(e.args) if view == "format" else e.args, ensure_ascii=False)
        if len(args) > MAX_RESULT_CHARS:
            args = args[:MAX_RESULT_CHARS] + " ..."
        lines.append(f"- {e.actor} called {names.get(e.name, e.name)}({args}) -> {text}")
    lines.append(f"Ended: {ep.termination.kind}.")
    lines.append("Did the agent complete the task correctly? Answer PASS or FAIL.")
    return "\n".join(lines)


def parse_verdict(text: str) -> str | None:
    """Return PASS or FAIL when the answer names exactly one of them, else None."""
    found = set(_WORD.findall(text.upper()))
    return found.pop() if len(found) == 1 else None


@dataclass(frozen=True, slots=True)
class Cell:
    """One judge call: which episode, view and call, the verdict (None: UNKNOWN) and why."""

    judge: str
    episode: str
    view: str
    call: int
    verdict: str | None
    reason: str = ""


async def _ask(client: ChatClient, model: str, prompt: str) -> tuple[str | None, str]:
    try:
        completion = await client.complete({"model": model, "messages": [
            {"role": "system", "content": SYSTEM}, {"role": "user", "content": prompt}]})
    except InfraError as exc:
        return None, f"judge call failed: {exc}"
    text = completion.message.content or ""
    verdict = parse_verdict(text)
    return verdict, "" if verdict else f"unparseable verdict: {text[:80]!r}"


async def judge_episodes(episodes: Sequence[tuple[str, Episode, Sequence[str]]],
                         target: LLMTarget, calls: int) -> list[Cell]:
    """Return every judge cell: each episode in each view, `calls` times."""
    client = ChatClient(target, RealClock())
    cells = []
    try:
        for episode_id, ep, tools in episodes:
            for view in VIEWS:
                prompt = trajectory_text(ep, view, tools)
                for call in range(calls):
                    verdict, why = await _ask(client, target.model, prompt)
                    cells.append(Cell(target.name, episode_id, view, call, verdict, why))
    finally:
        await client.aclose()
    return cells


def _majority(cells: Sequence[Cell]) -> dict[tuple[str, str, str], str | None]:
    """Return the majority verdict per (judge, episode, view); a tie or no verdict is None."""
    votes: dict[tuple[str, str, str], Counter[str]] = {}
    for c in cells:
        votes.setdefault((c.judge, c.episode, c.view), Counter())
        if c.verdict is not None:
            votes[(c.judge, c.episode, c.view)][c.verdict] += 1
    out: dict[tuple[str, str, str], str | None] = {}
    for k, v in votes.items():
        top = v.most_common(2)
        out[k] = None if not top or (len(top) == 2 and top[0][1] == top[1][1]) else top[0][0]
    return out


def _kappa(a: list[str], b: list[str]) -> dict[str, Any]:
    if not a:
        return {"n": 0, "raw_agreement": None, "kappa": None}
    r = agreement(a, b)
    return {"n": r.n, "raw_agreement": r.raw_agreement, "kappa": r.value}


def judge_metrics(cells: Sequence[Cell], native: dict[str, bool]) -> dict[str, Any]:
    """Return disagreement by view against the repeat baseline, and agreement statistics."""
    maj = _majority(cells)
    judges = sorted({c.judge for c in cells})
    out: dict[str, Any] = {"cells": len(cells),
                           "unknown_cells": sum(c.verdict is None for c in cells),
                           "unknown_reasons": dict(Counter(c.reason for c in cells
                                                           if c.verdict is None).most_common(5)),
                           "judges": {}}
    for j in judges:
        eps = sorted({e for (jj, e, _) in maj if jj == j})
        views: dict[str, Any] = {}
        for view in VIEWS[1:]:
            both = [(maj[(j, e, "original")], maj[(j, e, view)]) for e in eps
                    if maj.get((j, e, "original")) and maj.get((j, e, view))]
            views[view] = {"episodes": len(both),
                           "disagreement": (sum(a != b for a, b in both) / len(both))
                           if both else None}
        base = views["repeat"]["disagreement"]
        for view in ("alias", "format"):
            d = views[view]["disagreement"]
            views[view]["excess_over_repeat"] = None if d is None or base is None else d - base
        scored = [(str(maj[(j, e, "original")]), native[e]) for e in eps
                  if maj.get((j, e, "original")) and e in native]
        out["judges"][j] = {
            "episodes": len(eps), "views": views,
            "with_native_reward": _kappa([v for v, _ in scored],
                                         ["PASS" if n else "FAIL" for _, n in scored])}
    if len(judges) == 2:
        a, b = judges
        common = [e for (j, e, v) in maj if j == a and v == "original"
                  and maj.get((a, e, "original")) and maj.get((b, e, "original"))]
        out["between_judges"] = _kappa([str(maj[(a, e, "original")]) for e in common],
                                       [str(maj[(b, e, "original")]) for e in common])
    return out


def run_judge_audit(episodes: Sequence[tuple[str, Episode, Sequence[str]]],
                    targets: Sequence[LLMTarget], calls: int,
                    native: dict[str, bool]) -> dict[str, Any]:
    """Return the judge audit of `episodes` by every judge target (`calls` per view)."""
    cells: list[Cell] = []
    for t in targets:
        cells += asyncio.run(judge_episodes(episodes, t, calls))
    return {"prompt_version": JUDGE_PROMPT_VERSION, "views": list(VIEWS), "calls": calls,
            "episodes": len(episodes), **judge_metrics(cells, native)}
