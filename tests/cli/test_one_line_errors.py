"""An error line stays one line when the path it names holds a newline: before, `agm diagnose
$'no\\nsuch' --out o` printed `error: no` and `such: not an agm evidence store ...` on two
lines (and `agm stats`, `agm archive audit` showed the newline as a space, a different path);
now the newline is shown as `\\n` (edges.display.one_line, in cli.errors' fail and fail_line and
in the stats and archive commands' own error lines)."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.agm_runs import agm, agm_process


def _one_line(res: object) -> str:
    code, out, err = (getattr(res, k) for k in ("returncode", "stdout", "stderr"))
    assert (code, out) == (2, ""), err
    assert err.count("\n") == 1 and err.endswith("\n") and "Traceback" not in err
    return str(err)


@pytest.mark.parametrize(("argv", "line"), [
    (["diagnose", "{p}", "--out", "{o}"],
     "error: {name}: not an agm evidence store (no ledger.sqlite)\n"),  # importer: its name
    (["export", "{p}", "--format", "csv"], "error: no evidence store at {shown} (no "
                                           "ledger.sqlite)\n"),
    (["stats", "summarize", "{p}.csv", "--value", "v", "--group", "g"],
     "agm stats: error: {shown}.csv: no such file\n"),
    (["archive", "audit", "{p}.json", "--out", "{o}"], "error: archive not found: {shown}.json\n"),
    (["archive", "leaderboard", "{p}.json", "--out", "{o}"], "error: {shown}.json: not found\n"),
])
def test_a_path_holding_a_newline_is_shown_on_one_line(tmp_path: Path, argv: list[str],
                                                       line: str) -> None:
    given = tmp_path / "no\nsuch"
    shown = str(given).replace("\n", "\\n")
    args = [a.format(p=given, o=tmp_path / "out") for a in argv]
    assert _one_line(agm(*args)) == line.format(shown=shown, name="no\\nsuch")


def test_a_usage_error_naming_such_a_path_is_one_line_in_a_process(tmp_path: Path) -> None:
    res = agm_process("evidence", "verify", str(tmp_path / "a\nb"))
    assert _one_line(res) == f"error: {tmp_path}/a\\nb is not an evidence store (no " \
                             "ledger.sqlite)\n"
