"""Realistic evidence stores and trace-span archives for benchmarks/memory.py, built fast.

A store is a real campaign plan (5 targets: rule, two scripted agents, two LLM targets, one
priced and one not; 3 ComtradeBench tasks; L0 and L2; clean and stress:escalating; repeats),
registered through the store API. Each distinct (agent, task, seed, condition, level) is run
once for real and scored; its episode is then recorded for every target and repeat that shares
it (the key, target and usage rewritten, so every episode has its own blob and a replay of it
reproduces the record). Mixed in, deterministically by plan position: measurement failures
(infra_error), ungraded episodes (a ground-truth scorer that timed out: UNKNOWN), LLM usage
with billable attempts written as they would arrive (cost known, or unknown without a price),
interrupted and failed attempts that were never recorded (one billed request each for the LLM
targets), and administrations not launched (budget). The span archive is JSONL: nested
model-call spans (outer spans repeating a response), tool spans, retries, orphans.
"""

from __future__ import annotations

import dataclasses
import json
import math
import multiprocessing as mp
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from agentmetrology.envs.registry import get_env
from agentmetrology.records.assessment import Assessment
from agentmetrology.records.canonical import canonical_json, to_plain
from agentmetrology.records.episode import BillableAttempt, EpisodeKey, Termination
from agentmetrology.run.campaign import parse_campaign, plan_campaign
from agentmetrology.run.episode import run_episode
from agentmetrology.scoring.episode import score_episode, unmeasured
from agentmetrology.store import EvidenceStore
from agentmetrology.store.evidence import AssessmentEvidence, EpisodeEvidence

CAMPAIGN = "memory"
TASKS = ("T3_duplicates", "T4_rate_limit_429", "T5_server_error_500")
REPEATS = 10
PER_SEED = 5 * len(TASKS) * 2 * 2 * REPEATS  # targets x tasks x levels x conditions x repeats
CONFIG = """
[campaign]
name = "{name}"
tasks = {tasks}
seeds = "{first_seed}-{last_seed}"
levels = ["L0", "L2"]
conditions = ["clean", "stress:escalating"]
repeats = {repeats}

[limits]
max_steps = 30

[[targets]]
name = "rule"
kind = "rule"

[[targets]]
name = "careful"
kind = "scripted"
agent = "scripted:careful"

[[targets]]
name = "no_dedup"
kind = "scripted"
agent = "scripted:no_dedup"

[[targets]]
name = "llm-priced"
kind = "llm"
model = "bench-model"
base_url = "http://127.0.0.1:9/v1"
price = {{ input_per_m = 0.15, output_per_m = 0.60, cached_per_m = 0.075 }}

[[targets]]
name = "llm-unpriced"
kind = "llm"
model = "bench-model"
base_url = "http://127.0.0.1:9/v1"
"""
# The model-free agent whose recorded actions stand in for each target's episodes.
AGENT = {"rule": "rule", "careful": "scripted:careful", "no_dedup": "scripted:no_dedup",
         "llm-priced": "scripted:careful", "llm-unpriced": "scripted:no_dedup"}
PRICE = (0.15, 0.60)  # per million input / output tokens, as in the config


def seeds_for(episodes: int) -> int:
    """Return the seeds per cell that give at least `episodes` administrations."""
    return max(1, math.ceil(episodes / PER_SEED))


def _attempts(i: int, target: str) -> list[BillableAttempt]:
    """Return the provider requests of an LLM episode (1-3, deterministic by position)."""
    out = []
    for j in range(1 + i % 3):
        tin, tout = 800 + 37 * ((i + j) % 50), 60 + 11 * ((i * 7 + j) % 20)
        cost = None if target == "llm-unpriced" else round(
            (tin * PRICE[0] + tout * PRICE[1]) / 1e6, 9)
        out.append(BillableAttempt(f"req-{i}-{j}", "openai", "bench-model", f"resp-{i}-{j}",
                                   tin, tout, 0, cost, 0.05, "ok"))
    return out


class _Bases:
    """One real, scored episode per (agent, task, seed, condition, level), run on demand."""

    def __init__(self) -> None:
        self.spec = get_env("comtrade")
        self.cache: dict[tuple[str, str, int, str, str], tuple[dict[str, Any], Any, Any]] = {}

    def get(self, agent: str, key: EpisodeKey) -> tuple[dict[str, Any], Any, Any]:
        """Return (plain episode, assessments, infra-error assessments) for a key's cell."""
        ck = (agent, key.task, key.seed, key.condition, key.level)
        if ck not in self.cache:
            ep = run_episode(self.spec, key.task, key.seed, agent, key.level,
                             condition=key.condition, max_steps=30)
            scored = tuple(AssessmentEvidence.from_assessment(a)
                           for a in score_episode(self.spec, ep))
            failed = dataclasses.replace(
                ep, termination=Termination("infra_error", "connection reset by the server"))
            infra = tuple(AssessmentEvidence.from_assessment(a)
                          for a in unmeasured(self.spec, failed))
            self.cache[ck] = (to_plain(ep, tag_non_finite=True), scored, infra)
        return self.cache[ck]


