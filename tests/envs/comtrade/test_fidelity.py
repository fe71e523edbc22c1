"""Fidelity to the original release: legacy duplicate draws, seeded counts, published scores.

The per-task numbers pinned here come from the original release (the published score of two
frontier models on the legacy profile at L0 is 97.50; its rule baseline averages 96.8). At L0 the
harness owns every execution-critical decision, so "a model that fetches pages 1, 2, ... in
order" is any policy that asks for pages 1, 2, ... once each: `scripted:careful` does (it calls
get_task_info, then fetch_page 1, 2, ...; the harness retries the 429s, drops totals rows,
deduplicates and writes the harness log and metadata), and its totals equal the published ones.
The rule baseline is its own harness (its own log, no tool-call counts), whatever the level.
"""

from __future__ import annotations

from typing import Any

import pytest

from agentmetrology.envs.comtrade import ComtradeEnv
from agentmetrology.envs.comtrade.faults import (
    inject_duplicates_legacy,
    inject_duplicates_seeded,
)
from agentmetrology.envs.comtrade.tasks import TASKS
from agentmetrology.run.episode import run_one
from support.comtrade_runs import COMTRADE

PUBLISHED = ("T1_single_page", "T2_multi_page", "T3_duplicates", "T4_rate_limit_429",
             "T5_server_error_500", "T6_page_drift", "T7_totals_trap", "T8_mixed_faults",
             "T9_adaptive_adversary", "T10_constrained_budget")
# Judge totals of the original release, legacy profile, L0, pages fetched 1, 2, ... in order.
CAREFUL_L0 = (98.7, 98.7, 98.7, 95.7, 96.3, 94.7, 98.7, 97.3, 97.5, 98.7)
RULE = (98.0, 98.0, 98.0, 95.0, 95.7, 94.0, 98.0, 96.6, 96.9, 98.0)


def ids(obs: dict[str, Any]) -> list[int | str]:
    """Return a page's row numbers ('T' for a totals row)."""
    return ["T" if "TOTAL" in r["record_id"] else int(r["record_id"].rsplit("-", 1)[1])
            for r in obs["rows"]]


def page_rows(n: int) -> list[dict[str, Any]]:
    return [{"record_id": f"r{i}"} for i in range(n)]


# ---- legacy duplicate injection: the order of draws ------------------------------------------

def test_legacy_t8_pages_after_injection() -> None:
    # within = floor(20*0.10) = 2, cross = floor(20*0.05) = 1. Request 1 (page 1): position 3
    # gets row 0, position 1 gets row 1 (no change); no previous response, so no cross copy.
    # Request 3 (page 2, after the 429 on request 2): position 14 <- row 20, position 7 <- row 21,
    # then the cross copy draws its source first (row 1 of page 1), then position 15.
    env = ComtradeEnv("T8_mixed_faults", 0, "legacy")
    fetch = env.tools["fetch_page"]
    assert ids(fetch(page=1)) == [0, 1, 2, 0, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17,
                                  18, 19]
    assert fetch(page=2)["status"] == 429
    assert ids(fetch(page=2)) == [20, 21, 22, 23, 24, 25, 26, 21, 28, 29, 30, 31, 32, 33, 20, 1,
                                  36, 37, 38, 39]
    assert ids(fetch(page=3)) == [40, 41, 42, 43, 44, 45, 46, 47, 48, 41, 50, 51, 52, 53, 54, 40,
                                  56, 38, 58, 59]


def test_legacy_t9_pages_after_injection() -> None:
    # Page 4 (rate 0.14 -> within 2, cross 1): position 13 <- row 45 (position 0 before the cross
    # copy overwrites it), position 2 <- row 46, then position 0 <- row 41 of page 3.
    env = ComtradeEnv("T9_adaptive_adversary", 0, "legacy")
    pages = [ids(env.tools["fetch_page"](page=p)) for p in range(1, 6)]
    assert pages[0] == list(range(15))
    assert pages[1] == [15, 16, 15, *range(18, 30)]
    assert pages[2] == [*range(30, 40), 30, *range(41, 45)]
    assert pages[3] == [41, 46, 46, *range(48, 58), 45, 59]
    assert pages[4] == ["T", 60, 61, 62, 63, 64, 65, 45, 67, 68, 69, 61, 71, 60, 73, 74]


def test_legacy_within_copies_read_the_page_as_modified() -> None:
    # For counter 13 the first two draws of "T8_mixed_faults:dup:13" (randrange(20)) are 1 and 12:
    # j=0 copies row 0 onto position 1; j=1 then copies position 1, already row 0, onto 12.
    out = inject_duplicates_legacy("T8_mixed_faults", 13, page_rows(20), [], 0.10, 0.0)
    got = [r["record_id"] for r in out]
    assert got == ["r0", "r0", *[f"r{i}" for i in range(2, 12)], "r0",
                   *[f"r{i}" for i in range(13, 20)]]


