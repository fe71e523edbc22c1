"""Seeded synthetic archives with known injected defects, for tests of every archive check.

Injected: grader actions written into the agent's action list (clear leaks with arguments the
agent never used, and ambiguous leaks that copy an action the agent did execute), ungraded
episodes with reason codes, duplicated model-call spans (outer spans repeating a response, by
response id, by usage, twice over, or as an aggregate of two calls), unresolved outer spans, and
charged retries with identical usage that must stay two billable events. `SyntheticTruth` holds
the exact counts. All randomness comes from `runtime.rng.rng(seed, *labels)`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from agentmetrology.archive.model import (
    Archive,
    ArchiveEpisode,
    ArchiveEvent,
    ExecutedCall,
    StoredGrade,
    TraceSpan,
)
from agentmetrology.runtime.rng import rng

TOOLS = ("db.lookup", "db.update", "mail.send", "calc.add")
UNGRADED_REASONS = ("step_cap", "sample_error", "unscored")
DUP_PATTERNS = ("response_id", "usage", "double", "aggregate")


@dataclass(slots=True)
class SyntheticTruth:
    """Exact counts of everything injected into a synthetic archive."""

    leaks: int = 0
    ambiguous_leaks: int = 0
    leaked_episodes: set[str] = field(default_factory=set)
    ungraded: Counter[str] = field(default_factory=Counter)
    passes: int = 0
    extra_copies: int = 0  # Σ_b (k_b − 1)
    duplicated_events: int = 0  # billable events with k_b > 1
    billable_events: int = 0
    unresolved_spans: int = 0
    retry_pairs: int = 0
    c_all: float = 0.0
    c_star: float = 0.0


def _price(inp: int, out: int) -> float:
    return (2 * inp + 8 * out) / 1_000_000


class _SpanWriter:
    """Builds one episode's span tree and keeps the truth counts in step."""

    def __init__(self, ep: ArchiveEpisode, gen: np.random.Generator, dup_rate: float,
                 truth: SyntheticTruth, spans: list[TraceSpan]) -> None:
        self.ep, self.gen, self.dup_rate, self.truth, self.spans = ep, gen, dup_rate, truth, spans
        self.n = 0

    def new_id(self) -> str:
        self.n += 1
        return f"{self.ep.episode_id}#{self.n}"

    def add(self, span_id: str, parent: str | None, kind: str, usage: tuple[int, int] = (0, 0),
            response: str | None = None, attempt: str | None = None) -> TraceSpan:
        """Append a span (model spans are charged at a fixed price) and count its cost."""
        model = kind == "model"
        s = TraceSpan(span_id=span_id, parent_id=parent, kind=kind,
                      model=self.ep.model if model else None, response_id=response,
                      attempt_id=attempt, input_tokens=usage[0], output_tokens=usage[1],
                      cost=_price(*usage) if model else None, episode_id=self.ep.episode_id)
        self.spans.append(s)
        self.truth.c_all += s.cost or 0.0
        return s

    def leaf(self, parent: str, i: int, billable: bool = True) -> TraceSpan:
        """Append one real model call (a billable event)."""
        usage = (int(self.gen.integers(100, 2000)), int(self.gen.integers(10, 400)))
        sid = self.new_id()
        s = self.add(sid, parent, "model", usage, f"resp-{self.ep.episode_id}-{i}", f"att-{sid}")
        self.truth.billable_events += 1
        self.truth.c_star += s.cost or 0.0
        return s

    def write(self, calls: int) -> None:
        """Write the episode's tree: an agent root, one step span per model call."""
        root = self.add(self.new_id(), None, "agent")
        i = 0
        while i < calls:
            step = self.add(self.new_id(), root.span_id, "step").span_id
            draw = self.gen.random()
            if draw < self.dup_rate:
                i += self._duplicate(step, i)
                continue
            if draw < self.dup_rate + 0.1:
                self._retry(step, i)
            elif draw < self.dup_rate + 0.2:
                self._unresolved(step, i)
            else:
                self.leaf(step, i)
            i += 1

    def _duplicate(self, parent: str, i: int) -> int:
        """Write one duplication pattern below `parent`; return how many calls it used."""
        pattern = DUP_PATTERNS[int(self.gen.integers(len(DUP_PATTERNS)))]
        if pattern == "aggregate":  # an outer span whose usage is the sum of two calls
            outer = self.new_id()
            kids = [self.leaf(outer, i), self.leaf(outer, i + 1)]
            self.add(outer, parent, "model", (sum(k.input_tokens for k in kids),
                                              sum(k.output_tokens for k in kids)))
            self.truth.extra_copies += 2
            self.truth.duplicated_events += 2
            return 2
        depth = 2 if pattern == "double" else 1
        ids = [self.new_id() for _ in range(depth)]
        leaf = self.leaf(ids[-1], i)
        resp = None if pattern == "usage" else leaf.response_id
        for k, sid in enumerate(ids):
            self.add(sid, parent if k == 0 else ids[k - 1], "model",
                     (leaf.input_tokens, leaf.output_tokens), resp)
        self.truth.extra_copies += depth
        self.truth.duplicated_events += 1
        return 1

    def _retry(self, parent: str, i: int) -> None:
        """Two charged attempts with identical usage: two billable events, not one."""
        first = self.leaf(parent, i)
        sid = self.new_id()
        self.add(sid, parent, "model", (first.input_tokens, first.output_tokens), None,
                 f"att-{sid}")
        self.truth.c_star += first.cost or 0.0
        self.truth.billable_events += 1
        self.truth.retry_pairs += 1

    def _unresolved(self, parent: str, i: int) -> None:
        """An outer planner call whose usage and response differ from its nested call."""
        outer = self.new_id()
        self.leaf(outer, i)
        span = self.add(outer, parent, "model", (777, 77), f"plan-{self.ep.episode_id}-{i}")
        self.truth.unresolved_spans += 1
        self.truth.billable_events += 1
        self.truth.c_star += span.cost or 0.0


