"""ComtradeBench scaffolds L0, L1 and L2: one episode of a policy under a level's ownership."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agentmetrology.agents.clock import Clock, FakeClock
from agentmetrology.agents.comtrade.payload import (
    RowCollector,
    RunLog,
    build_metadata,
    encode_payload,
)
from agentmetrology.agents.policy import Brief, FaultNotice, Policy, Stop
from agentmetrology.agents.scaffolds.errors import InfraError
from agentmetrology.agents.scaffolds.ownership import (
    SCAFFOLD_POLICIES,
    model_owned,
    ownership_of,
)
from agentmetrology.agents.scaffolds.recorder import Recorder
from agentmetrology.envs.comtrade.environment import ComtradeEnv
from agentmetrology.records.canonical import digest
from agentmetrology.records.episode import Episode, EpisodeKey, Termination, Usage
from agentmetrology.records.tools import Observation

MAX_STEPS = 30
L0_BACKOFF = (2.0, 4.0, 8.0)  # seconds before retries 1, 2 and 3


@dataclass(slots=True)
class _State:
    """Mutable bookkeeping of a harness-run episode."""

    collector: RowCollector
    log: RunLog
    steps: int = 0
    complete: bool = False
    stopped: str = ""


def _is_fault(obs: Observation) -> bool:
    return "rows" not in obs and (bool(obs.get("retry")) or "status" in obs)


async def _harness_fetch(rec: Recorder, st: _State, page: Any, first_actor: str,
                         clock: Clock) -> Observation:
    """Fetch with L0's retry policy: up to 3 retries of a `retry: true` result, 2/4/8 s."""
    attempt = 1
    while True:
        actor = first_actor if attempt == 1 else "harness"
        obs = rec.call(actor, "fetch_page", {"page": page})  # type: ignore[arg-type]
        st.log.request(page, attempt, obs)
        if obs.get("retry") and attempt <= len(L0_BACKOFF):
            wait = L0_BACKOFF[attempt - 1]
            st.log.retry(obs.get("status"), attempt, wait)
            await clock.sleep(wait)
            attempt += 1
            continue
        return obs


def _harness_submit(env: ComtradeEnv, rec: Recorder, st: _State, started: float) -> None:
    rows = st.collector.rows
    meta = build_metadata(
        env.task.task_id, env.task.query.as_dict(), rows,
        totals_enabled=True, totals_dropped=st.collector.totals_dropped,
        request_count=st.log.requests,
        request_stats={"total": st.log.requests, "retries": st.log.retries,
                       "by_status": dict(sorted(st.log.statuses.items())),
                       "tool_calls": st.steps},
        execution_time_seconds=rec.clock.now() - started,
    )
    payload = encode_payload(rows, meta, st.log.finish(st.complete))
    rec.call("harness", "submit_results", dict(payload))


async def _run_l0(env: ComtradeEnv, policy: Policy, rec: Recorder, max_steps: int) -> str:
    st = _State(RowCollector(), RunLog.start(env.task.task_id))
    started = rec.clock.now()
    obs: Observation | None = None
    while st.steps < max_steps:
        move = await policy.act(obs)
        rec.attempts.extend(policy.take_attempts())
        if isinstance(move, Stop):
            rec.add("agent", "message", "stop", {}, move.text)
            st.stopped = "agent stopped"
            break
        st.steps += 1
        st.log.step(st.steps, move.name)
        if move.name == "submit_results":
            # The harness owns the submission at L0: the model's own payload is not passed on.
            rec.add("agent", "intercepted", move.name, move.args, {"passed_through": False})
            st.stopped = "agent submitted (intercepted)"
            break
        if move.name != "fetch_page":
            obs = rec.call("agent", move.name, move.args)
            continue
        page = move.args.get("page") if isinstance(move.args, dict) else None
        obs = await _harness_fetch(rec, st, page, "agent", rec.clock)
        if "rows" in obs:
            st.log.page(page)
            st.collector.add(obs["rows"])
        if obs.get("has_more") is not True and st.collector.rows:
            st.complete = "rows" in obs
            break
    _harness_submit(env, rec, st, started)
    return st.stopped


