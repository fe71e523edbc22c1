"""`--out` of `agm diagnose` / `agm experiment report` that is a file says so and what to give.

Before, `--out afile` failed in mkdir with `cannot write the report to afile: File exists` (and
`cannot write into afile: File exists` for diagnose), which gives no fix; a file above --out gave
`Not a directory`. Both are refused before anything is rendered, and the file is untouched.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentmetrology.records.errors import UserError
from agentmetrology.report.analysis_files import write_diagnose, write_experiment

WRITERS = [write_diagnose, write_experiment]


@pytest.mark.parametrize("write", WRITERS)
def test_an_out_that_is_a_file_is_refused(tmp_path: Path,
                                          write: Callable[..., Any]) -> None:
    afile = tmp_path / "afile"
    afile.write_text("keep\n")
    with pytest.raises(UserError) as info:
        write(afile, {}, {})  # refused before the (empty) analysis is rendered
    assert str(info.value) == f"--out {afile} is a file: give a directory"
    with pytest.raises(UserError) as below:
        write(afile / "sub" / "rep", {}, {})
    assert str(below.value) == f"--out {afile}/sub/rep: {afile} is a file: give a directory"
    assert afile.read_text() == "keep\n" and os.listdir(tmp_path) == ["afile"]


def test_an_out_that_is_a_named_pipe_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(UserError, match=r" is a named pipe: give a directory$"):
        write_experiment(fifo, {}, {})
