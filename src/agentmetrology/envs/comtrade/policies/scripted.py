"""Scripted behaviour profiles for L2, each reproducing a documented failure mechanism.

They are scripted policies, never models. Every profile except `off_by_one` walks the pages
the same way (get_task_info, then pages 1..n), so at L0, where the harness owns retries,
cleaning and the submission, they submit byte-identical payloads; at L2 they separate.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from agentmetrology.envs.comtrade.generator import ROW_FIELDS
from agentmetrology.envs.comtrade.payload import (
    RowCollector,
    RunLog,
    build_metadata,
    encode_payload,
)
from agentmetrology.envs.comtrade.policies.base import ComtradeScripted, is_fault
from agentmetrology.envs.comtrade.question import FaultNotice
from agentmetrology.records.policy import Brief, Decision, ToolCall
from agentmetrology.runtime.scripted import TimedScript, Wait

SubmitMode = Literal["rows", "empty", "fabricate", "none"]
MAX_RETRIES_PER_PAGE = 3


@dataclass(frozen=True, slots=True)
class Traits:
    """What a profile does differently from `careful`."""

    dedup: bool = True
    drop_totals: bool = True
    refetch: bool = True  # retry faulted pages and re-fetch to recover missing rows
    submit: SubmitMode = "rows"


@dataclass(slots=True)
class _Walk:
    """State of one extraction walk."""

    log: RunLog
    collector: RowCollector
    steps: int = 0
    remaining: int = 0
    total_pages: int | None = None
    total_rows: int | None = None
    reached_end: bool = False
    skipped: list[int] = field(default_factory=list)  # pages given up after their retries


def _absorb(w: _Walk, obs: dict[str, Any], page: int) -> None:
    w.log.page(page)
    w.collector.add(obs["rows"])
    w.total_pages = obs.get("total_pages", w.total_pages)
    w.total_rows = obs.get("total_rows", w.total_rows)


def _fetch(w: _Walk, page: int, attempt: int) -> ToolCall:
    w.steps += 1
    w.remaining -= 1
    w.log.step(w.steps, "fetch_page")
    return ToolCall("fetch_page", {"page": page})


def _room(w: _Walk, brief: Brief) -> bool:
    # Keep one step and one request in reserve for the submission.
    return w.remaining > 0 and w.steps < brief.max_steps - 1


def walk(brief: Brief, traits: Traits, w: _Walk) -> TimedScript:
    """Fetch pages 1..n in order; retry faults and recover missing rows when `refetch`."""
    page, attempt = 1, 1
    while _room(w, brief) and (w.total_pages is None or page <= w.total_pages):
        obs = yield _fetch(w, page, attempt)
        w.log.request(page, attempt, obs)
        if isinstance(obs, dict) and "rows" in obs:
            _absorb(w, obs, page)
            if obs.get("has_more") is not True:
                w.reached_end = True
                break
            page, attempt = page + 1, 1
        elif is_fault(obs) and traits.refetch and attempt <= MAX_RETRIES_PER_PAGE:
            wait = 2.0 ** attempt
            w.log.retry(obs.get("status"), attempt, wait)
            yield Wait(wait)
            attempt += 1
        elif is_fault(obs):
            w.log.skip(obs.get("status"), page)
            w.skipped.append(page)
            page, attempt = page + 1, 1
        else:
            return  # the budget is spent or the service refuses
    if not traits.refetch or not w.total_pages or not w.total_rows:
        return
    cycle = 0
    while len(w.collector.ids) < w.total_rows and _room(w, brief):
        if w.skipped:  # a page known to be missing first, until it comes
            page = w.skipped[0]
        else:  # drift or lost rows: re-fetch every page in turn until every id is seen
            page = cycle % w.total_pages + 1
            cycle += 1
        obs = yield _fetch(w, page, 1)
        w.log.request(page, 1, obs)
        if isinstance(obs, dict) and "rows" in obs:
            _absorb(w, obs, page)
            if w.skipped and w.skipped[0] == page:
                w.skipped.pop(0)
        elif not is_fault(obs):
            return
        elif w.skipped and w.skipped[0] == page:
            w.skipped.append(w.skipped.pop(0))  # the next known-missing page, then this one


def _payload(brief: Brief, traits: Traits, w: _Walk,
             policy: ComtradeScripted) -> dict[str, str]:
    rows = w.collector.rows
    if traits.submit == "empty":
        rows = []
    elif traits.submit == "fabricate":
        rows = _fabricate(brief, w.total_rows or 0, policy.rng)  # rng made only when needed
    meta = build_metadata(
        brief.task_id, brief.query, rows, totals_enabled=traits.drop_totals,
        totals_dropped=w.collector.totals_dropped, request_count=w.log.requests,
        request_stats={"total": w.log.requests, "retries": w.log.retries,
                       "by_status": dict(sorted(w.log.statuses.items()))},
        execution_time_seconds=brief.clock.now(),
    )
    return encode_payload(rows, meta, w.log.finish(w.reached_end))


def _fabricate(brief: Brief, n: int, gen: Any) -> list[dict[str, Any]]:
    """Invent n well-formed rows with ids that are not in the ground truth."""
    q = brief.query
    values = gen.integers(0, [1_000_000, 50_000, 10_000], size=(n, 3))
    return [
        dict(zip(ROW_FIELDS, (q["year"], q["reporter"], q["partner"], q["flow"], q["hs"],
                              q["hs"], int(v[0]), int(v[1]), int(v[2]),
                              f"{brief.task_id}-{900000 + i:06d}"), strict=True))
        for i, v in enumerate(values)
    ]


class ExtractionProfile(ComtradeScripted):
    """A profile defined by its traits; `careful` is the correct one."""

    def __init__(self, name: str, traits: Traits) -> None:
        super().__init__()
        self.name = f"scripted:{name}"
        self.traits = traits

    def script(self, brief: Brief) -> TimedScript:
        """get_task_info, walk the pages, then submit according to the traits."""
        w = _Walk(RunLog.start(brief.task_id),
                  RowCollector(dedup=self.traits.dedup, drop_totals=self.traits.drop_totals))
        w.steps = 1
        w.log.step(1, "get_task_info")
        info = yield ToolCall("get_task_info", {})
        w.remaining = int(info.get("requests_remaining", 0)) if isinstance(info, dict) else 0
        yield from walk(brief, self.traits, w)
        if self.traits.submit != "none":
            yield ToolCall("submit_results", _payload(brief, self.traits, w, self))

    def l1_decision(self, notice: FaultNotice) -> Decision:
        """Retry while budget remains, unless the profile never re-fetches."""
        if not self.traits.refetch:
            return "SKIP"
        return "RETRY" if notice.requests_remaining > 0 else "SKIP"


class OffByOne(ComtradeScripted):
    """Opens with page=0, re-issues it k times, then varies the argument or gives up."""

    name = "scripted:off_by_one"
    VARY_PROBABILITY = 0.5

    def script(self, brief: Brief) -> TimedScript:
        """Page 0 (k+1 times), then with a seeded coin either walk from page 1 or submit empty."""
        w = _Walk(RunLog.start(brief.task_id), RowCollector())
        w.remaining = 10**9  # this profile never reads the budget
        k = int(self.rng.integers(1, 4))
        for _ in range(k + 1):
            obs = yield _fetch(w, 0, 1)
            w.log.request(0, 1, obs)
            if not is_fault(obs):
                break
        traits = Traits()
        if self.rng.random() >= self.VARY_PROBABILITY:
            traits = Traits(submit="empty")  # gives up
        else:
            yield from walk(brief, traits, w)
        yield ToolCall("submit_results", _payload(brief, traits, w, self))


BEHAVIOURS: dict[str, Traits | None] = {
    "careful": Traits(),
    "off_by_one": None,
    "no_dedup": Traits(dedup=False),
    "keeps_totals": Traits(drop_totals=False),
    "single_pass": Traits(refetch=False),
    "empty_submit": Traits(submit="empty"),
    "fabricator": Traits(submit="fabricate"),
    "never_submits": Traits(submit="none"),
}


def scripted(name: str) -> ComtradeScripted:
    """Return a fresh scripted profile by name, or raise ValueError listing the names."""
    if name not in BEHAVIOURS:
        raise ValueError(f"unknown scripted behaviour {name!r}; known: {', '.join(BEHAVIOURS)}")
    traits = BEHAVIOURS[name]
    return OffByOne() if traits is None else ExtractionProfile(name, traits)
