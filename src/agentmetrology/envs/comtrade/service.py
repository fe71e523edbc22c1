"""The per-episode ComtradeBench service: request counter, faults, paging and one submission."""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agentmetrology.envs.comtrade import encoded, faults
from agentmetrology.envs.comtrade.generator import (
    row_dicts,
    row_int_sums,
    row_tuples,
    totals_row,
    tuple_sums,
)
from agentmetrology.envs.comtrade.tasks import ComtradeTask, Profile
from agentmetrology.stress.adversary import Perturbation

Observation = dict[str, Any]
Row = dict[str, Any]
_KIND = operator.attrgetter("kind")  # `kind in map(_KIND, ...)`: no generator frame per step
BUDGET_ERROR = "Request limit exceeded for this episode."
ALREADY_SUBMITTED = "Already submitted. Only one submission per episode is allowed."
MAX_SUBMISSION_BYTES = 8 * 1024 * 1024  # a tool limit: larger payloads get an error observation
MAX_PAGE_SIZE = 10_000
DEFAULT_PAGE_SIZE = 500  # fetch's default: ignored, as any plain page size is
_REASONS = {404: "Not Found", 422: "Unprocessable Entity", 429: "Too Many Requests",
            500: "Internal Server Error"}


def http_error(code: int, detail: str = "", *, retry: bool = True) -> Observation:
    """Return the HTTP-style error envelope `{status, error, retry}` the tools emit."""
    msg = f"HTTP Error {code}: {_REASONS.get(code, 'Error')}"
    if detail:
        msg += f" ({detail})"
    return {"status": code, "error": msg, "retry": retry}


@dataclass(slots=True)
class Submission:
    """The one submission of an episode, as the three strings the agent sent."""

    data_jsonl: str
    metadata_json: str
    run_log: str

    def as_dict(self) -> dict[str, str]:
        """Return the submission as a plain dict."""
        return {"data_jsonl": self.data_jsonl, "metadata_json": self.metadata_json,
                "run_log": self.run_log}


