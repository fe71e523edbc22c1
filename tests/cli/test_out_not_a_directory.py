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


def test_diagnose_refuses_a_file_out_before_its_judge_is_called(tmp_path: Path) -> None:
    # Before, `agm diagnose STORE --out afile --judge-model M` ran the whole analysis, the
    # judge's paid calls included, and only then failed to write.
    import itertools

    from typer.testing import CliRunner

    from agentmetrology.cli.main import app
    from diagnose.test_judge_audit import CAMPAIGN
    from support.fake_openai import FakeOpenAI, text
    from support.stores import record_campaign

    store = record_campaign(tmp_path, CAMPAIGN, "s")
    afile = tmp_path / "afile"
    afile.write_text("keep\n")
    with FakeOpenAI(itertools.repeat(lambda body: text("PASS"), 100)) as srv:
        res = CliRunner().invoke(app, ["diagnose", str(store), "--out", str(afile),
                                       "--judge-model", "j", "--base-url", srv.base_url,
                                       "--judge-calls", "1"])
        asked = len(srv.requests)
    assert res.exit_code == 2 and asked == 0
    assert f"--out {afile} is a file: give a directory" in res.stderr
    assert afile.read_text() == "keep\n"