async def _run_l1(env: ComtradeEnv, policy: Policy, rec: Recorder, max_steps: int) -> str:
    st = _State(RowCollector(), RunLog.start(env.task.task_id))
    started = rec.clock.now()
    page, attempt, total_pages, pages_done = 1, 1, None, 0
    while st.steps < max_steps:
        st.steps += 1
        st.log.step(st.steps, "fetch_page")
        obs = rec.call("harness", "fetch_page", {"page": page})
        st.log.request(page, attempt, obs)
        if "rows" in obs:
            st.log.page(page)
            st.collector.add(obs["rows"])
            total_pages = obs.get("total_pages", total_pages)
            pages_done += 1
            if obs.get("has_more") is not True:
                st.complete = True
                break
            page, attempt = page + 1, 1
            continue
        if not _is_fault(obs):
            break  # budget spent or another terminal error
        used = env.requests_used
        notice = FaultNotice(page, obs.get("status"), str(obs.get("error", "")), attempt, used,
                             max(env.service.budget - used, 0), total_pages, pages_done)
        decision = await policy.decide(notice)
        rec.attempts.extend(policy.take_attempts())
        if decision not in ("RETRY", "SKIP"):
            decision = "SKIP"  # an unusable answer is recorded and treated as giving up
        rec.add("agent", "decision", "retry_or_skip",
                {"page": page, "status": obs.get("status"), "attempt": attempt,
                 "requests_remaining": notice.requests_remaining,
                 "total_pages": total_pages, "pages_done": pages_done}, decision)
        if decision == "RETRY":
            st.log.retry(obs.get("status"), attempt, 0)
            attempt += 1
        else:
            st.log.skip(obs.get("status"), page)
            page, attempt = page + 1, 1
    _harness_submit(env, rec, st, started)
    return ""


async def _run_l2(env: ComtradeEnv, policy: Policy, rec: Recorder, max_steps: int) -> str:
    obs: Observation | None = None
    steps = 0
    while steps < max_steps and env.submission is None:
        move = await policy.act(obs)
        rec.attempts.extend(policy.take_attempts())
        if isinstance(move, Stop):
            rec.add("agent", "message", "stop", {}, move.text)
            return "agent stopped without submitting"
        steps += 1
        obs = rec.call("agent", move.name, move.args)
    return ""


_RUNNERS = {"L0": _run_l0, "L1": _run_l1, "L2": _run_l2}


def _termination(env: ComtradeEnv, stopped: str, max_steps: int) -> Termination:
    if env.submission is not None:
        return Termination("submitted", stopped)
    if env.budget_exhausted:
        return Termination("budget_exhausted", "request budget spent without a submission")
    if stopped:
        return Termination("agent_error", stopped)
    return Termination("step_limit", f"no submission within {max_steps} tool calls")


async def run_episode_async(env: ComtradeEnv, policy: Policy, level: str, *,
                            clock: Clock | None = None, max_steps: int = MAX_STEPS,
                            target: str | None = None, campaign: str = "adhoc",
                            repeat: int = 0) -> Episode:
    """Run one episode of `policy` on `env` at `level` and return its full record."""
    ownership = ownership_of(level)
    if level not in policy.levels:
        raise ValueError(f"agent {policy.name!r} cannot act at {level}; it supports "
                         f"{', '.join(policy.levels)}")
    clock = clock or FakeClock()
    rec = Recorder(env, clock)
    t = env.task
    policy.reset(Brief(t.task_id, t.description, t.query.as_dict(),
                       tuple(tool.spec for tool in env.tools.values()), level,
                       model_owned(level), env.seed, max_steps, clock))
    try:
        stopped = await _RUNNERS[level](env, policy, rec, max_steps)
        termination = _termination(env, stopped, max_steps)
    except InfraError as exc:
        termination = Termination("infra_error", str(exc))
    except Exception as exc:  # an agent bug is an agent failure, recorded, never a crash
        termination = Termination("agent_error", f"{type(exc).__name__}: {exc}")
    rec.attempts.extend(policy.take_attempts())
    sub = env.submission.as_dict() if env.submission else None
    notes = getattr(policy, "notes", None)  # e.g. an LLM policy's quirks and handling log
    name = target or policy.name
    key = EpisodeKey(campaign, name, t.task_id, env.seed if env.seed is not None else -1,
                     env.condition, level, repeat)
    return Episode(
        key=key, target=name, task=t.task_id, seed=key.seed, condition=env.condition,
        level=level, events=rec.events, submission=sub, termination=termination,
        usage=Usage(tool_calls=rec.tool_calls, requests=env.requests_used,
                    attempts=rec.attempts),
        digests={"submission": digest(sub)} if sub is not None else {},
        meta={"profile": env.profile, "agent": policy.name, "ownership": dict(ownership),
              "scaffold_policy": SCAFFOLD_POLICIES[level], "max_steps": max_steps,
              **({"policy_notes": notes()} if callable(notes) else {})},
    )
