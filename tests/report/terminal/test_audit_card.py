"""The validity card on the terminal: names never cut at any width, every `not probed` says why.

Moved from tests/cli (the card's tables are rendered by report/terminal/audit_card.py).
"""

from __future__ import annotations

import io
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
