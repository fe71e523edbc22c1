"""`agm score` and `agm truth` in the library: checked inputs, one UserError each."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentmetrology.records.errors import UserError
from agentmetrology.scoring.offline import checked_profile, ground_truth, score_directory
from support.comtrade_runs import COMTRADE


def test_the_profile_defaults_to_the_first_and_bad_inputs_are_refused() -> None:
    assert checked_profile(COMTRADE, "T1_single_page", None) == COMTRADE.profiles[0]
    with pytest.raises(UserError, match="unknown task 'T99'"):
        checked_profile(COMTRADE, "T99", None)
    with pytest.raises(UserError, match="unknown profile 'nope'"):
        checked_profile(COMTRADE, "T1_single_page", "nope")


def test_an_empty_directory_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match=r"none of data\.jsonl"):
        score_directory(COMTRADE, tmp_path, "T1_single_page", 0, None)


def test_the_truth_is_the_environments_own() -> None:
    offline, prof = COMTRADE.offline, COMTRADE.profiles[0]
    assert offline is not None and offline.truth is not None
    note, rows = ground_truth(COMTRADE, "T1_single_page", 3, None)
    assert note == (offline.truth_note("T1_single_page", 3, prof) if offline.truth_note
                    else None)
    truth = list(rows())
    assert truth and truth == list(offline.truth("T1_single_page", 3, prof))
