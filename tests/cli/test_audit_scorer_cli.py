"""`agm audit --scorer`: a scorer that exits or always raises still yields a card and says why."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from agentmetrology.cli.main import app
from agentmetrology.records.canonical import digest

SECRET_ENV = "zq7Value-Of-The-Secret-4411"
KEY = "sk-ant-api03-abcdefghijklmnop"


def test_exiting_and_raising_scorer_gives_a_card_reasons_and_no_secret(tmp_path: Path) -> None:
    scorer = tmp_path / "faulty.py"
    scorer.write_text(
        "import os\n"
        "def score(task_id, seed, submission):\n"
        "    if not submission['data_jsonl'].strip():\n"
        "        raise SystemExit(0)\n"
        f"    raise ValueError('rejected {KEY} ' + os.environ['MY_SERVICE_API_KEY'])\n")
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["audit", "comtrade", "--seeds", "0-0", "--out", str(out),
                                   "--scorer", f"{scorer}:score"],
                             env={"COLUMNS": "100", "MY_SERVICE_API_KEY": SECRET_ENV})
    assert res.exit_code == 0, res.output
    assert "Validity card: comtrade at L0" in res.stdout
    assert res.stderr == ""  # no progress display off a terminal
    doc = json.loads((out / "audit.json").read_text())
    battery = doc["stages"]["probes"]["shipped"]
    cells = battery["cells"]
    empty = sum(1 for c in cells if c["probe"] == "empty")
    assert battery["status"] == "not probed" and battery["cells_invalid"] == len(cells) > empty
    assert battery["invalid_reasons"] == [
        {"reason": "ValueError: rejected [redacted] [redacted]", "cells": len(cells) - empty},
        {"reason": "SystemExit: 0", "cells": empty}]
    assert (f"criterion sensitivity not probed for faulty.py:score: {len(cells)} of "
            f"{len(cells)} probe cells INVALID") in res.stdout
    assert f"{len(cells) - empty} × ValueError: rejected [redacted] [redacted]" in res.stdout
    assert f"{empty} × SystemExit: 0" in res.stdout
    report = (out / "report.md").read_text()  # the reasons are where the user reads, too
    assert "INVALID cells and why" in report
    # (a reason holding `[` is shown as code: report.md reads it, never renders it)
    assert f"{len(cells) - empty} × `ValueError: rejected [redacted] [redacted]`" in report
    for name in ("audit.json", "card.json", "report.md", "report.html"):
        text = (out / name).read_text()
        assert SECRET_ENV not in text and KEY not in text
    assert SECRET_ENV not in res.output and KEY not in res.output
    assert doc["scorers"]["shipped"]["timeout_s"] == 10.0


def test_scorer_timeout_must_be_positive(tmp_path: Path) -> None:
    scorer = tmp_path / "ok.py"
    scorer.write_text("def score(task_id, seed, submission):\n    return 1.0\n")
    res = CliRunner().invoke(app, ["audit", "comtrade", "--seeds", "0-0", "--out",
                                   str(tmp_path / "o"), "--scorer", f"{scorer}:score",
                                   "--scorer-timeout", "0"])
    assert res.exit_code == 2 and "--scorer-timeout" in res.stderr
    assert "Traceback" not in res.output


def test_the_invalid_line_says_the_verdict_the_card_says(tmp_path: Path) -> None:
    # Scored on one sample only (T1, seed 0), where it ties: the card withholds 'fail' below
    # 3 samples, and the INVALID line under it must not print the bare 'fail'.
    scorer = tmp_path / "t1only.py"
    scorer.write_text(
        "def score(task_id, seed, submission):\n"
        "    if not task_id.startswith('T1_'):\n"
        "        raise ValueError('only T1')\n"
        "    return 1.0\n")
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["audit", "comtrade", "--seeds", "0-0", "--out", str(out),
                                   "--scorer", f"{scorer}:score"], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    withheld = "insufficient evidence (n = 1 sample compared, needs 3)"
    assert f"│ criterion sensitivity  │ {withheld}" in res.stdout
    assert f"criterion sensitivity {withheld} for t1only.py:score: 72 of 80 probe cells " \
           "INVALID" in res.stdout
    assert "criterion sensitivity fail" not in res.stdout


def test_same_seeds_give_byte_identical_files_and_json_with_a_user_scorer(
        tmp_path: Path) -> None:
    # The scorer prints (to stdout, as user code does): --json stays the card alone.
    scorer = tmp_path / "noisy.py"
    scorer.write_text("def score(task_id, seed, submission):\n"
                      "    print('scoring', task_id)\n"
                      "    return float(len(str(submission)) % 7)\n")
    runs = []
    for name in ("a", "b"):
        res = CliRunner().invoke(app, ["audit", "permission", "--seeds", "0-2", "--json",
                                       "--out", str(tmp_path / name),
                                       "--scorer", f"{scorer}:score"])
        assert res.exit_code == 0, res.output
        runs.append(res.stdout)
    assert runs[0] == runs[1] and json.loads(runs[0])["benchmark"] == "permission"
    for f in ("audit.json", "card.json", "report.md", "report.html"):
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes(), f


def test_a_scorer_returning_1e308_gives_a_card_not_a_traceback(tmp_path: Path) -> None:
    scorer = tmp_path / "huge.py"
    scorer.write_text("def score(task_id, seed, submission):\n    return 1e308\n")
    res = CliRunner().invoke(app, ["audit", "permission", "--seeds", "0-2", "--json",
                                   "--out", str(tmp_path / "out"), "--scorer", f"{scorer}:score"])
    assert res.exit_code == 0, res.output
    card = json.loads(res.stdout)
    assert card["configurations"][0]["licensed_claim"] == "no claim licensed"
    assert card["configurations"][0]["rows"]["criterion_sensitivity"]["status"] == "not probed"


def _audit_card(scorer: Path, out: Path) -> tuple[dict[str, Any], str, str]:
    res = CliRunner().invoke(app, ["audit", "permission", "--seeds", "0-0", "--out", str(out),
                                   "--scorer", f"{scorer}:score", "--scorer-timeout", "2.5"],
                             env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    return (json.loads((out / "card.json").read_text()), res.stdout,
            (out / "report.md").read_text())


def test_the_card_binds_the_scorer_code_it_audited(tmp_path: Path) -> None:
    # The scorer's sha256 and timeout were added to audit.json after the seal: no digest
    # covered them and card.json named only `file.py:function`, so one card fitted any code.
    scorer = tmp_path / "mine.py"
    scorer.write_text("def score(task_id, seed, submission):\n    return 1.0\n")
    card, stdout, report = _audit_card(scorer, tmp_path / "a")
    sha = hashlib.sha256(scorer.read_bytes()).hexdigest()
    assert card["scorer_code"] == {"file": "mine.py", "function": "score", "sha256": sha,
                                   "timeout_s": 2.5}
    body = {k: v for k, v in card.items() if k != "audit_digest"}
    assert card["audit_digest"] == digest(body)  # the digest covers the code's identity
    line = f"scorer code: mine.py:score (timeout 2.5 s), sha256 {sha}"
    assert line in stdout
    assert f"Scorer code: `mine.py:score` (timeout 2.5 s), sha256 `{sha}`." in report
    scorer.write_bytes(scorer.read_bytes() + b"# edited\n")  # same behaviour, other code
    edited, stdout2, _ = _audit_card(scorer, tmp_path / "b")
    sha2 = hashlib.sha256(scorer.read_bytes()).hexdigest()
    assert edited["scorer_code"]["sha256"] == sha2 != sha
    assert edited["audit_digest"] != card["audit_digest"]
    assert line not in stdout2 and f"sha256 {sha2}" in stdout2


def test_a_scorer_given_to_a_registered_target_is_refused(tmp_path: Path) -> None:
    # `agm audit bfcl --scorer` ignored the scorer and wrote a card for bfcl's own checker.
    scorer = tmp_path / "ok.py"
    scorer.write_text("def score(task_id, seed, submission):\n    return 1.0\n")
    out = tmp_path / "o"
    res = CliRunner().invoke(app, ["audit", "bfcl", "--limit", "1", "--out", str(out),
                                   "--scorer", f"{scorer}:score"])
    assert res.exit_code == 2, res.output
    assert res.stderr.strip() == ("error: --scorer replaces the shipped scorer of a registered "
                                  "environment; bfcl audits its own checker: drop --scorer")
    assert not out.exists()


def test_a_scorer_file_name_holding_a_backtick_stays_one_code_span(tmp_path: Path) -> None:
    # Before, report.md wrapped the file name in single backticks by hand: a backtick in it
    # ended the span, and what followed was read as Markdown.
    from markdown_it import MarkdownIt

    scorer = tmp_path / "odd`name.py"
    scorer.write_text("def score(task_id, seed, submission):\n    return 1.0\n")
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["audit", "comtrade", "--seeds", "0-0", "--out", str(out),
                                   "--scorer", f"{scorer}:score"], env={"COLUMNS": "100"})
    assert res.exit_code == 0, res.output
    doc = json.loads((out / "audit.json").read_text())
    named = f"{doc['card']['scorer_code']['file']}:score"
    assert "`" in named
    line = next(ln for ln in (out / "report.md").read_text().splitlines()
                if ln.startswith("Scorer code:"))
    spans = [t.content for t in MarkdownIt().parseInline(line)[0].children or []
             if t.type == "code_inline"]
    assert spans[0] == named
