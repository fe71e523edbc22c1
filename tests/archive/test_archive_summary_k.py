"""The `archive audit` summary's pass^k rows: every k when they fit, else the left-out k named.

Before, the summary showed k = 1, 2, 4, 8, ... and the last k only, so a 4-trial archive's
pass^3 was left out at any width without a word.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

from rich.console import Console

from agentmetrology.archive import audit_archive, load_archive
from agentmetrology.report.terminal.archive_tables import print_archive_audit


def _summary(tmp: Path, trials: int, width: int = 80,
             model: str = "m") -> tuple[str, list[dict]]:
    """Return the summary of a JSONL archive of 3 tasks x `trials`, and its pass^k rows."""
    path = tmp / f"k{trials}.jsonl"
    path.write_text("".join(
        json.dumps({"task": f"t{t}", "model": model, "trial": k,
                    "grade": {"score": 1.0 if k < trials - t else 0.0}}) + "\n"
        for t in range(3) for k in range(trials)), encoding="utf-8")
    doc = audit_archive(load_archive(path), [("archive", path)])
    out = io.StringIO()
    print_archive_audit(Console(file=out, width=width, color_system=None), doc, tmp)
    return out.getvalue(), doc["pass_hat_k"][0]["rows"]


def test_every_k_of_a_four_trial_archive_is_shown_at_80_columns(tmp_path: Path) -> None:
    text, rows = _summary(tmp_path, 4)
    # tasks pass 4, 3 and 2 of 4 trials: pass^3 = (1 + C(3,3)/C(4,3) + 0) / 3 = 1.25 / 3
    assert [r["k"] for r in rows] == [1, 2, 3, 4] and abs(rows[2]["stored"] - 1.25 / 3) < 1e-12
    assert text.count("k1=0.750, k2=0.556, k3=0.417, k4=0.333") == 2  # stored and upper
    assert "only" not in text


def test_k_left_out_at_a_narrow_width_are_named_with_where_they_are(tmp_path: Path) -> None:
    text, rows = _summary(tmp_path, 12)
    assert len(rows) == 12
    assert text.count("k1=0.917, k2=0.838, k4=0.697, k8=0.475,") == 2
    assert text.count("k12=0.333") == 2 and "k3=" not in text and "k11=" not in text
    assert "pass^k (m) for k = 3, 5-7, 9-11 is in archive.json and report.md only" in text
    wide, _ = _summary(tmp_path, 12, width=200)
    assert "k3=" in wide and "only" not in wide


def test_a_long_cell_name_leaving_out_no_k_names_none(tmp_path: Path) -> None:
    # A model name wider than the terminal left no room for any k: the row kept its only k
    # (pass^1 is never left out) and a line still said "for k =  is in archive.json ... only".
    text, rows = _summary(tmp_path, 1, model="m" * 90)
    assert [r["k"] for r in rows] == [1]
    assert text.count("k1=0.333") == 2
    assert "only" not in text and "for k =" not in text


def test_a_line_break_in_archive_text_cannot_forge_a_row_of_the_summary(tmp_path: Path) -> None:
    # Before, a model name's newline was printed as one: its second line sat in the measure
    # column as a row of its own ("forged stored score 0.999" under the real rows' names).
    text, _ = _summary(tmp_path, 1, width=200, model="m\nforged stored score 0.999")
    forged = [line for line in text.splitlines() if "forged" in line]
    assert forged and all("m\\nforged stored score 0.999" in line for line in forged), text
