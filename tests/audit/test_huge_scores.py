"""A user's scorer returning a huge finite number: INVALID beyond half the float range, and
every mean of scores within it finite, so audit.json can be written (it ended in a traceback:
`CanonicalError: non-finite float inf` from the probe means, `OverflowError` in the 2x2)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from statistics import fmean

import pytest

from agentmetrology.audit.env_audit import audit_env, seal
from agentmetrology.audit.episodes import Scored, _cell
from agentmetrology.audit.probes import summarize_probes
from agentmetrology.audit.score_mean import finite_mean, plain_mean
from agentmetrology.audit.scorer_override import coerce_score, load_scorer
from agentmetrology.audit.scorer_worker import MAX_SCORE
from agentmetrology.audit.targets.env import EnvTarget
from agentmetrology.envs.registry import get_env
from agentmetrology.records.canonical import canonical_json
from agentmetrology.report.audit_report import render_audit_report

BIG = 8e307  # below MAX_SCORE: a score the audit keeps


@pytest.mark.parametrize("value", [1e308, -1e308, sys.float_info.max, 10**308])
def test_a_score_beyond_half_the_float_range_is_invalid(value: float) -> None:
    out = coerce_score(value)
    assert (out.value, out.status) == (None, "INVALID")
    assert out.message == (f"scorer returned {float(value):g}: beyond ±8.99e+307 (half the "
                           f"float range, so differences of scores stay finite)")


def test_scores_up_to_half_the_float_range_are_kept() -> None:
    assert sys.float_info.max / 2 == MAX_SCORE
    assert coerce_score(MAX_SCORE).value == MAX_SCORE
    assert coerce_score(-BIG).value == -BIG


def test_means_of_huge_scores_are_finite() -> None:
    assert plain_mean([BIG, BIG, BIG]) == BIG
    assert finite_mean([MAX_SCORE] * 5) == pytest.approx(MAX_SCORE, rel=1e-15)
    assert finite_mean([BIG, -BIG, BIG]) == pytest.approx(BIG / 3)
    # Ordinary scores keep the formula each stage always used, to the last bit.
    vals = [0.1, 0.2, 0.7]
    assert finite_mean(vals) == fmean(vals)
    assert plain_mean(vals) == sum(vals) / len(vals)


def test_probe_means_and_the_2x2_cell_of_huge_scores_are_finite() -> None:
    cells = [{"probe": "correct", "score": BIG, "truth": 1.0, "status": "ok"}] * 3
    assert summarize_probes(cells)[0]["score_mean"] == BIG
    runs = [Scored("a", True, 1.0, BIG), Scored("a", True, 1.0, BIG),
            Scored("b", True, 0.0, -BIG), Scored("b", True, 0.0, -BIG)]
    cell = _cell(runs, 1.0, use_truth=False)
    assert cell["target_means"] == {"a": BIG, "b": -BIG}
    assert cell["spread"] == 2 * BIG and cell["mean"] == 0.0


def test_an_audit_with_a_huge_scorer_writes_its_json_and_readable_reports(
        tmp_path: Path) -> None:
    path = tmp_path / "huge.py"
    path.write_text("def score(task_id, seed, submission):\n    return 8e307\n")
    with load_scorer(f"{path}:score") as scorer:
        target = EnvTarget(get_env("permission"), seeds=3, scorer=scorer,
                           scorer_label=scorer.label)
        doc = seal(audit_env(target, seed=0))
    text = canonical_json(doc)
    means = json.loads(text)["card"]["configurations"][0]["rows"]["criterion_sensitivity"][
        "evidence"]["score_mean_by_probe"]
    assert set(means.values()) == {BIG}
    # report.md printed 8e307 as 80000000...0000.000 (309 characters) in every mean cell
    markdown, html = render_audit_report(json.loads(text))
    assert "| `careless` | 3 | 8e+307 | 8e+307 | 0 | 0.000 |" in markdown
    for report in (markdown, html):
        assert re.search(r"\d{20}", report) is None