def _timed_out(a: AssessmentEvidence) -> AssessmentEvidence:
    """Return the ground-truth assessment as a scorer timeout would have stored it (UNKNOWN)."""
    record = Assessment(a.scorer, a.scorer_version, "UNKNOWN", None, {},
                        ("scorer timed out after 30 s",), a.evidence_digest)
    return AssessmentEvidence.from_assessment(record)


def _evidence(i: int, key: EpisodeKey, bases: _Bases) -> EpisodeEvidence:
    plain, scored, infra = bases.get(AGENT[key.target], key)
    usage = dict(plain["usage"])
    llm = key.target.startswith("llm")
    if llm:
        attempts = _attempts(i, key.target)
        usage["attempts"] = [to_plain(a) for a in attempts]
        usage["requests"] = len(attempts)
    clone = dict(plain, key=dataclasses.asdict(key), target=key.target, repeat=key.repeat,
                 usage=usage)
    assessments = scored
    if i % 53 == 9:  # an infrastructure failure: a measurement failure, never a score
        clone["termination"] = {"kind": "infra_error", "detail": "connection reset by the server"}
        assessments = infra
    elif i % 61 == 4:  # the ground-truth scorer timed out: ungraded
        assessments = tuple(_timed_out(a) if a.scorer == "ground_truth_f1" else a
                            for a in scored)
    return EpisodeEvidence.from_plain(clone, assessments)


_WORKER: dict[str, _Bases] = {}  # an encoder process's base episodes


def _encode(items: list[tuple[int, EpisodeKey]]) -> tuple[list[EpisodeEvidence], int]:
    """Return the evidence of each (plan position, key) and the base episodes run so far (in an
    encoder process: the store's writer only records)."""
    bases = _WORKER.setdefault("bases", _Bases())
    return [_evidence(i, key, bases) for i, key in items], len(bases.cache)


def _unrecorded(i: int) -> bool:
    return i % 211 == 7 or i % 199 == 3  # interrupted or failed, never recorded


def build_store(root: Path, episodes: int, name: str = CAMPAIGN, first_seed: int = 0,
                keep_going: Callable[[], bool] | None = None,
                encoders: int = 0) -> dict[str, Any]:
    """Write campaign `name` into the store at `root` (new, or one to append to); return what
    it holds. Its seeds start at `first_seed`; `keep_going`, asked before each chunk of 2,000
    administrations, stops the campaign where it is when it returns False (`stopped` says so).
    With `encoders` > 0, that many processes run and encode the episodes (one chunk ahead of
    the writer) while this one records them: the same evidence, recorded the same way."""
    seeds = seeds_for(episodes)
    config = parse_campaign(CONFIG.format(name=name, tasks=json.dumps(list(TASKS)),
                                          first_seed=first_seed,
                                          last_seed=first_seed + seeds - 1, repeats=REPEATS))
    plan = plan_campaign(config)
    bases = _Bases()
    counts = {"planned": len(plan.bindings), "recorded": 0, "not_launched": 0,
              "interrupted": 0, "failed": 0, "billable_requests": 0, "stopped": False}
    # Forked before the store is opened: the encoders hold none of its files or locks.
    pool = mp.get_context("fork").Pool(encoders) if encoders > 0 else None
    try:
        with EvidenceStore.open(root, scrub_env=False) as st:
            st.register_campaign(name, plan.digest, config.to_json(), plan.bindings)
            run = st.begin_run(name, "inline")
            pending = st.pending(name)
            skipped = [a for a in pending if a.ordinal % 173 == 5]
            st.set_not_launched(skipped, "budget: max_cost 5.0 reached")
            counts["not_launched"] = len(skipped)
            todo = [a for a in pending if a.ordinal % 173 != 5]
            chunks = [todo[k:k + 2000] for k in range(0, len(todo), 2000)]
            items = [[(a.ordinal, a.key) for a in c if not _unrecorded(a.ordinal)]
                     for c in chunks]
            ahead: list[Any] = []
            for n, chunk in enumerate(chunks):
                if keep_going is not None and not keep_going():
                    counts["stopped"] = True
                    break
                if pool is not None:  # keep one chunk encoding ahead: memory stays bounded
                    while len(ahead) < 2 and n + len(ahead) < len(chunks):
                        ahead.append(pool.apply_async(_encode, (items[n + len(ahead)],)))
                    evs, counts["base_episodes_run"] = ahead.pop(0).get()
                else:
                    evs = [_evidence(i, key, bases) for i, key in items[n]]
                encoded = iter(evs)
                _record_chunk(st, run, chunk, encoded, counts)
            st.recover()  # the attempts left `started` become interrupted, as after a kill
            st.end_run(run, "done")
    finally:
        if pool is not None:
            pool.terminate()
    if pool is None:
        counts["base_episodes_run"] = len(bases.cache)
    return counts