def test_legacy_cross_draws_source_before_destination() -> None:
    # One cross copy from a 7-row previous response onto a 20-row page (no within copies): the
    # first draw picks the source (choice among 7), the second the destination (randrange(20)).
    previous = [{"record_id": f"p{i}"} for i in range(7)]
    out = inject_duplicates_legacy("T8_mixed_faults", 4, page_rows(20), previous, 0.0, 0.05)
    changed = [(i, r["record_id"]) for i, r in enumerate(out) if r["record_id"] != f"r{i}"]
    # Source first: choice among 7 -> p3, then randrange(20) -> 9. Destination first would
    # read the generator the other way round (randrange(20) -> 15, then 5): p5 at position 15.
    assert changed == [(9, "p3")]


def test_legacy_page_length_is_kept_and_empty_pages_untouched() -> None:
    assert inject_duplicates_legacy("T8_mixed_faults", 1, [], page_rows(3), 0.5, 0.5) == []
    out = inject_duplicates_legacy("T8_mixed_faults", 1, page_rows(20), page_rows(20), 0.4, 0.4)
    assert len(out) == 20


# ---- seeded duplicate counts: ceil(len * rate) -----------------------------------------------

def test_seeded_inserts_ceil_of_len_times_rate() -> None:
    # 25 rows: ceil(2.5) = 3 within and ceil(1.25) = 2 cross copies (floor would give 2 and 1).
    out, k = inject_duplicates_seeded("x", page_rows(25), page_rows(4), 0.10, 0.05)
    assert k == 5 and len(out) == 30
    out, k = inject_duplicates_seeded("x", page_rows(25), [], 0.10, 0.05)
    assert k == 3 and len(out) == 28


@pytest.mark.parametrize(("task_id", "lengths"), [
    # T3: 10 rows a page, ceil(0.8) = 1 within, ceil(0.3) = 1 cross from page 2 on.
    ("T3_duplicates", [11, 12, 7]),  # page 3 has 5 rows: ceil(0.4) = 1, ceil(0.15) = 1
    # T10: ceil(0.5) = 1 within, ceil(0.2) = 1 cross; floor would inject nothing.
    ("T10_constrained_budget", [11, 12, 12]),
    # T8: 20 rows, 2.0 and 1.0 exactly.
    ("T8_mixed_faults", [22, 23, 23]),
])
def test_seeded_page_lengths(task_id: str, lengths: list[int]) -> None:
    env = ComtradeEnv(task_id, 0)
    got = []
    for p in range(1, len(lengths) + 1):
        obs: dict[str, Any] = {}
        while "rows" not in obs:  # the seeded 429s are retried here
            obs = env.tools["fetch_page"](page=p)
        got.append(len(obs["rows"]))
    assert got == lengths


# ---- the published numbers -------------------------------------------------------------------

def test_careful_l0_legacy_judge_totals_match_the_original() -> None:
    runs = [run_one(COMTRADE, t, 0, "scripted:careful", "L0", profile="legacy") for t in PUBLISHED]
    totals = tuple(s.assessment("judge").score for s in runs)
    assert totals == CAREFUL_L0
    assert round(sum(totals) / len(totals), 2) == 97.50
    assert all(s.assessment("judge").components["robustness"] == 15.0 for s in runs[7:9])
    t8, t9 = runs[7], runs[8]
    assert t8.assessment("ground_truth").components["matched"] == 53
    assert t8.assessment("ground_truth").components["truth"] == 60
    assert round(t8.assessment("ground_truth").components["f1"], 3) == 0.938
    assert t8.assessment("judge").components["correctness"] == pytest.approx(28.6)
    assert t9.assessment("ground_truth").components["matched"] == 68
    assert t9.assessment("ground_truth").components["truth"] == 75
    assert round(t9.assessment("ground_truth").components["f1"], 3) == 0.951
    # the harness fetched pages 1, 2, ... in order (T8 repeats page 2 after the 429 only)
    pages = [e.args["page"] for e in t8.episode.events if e.name == "fetch_page"]
    assert pages == [1, 2, 2, 3]


def test_rule_baseline_legacy_judge_totals() -> None:
    totals = tuple(run_one(COMTRADE, t, 0, "rule", "L2", profile="legacy").assessment("judge").score
                   for t in PUBLISHED)
    assert totals == RULE
    assert round(sum(totals) / len(totals), 1) == 96.8


def test_published_tasks_are_the_first_ten() -> None:
    assert tuple(TASKS)[:10] == PUBLISHED
