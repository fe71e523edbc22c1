"""The audit report renders only from audit.json, guards its numbers, and opens in Chromium."""

import json
import os
import re
import shutil
import subprocess
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentmetrology.audit.env_audit import audit_env, seal
from agentmetrology.audit.targets.env import EnvTarget
from agentmetrology.cli.main import app
from agentmetrology.envs.registry import get_env
from agentmetrology.report.audit_report import render_audit_report
from agentmetrology.report.numberguard import NumberGuardError

ComtradeTarget = partial(EnvTarget, get_env("comtrade"))


@pytest.fixture(scope="module")
def doc() -> dict[str, Any]:
    return seal(audit_env(ComtradeTarget(seeds=1)))


def test_report_has_card_probes_2x2_and_spectrum(doc: dict) -> None:
    md, html = render_audit_report(doc)
    for text in (md, html):
        assert "Validity card" in text and "self-report compliance" in text
        assert "model capability" in text
        assert "Forged-submission probes" in text and "Joint intervention" in text
        assert "Reliability spectrum" in text
    assert "<svg" in html and "worst case" in html
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "<script" not in html and "https://" not in html


def test_report_is_rendered_from_the_json_alone(doc: dict) -> None:
    # the same JSON round-tripped through a file gives the same report
    again = json.loads(json.dumps(doc))
    assert render_audit_report(again) == render_audit_report(doc)


def test_number_guard_refuses_a_number_not_in_the_json(doc: dict,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from agentmetrology.report import audit_report

    original = audit_report._card

    def card_with_a_made_up_number(d: Any, source: dict) -> None:
        original(d, source)
        d.p("The judge agrees with ground truth 98.6% of the time.")

    monkeypatch.setattr(audit_report, "_card", card_with_a_made_up_number)
    with pytest.raises(NumberGuardError, match=r"98\.6"):
        render_audit_report(doc)


def test_cli_audit_writes_artifacts_and_prints_card(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["audit", "comtrade", "--out", str(tmp_path),
                                      "--seeds", "0-0", "--json"])
    assert result.exit_code == 0, result.stderr
    card = json.loads(result.stdout)
    assert card["licensed_claim"] == "self-report compliance"
    for name in ("audit.json", "card.json", "report.md", "report.html"):
        assert (tmp_path / name).stat().st_size > 0
    audit = json.loads((tmp_path / "audit.json").read_text())
    assert audit["card"]["configurations"] == card["configurations"]


def test_cli_audit_bad_scorer_exits_2(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["audit", "comtrade", "--out", str(tmp_path),
                                      "--scorer", "missing.py:f"])
    assert result.exit_code == 2 and "not an existing .py file" in result.stderr
    assert "Traceback" not in result.stderr


CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--enable-logging=stderr",
                  "--v=0"]


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("headless Chromium is not installed (apt-get install chromium); .ci/run "
                "installs it")


def _open(path: Path, tmp: Path) -> tuple[str, str]:
    proc = subprocess.run(
        [_chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={tmp / 'profile'}",
         "--virtual-time-budget=2000", "--dump-dom", path.as_uri()],
        capture_output=True, text=True, timeout=120, env={**os.environ, "HOME": str(tmp)})
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout, proc.stderr


def _console_errors(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines()
            if re.search(r"CONSOLE|Uncaught|console\.error", line)]


def test_report_renders_in_headless_chromium_without_console_errors(
        doc: dict, tmp_path: Path) -> None:
    _, html = render_audit_report(doc)
    page = tmp_path / "report.html"
    page.write_text(html)
    dom, stderr = _open(page, tmp_path)
    assert "Validity card" in dom and "licensed claim" in dom
    assert "<svg" in dom
    assert _console_errors(stderr) == []
    # positive control: the same check sees a console error when there is one
    bad = tmp_path / "bad.html"
    bad.write_text("<html><body><p>x</p><script>console.error('boom');"
                   "undefined_fn();</script></body></html>")
    _, bad_err = _open(bad, tmp_path)
    assert _console_errors(bad_err), bad_err[-1000:]


def test_worst_case_order_marks_ties_as_ties(doc: dict) -> None:
    # careful and keeps_totals both have worst case 1.0: neither is better than the other.
    md, _ = render_audit_report(doc)
    line = next(ln for ln in md.splitlines() if ln.startswith("Ranking by worst case"))
    worst = {r["target"]: r["summary"]["worst"]["value"]
             for r in doc["stages"]["reliability"]["rows"]}
    assert worst["scripted:careful"] == worst["scripted:keeps_totals"] == 1.0
    assert "`scripted:careful` = `scripted:keeps_totals` > `scripted:single_pass`" in line
    assert "`scripted:empty_submit` = `scripted:fabricator` = `scripted:never_submits`" in line


def test_the_2x2_table_says_how_many_episodes_each_cell_leaves_out(doc: dict) -> None:
    # A scorer that could score nothing: its cells have no mean and no spread (never 0.000),
    # and the table says how many episodes were left out, as the store's 2x2 does.
    import copy

    bad = copy.deepcopy(doc)
    cells = bad["stages"]["joint"]["cells"]
    cells["L2|shipped"].update(mean=None, spread=None, target_means={},
                               distinct_target_means=0, invalid_scores=35)
    cells["L2|ground_truth"]["truth_excluded"] = 5
    md, _ = render_audit_report(bad)
    assert "| `L2` | `shipped` | n/a | n/a | 0 | 6 | 35 |" in md
    assert "| `L2` | `ground_truth` | 0.523 | 1.000 | 4 | 6 | 5 |" in md
    assert ("| level | scorer | cell mean | spread (max - min) | distinct target means | "
            "submitting targets | unscored |") in md


def test_a_spectrum_row_of_two_episodes_has_no_interval_and_says_why(doc: dict) -> None:
    # A store target with 2 recorded L2 episodes: a bootstrap over 2 values has 3 distinct
    # resamples, so the summary has no interval (stats.bootstrap) and the report says why; it
    # raised on the missing interval (and before the rule printed the two values as the CI).
    import copy

    from agentmetrology.stats import summarize_cell

    two = copy.deepcopy(doc)
    two["stages"]["reliability"]["rows"].append(
        {"target": "llm:two", "source": "store", "n": 2, "quartiles": [0.5, 0.625, 0.75, 0.875,
                                                                        1.0],
         "summary": summarize_cell([0.5, 1.0], seed=0).to_dict(), "values": [0.5, 1.0]})
    md, html = render_audit_report(two)
    row = next(ln for ln in md.splitlines() if ln.startswith("| `llm:two`"))
    assert row == "| `llm:two` | store | 2 | 0.750 | no interval | 0.500 | 0.500 | 0.500 |"
    assert ("- `llm:two` (store): no interval: 2 values; a bootstrap over 2 values has 3 "
            "distinct resamples, an interval needs at least 3 values") in md
    assert "no interval: 2 values" in html
