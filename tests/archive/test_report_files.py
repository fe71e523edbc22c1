"""A report directory's files are read as archives are: bounded, regular files only, so a
hostile report is one line (`agm evidence qualify`), never a traceback or a wait."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentmetrology.archive.report_qualify import read_binding, read_report
from agentmetrology.records.errors import UserError


def test_a_report_nested_too_deeply_is_a_user_error(tmp_path: Path) -> None:
    (tmp_path / "experiment.json").write_text("[" * 100_000)  # was: a RecursionError
    with pytest.raises(UserError, match=r"experiment.json: not a readable report \(JSON nested "
                                        r"too deeply\)"):
        read_report(tmp_path)


def test_a_binding_that_is_a_named_pipe_is_none_not_a_wait(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "evidence.json")  # was: open() blocked until a writer came
    assert read_binding(tmp_path) is None
    (tmp_path / "evidence.json").unlink()
    (tmp_path / "evidence.json").write_text("{" * 100_000)
    assert read_binding(tmp_path) is None
