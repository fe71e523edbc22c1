"""Quick LLM runs (`agm run comtrade --agent llm:MODEL`) as one-target campaigns in a store.

A quick run is recorded like any campaign, so it is resumable: the same command against the
same store skips the episodes already recorded instead of paying for them again. The campaign
name is derived from the run's parameters, never from the time.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentmetrology.envs.registry import get_env
from agentmetrology.records.assessment import Assessment
from agentmetrology.records.canonical import digest
from agentmetrology.records.environment import LEGACY_ENVIRONMENT
from agentmetrology.records.episode import Episode, EpisodeKey, Termination, Usage
from agentmetrology.records.names import slug
from agentmetrology.run.campaign import parse_campaign, run_campaign
from agentmetrology.run.episode import result_row
from agentmetrology.store import EvidenceStore

DEFAULT_STORE = Path(".agm") / "store"
PRICE_FORMAT = "INPUT_PER_M,OUTPUT_PER_M[,CACHED_PER_M]"

Price = tuple[float, float, float | None]


def parse_price(text: str) -> Price:
    """Return (input, output, cached or None) per million tokens from "IN,OUT[,CACHED]".

    ValueError (one line) unless it is 2 or 3 finite, non-negative numbers.
    """
    parts = [p.strip() for p in text.split(",")]
    if len(parts) not in (2, 3):
        raise ValueError(f"--price {text!r}: expected {PRICE_FORMAT} (currency units per "
                         "million tokens), e.g. --price 0.15,0.60 or --price 0.15,0.60,0.075")
    values: list[float] = []
    for name, part in zip(("input", "output", "cached"), parts, strict=False):
        try:
            v = float(part)
        except ValueError:
            raise ValueError(f"--price {text!r}: the {name} price {part!r} is not a number "
                             f"(expected {PRICE_FORMAT})") from None
        if not math.isfinite(v) or v < 0:
            raise ValueError(f"--price {text!r}: the {name} price must be a finite number >= 0,"
                             f" got {part!r}")
        values.append(v)
    return values[0], values[1], values[2] if len(values) == 3 else None


# Parameters added after quick runs were first named, with the value every run had before:
# a run at that value keeps the name it had then, or a repeated command would pay for its
# episodes again instead of resuming its store (ComtradeBench was the only environment before
# environments were plug-ins). Any other value (another environment, a price, which changes the
# target, K repeats) is another plan, so another campaign.
_ADDED_LATER: dict[str, Any] = {"environment": LEGACY_ENVIRONMENT, "price": None, "epochs": 1}


@dataclass(frozen=True, slots=True)
class QuickRun:
    """The parameters of one quick LLM run."""

    agent: str  # "llm:MODEL"
    environment: str
    tasks: tuple[str, ...]
    seeds: tuple[int, ...]
    level: str
    profile: str
    condition: str
    base_url: str | None
    api_key_env: str | None
    max_retries: int
    price: Price | None = None  # per million tokens: input, output, cached
    epochs: int = 1  # repeats of every (task, seed): `agm run --epochs K`

    @property
    def name(self) -> str:
        """Return the campaign name: the model and a digest of every parameter."""
        model = slug(self.agent[4:])
        params = {k: getattr(self, k) for k in self.__dataclass_fields__}
        for key, default in _ADDED_LATER.items():
            if params[key] == default:
                del params[key]
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
        if self.price is not None:
            names = ("input_per_m", "output_per_m", "cached_per_m")
            fields = [f"{n} = {float(v)!r}" for n, v in zip(names, self.price, strict=True)
                      if v is not None]
            target.append(f"price = {{ {', '.join(fields)} }}")
        return "\n".join([
            "[campaign]", f"name = {q(self.name)}", f"environment = {q(self.environment)}",
            f"profile = {q(self.profile)}",
            f"tasks = {q(list(self.tasks))}", f"seeds = {q(list(self.seeds))}",
            f"levels = {q([self.level])}", f"conditions = {q([self.condition])}",
            f"repeats = {self.epochs}", "concurrency = 1", "", "[[targets]]", *target, ""])


def run_quick(run: QuickRun, store_dir: Path | None, *, retry_measurement_failures: bool = False,
              ) -> tuple[Path, list[dict[str, Any]], str | None]:
    """Run (or resume) the quick run in the store; return the store path, one row per recorded
    key, and why launching stopped early (e.g. the endpoint refuses connections), if it did.

    Rows come per task, seed and repeat; with `epochs` > 1 each names its `repeat` (0..K-1).

    With `retry_measurement_failures`, episodes recorded as measurement failures (an endpoint
    down, a key not set) are measured again; the failed ones stay in the store as history.
    """
    config = parse_campaign(run.toml(), file=f"<agm run {run.agent}>")
    root = store_dir or DEFAULT_STORE
    store = EvidenceStore.open(root)
    try:
        result = run_campaign(config, store, backend="inline",
                              retry_measurement_failures=retry_measurement_failures)
        rows = [_row(store, run, EpisodeKey(run.name, run.agent, t, s, run.condition,
                                             run.level, r))
                for t in run.tasks for s in run.seeds for r in range(run.epochs)]
    finally:
        store.close()
    return root, [r for r in rows if r is not None], result.stop_reason


def stored_assessment(doc: dict[str, Any]) -> Assessment:
    """Return the Assessment of its stored plain JSON."""
    return Assessment(doc["scorer"], doc["scorer_version"], doc["status"], doc.get("score"),
                      dict(doc.get("components") or {}), tuple(doc.get("reasons") or ()),
                      doc.get("evidence_digest") or "")


def _row(store: EvidenceStore, run: QuickRun, key: EpisodeKey) -> dict[str, Any] | None:
    """Return the `--json` row of a recorded episode (None when it was not recorded)."""
    led = store.episode(key)
    if led is None:
        return None
    plain = store.load_episode(key)
    digests = {"submission": led["submission_digest"]} if led["submission_digest"] else {}
    ep = Episode(key, key.target, key.task, key.seed, key.condition, key.level, [],
                 plain.get("submission"),
                 Termination(led["termination"], led.get("termination_detail") or ""),
                 Usage(requests=led["requests"]), digests, {"agent": run.agent})
    assessments = [stored_assessment(a["assessment"]) for a in led["assessments"]]
    row = result_row(get_env(run.environment), ep, assessments, run.profile)
    row.update(cost=led["cost"], input_tokens=led["input_tokens"],
               output_tokens=led["output_tokens"], model_attempts=led["model_attempts"],
               campaign=run.name)
    if run.epochs > 1:
        row["repeat"] = key.repeat
    return row
