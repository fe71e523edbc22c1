"""The judge's kappa on the diagnose summary and in report.md: at 3 decimals like every other
number there, and a missing kappa as n/a with why (nothing rated, or one label throughout)."""

from __future__ import annotations

import io
import itertools
import json
from copy import deepcopy
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

from agentmetrology.cli.main import app
from agentmetrology.report.diagnose_report import render_diagnose_report
from agentmetrology.report.terminal.diagnose_summary import print_diagnose
from diagnose.test_unrescorable import _store
from support.fake_openai import FakeOpenAI, text


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("kappa")
    with FakeOpenAI(itertools.repeat(lambda body: text("PASS"), 100)) as srv:
        res = CliRunner().invoke(app, ["diagnose", str(_store(root / "s")), "--out",
                                       str(root / "o"), "--judge-model", "j", "--base-url",
                                       srv.base_url, "--judge-calls", "1", "--json"])
    assert res.exit_code == 0, res.output
    doc: dict[str, Any] = json.loads(res.stdout)
    return doc


def _with(doc: dict[str, Any], kappa: float | None, n: int) -> dict[str, Any]:
    doc = deepcopy(doc)
    doc["judge_audit"]["judges"]["llm:j"]["with_native_reward"].update(kappa=kappa, n=n)
    return doc


def _summary(doc: dict[str, Any]) -> str:
    out = io.StringIO()
    print_diagnose(Console(file=out, width=200), doc, Path("s"), Path("o"))
    return out.getvalue()


@pytest.mark.parametrize(("kappa", "n", "printed"), [
    (8 / 13, 4, "kappa 0.615"),
    (None, 0, "kappa n/a (n = 0)"),
    (None, 3, "kappa n/a (one label throughout)")])
def test_kappa_is_printed_like_every_other_number(judged: dict[str, Any], kappa: float | None,
                                                  n: int, printed: str) -> None:
    doc = _with(judged, kappa, n)
    line = next(x for x in _summary(doc).splitlines() if "native reward" in x)
    assert line.endswith(f"(n = {n}), {printed}")
    md, _ = render_diagnose_report(doc)
    row = next(x for x in md.splitlines() if x.startswith("| `llm:j`"))
    assert row.endswith(f"| {printed.removeprefix('kappa ')} |")


def test_the_judges_kappa_with_each_other_says_why_it_is_missing(
        judged: dict[str, Any]) -> None:
    doc = deepcopy(judged)
    doc["judge_audit"]["between_judges"] = {"n": 0, "raw_agreement": None, "kappa": None}
    md, _ = render_diagnose_report(doc)
    assert "Between the two judges: raw agreement n/a, kappa n/a (n = 0)." in md


def test_the_summary_prints_a_judge_named_like_an_emoji_code_and_its_shares_as_numbers(
        tmp_path: Path) -> None:
    # Before: rich read `:m:` of `llm:m: ...` as an emoji code ('judge llmⓂ ...'), the view
    # disagreement printed raw ('repeat None, alias None, format None', or 17 decimals), and
    # the line on what the store kept did not say the answers were kept.
    with FakeOpenAI(itertools.repeat(lambda body: text("PASS"), 100)) as srv:
        res = CliRunner().invoke(app, ["diagnose", str(_store(tmp_path / "s")), "--out",
                                       str(tmp_path / "o"), "--judge-model", "m",
                                       "--base-url", srv.base_url, "--judge-calls", "1"],
                                 env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert "Ⓜ" not in res.stdout
    assert any(x.startswith("judge llm:m: original view PASS 1") for x in lines)
    assert ("judge llm:m: disagreement with its own original view: repeat 0.000, alias 0.000, "
            "format 0.000") in lines
    kept = next(x for x in lines if x.startswith("judge requests:"))
    assert kept.endswith("; 4 answers kept (grader verdicts: agm view STORE, /graders)")


def test_a_view_without_an_episode_to_compare_reads_n_a_with_why(
        judged: dict[str, Any]) -> None:
    doc = deepcopy(judged)
    doc["judge_audit"]["judges"]["llm:j"]["views"]["alias"]["disagreement"] = None
    line = next(x for x in _summary(doc).splitlines() if "disagreement" in x)
    assert line.endswith("repeat 0.000, alias n/a (n = 0 episodes with a verdict in both "
                         "views), format 0.000")
