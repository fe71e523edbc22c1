"""`agm run`: one call runs a checked `RunRequest` and returns its result rows.

A model-free agent's episodes run one after another through the episode runner
(`run.episode.run_one`), each row handed to `on_row` as soon as it is scored. An `llm:MODEL`
agent runs as a one-target campaign in an evidence store, so it is resumable: the same command
against the same store skips the episodes already recorded instead of paying for them again.
The campaign is built from the request (no campaign file) and named from its parameters, never
from the time. Its rows are those of the recorded episodes, in request order, read from the
store: an episode recorded by an earlier, interrupted invocation exists nowhere else, and the
record is what was kept (with secrets removed), so a printed row never shows more than the store.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentmetrology.envs.registry import DEFAULT_ENVIRONMENT
from agentmetrology.records.assessment import Assessment
from agentmetrology.records.canonical import digest
from agentmetrology.records.episode import EpisodeKey, episode_from_plain
from agentmetrology.records.errors import UserError
from agentmetrology.records.names import slug
from agentmetrology.run.campaign import CampaignConfig, CampaignConfigError, run_campaign
from agentmetrology.run.episode import make_policy, result_row, run_one
from agentmetrology.run.llm_options import target_price
from agentmetrology.run.request import RunRequest
from agentmetrology.store import EvidenceStore, NotAStoreError, StoreBusyError, StorePathError

DEFAULT_STORE = Path(".agm") / "store"

RowSink = Callable[[dict[str, Any]], None]


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """What a run gave: one row per episode (per task, seed and repeat) and, for an LLM run,
    its store, campaign and why launching stopped early (None when it did not)."""

    rows: list[dict[str, Any]]
    store: Path | None = None
    campaign: str | None = None
    stopped: str | None = None
    # Episodes launched and not recorded (their attempt failed: an execution error outside
    # the episode), one line each saying which and why; the same command runs them again.
    failed: tuple[str, ...] = ()


def run_request(request: RunRequest, on_row: RowSink | None = None) -> RunOutcome:
    """Run every episode of `request` and return their rows, giving each to `on_row` too.

    Raises UserError for what the user can fix (an agent that cannot act at the level, a store
    that cannot be used).
    """
    sink = on_row or (lambda row: None)
    if request.is_llm:
        outcome = _run_llm(request)
        for row in outcome.rows:
            sink(row)
        return outcome
    return RunOutcome(_run_model_free(request, sink))


def _run_model_free(request: RunRequest, sink: RowSink) -> list[dict[str, Any]]:
    spec = request.spec
    # Every episode gets a fresh policy; the first is built here, where its levels are checked.
    first = make_policy(spec, request.agent)
    if request.level not in first.levels:
        raise UserError(f"--level: agent {request.agent!r} acts only at "
                        f"{', '.join(first.levels)}; choose --level {first.levels[0]}")
    rows = []
    for i, (task, seed, repeat) in enumerate(request.episodes()):
        try:
            scored = run_one(spec, task, seed, first if i == 0 else request.agent, request.level,
                             request.profile, request.condition, repeat=repeat)
        except ValueError as exc:
            raise UserError(str(exc)) from exc
        row = scored.row()
        if request.repeats > 1:  # with --epochs the repeat index is part of every row
            row["repeat"] = repeat
        sink(row)
        rows.append(row)
    return rows


# Parameters added after quick runs were first named, with the value every run had before:
# a run at that value keeps the name it had then, or a repeated command would pay for its
# episodes again instead of resuming its store (ComtradeBench was the only environment before
# environments were plug-ins). Any other value (another environment, a price, which changes the
# target, K repeats) is another plan, so another campaign.
_ADDED_LATER: dict[str, Any] = {"environment": DEFAULT_ENVIRONMENT, "price": None, "epochs": 1}


def campaign_name(request: RunRequest) -> str:
    """Return the campaign name of an LLM run: the model and a digest of every parameter."""
    target = request.target
    assert target is not None, "an LLM run has a target"
    params: dict[str, Any] = {
        "agent": request.agent, "environment": request.environment, "tasks": request.tasks,
        "seeds": request.seeds, "level": request.level, "profile": request.profile,
        "condition": request.condition, "base_url": target.base_url,
        "api_key_env": target.api_key_env, "max_retries": target.max_retries,
        "price": target_price(target), "epochs": request.repeats}
    for key, default in _ADDED_LATER.items():
        if params[key] == default:
            del params[key]
    return f"run-{slug(request.agent[4:])}-{digest(params)[:12]}"


def campaign_config(request: RunRequest) -> CampaignConfig:
    """Return the one-target campaign of an LLM run (one episode at a time)."""
    assert request.target is not None, "an LLM run has a target"
    return CampaignConfig(
        name=campaign_name(request), targets=(request.target,), tasks=request.tasks,
        seeds=request.seeds, levels=(request.level,), conditions=(request.condition,),
        repeats=request.repeats, concurrency=1, profile=request.profile,
        environment=request.environment, file=f"<agm run {request.agent}>")


def _run_llm(request: RunRequest) -> RunOutcome:
    """Run (or resume) the LLM run's campaign in its store; return the recorded rows."""
    config = campaign_config(request)
    root = request.store or DEFAULT_STORE
    try:
        store = EvidenceStore.open(root)
        try:
            result = run_campaign(config, store, backend="inline",
                                  retry_measurement_failures=request.retry_measurement_failures)
            rows, failed = [], []
            for t, s, r in request.episodes():
                key = EpisodeKey(config.name, request.agent, t, s, request.condition,
                                 request.level, r)
                row = recorded_row(store, request, key)
                if row is not None:
                    rows.append(row)
                elif (why := failed_attempt(store, key)) is not None:
                    failed.append(f"{t} seed {s}{f' repeat {r}' if request.repeats > 1 else ''}"
                                  f": {why}")
        finally:
            store.close()
    except (CampaignConfigError, StoreBusyError, StorePathError, NotAStoreError,
            ValueError) as exc:
        raise UserError(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from exc
    except OSError as exc:
        raise UserError(f"cannot open the evidence store at {request.store or '.agm/store'}: "
                        f"{exc.strerror or exc}") from exc
    return RunOutcome(rows, root, config.name, result.stop_reason, tuple(failed))


def failed_attempt(store: EvidenceStore, key: EpisodeKey) -> str | None:
    """Return the first line of why the key's last attempt failed, None if it did not fail."""
    attempts = store.attempts(key)
    if not attempts or attempts[-1]["status"] != "failed":
        return None
    detail = str(attempts[-1]["detail"] or "").strip().splitlines()
    return detail[0] if detail else "no reason recorded"


def stored_assessment(doc: dict[str, Any]) -> Assessment:
    """Return the Assessment of its stored plain JSON."""
    return Assessment(doc["scorer"], doc["scorer_version"], doc["status"], doc.get("score"),
                      dict(doc.get("components") or {}), tuple(doc.get("reasons") or ()),
                      doc.get("evidence_digest") or "")


def recorded_row(store: EvidenceStore, request: RunRequest,
                 key: EpisodeKey) -> dict[str, Any] | None:
    """Return the result row of a recorded episode with its usage (None when not recorded)."""
    led = store.episode(key)
    if led is None:
        return None
    episode = episode_from_plain(store.load_episode(key))
    assessments = [stored_assessment(a["assessment"]) for a in led["assessments"]]
    row = result_row(request.spec, episode, assessments, request.profile)
    # the ledger's counts sum the known ones: null when a request of the episode had none
    known = not store.ledger.tokens_unknown(led["attempt"])
    row.update(cost=led["cost"], input_tokens=led["input_tokens"] if known else None,
               output_tokens=led["output_tokens"] if known else None,
               model_attempts=led["model_attempts"],
               campaign=key.campaign)
    if request.repeats > 1:
        row["repeat"] = key.repeat
    return row