def _record_chunk(st: EvidenceStore, run: int, chunk: list[Any],
                  encoded: Iterator[EpisodeEvidence], counts: dict[str, Any]) -> None:
    """Start a chunk's attempts and record each (or leave it interrupted or failed)."""
    for adm, attempt in zip(chunk, st.start_attempts(chunk, run, "inline"), strict=True):
        i = adm.ordinal
        llm = adm.key.target.startswith("llm")
        if _unrecorded(i):
            if llm:
                st.record_billable(attempt, _attempts(i, adm.key.target)[0])
                counts["billable_requests"] += 1
            if i % 199 == 3:
                st.fail_attempt(attempt, "worker lost: connection refused")
                counts["failed"] += 1
            else:
                counts["interrupted"] += 1
            continue
        ev = next(encoded)
        if llm:
            for a in _attempts(i, adm.key.target):
                st.record_billable(attempt, a)
                counts["billable_requests"] += 1
        st.record(attempt, ev)
        counts["recorded"] += 1


def write_spans(path: Path, spans: int) -> dict[str, Any]:
    """Write a JSONL span archive of about `spans` spans (and its episodes file beside it).

    Per episode: an agent root span, tool spans, and model calls; every fourth call is wrapped
    in an outer `llm` span repeating its response id (a copy of its cost), every seventh is a
    charged retry with identical usage (two billable events), a few spans name a parent that
    is not in the trace. Episodes are graded pass/fail, some ungraded, over 8 runs.
    """
    episodes_path = path.with_name(path.stem + "-episodes.jsonl")
    n = 0
    ep = 0
    with path.open("wb") as fh, episodes_path.open("wb") as eh:
        while n < spans:
            run = f"run-{ep % 8}"
            eid = f"{run}/task-{ep % 40}/{ep // 320}"
            root = f"{eid}:agent"
            lines: list[dict[str, Any]] = [{"span_id": root, "parent_id": None, "kind": "agent",
                                            "run": run, "episode_id": eid}]
            for c in range(6):
                tin, tout = 500 + 13 * ((ep + c) % 40), 40 + 7 * ((ep * 3 + c) % 15)
                cost = round((tin * 0.15 + tout * 0.6) / 1e6, 9)
                call = f"{eid}:gen{c}"
                parent = root if (ep + c) % 97 else f"{eid}:missing"
                if c % 4 == 1:  # an outer wrapper repeating the same response
                    outer = f"{eid}:llm{c}"
                    lines.append({"span_id": outer, "parent_id": parent, "kind": "llm",
                                  "model": "m", "response_id": f"r-{ep}-{c}",
                                  "usage": {"input": tin, "output": tout}, "cost": cost})
                    parent = outer
                lines.append({"span_id": call, "parent_id": parent, "kind": "generation",
                              "model": "m", "response_id": f"r-{ep}-{c}",
                              "attempt_id": f"a-{ep}-{c}",
                              "usage": {"input": tin, "output": tout}, "cost": cost})
                if c % 7 == 3:  # a charged retry: same usage, its own attempt
                    lines.append({"span_id": f"{call}:retry", "parent_id": root,
                                  "kind": "generation", "model": "m",
                                  "response_id": f"r-{ep}-{c}-retry",
                                  "attempt_id": f"a-{ep}-{c}-retry",
                                  "usage": {"input": tin, "output": tout}, "cost": cost})
                lines.append({"span_id": f"{eid}:tool{c}", "parent_id": root, "kind": "tool"})
            for line in lines:
                fh.write(canonical_json(line) + b"\n")
            n += len(lines)
            grade = None if ep % 13 == 5 else float(ep % 3 != 0)
            eh.write(canonical_json({"episode_id": eid, "task": f"task-{ep % 40}", "model": run,
                                     "run": run, "trial": ep // 320, "grade": grade,
                                     "reason": "step_cap" if grade is None else None}) + b"\n")
            ep += 1
    return {"spans": n, "episodes": ep, "spans_file": path.name,
            "episodes_file": episodes_path.name,
            "spans_bytes": path.stat().st_size}
