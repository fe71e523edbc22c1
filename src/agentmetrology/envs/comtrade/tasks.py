"""The ComtradeBench task table (docs/comtrade.md, "Tasks")."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, TypeGuard

Profile = Literal["seeded", "legacy"]
PROFILES: tuple[str, ...] = ("seeded", "legacy")


def is_profile(name: str) -> TypeGuard[Profile]:
    """Return True when `name` is one of the data profiles."""
    return name in PROFILES


def profile_of(name: str) -> Profile:
    """Return `name` as a data profile, or raise ValueError naming the profiles."""
    if not is_profile(name):
        raise ValueError(f"unknown profile {name!r}; known: {', '.join(PROFILES)}")
    return name

FaultFamily = Literal[
    "none", "duplicates", "rate_limit", "server_error", "drift", "totals", "mixed", "adaptive"
]


@dataclass(frozen=True, slots=True)
class Query:
    """The trade query of a task: reporter, partner, flow, hs code and year."""

    reporter: str
    partner: str
    flow: str
    hs: str
    year: int

    def as_dict(self) -> dict[str, str | int]:
        """Return the query as a JSON-able dict in field order."""
        return {
            "reporter": self.reporter,
            "partner": self.partner,
            "flow": self.flow,
            "hs": self.hs,
            "year": self.year,
        }


@dataclass(frozen=True, slots=True)
class ComtradeTask:
    """One task: its query, page size, request budget, row count and fault parameters."""

    task_id: str
    query: Query
    page_size: int
    budget: int
    rows: int
    family: FaultFamily
    description: str
    fail_429: tuple[int, ...] = ()
    fail_500: tuple[int, ...] = ()
    dup_rate: float = 0.0
    cross_rate: float = 0.0
    drift: bool = False
    totals: bool = False
    adaptive: bool = False

    @property
    def total_pages(self) -> int:
        """Return ceil(rows / page_size)."""
        return math.ceil(self.rows / self.page_size)


def _t(task_id: str, q: tuple[str, str, str, str, int], page_size: int, budget: int, rows: int,
       family: FaultFamily, description: str, **kw: object) -> ComtradeTask:
    return ComtradeTask(task_id, Query(*q), page_size, budget, rows, family, description,
                        **kw)  # type: ignore[arg-type]


TASKS: dict[str, ComtradeTask] = {
    t.task_id: t
    for t in (
        _t("T1_single_page", ("840", "156", "M", "85", 2021), 1000, 5, 800, "none",
           "Fetch all records from a single-page result."),
        _t("T2_multi_page", ("276", "250", "X", "84", 2022), 500, 50, 2345, "none",
           "Paginate through all pages (the last page is partial)."),
        _t("T3_duplicates", ("392", "410", "M", "87", 2020), 10, 50, 25, "duplicates",
           "Fetch all pages and remove duplicate records.", dup_rate=0.08, cross_rate=0.03),
        _t("T4_rate_limit_429", ("724", "826", "X", "30", 2019), 10, 60, 30, "rate_limit",
           "Fetch all pages; the service rate-limits (HTTP 429).", fail_429=(2,)),
        _t("T5_server_error_500", ("124", "36", "M", "12", 2023), 10, 60, 30, "server_error",
           "Fetch all pages; the service has transient server errors (HTTP 500).",
           fail_500=(2,)),
        _t("T6_page_drift", ("356", "704", "X", "09", 2018), 12, 60, 36, "drift",
           "Fetch all records; page contents drift between requests.", drift=True),
        _t("T7_totals_trap", ("826", "372", "M", "27", 2017), 250, 60, 750, "totals",
           "Fetch all records and drop summary (totals) rows.", totals=True),
        _t("T8_mixed_faults", ("484", "528", "M", "72", 2016), 20, 80, 60, "mixed",
           "Fetch all records under rate limits and duplicates.", fail_429=(2, 5),
           dup_rate=0.10, cross_rate=0.05),
        _t("T9_adaptive_adversary", ("276", "156", "X", "84", 2020), 15, 100, 75, "adaptive",
           "Fetch all records while an adversary escalates faults as you progress.",
           adaptive=True),
        _t("T10_constrained_budget", ("392", "410", "M", "90", 2021), 10, 50, 80, "duplicates",
           "Fetch all records and deduplicate within a tight request budget.",
           dup_rate=0.05, cross_rate=0.02),
        _t("T9_clean_ab", ("276", "156", "X", "84", 2020), 15, 100, 75, "none",
           "Fetch all records (substrate for the stress engine's A/B design)."),
    )
}

# The shape judge looks its efficiency baseline up by the *declared* task id.
JUDGE_BASELINES: dict[str, int] = {
    "T1_single_page": 1, "T2_multi_page": 5, "T3_duplicates": 3, "T4_rate_limit_429": 4,
    "T5_server_error_500": 4, "T6_page_drift": 3, "T7_totals_trap": 8, "T8_mixed_faults": 6,
    "T9_adaptive_adversary": 8, "T10_constrained_budget": 8,
}


class UnknownTaskError(KeyError):
    """Raised for a task id that is not in the table; the message lists the known ids."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown task"


def get_task(task_id: str) -> ComtradeTask:
    """Return the task with this id, or raise UnknownTaskError naming the known ids."""
    try:
        return TASKS[task_id]
    except KeyError:
        known = ", ".join(TASKS)
        raise UnknownTaskError(f"unknown task {task_id!r}; known tasks: {known}") from None
