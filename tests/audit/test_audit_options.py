"""`agm audit`'s option checks in the library: each bad option a UserError naming it."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentmetrology.audit.options import (
    check_writable,
    parse_budgets,
    seed_count,
    store_levels,
    user_scorer,
)
from agentmetrology.records.errors import UserError
from support.comtrade_runs import COMTRADE


def test_budgets_are_positive_counts_sorted_once() -> None:
    assert parse_budgets(" 16384,8192,8192 ") == [8192, 16384]
    with pytest.raises(UserError, match=r"positive token counts .* \(got '0'\)"):
        parse_budgets("8192,0")


def test_seeds_are_a_range_from_zero_of_at_most_a_hundred() -> None:
    assert seed_count("0-4") == 5
    with pytest.raises(UserError, match=r"give --seeds 0-1 \(got '3,4'\)"):
        seed_count("3,4")
    with pytest.raises(UserError, match=r"at most 100 seeds \(--seeds 0-99\)"):
        seed_count("0-100")
    with pytest.raises(UserError, match="repeats seed"):
        seed_count("0,0")


def test_store_selections_need_a_store_and_known_levels(tmp_path: Path) -> None:
    assert store_levels(COMTRADE, tmp_path, ["L2", "L2"], []) == ["L2"]
    assert store_levels(COMTRADE, tmp_path, [], ["c"]) is None
    with pytest.raises(UserError, match="--campaign selects what is read from --store"):
        store_levels(COMTRADE, None, [], ["c"])
    with pytest.raises(UserError, match=r"unknown level 'L9' \(comtrade has L0"):
        store_levels(COMTRADE, tmp_path, ["L9"], [])


def test_no_scorer_option_is_no_user_scorer() -> None:
    assert user_scorer(None, 1.0) is None


def test_an_unwritable_folder_is_refused_and_nothing_is_left(tmp_path: Path) -> None:
    check_writable(tmp_path / "a" / "b")
    assert not (tmp_path / "a").exists()  # the probe removed what it created
    (tmp_path / "file").write_text("x")
    with pytest.raises(UserError, match=r": give a directory$") as info:
        check_writable(tmp_path / "file" / "out")
    assert str(info.value) == (f"--out {tmp_path / 'file' / 'out'}: {tmp_path / 'file'} is a "
                               "file: give a directory")
