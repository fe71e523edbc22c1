"""Hand-built episodes, keys and bindings for store tests (no agents, no environment)."""

from __future__ import annotations

from agentmetrology.records import (
    Assessment,
    BillableAttempt,
    Episode,
    EpisodeKey,
    Event,
    Termination,
    Usage,
)
from agentmetrology.store import Binding, EvidenceStore

VERSIONS = {"ground_truth_f1": "1.0.0", "shape_judge": "1.0.0"}


def key(i: int = 0, campaign: str = "c1", target: str = "t1") -> EpisodeKey:
    """Return the i-th key of a small test campaign."""
    return EpisodeKey(campaign, target, "T3_duplicates", i, "clean", "L2", 0)


def bindings(n: int, campaign: str = "c1", target: str = "t1") -> list[Binding]:
    """Return n bindings with fixed digests."""
    return [Binding(key(i, campaign, target), i, "a" * 64, "b" * 64, dict(VERSIONS))
            for i in range(n)]


def make_episode(k: EpisodeKey, kind: str = "submitted", costs: tuple[float | None, ...] = (),
                 text: str = "ok", version: str = "1.0.0") -> tuple[Episode, list[Assessment]]:
    """Return an episode of key k ending with `kind`, one billable attempt per cost."""
    attempts = [BillableAttempt(f"a{j}", "fake", "m", f"req{j}", 100, 10, 0, c, 0.01, "ok")
                for j, c in enumerate(costs)]
    sub = {"data_jsonl": "", "metadata_json": "{}", "run_log": text} \
        if kind == "submitted" else None
    ep = Episode(k, k.target, k.task, k.seed, k.condition, k.level,
                 [Event(0, "agent", "message", "note", {}, text, 0.0)], sub,
                 Termination(kind, text), Usage(1, 1, attempts))  # type: ignore[arg-type]
    scored = [Assessment("ground_truth_f1", version, "PASS", 1.0, {}, (), "d" * 64),
              Assessment("shape_judge", "1.0.0", "PARTIAL", 50.0, {}, (), "d" * 64)]
    return ep, scored


def register(st: EvidenceStore, n: int, campaign: str = "c1", plan: str = "p" * 64) -> str:
    """Register a campaign of n administrations and return its registration id."""
    return st.register_campaign(campaign, plan, {"name": campaign}, bindings(n, campaign))
