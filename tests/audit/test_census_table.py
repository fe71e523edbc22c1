"""`agm audit census` on the terminal: a table at 80 columns (identifiers whole), the reasons of
what was not probed below it, and no Python dict."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

AGM = Path(sys.executable).with_name("agm")  # the installed entry point, as a user runs it


def test_the_census_prints_a_table_that_fits_80_columns(tmp_path: Path) -> None:
    res = subprocess.run([str(AGM), "audit", "census", "--tasks",
                          "builtin:comtrade,inspect_evals/nonexistent_x", "--limit", "3",
                          "--out", str(tmp_path / "c")], capture_output=True, text=True,
                         env={**os.environ, "COLUMNS": "80"}, timeout=600, check=False)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines), [x for x in lines if len(x) > 80]
    assert "{'" not in res.stdout and "kinds: shape 1;" in res.stdout
    row = next(x for x in lines if "builtin:comtrade" in x and "│" in x)
    assert "fail" in row and "self-report compliance" in row  # criterion and claim stay
    assert any("inspect_evals/nonexistent_x" in x and "not probed" in x for x in lines)
    text = " ".join(x.strip() for x in lines)
    assert "not shown at this width: scorer, do-nothing (see census.json)" in text
    assert "not probed: inspect_evals/nonexistent_x needs a working task load: no Inspect" \
        in text
