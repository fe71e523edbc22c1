"""Action provenance: align the agent's executed calls to the archived action list.

When a grader replays gold actions through the same environment, its actions can end up in the
agent's record. Without actor labels we align the executed calls (raw model log) to the archived
actions with an order-preserving match (longest common subsequence) on (tool name, canonical
arguments). Unmatched archived actions are candidate grader provenance. Where identical actions
repeat, which copy matched is not identified: such matches and candidates are counted apart
instead of being resolved silently.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agentmetrology.archive.model import (
    Archive,
    ArchiveEpisode,
    ArchiveEvent,
    actor_counts,
    cell_labels,
)
from agentmetrology.records.canonical import CanonicalError, canonical_json

Key = tuple[str, str]
MAX_LISTED = 200


def call_key(name: str, args: Any) -> Key:
    """Return the alignment key (tool name, canonical JSON of the arguments)."""
    try:
        text = canonical_json(args).decode("utf-8")
    except CanonicalError:
        text = repr(args)  # non-finite numbers etc.: still a stable key for equality
    return (name, text)


@dataclass(slots=True)
class Alignment:
    """Result of aligning executed calls to archived actions (indices into each list)."""

    pairs: list[tuple[int, int]] = field(default_factory=list)  # (executed, archived)
    ambiguous_pairs: int = 0
    candidates: list[int] = field(default_factory=list)  # archived, clearly unmatched
    ambiguous_candidates: list[int] = field(default_factory=list)  # archived, repeated key
    unmatched_executed: list[int] = field(default_factory=list)


def _lcs_pairs(a: Sequence[Key], b: Sequence[Key]) -> list[tuple[int, int]]:
    """Return index pairs of one longest common subsequence (earliest matches preferred)."""
    n, m = len(a), len(b)
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        row, nxt = table[i], table[i + 1]
        for j in range(m - 1, -1, -1):
            row[j] = nxt[j + 1] + 1 if a[i] == b[j] else max(nxt[j], row[j + 1])
    pairs, i, j = [], 0, 0
    while i < n and j < m:
        if a[i] == b[j]:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return pairs


def align_calls(executed: Sequence[Key], archived: Sequence[Key]) -> Alignment:
    """Return the order-preserving alignment of executed call keys to archived action keys."""
    pairs = _lcs_pairs(executed, archived)
    ex_count, ar_count = Counter(executed), Counter(archived)
    out = Alignment(pairs=pairs)
    out.ambiguous_pairs = sum(1 for _, j in pairs
                              if ar_count[archived[j]] > 1 or ex_count[archived[j]] > 1)
    matched_ar = {j for _, j in pairs}
    matched_ex = {i for i, _ in pairs}
    for j, key in enumerate(archived):
        if j in matched_ar:
            continue
        # the same key among executed calls means another identical copy took the match
        (out.ambiguous_candidates if ex_count[key] else out.candidates).append(j)
    out.unmatched_executed = [i for i in range(len(executed)) if i not in matched_ex]
    return out


def strip_candidates(actions: Sequence[ArchiveEvent], al: Alignment) -> list[ArchiveEvent]:
    """Return the archived actions without clear candidates (for a replay with them removed)."""
    drop = set(al.candidates)
    return [a for j, a in enumerate(actions) if j not in drop]


def episode_alignment(ep: ArchiveEpisode) -> Alignment | None:
    """Return the alignment for an episode with a raw model log, or None without one."""
    if ep.executed_calls is None:
        return None
    actions = [e for e in ep.events if e.kind == "tool_call"]
    return align_calls([call_key(c.name, c.args) for c in ep.executed_calls],
                       [call_key(a.name, a.args) for a in actions])


def provenance_section(archive: Archive) -> dict[str, Any]:
    """Return the provenance section of archive.json (counts and listed candidates)."""
    actors: Counter[str] = Counter()
    for ep in archive.episodes:
        actors.update(actor_counts(ep.events))
    checked = [(ep, episode_alignment(ep)) for ep in archive.episodes]
    done = [(ep, al) for ep, al in checked if al is not None]
    base: dict[str, Any] = {"actor_labels": dict(sorted(actors.items())),
                            "grader_labelled_events": actors.get("grader", 0)}
    if not done:
        reason = archive.notes.get("provenance") or "no raw model log of executed calls"
        return {"applicable": False, "reason": str(reason), **base}
    listed: list[dict[str, Any]] = []
    labels = cell_labels((ep.model, ep.scaffold) for ep in archive.episodes)  # coverage's
    for ep, al in done:
        if (al.candidates or al.ambiguous_candidates) and len(listed) < MAX_LISTED:
            actions = [e for e in ep.events if e.kind == "tool_call"]
            listed.append({"episode_id": ep.episode_id, "task": ep.task,
                           "cell": labels[ep.model, ep.scaffold],
                           "candidates": [{"index": j, "name": actions[j].name}
                                          for j in al.candidates],
                           "ambiguous": [{"index": j, "name": actions[j].name}
                                         for j in al.ambiguous_candidates]})
    return {
        "applicable": True, **base,
        "episodes_checked": len(done), "episodes_without_log": len(checked) - len(done),
        "executed_calls": sum(len(ep.executed_calls or []) for ep, _ in done),
        "archived_actions": sum(sum(1 for e in ep.events if e.kind == "tool_call")
                                for ep, _ in done),
        "matched": sum(len(al.pairs) for _, al in done),
        "ambiguous_matched": sum(al.ambiguous_pairs for _, al in done),
        "candidates": sum(len(al.candidates) for _, al in done),
        "ambiguous_candidates": sum(len(al.ambiguous_candidates) for _, al in done),
        "unmatched_executed": sum(len(al.unmatched_executed) for _, al in done),
        "episodes_with_candidates": sum(1 for _, al in done
                                        if al.candidates or al.ambiguous_candidates),
        "episodes": listed,
    }
