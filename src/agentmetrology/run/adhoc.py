"""Quick LLM runs (`agm run comtrade --agent llm:MODEL`) as one-target campaigns in a store.

A quick run is recorded like any campaign, so it is resumable: the same command against the
same store skips the episodes already recorded instead of paying for them again. The campaign
name is derived from the run's parameters, never from the time.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentmetrology.records.canonical import digest
from agentmetrology.records.episode import EpisodeKey
from agentmetrology.run.campaign import parse_campaign, run_campaign
from agentmetrology.run.comtrade import GT_FIELDS
from agentmetrology.store import EvidenceStore

DEFAULT_STORE = Path(".agm") / "store"


@dataclass(frozen=True, slots=True)
class QuickRun:
    """The parameters of one quick LLM run."""

    agent: str  # "llm:MODEL"
    tasks: tuple[str, ...]
    seeds: tuple[int, ...]
    level: str
    profile: str
    condition: str
    base_url: str | None
    api_key_env: str | None
    max_retries: int

    @property
    def name(self) -> str:
        """Return the campaign name: the model and a digest of every parameter."""
        model = "".join(c if c.isalnum() or c in "-._" else "-" for c in self.agent[4:])
        params = {k: getattr(self, k) for k in self.__dataclass_fields__}
        return f"run-{model}-{digest(params)[:12]}"

    def toml(self) -> str:
        """Return the campaign file text of this run."""
        def q(v: Any) -> str:
            return json.dumps(v)

        target = [f"name = {q(self.agent)}", 'kind = "llm"', f"model = {q(self.agent[4:])}",
                  f"max_retries = {self.max_retries}"]
        if self.base_url:
            target.append(f"base_url = {q(self.base_url)}")
        if self.api_key_env:
            target.append(f"api_key_env = {q(self.api_key_env)}")
        return "\n".join([
            "[campaign]", f"name = {q(self.name)}", f"profile = {q(self.profile)}",
            f"tasks = {q(list(self.tasks))}", f"seeds = {q(list(self.seeds))}",
            f"levels = {q([self.level])}", f"conditions = {q([self.condition])}",
            "repeats = 1", "concurrency = 1", "", "[[targets]]", *target, ""])


def run_quick(run: QuickRun, store_dir: Path | None) -> tuple[Path, list[dict[str, Any]]]:
    """Run (or resume) the quick run in the store; return the store path and one row per key."""
    config = parse_campaign(run.toml(), file=f"<agm run {run.agent}>")
    root = store_dir or DEFAULT_STORE
    store = EvidenceStore.open(root)
    try:
        run_campaign(config, store, backend="inline")
        rows = [_row(store, run, EpisodeKey(run.name, run.agent, t, s, run.condition,
                                             run.level, 0))
                for t in run.tasks for s in run.seeds]
    finally:
        store.close()
    return root, [r for r in rows if r is not None]


def _row(store: EvidenceStore, run: QuickRun, key: EpisodeKey) -> dict[str, Any] | None:
    """Return the `--json` row of a recorded episode (None when it was not recorded)."""
    led = store.episode(key)
    if led is None:
        return None
    ep = store.load_episode(key)
    by = {a["scorer"]: a["assessment"] for a in led["assessments"]}
    gt, judge = by.get("ground_truth_f1", {}), by.get("shape_judge", {})
    sub = ep.get("submission")
    rows = sum(1 for x in sub["data_jsonl"].split("\n") if x.strip()) if sub else 0
    return {
        "task": key.task, "seed": key.seed, "profile": run.profile, "agent": run.agent,
        "level": key.level, "condition": key.condition, "termination": led["termination"],
        "requests_used": led["requests"], "rows_submitted": rows,
        "submission_sha256": led["submission_digest"],
        "ground_truth": {**{k: gt.get("components", {}).get(k) for k in GT_FIELDS},
                         "status": gt.get("status")},
        "judge": {"status": judge.get("status"), "total": judge.get("score"),
                  "breakdown": judge.get("components", {})},
        "cost": led["cost"], "input_tokens": led["input_tokens"],
        "output_tokens": led["output_tokens"], "model_attempts": led["model_attempts"],
        "campaign": run.name,
    }
