"""Every `not probed` on the terminal card says why (the report and card.json already did).

The card's own unit test is tests/report/terminal/test_audit_card.py.
"""

from __future__ import annotations

from pathlib import Path

from support.agm_runs import agm


def test_the_demo_card_says_why_non_degeneracy_was_not_probed(tmp_path: Path) -> None:
    res = agm("audit", "comtrade", "--seeds", "0-1", "--out", str(tmp_path / "a"))
    assert res.returncode == 0, res.stderr
    text = " ".join(res.stdout.split())  # lines fold at the terminal's width
    for level in ("L0", "L2"):
        assert (f"not probed: non degeneracy at {level} (shape_judge, ground_truth_f1_exact): "
                "no model targets") in text

