"""The fixed-trajectory judge audit (docs/diagnose.md): the same saved trajectories, several views.

Each recorded original episode is shown to an LLM judge with what a grader needs (the task
statement, the success criteria, the tools, the trajectory as recorded: judge_brief.py) in four
views — `original`, an identical `repeat`, `alias` (tools renamed as the alias mutation renames
them) and `format` (observation keys reordered) — several calls per view. A judge whose verdicts
move between views that carry the same facts is measuring presentation, not the work.
Reported per judge and view: the verdict counts, the share of episodes whose majority verdict
differs from the original view's beside the same share for the identical repeat (the baseline);
raw agreement (with a task-cluster bootstrap interval) and Cohen's kappa with the native reward,
and between judges; the judges' billable attempts. INSUFFICIENT (the judge says the record does
not show enough) is counted apart and does not vote; an unparseable verdict or a failed call is
UNKNOWN, counted and excluded. Neither is ever a pass or a fail.
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from agentmetrology.agents.llm.client import ChatClient
from agentmetrology.agents.llm.target import LLMTarget
from agentmetrology.diagnose.judge_brief import (
    JUDGE_PROMPT_VERSION,
    SYSTEM,
    JudgeCase,
    judge_prompt,
    shown,
)
from agentmetrology.records.clock import RealClock
from agentmetrology.records.episode import BillableAttempt
from agentmetrology.records.errors import InfraError
from agentmetrology.stats import agreement, cluster_bootstrap

VIEWS: tuple[str, ...] = ("original", "repeat", "alias", "format")
VERDICTS = ("PASS", "FAIL", "INSUFFICIENT")
_WORD = re.compile(r"\b(PASS|FAIL|INSUFFICIENT)\b")


def parse_verdict(text: str) -> str | None:
    """Return PASS, FAIL or INSUFFICIENT when the answer names exactly one of them, else None."""
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
    answer: str | None = None  # the judge's text as written (None: the call failed)


async def _ask(client: ChatClient, model: str,
               prompt: str) -> tuple[str | None, str, str | None]:
    """Return the verdict (None: none read), why there is none, and the answer's text."""
    try:
        completion = await client.complete({"model": model, "messages": [
            {"role": "system", "content": SYSTEM}, {"role": "user", "content": prompt}]})
    except InfraError as exc:
        return None, f"judge call failed: {exc}", None
    text = completion.message.content or ""
    verdict = parse_verdict(text)
    return verdict, "" if verdict else f"unparseable verdict: {text[:80]!r}", text


@dataclass(frozen=True, slots=True)
class JudgeCall:
    """One provider request of a judge and what it was judging (episode, view, call)."""

    judge: str
    subject: str
    attempt: BillableAttempt


async def judge_episodes(cases: Sequence[JudgeCase], target: LLMTarget,
                         calls: int) -> tuple[list[Cell], list[JudgeCall]]:
    """Return every judge cell (each case in each view, `calls` times) and the billable
    attempts the calls took (retries included), each with what it was judging."""
    client = ChatClient(target, RealClock())
    cells = []
    billed: list[JudgeCall] = []
    try:
        for case in cases:
            for view in VIEWS:
                prompt = judge_prompt(case, view)
                for call in range(calls):
                    before = len(client.attempts)
                    verdict, why, answer = await _ask(client, target.model, prompt)
                    cells.append(Cell(target.name, case.episode_id, view, call, verdict, why,
                                      answer))
                    subject = f"{case.episode_id} view={view} call={call}"
                    billed += [JudgeCall(target.name, subject, a)
                               for a in client.attempts[before:]]
    finally:
        await client.aclose()
    return cells, billed


def _majority(cells: Sequence[Cell]) -> dict[tuple[str, str, str], str | None]:
    """Return the majority PASS/FAIL verdict per (judge, episode, view); INSUFFICIENT answers
    and unparseable ones do not vote, and a tie or no vote is None."""
    votes: dict[tuple[str, str, str], Counter[str]] = {}
    for c in cells:
        votes.setdefault((c.judge, c.episode, c.view), Counter())
        if c.verdict in ("PASS", "FAIL"):
            votes[(c.judge, c.episode, c.view)][str(c.verdict)] += 1
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


def _with_native(scored: list[tuple[str, bool, str]], seed: int) -> dict[str, Any]:
    """Return agreement of majority verdicts with the native reward: kappa, and the raw
    agreement with a task-cluster bootstrap interval (episodes of a task resampled together)."""
    out = _kappa([v for v, _, _ in scored], ["PASS" if n else "FAIL" for _, n, _ in scored])
    if scored:
        est = cluster_bootstrap([float((v == "PASS") == n) for v, n, _ in scored],
                                [t for _, _, t in scored], seed=seed)
        out["interval"] = None if est.interval is None else list(est.interval)
        out["interval_method"] = est.method
        out["tasks"] = est.n
        if est.interval_note:  # fewer than 3 tasks: no interval, and why
            out["interval_note"] = est.interval_note
    return out


def _verdict_counts(cells: Sequence[Cell], judge: str, view: str) -> dict[str, int]:
    mine = [c for c in cells if c.judge == judge and c.view == view]
    counts = {v: sum(c.verdict == v for c in mine) for v in VERDICTS}
    return {**counts, "UNKNOWN": sum(c.verdict is None for c in mine)}


