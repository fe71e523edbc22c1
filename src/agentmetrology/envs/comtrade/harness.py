"""ComtradeBench's harness at L0 and L1: what the harness does with the decisions it owns.

L2 needs no harness (the model owns every decision; the generic scaffold runs it). The ownership
map itself is data (`spec.OWNERSHIP`); these programs are the harness side of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agentmetrology.envs.comtrade.environment import ComtradeEnv
from agentmetrology.envs.comtrade.payload import (
    RowCollector,
    RunLog,
    build_metadata,
    encode_payload,
)
from agentmetrology.envs.comtrade.question import FaultNotice, fault_question
from agentmetrology.records.clock import Clock
from agentmetrology.records.environment import EnvInstance
from agentmetrology.records.policy import Policy, Stop, sync_act
from agentmetrology.records.tools import Observation, ToolRecorder
from agentmetrology.runtime.recorder import recorded_arguments

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


def _base(env: Any) -> ComtradeEnv:
    """Return the ComtradeBench environment under any wrapper (a mutation's view of it)."""
    while not isinstance(env, ComtradeEnv):
        env = env.inner
    return env


async def _harness_retry(rec: ToolRecorder, st: _State, args: dict[str, Any], page: Any,
                         obs: Observation, clock: Clock) -> Observation:
    """Apply L0's retry policy after the first attempt gave `obs`: up to 3 retries of a
    `retry: true` result, 2/4/8 s apart, each a harness call re-issuing the agent's call."""
    attempt = 1
    while obs.get("retry") and attempt <= len(L0_BACKOFF):
        wait = L0_BACKOFF[attempt - 1]
        st.log.retry(obs.get("status"), attempt, wait)
        await clock.sleep(wait)
        attempt += 1
        obs = rec.call("harness", "fetch_page", dict(args))
        st.log.request(page, attempt, obs)
    return obs


def _harness_submit(env: ComtradeEnv, rec: ToolRecorder, st: _State, started: float) -> None:
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
    rec.call("harness", "submit_results", payload)  # a fresh dict: recorded as it is


async def run_l0(shown: EnvInstance, policy: Policy, rec: ToolRecorder, max_steps: int) -> str:
    """Run L0: the model pages; the harness retries, cleans, writes and submits."""
    env = _base(shown)
    meant: dict[str, str] = getattr(shown, "original_names", {})  # tool names under a mutation
    st = _State(RowCollector(), RunLog.start(env.task.task_id))
    started = rec.clock.now()
    obs: Observation | None = None
    now = sync_act(policy)
    while st.steps < max_steps:
        if now is not None:
            move = now(obs)
        else:
            move = await policy.act(obs)
            rec.attempts.extend(policy.take_attempts())
        if isinstance(move, Stop):
            rec.add("agent", "message", "stop", {}, move.text)
            st.stopped = "agent stopped"
            break
        st.steps += 1
        st.log.step(st.steps, move.name)
        tool = meant.get(move.name, move.name)
        if tool == "submit_results":
            # The harness owns the submission at L0: the model's own payload is not passed on.
            args, kept = recorded_arguments(move.args)  # what was sent, as a refused call's
            rec.add("agent", "intercepted", move.name, args, {"passed_through": False, **kept})
            st.stopped = "agent submitted (intercepted)"
            break
        if tool != "fetch_page":
            obs = rec.call("agent", move.name, move.args)
            continue
        args = move.args
        page = args.get("page") if isinstance(args, dict) else None
        # The first attempt inline, the agent's call as it was sent (the tools are the same at
        # every level: a call the tool refuses at L2 is refused here too, and the record holds
        # what the agent sent); harness retries only after a `retry: true` result.
        obs = rec.call("agent", move.name, args)
        st.log.request(page, 1, obs)
        if obs.get("retry"):
            obs = await _harness_retry(rec, st, args, page, obs, rec.clock)
        if "rows" in obs:
            st.log.page(page)
            st.collector.add(obs["rows"])
        if obs.get("has_more") is not True and st.collector.rows:
            st.complete = "rows" in obs
            break
    _harness_submit(env, rec, st, started)
    return st.stopped


async def run_l1(shown: EnvInstance, policy: Policy, rec: ToolRecorder, max_steps: int) -> str:
    """Run L1: the harness pages and cleans; the model answers RETRY or SKIP on each fault."""
    env = _base(shown)
    st = _State(RowCollector(), RunLog.start(env.task.task_id))
    started = rec.clock.now()
    page, attempt, total_pages, pages_done = 1, 1, None, 0
    skipped = False  # a page given up: the rows collected are not the whole answer
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
                st.complete = not skipped  # the log said complete=true after a skipped page
                break
            page, attempt = page + 1, 1
            continue
        if not _is_fault(obs):
            break  # budget spent or another terminal error
        used = env.requests_used
        notice = FaultNotice(page, obs.get("status"), str(obs.get("error", "")), attempt, used,
                             max(env.service.budget - used, 0), total_pages, pages_done)
        question = fault_question(notice)
        # An unusable answer is recorded as the question's fallback (SKIP: giving up).
        decision = question.answer(await policy.decide(question))
        rec.attempts.extend(policy.take_attempts())
        rec.add("agent", "decision", "retry_or_skip",
                {"page": page, "status": obs.get("status"), "attempt": attempt,
                 "requests_remaining": notice.requests_remaining,
                 "total_pages": total_pages, "pages_done": pages_done}, decision)
        if decision == "RETRY":
            st.log.retry(obs.get("status"), attempt, 0)
            attempt += 1
        else:
            st.log.skip(obs.get("status"), page)
            skipped = True
            page, attempt = page + 1, 1
    _harness_submit(env, rec, st, started)
    return ""