class ComtradeService:
    """State of one episode: counter, fired faults, last response and the submission."""

    def __init__(self, task: ComtradeTask, seed: int | None, profile: Profile = "seeded",
                 *, honest_422: bool = False) -> None:
        self.task = task
        self.seed = seed
        self.profile: Profile = profile
        self.budget = task.budget
        self.requests_used = 0
        self.honest_422 = honest_422  # ablation: a 422 that says retry: false
        self.fired: set[tuple[int, int]] = set()
        self.last_rows: list[dict[str, Any]] = []
        self.submission: Submission | None = None
        self._rows = row_tuples(task.task_id, None if profile == "legacy" else seed, profile)
        self._templates: list[dict[str, Any]] | None = None  # row dicts, made on first drift
        self._fail_429, self._fail_500 = faults.fail_lists(task, seed, profile)
        # The adversary intents the last fetch applied (a budget change, a fault, a corruption,
        # a totals row): an intent the response never met (the budget was spent, the page was
        # refused, another fault came first) is not among them (stress/wrapper.py).
        self.applied: list[Perturbation] = []

    # -- tools ---------------------------------------------------------------------------------
    def task_info(self) -> Observation:
        """Return the task description, query, constraints and the budget so far."""
        t = self.task
        return {
            "task_id": t.task_id,
            "description": t.description,
            "query": t.query.as_dict(),
            "constraints": {
                "page_size": t.page_size,
                "max_requests": self.budget,
                "pages_are_1_indexed": True,
                "one_submission_per_episode": True,
            },
            "requests_used": self.requests_used,
            "requests_remaining": max(self.budget - self.requests_used, 0),
        }

    def fetch(self, page: Any, page_size: Any = DEFAULT_PAGE_SIZE,
              perturbations: Sequence[Perturbation] = ()) -> Observation:
        """Serve one page request, applying the task's faults and any adversary intents."""
        if perturbations or self.applied:
            self.applied = []
        for p in perturbations:
            if p.kind == "budget":
                self.budget = max(self.budget + p.budget_delta, 0)
                self.applied.append(p)
        if self.requests_used >= self.budget:
            return {"error": BUDGET_ERROR}  # not counted
        self.requests_used += 1
        counter = self.requests_used
        fault = self._fault(counter, page, perturbations)
        if fault is not None:
            return fault
        # An int page >= 1 and the default page size need no check (every usual call).
        invalid = "" if type(page) is int and page >= 1 else _validate(page)
        if invalid:
            return http_error(422, invalid, retry=not self.honest_422)
        out = self._serve(counter, page, perturbations)
        if page_size is not DEFAULT_PAGE_SIZE and not _plain_page_size(page_size):
            # Accepted and ignored, as the spec says; the note tells the caller why.
            out["note"] = (f"page_size {page_size!r} ignored: the task's page size "
                           f"{self.task.page_size} applies")
        return out

    def submit(self, data_jsonl: Any, metadata_json: Any, run_log: Any = "") -> Observation:
        """Accept the episode's one submission; later calls get an error observation."""
        if self.submission is not None:
            return {"error": ALREADY_SUBMITTED}
        texts = (data_jsonl, metadata_json, run_log)
        if not (isinstance(data_jsonl, str) and isinstance(metadata_json, str)
                and isinstance(run_log, str)):
            for name, value in zip(("data_jsonl", "metadata_json", "run_log"), texts,
                                   strict=True):
                if not isinstance(value, str):
                    return {"error": f"{name} must be a string, got {type(value).__name__}; "
                                     "nothing was submitted"}
        if data_jsonl.isascii() and metadata_json.isascii() and run_log.isascii():
            size = len(data_jsonl) + len(metadata_json) + len(run_log)  # the usual payload
        else:
            size = sum(len(s.encode("utf-8", "surrogatepass")) for s in texts)
        if size > MAX_SUBMISSION_BYTES:
            return {"error": f"submission too large: {size} bytes > {MAX_SUBMISSION_BYTES}; "
                             "nothing was submitted"}
        self.submission = Submission(data_jsonl, metadata_json, run_log)
        return {"status": "accepted", "lines_received": non_blank_lines(data_jsonl),
                "task_id": self.task.task_id}

    # -- internals -----------------------------------------------------------------------------
    def _fault(self, counter: int, page: Any,
               perturbations: Sequence[Perturbation]) -> Observation | None:
        for p in perturbations:
            if p.kind == "fault":
                self.applied.append(p)
                return http_error(p.status or 429)
        # the task's fail lists, 429 first (no tuple of pairs built per request)
        if counter in self._fail_429 and (429, counter) not in self.fired:
            self.fired.add((429, counter))
            return http_error(429)
        if counter in self._fail_500 and (500, counter) not in self.fired:
            self.fired.add((500, counter))
            return http_error(500)
        if (self.task.adaptive and self.profile == "legacy" and isinstance(page, int)
                and page > 3 and counter % 3 == 0 and (429, counter) not in self.fired):
            self.fired.add((429, counter))
            return http_error(429)
        return None

    def _serve(self, counter: int, page: int,
               perturbations: Sequence[Perturbation]) -> Observation:
        t = self.task
        ps = t.page_size
        total_pages = math.ceil(t.rows / ps)
        start = (page - 1) * ps
        if t.drift:
            # Drift re-serves every row many times: copy a dict built once per episode.
            if self._templates is None:
                self._templates = row_dicts(self._rows)
            rows = faults.drift_rows(self._templates,
                                     faults.drift_label(t, self.seed, self.profile, counter),
                                     start, ps)
        else:
            rows = row_dicts(self._rows[start:start + ps])
        rows, added = self._duplicates(counter, page, rows, perturbations)
        self.last_rows = rows
        add_totals = t.totals or (t.adaptive and self.profile == "legacy" and page > 4)
        add_totals = add_totals or (bool(perturbations)  # most calls have none
                                    and "totals" in map(_KIND, perturbations))
        if add_totals and rows:
            if perturbations:  # the totals intents met a page
                self.applied.extend(p for p in perturbations if p.kind == "totals")
            # Rows that no fault replaced or removed are the generated slice's plus the copies
            # inserted: its tuples and the copies give the same sums without reading the page.
            sums = None if t.drift or added is None \
                else _sums_with(self._rows[start:start + ps], added)
            rows = [totals_row(t, page, rows, sums), *rows]
        return {"rows": rows, "page": page, "page_size": ps, "total_pages": total_pages,
                "total_rows": t.rows, "has_more": page < total_pages, "task_id": t.task_id}

    def _duplicates(self, counter: int, page: int, rows: list[Row],
                    perturbations: Sequence[Perturbation]) -> tuple[list[Row], list[Row] | None]:
        """Return the page after its duplicate faults and the copies they inserted.

        The copies are None once a fault overwrote or dropped rows (legacy and overwrite
        duplicates, drops): the page is then not the served rows plus insertions.
        """
        t = self.task
        prev = self.last_rows
        if self.profile == "legacy":
            rate, cross = t.dup_rate, t.cross_rate
            if t.adaptive:
                rate = min(0.05 + 0.03 * (page - 1), 0.40)
                cross = rate / 2
            if rate or cross:
                return faults.inject_duplicates_legacy(t.task_id, counter, rows, prev, rate,
                                                       cross), None
            return rows, []
        added: list[Row] | None = []
        if t.dup_rate or t.cross_rate:
            rows, added = faults.insert_copies(f"{t.task_id}:dup:{self.seed}:{counter}", rows,
                                               prev, t.dup_rate, t.cross_rate)
        for p in perturbations:
            if p.kind == "corrupt" and p.corruption == "duplicate" and p.detail.get("overwrite"):
                # The original's realisation (B2): copies overwrite rows, so rows are lost.
                rows = faults.inject_duplicates_legacy(t.task_id, counter, rows, prev, p.rate,
                                                       p.rate / 2)
                added = None
                self.applied.append(p)
            elif p.kind == "corrupt" and p.corruption == "duplicate" and p.rate > 0:
                rows, copies = faults.insert_copies(f"{t.task_id}:adv-dup:{self.seed}:{counter}",
                                                    rows, prev, p.rate, p.rate / 2)
                added = None if added is None else added + copies
                self.applied.append(p)
            elif p.kind == "corrupt" and p.corruption == "drop" and p.rate > 0:
                rows = faults.drop_rows(f"{t.task_id}:adv-drop:{self.seed}:{counter}", rows,
                                        p.rate)
                added = None
                self.applied.append(p)
        return rows, added


