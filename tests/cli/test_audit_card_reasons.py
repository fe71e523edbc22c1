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
    # only the claim licensed without a check bearing on it gets a line
    assert text.count("claim at ") == 1
    assert ("claim at L2 (ground_truth_f1_exact): model capability rests on criterion "
            "sensitivity pass (n = 20 samples compared), ownership completeness pass, replay "
            "pass; not checked: non degeneracy") in text



def test_a_claim_licensed_without_a_check_says_so_on_the_terminal(tmp_path: Path) -> None:
    # The tool worlds' model capability rests on criterion sensitivity, ownership completeness
    # and replay; their non-degeneracy is not probed (no AuditHooks.actions). The terminal
    # printed the claim and, apart, the row's reason, never that the claim went without it.
    res = agm("audit", "transaction", "--seeds", "0-2", "--out", str(tmp_path / "a"))
    assert res.returncode == 0, res.stderr
    text = " ".join(res.stdout.split())
    assert ("claim at L2 (goal, goal): model capability rests on criterion sensitivity pass "
            "(n = 6 samples compared), ownership completeness pass, replay pass; not checked: "
            "non degeneracy") in text
    report = (tmp_path / "a" / "report.md").read_text()
    assert ("Licensed claim of the shipped configuration (`L2|goal`): model capability. "
            "Licensed without checking: non degeneracy.") in report
