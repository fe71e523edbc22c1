"""`agm audit ENV` refuses what it cannot honour, in one line, before any work: options of the
bfcl audit alone (they were silently ignored) and an --out that is a file (mkdir's "File
exists" was all it said)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentmetrology.cli.main import app


@pytest.mark.parametrize(("extra", "named"), [
    (["--category", "simple"], "--category"),
    (["--limit", "3"], "--limit"),
    (["--category", "simple", "--limit", "3"], "--category and --limit"),
])
def test_bfcl_options_on_an_environment_are_refused(tmp_path: Path, extra: list[str],
                                                    named: str) -> None:
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["audit", "comtrade", "--seeds", "0-0", "--out", str(out),
                                   *extra])
    assert res.exit_code == 2
    assert res.stderr.strip() == (f"error: {named} apply to `agm audit bfcl` only; an "
                                  "environment's audit takes --seeds: drop them")
    assert not out.exists()  # refused before the output folder was made


def test_an_out_that_is_a_file_says_give_a_directory(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("kept")
    for out, said in ((afile, f"--out {afile} is a file"),
                      (afile / "sub", f"--out {afile / 'sub'}: {afile} is a file")):
        res = CliRunner().invoke(app, ["audit", "comtrade", "--seeds", "0-0", "--out",
                                       str(out)])
        assert res.exit_code == 2
        assert res.stderr.strip() == f"error: {said}: give a directory"
    assert afile.read_text() == "kept"
