"""`agm archive audit`'s summary table: the graded-only score beside the stored one, and the
pass^k left out of it named once when every cell leaves out the same k."""

from __future__ import annotations

import io
import json
from pathlib import Path

from rich.console import Console

from agentmetrology.archive import audit_archive, load_archive
from agentmetrology.report.terminal.archive_tables import print_archive_audit


def _summary(tmp: Path, rows: list[dict], width: int = 80) -> str:
    """Return the summary printed for a JSONL archive of `rows`."""
    path = tmp / "runs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    doc = audit_archive(load_archive(path), [("archive", path)])
    out = io.StringIO()
    print_archive_audit(Console(file=out, width=width, color_system=None), doc, tmp)
    return out.getvalue()


def _row(line: str) -> str:
    """Return a table row's value cell."""
    return line.split("│")[2].strip()


def test_the_graded_only_score_is_printed_beside_the_stored_one(tmp_path: Path) -> None:
    """3 passes, 4 failures, 1 ungraded: stored 3/8 counts the ungraded as a failure, graded
    only 3/7; the table printed only 0.375, the number a tool dropping it (0.429) was not."""
    rows = [{"task": f"t{i}", "model": "m", "trial": 0, "grade": {"score": float(i < 3)}}
            for i in range(7)]
    rows.append({"task": "t7", "model": "m", "trial": 0, "grade": None})
    lines = {line.split("│")[1].strip(): _row(line)
             for line in _summary(tmp_path, rows).splitlines() if line.count("│") == 3}
    assert lines["pass / fail"] == "3 / 4" and lines["ungraded"] == "1"
    assert lines["stored score"] == "0.375" and lines["score over graded"] == "0.429"
    assert lines["bounds"] == "0.375 .. 0.500"


def test_pass_k_left_out_of_every_cell_alike_is_named_once(tmp_path: Path) -> None:
    """Cells that all left out k = 3 (six in a store of 3 targets x 2 levels) each had a line."""
    rows = [{"task": f"t{t}", "model": f"model-{m}", "trial": k, "grade": {"score": 1.0}}
            for m in range(3) for t in range(2) for k in range(6)]
    text = _summary(tmp_path, rows)
    assert "pass^k of all 3 cells for k = 3, 5 is in archive.json and report.md only" in text
    assert "pass^k (model-0)" not in text


def test_the_leaderboard_cost_column_says_it_is_per_simulation() -> None:
    """Its header read `cost` over 0.039, gpt-4.1 airline's agent cost per simulation (0.78 in
    all): a reader took it for the submission's cost."""
    from agentmetrology.report.terminal.archive_tables import print_leaderboard

    row = {"submission": "s", "reported": None, "recomputed": 0.5,
           "where_doing_nothing_fails": 0.429, "cost_unpriced": False,
           "agent_cost_per_simulation": 0.0392}
    out = io.StringIO()
    print_leaderboard(Console(file=out, width=80, color_system=None),
                      {"submissions": 1, "domains": {"airline": {"rows": [row]}}}, False)
    header = next(line for line in out.getvalue().splitlines() if "domain" in line)
    assert header.split("┃")[-2].strip() == "cost/sim"