def _sums_with(tuples: Sequence[tuple[Any, ...]], added: list[Row]) -> tuple[int, int, int] | None:
    """Return the column sums of the generated tuples plus the inserted copies' (None when a
    copy's values are not all ints: the page is then summed as totals_row does)."""
    extra = row_int_sums(added) if added else (0, 0, 0)
    if extra is None:
        return None
    v, w, q = tuple_sums(tuples)
    return v + extra[0], w + extra[1], q + extra[2]


# The ASCII characters other than "\n" that str.splitlines splits on or str.strip strips.
_OTHER_SPACE = (" ", "\t", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f")


def non_blank_lines(text: str) -> int:
    """Return sum(map(bool, map(str.strip, text.splitlines()))): the lines an agent sent.

    The text the encoder just wrote (encoded.note: every model-free agent's submission) has
    its count already. ASCII text whose only whitespace is "\n" (compact JSONL, every large
    payload) has those lines as the non-empty pieces of split("\n"), found without stripping
    each line.
    """
    noted = encoded.line_count(text)
    if noted is not None:
        return noted
    if text.isascii() and not any(map(text.__contains__, _OTHER_SPACE)):
        pieces = text.split("\n")  # faster than str.count("\n") on a long text
        return len(pieces) - pieces.count("")
    return sum(map(bool, map(str.strip, text.splitlines())))


def _validate(page: Any) -> str:
    """Return why the page argument is invalid, or '' when it is fine."""
    if isinstance(page, bool) or not isinstance(page, int):
        return f"page must be an integer >= 1, got {page!r}"
    if page < 1:
        return f"page must be >= 1 (pages are 1-indexed), got {page}"
    return ""


def _plain_page_size(page_size: Any) -> bool:
    """Return True for a page_size that needs no note (absent, or an int in 1..MAX)."""
    if type(page_size) is int:  # the usual explicit size, checked without isinstance
        return 1 <= page_size <= MAX_PAGE_SIZE
    return page_size is None or (not isinstance(page_size, bool) and isinstance(page_size, int)
                                 and 1 <= page_size <= MAX_PAGE_SIZE)
