"""The replay gate: a re-graded episode must declare its replay mode and have every tool namespace.

A replay that lacks a required capability cannot say anything about the agent, so it is marked
`invalid replay` at load time — never scored as a failed episode.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agentmetrology.archive.model import ArchiveEpisode, ReplaySpec

REPLAY_MODES: tuple[str, ...] = ("verbatim", "stubbed_model", "stubbed_user_and_model",
                                 "injected_removed")
_SEP = re.compile(r"\.|/|:|__")


def tool_namespace(name: str) -> str:
    """Return a tool's namespace: the part before the first '.', '/', ':' or '__' (or the name)."""
    parts = _SEP.split(name, maxsplit=1)
    return parts[0] if parts and parts[0] else name


@dataclass(frozen=True, slots=True)
class ReplayVerdict:
    """The gate's answer: valid or not, the missing namespaces, and a one-line reason."""

    valid: bool
    missing: tuple[str, ...]
    reason: str


def check_replay(spec: ReplaySpec, used_tools: list[str]) -> ReplayVerdict:
    """Return whether a replay with this declaration can reproduce calls to `used_tools`."""
    if not spec.mode:
        return ReplayVerdict(False, (), "no declared replay mode")
    if spec.mode not in REPLAY_MODES:
        return ReplayVerdict(False, (), f"unknown replay mode {spec.mode!r}")
    required = set(spec.requires) | {tool_namespace(n) for n in used_tools if n}
    if spec.available is None:
        return ReplayVerdict(False, tuple(sorted(required)), "no declared capabilities")
    missing = tuple(sorted(required - set(spec.available)))
    if missing:
        return ReplayVerdict(False, missing, "missing tool namespace: " + ", ".join(missing))
    return ReplayVerdict(True, (), "")


def apply_gate(ep: ArchiveEpisode) -> None:
    """Mark the episode `invalid replay` when it declares a replay that fails the gate."""
    if ep.replay is None:
        return
    verdict = check_replay(ep.replay, [e.name for e in ep.events])
    if not verdict.valid:
        ep.invalid_replay = verdict.reason
        ep.reason, ep.reason_detail = "invalid_replay", verdict.reason
