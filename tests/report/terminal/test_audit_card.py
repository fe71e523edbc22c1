"""The validity card on the terminal: names never cut at any width, every `not probed` says why.

Moved from tests/cli (the card's tables are rendered by report/terminal/audit_card.py).
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from agentmetrology.audit.env_audit import audit_env, seal
from agentmetrology.audit.targets.env import EnvTarget
from agentmetrology.envs.registry import get_env
from agentmetrology.records.canonical import to_plain
from agentmetrology.report.terminal.audit_card import card_tables, not_probed_lines
from support.card_text import assert_card_whole


@pytest.fixture(scope="module")
def card() -> dict[str, Any]:
    doc = seal(audit_env(EnvTarget(get_env("comtrade"), seeds=1), seed=0))
    return to_plain(doc["card"])


@pytest.mark.parametrize("width", [80, 90, 100])
def test_card_tables_fit_without_cutting_names(card: dict[str, Any], width: int) -> None:
    con = Console(file=io.StringIO(), width=width, highlight=False)
    for table in card_tables(con, card):
        con.print(table)
    assert_card_whole(con.file.getvalue(), card, width)  # type: ignore[attr-defined]


def test_rows_without_a_recorded_reason_say_so() -> None:
    card = {"configurations": [
        {"scorer": "s", "level": None, "rows": {"replay": {"status": "not probed"},
                                                "scorer_kind": {"status": "pass"}}}]}
    assert not_probed_lines(card) == ["not probed: replay (s): no reason recorded"]


def test_a_long_reason_is_cut_with_an_ellipsis_never_silently() -> None:
    # Before: cut at 160 characters without a mark, `... has not shown that it replay`.
    why = ("no rerun was scored: the scorer gave no score on either run of 36 of 36 reruns "
           "(INVALID or undecided); a scorer that scored nothing has not shown that it replays")
    card = {"configurations": [{"scorer": "s", "level": "L2", "rows": {
        "replay": {"status": "not probed", "evidence": {"reason": why}}}}]}
    assert len(why) == 161
    assert not_probed_lines(card) == [f"not probed: replay at L2 (s): {why[:160]}…"]


def _printed(tables: list[Any], width: int = 200) -> str:
    con = Console(file=io.StringIO(), width=width, highlight=False)
    for table in tables:
        con.print(table)
    return con.file.getvalue()  # type: ignore[attr-defined,no-any-return]


def _inspect_card(benchmark: str, scorers: list[str]) -> dict[str, Any]:
    cell = {"status": "not probed"}
    return {"benchmark": benchmark, "configurations": [
        {"scorer": s, "level": None, "licensed_claim": "no claim licensed",
         "rows": {k: cell for k in ("scorer_kind", "criterion_sensitivity",
                                    "ownership_completeness", "non_degeneracy", "replay")}}
        for s in scorers]}


def test_a_dict_scorer_key_in_brackets_is_printed_not_read_as_markup() -> None:
    # agent_threat_bench's scorer returns {security, utility}: each key is its own column,
    # `name[security]`; rich read `[security]` as a style tag and printed both as `name`.
    card = _inspect_card("tasks[1].py@qa", ["atb_scorer[security]", "atb_scorer[utility]"])
    text = _printed(card_tables(Console(width=200), card))
    assert "atb_scorer[security]" in text and "atb_scorer[utility]" in text
    assert "tasks[1].py@qa" in text
    narrow = Console(file=io.StringIO(), width=60, highlight=False)
    text = _printed(card_tables(narrow, card), 60)
    assert "not shown at this width: atb_scorer[utility]" in " ".join(text.split())


def test_census_scorer_keys_are_printed_not_read_as_markup(tmp_path: Path) -> None:
    from agentmetrology.inspect_ext.audit.census import summarize
    from agentmetrology.report.terminal.inspect_audit import print_census

    scorer = {"scorer": "inspect_evals/atb_scorer[security]", "kind": "shape",
              "criterion": "fail", "criterion_verdict": None, "empty_passed": 3,
              "empty_scored": 3, "claim": "self-report compliance"}
    rows = [{"benchmark": "inspect_evals/atb", "status": "probed", "samples": 3,
             "needs": None, "scorers": [scorer]}]
    con = Console(file=io.StringIO(), width=200, highlight=False)
    print_census(con, {"rows": rows, "summary": summarize(rows)}, [], tmp_path)
    table = con.file.getvalue().split("census.json")[0]  # type: ignore[attr-defined]
    assert "atb_scorer[security]" in table
