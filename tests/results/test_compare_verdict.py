"""`agm stats compare` carries its verdict in the JSON; the terminal only renders it.

Found (session 47): "the difference is not confirmed" was decided in the terminal renderer
(report/terminal/stats_compare.py) from `label` and `holm_rejects`; `--json` carried neither the
verdict nor `minimum`, so a JSON reader could not tell "insufficient evidence" (a label the
minimum withholds) from a label, nor a 'different' the sign-flip test does not confirm.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from rich.console import Console

from agentmetrology.report.terminal.stats_compare import print_comparison
from agentmetrology.results import ComparisonRequest, build_comparison
from agentmetrology.stats import compare_paired
from agentmetrology.stats.equivalence import SIGN_FLIP_MINIMUM
from support.results_rows import row, write_rows

# 8 tasks: the bootstrap's 95% interval excludes 0, the exact sign-flip p is 16/256 = 0.0625
UPS = [0.12, -0.02, 0.09, -0.04, -0.02, 0.26, 0.28, 0.12]


def _doc(tmp_path: Path, ups: list[float]) -> dict[str, Any]:
    rows = [row("rule", f"t{i}", 0, 0.5) for i in range(len(ups))]
    rows += [row("llm", f"t{i}", 0, 0.5 + d) for i, d in enumerate(ups)]
    return build_comparison(ComparisonRequest(
        source=str(write_rows(tmp_path / "rows.jsonl", rows)), group="agent", a="rule",
        bs=("llm",), values=("ground_truth.f1",), pair_by=("task", "seed")))


def _printed(doc: dict[str, Any]) -> str:
    buf = io.StringIO()
    print_comparison(doc, Console(file=buf, width=200, color_system=None))
    return " ".join(buf.getvalue().replace("│", " ").split())


def test_an_unconfirmed_difference_is_the_json_verdict(tmp_path: Path) -> None:
    doc = _doc(tmp_path, UPS)
    c = doc["comparisons"][0]
    assert c["result"]["equivalence"]["label"] == "different" and not c["holm_rejects"]
    v = c["verdict"]
    assert (v["verdict"], v["text"], v["n"], v["counted"], v["minimum"], v["confirmed"]) == (
        "different, but not confirmed", "different, but not confirmed (n = 8 pairs)", 8,
        "pairs", SIGN_FLIP_MINIMUM, False)
    assert doc["verdict"] == v  # the top level mirrors the first comparison
    assert "verdict different, but not confirmed (n = 8 pairs)" in _printed(doc)


def test_a_confirmed_difference_is_different(tmp_path: Path) -> None:
    doc = _doc(tmp_path, [abs(d) for d in UPS])
    v = doc["comparisons"][0]["verdict"]
    assert (v["verdict"], v["confirmed"], v["sufficient"]) == ("different", True, True)
    assert "not confirmed" not in _printed(doc)


def test_below_the_minimum_the_json_says_insufficient_and_what_it_needs(tmp_path: Path) -> None:
    doc = _doc(tmp_path, [0.2, 0.3, 0.25, 0.4, 0.1])  # 5 pairs: the label needs 6
    c = doc["comparisons"][0]
    eq = c["result"]["equivalence"]
    assert (eq["label"], eq["minimum"], eq["n"]) == ("insufficient evidence", 6, 5)
    v = c["verdict"]
    assert (v["verdict"], v["text"], v["sufficient"], v["confirmed"]) == (
        "insufficient evidence", "insufficient evidence (n = 5 pairs, needs 6)", False, None)


def test_the_terminal_renders_the_verdict_it_is_given(tmp_path: Path) -> None:
    # one source of truth: the terminal prints the document's verdict, it decides none
    doc = _doc(tmp_path, UPS)
    doc["comparisons"][0]["verdict"] = {**doc["comparisons"][0]["verdict"],
                                        "verdict": "inconclusive", "text": "marker (n = 8 pairs)"}
    out = _printed(doc)
    assert "verdict marker (n = 8 pairs)" in out and "not confirmed" not in out


def test_the_equivalence_record_names_its_minimum() -> None:
    res = compare_paired([0.5] * 8, [0.6] * 8, minimum=SIGN_FLIP_MINIMUM)
    assert res.equivalence.minimum == 6 and res.to_dict()["equivalence"]["minimum"] == 6
    assert compare_paired([0.5] * 8, [0.6] * 8).to_dict()["equivalence"]["minimum"] == 0


def test_a_minimum_is_a_count() -> None:
    import pytest

    from agentmetrology.stats import equivalence

    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="minimum must be an integer >= 0"):
            equivalence([0.5] * 8, [0.6] * 8, minimum=bad)  # type: ignore[arg-type]


def test_the_verdict_carries_the_interval_its_label_read(tmp_path: Path) -> None:
    # --confidence 0.99: the label reads the 95% interval (the spec's rule), which excludes 0;
    # the verdict carried the 99% interval of the mean difference, which covers it: "different"
    # beside [-0.000015, 0.127] in one record
    ups = [0.06, 0.08, 0.07, 0.17, -0.04, 0.1, -0.01, -0.07, 0.18, 0.11]
    rows = [row("rule", f"t{i}", 0, 0.5) for i in range(len(ups))]
    rows += [row("llm", f"t{i}", 0, 0.5 + d) for i, d in enumerate(ups)]
    doc = build_comparison(ComparisonRequest(
        source=str(write_rows(tmp_path / "rows.jsonl", rows)), group="agent", a="rule",
        bs=("llm",), values=("ground_truth.f1",), pair_by=("task", "seed"), confidence=0.99))
    c = doc["comparisons"][0]
    lo99 = c["result"]["difference"]["interval"][0]
    assert lo99 <= 0 and c["verdict"]["verdict"] == "different"
    assert c["verdict"]["interval"] == c["result"]["equivalence"]["interval"]
    assert c["verdict"]["interval"][0] > 0 and c["verdict"]["confidence"] == 0.95