def _views(cells: Sequence[Cell], maj: dict[tuple[str, str, str], str | None], j: str,
           eps: list[str]) -> dict[str, Any]:
    views: dict[str, Any] = {"original": {"verdicts": _verdict_counts(cells, j, "original")}}
    for view in VIEWS[1:]:
        both = [(maj[(j, e, "original")], maj[(j, e, view)]) for e in eps
                if maj.get((j, e, "original")) and maj.get((j, e, view))]
        views[view] = {"episodes": len(both), "verdicts": _verdict_counts(cells, j, view),
                       "disagreement": (sum(a != b for a, b in both) / len(both))
                       if both else None}
    base = views["repeat"]["disagreement"]
    for view in ("alias", "format"):
        d = views[view]["disagreement"]
        views[view]["excess_over_repeat"] = None if d is None or base is None else d - base
    return views


def judge_metrics(cells: Sequence[Cell], native: dict[str, bool],
                  tasks: dict[str, str] | None = None, seed: int = 0) -> dict[str, Any]:
    """Return verdict counts and disagreement by view against the repeat baseline, and
    agreement statistics (with the native reward: a task-cluster interval over `tasks`)."""
    maj = _majority(cells)
    task_of = tasks or {}
    judges = sorted({c.judge for c in cells})
    out: dict[str, Any] = {"cells": len(cells),
                           "unknown_cells": sum(c.verdict is None for c in cells),
                           "insufficient_cells": sum(c.verdict == "INSUFFICIENT"
                                                     for c in cells),
                           "unknown_reasons": dict(Counter(c.reason for c in cells
                                                           if c.verdict is None).most_common(5)),
                           "judges": {}}
    for j in judges:
        eps = sorted({e for (jj, e, _) in maj if jj == j})
        scored = [(str(maj[(j, e, "original")]), native[e], task_of.get(e, e)) for e in eps
                  if maj.get((j, e, "original")) and e in native]
        out["judges"][j] = {"episodes": len(eps), "views": _views(cells, maj, j, eps),
                            "with_native_reward": _with_native(scored, seed)}
    if len(judges) == 2:
        a, b = judges
        common = [e for (j, e, v) in maj if j == a and v == "original"
                  and maj.get((a, e, "original")) and maj.get((b, e, "original"))]
        out["between_judges"] = _kappa([str(maj[(a, e, "original")]) for e in common],
                                       [str(maj[(b, e, "original")]) for e in common])
    return out


def _attempts(by_judge: dict[str, list[BillableAttempt]]) -> dict[str, Any]:
    """Return the judges' billable attempts: totals per judge and every attempt."""
    out: dict[str, Any] = {}
    for name, attempts in by_judge.items():
        costs = [a.cost for a in attempts]
        # a count no attempt reported (a timeout, no usage) makes the totals unknown: null,
        # with the known part beside it, never a sum that counts it as 0
        unknown = sum(a.input_tokens is None or a.output_tokens is None for a in attempts)
        tin, tout = (sum(a.input_tokens or 0 for a in attempts),
                     sum(a.output_tokens or 0 for a in attempts))
        out[name] = {"attempts": len(attempts),
                     "failed": sum(a.outcome != "ok" for a in attempts),
                     "input_tokens": None if unknown else tin,
                     "output_tokens": None if unknown else tout,
                     "input_tokens_known": tin, "output_tokens_known": tout,
                     "tokens_unknown": unknown,
                     # unknown when any attempt's price or token count is unknown
                     "cost": None if any(c is None for c in costs) else sum(
                         c for c in costs if c is not None),
                     "list": [asdict(a) for a in attempts]}
    return out


def run_judge_audit(cases: Sequence[JudgeCase], targets: Sequence[LLMTarget], calls: int,
                    native: dict[str, bool], seed: int = 0,
                    record: Callable[[list[JudgeCall], list[Cell]], None] | None = None
                    ) -> dict[str, Any]:
    """Return the judge audit of `cases` by every judge target (`calls` per view); `record`
    receives every billable request the judges made and every verdict (the store keeps
    them)."""
    cells: list[Cell] = []
    attempts: dict[str, list[BillableAttempt]] = {}
    billed: list[JudgeCall] = []
    for t in targets:
        found, calls_made = asyncio.run(judge_episodes(cases, t, calls))
        cells += found
        billed += calls_made
        attempts[t.name] = [c.attempt for c in calls_made]
    if record is not None:
        record(billed, cells)
    return judge_document(cases, cells, attempts, calls, native, seed)


def judge_document(cases: Sequence[JudgeCase], cells: Sequence[Cell],
                   attempts: dict[str, list[BillableAttempt]], calls: int,
                   native: dict[str, bool], seed: int = 0) -> dict[str, Any]:
    """Return the judge audit's document from its verdicts and billable attempts: asked now,
    or read back from the store that kept them (diagnose.judge_again)."""
    tasks = {c.episode_id: c.episode.task for c in cases}
    return {"prompt_version": JUDGE_PROMPT_VERSION, "views": list(VIEWS), "calls": calls,
            "episodes": len(cases), "shown": shown(cases),
            **judge_metrics(cells, native, tasks, seed),
            "billable_attempts": _attempts(attempts)}
