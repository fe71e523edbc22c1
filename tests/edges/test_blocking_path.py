"""`edges.files.blocking_path`: the one walk that says what stands where an output directory
must be made (a report's `--out`, an Inspect-log export's `--out`), each caller its message."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentmetrology.edges.files import blocking_path, refuse_non_directory
from agentmetrology.run.export_write import ExportError, check_inspect_destination


def test_the_first_non_directory_from_the_top_is_named(tmp_path: Path) -> None:
    afile = tmp_path / "f"
    afile.write_text("x")
    assert blocking_path(afile) == (afile, "a file")
    assert blocking_path(afile / "sub" / "rep") == (afile, "a file")
    assert blocking_path(tmp_path / "new" / "dir") is None
    assert blocking_path(tmp_path) is None
    os.mkfifo(tmp_path / "p")
    assert blocking_path(tmp_path / "p") == (tmp_path / "p", "a named pipe")


def test_both_callers_keep_their_messages(tmp_path: Path) -> None:
    afile = tmp_path / "f"
    afile.write_text("x")
    store = tmp_path / "store"
    store.mkdir()
    with pytest.raises(ExportError) as at:
        check_inspect_destination(store, afile)
    assert str(at.value) == (f"{afile} is a file; --format inspect writes .eval logs into a "
                             "directory")
    with pytest.raises(ExportError) as below:
        check_inspect_destination(store, afile / "logs")
    assert str(below.value) == (f"{afile} is a file, so --out {afile / 'logs'} cannot be made; "
                                "give a directory")
    with pytest.raises(ValueError) as report:
        refuse_non_directory(afile / "sub")
    assert str(report.value) == f"--out {afile / 'sub'}: {afile} is a file: give a directory"
    assert check_inspect_destination(store, tmp_path / "logs") == tmp_path / "logs"