def _calls(gen: np.random.Generator) -> list[ExecutedCall]:
    """Return 2–6 agent calls; small argument ranges make identical repeats common."""
    return [ExecutedCall(TOOLS[int(gen.integers(len(TOOLS)))], {"id": int(gen.integers(4))},
                         f"c{k}") for k in range(int(gen.integers(2, 7)))]


def _inject(ep: ArchiveEpisode, gen: np.random.Generator, leak_rate: float,
            truth: SyntheticTruth) -> None:
    """Write the archived action list: the agent's calls plus any injected grader actions."""
    calls = ep.executed_calls or []
    actions: list[tuple[str, dict[str, int] | None]] = [(c.name, c.args) for c in calls]
    if gen.random() < leak_rate:  # a gold action the agent never made: a clear leak
        pos = int(gen.integers(len(actions) + 1))
        actions.insert(pos, ("db.update", {"id": 1000 + len(actions), "gold": 1}))
        truth.leaks += 1
        truth.leaked_episodes.add(ep.episode_id)
    if gen.random() < leak_rate / 2 and calls:  # a replay of an action the agent also made
        src = calls[int(gen.integers(len(calls)))]
        actions.insert(int(gen.integers(len(actions) + 1)), (src.name, src.args))
        truth.ambiguous_leaks += 1
        truth.leaked_episodes.add(ep.episode_id)
    ep.events = [ArchiveEvent(seq=k, kind="tool_call", name=n, args=a, result={"ok": True})
                 for k, (n, a) in enumerate(actions)]


def _grade(ep: ArchiveEpisode, gen: np.random.Generator, p_pass: float, ungraded_rate: float,
           truth: SyntheticTruth) -> None:
    """Set a stored grade, or an ungraded reason (stored as 0 for step caps, like tau-bench)."""
    if gen.random() < ungraded_rate:
        reason = UNGRADED_REASONS[int(gen.integers(len(UNGRADED_REASONS)))]
        ep.reason, ep.reason_detail = reason, f"injected: {reason}"
        ep.stored_score = 0.0 if reason == "step_cap" else None
        ep.termination = "step_limit" if reason == "step_cap" else "error"
        truth.ungraded[reason] += 1
        return
    passed = bool(gen.random() < p_pass)
    ep.grade = StoredGrade(1.0 if passed else 0.0, passed)
    ep.stored_score = ep.grade.score
    ep.termination = "submitted"
    truth.passes += int(passed)


def synthetic_archive(seed: int, n_tasks: int = 10, n_trials: int = 3,
                      models: tuple[str, ...] = ("alpha", "beta"), leak_rate: float = 0.3,
                      ungraded_rate: float = 0.15, dup_rate: float = 0.3
                      ) -> tuple[Archive, SyntheticTruth]:
    """Return a synthetic archive (episodes and spans) and the exact truth of its defects."""
    truth = SyntheticTruth()
    archive = Archive(source=f"synthetic-{seed}", format="synthetic")
    for m, model in enumerate(models):
        p_pass = 0.35 + 0.3 * m / max(1, len(models) - 1)
        for t in range(n_tasks):
            for trial in range(n_trials):
                gen = rng(seed, "synthetic", model, t, trial)
                ep = ArchiveEpisode(episode_id=f"{model}/t{t}/{trial}", task=f"t{t}",
                                    model=model, scaffold="L1", run=f"{model}-run", trial=trial)
                ep.executed_calls = _calls(gen)
                _inject(ep, gen, leak_rate, truth)
                _grade(ep, gen, p_pass, ungraded_rate, truth)
                _SpanWriter(ep, gen, dup_rate, truth, archive.spans).write(
                    len(ep.executed_calls) + 1)
                archive.episodes.append(ep)
    return archive, truth
