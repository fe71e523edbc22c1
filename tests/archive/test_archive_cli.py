"""`agm archive audit` and `agm archive compare` through typer's CliRunner."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from agentmetrology.archive.importers.jsonl import episode_to_line, span_to_line, write_jsonl
from agentmetrology.archive.synthetic import synthetic_archive
from agentmetrology.cli.archive_cmd import _fail, _given_label, archive_app
from agentmetrology.edges.files import FileRefused
from agentmetrology.records.canonical import digest

runner = CliRunner()


def test_audit_taubench_writes_three_files(taubench_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    res = runner.invoke(archive_app, ["audit", str(taubench_file), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "k1=0.420, k2=0.273, k3=0.220, k4=0.200" in res.output  # every k fits: k3 too
    assert "step_cap: 5" in res.output and "0.420 .. 0.445" in res.output
    raw = (out / "archive.json").read_bytes()
    doc = json.loads(raw)
    assert hashlib.sha256(raw).hexdigest() == digest(doc)  # the file is canonical JSON
    assert doc["archive"]["episodes"] == 200
    assert (out / "report.md").read_text().startswith("# Archive audit")
    assert (out / "report.html").read_text().startswith("<!DOCTYPE html>")


def test_audit_json_flag(taubench_file: Path, tmp_path: Path) -> None:
    res = runner.invoke(archive_app, ["audit", str(taubench_file), "--format", "taubench",
                                      "--out", str(tmp_path), "--json"])
    assert res.exit_code == 0
    doc = json.loads(res.stdout)
    assert doc["coverage"]["overall"]["counts"]["ungraded"] == 5


def _errors(args: list[str]) -> str:
    res = runner.invoke(archive_app, args)
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    return res.output


def test_user_errors_exit_2_with_one_line(taubench_file: Path, tmp_path: Path) -> None:
    out = str(tmp_path / "o")
    assert "not found" in _errors(["audit", str(tmp_path / "nope.json"), "--out", out])
    assert "not an agm evidence store" in _errors(["audit", str(taubench_file), "--format",
                                                   "agm", "--out", out])
    assert "unknown --format" in _errors(["audit", str(taubench_file), "--format", "csv",
                                          "--out", out])
    assert "not a zip" in _errors(["audit", str(taubench_file), "--format", "inspect",
                                   "--out", out])
    junk = tmp_path / "junk.txt"
    junk.write_text("hello")
    line = _errors(["audit", str(junk), "--out", out])
    assert "unrecognised archive format" in line and len(line.strip().splitlines()) == 1
    assert "neither an evidence store" in _errors(["audit", str(tmp_path), "--out", out])
    assert "spans file not found" in _errors(["audit", str(taubench_file), "--spans",
                                              str(tmp_path / "x.jsonl"), "--out", out])
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert "not a directory" in _errors(["audit", str(taubench_file), "--out", str(blocker)])
    _errors(["audit", str(taubench_file)])  # --out is required


def test_a_file_named_like_a_credential_label_is_named_not_redacted(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A file called `passwd` or `token` is the user's own word: the message keeps its path as
    given and its next word (the redaction read `NAME: word` as a credential and hid `word`),
    and a link is named as given, not by its target. (Before, only the file's last part was
    named: `passwd: ...` for `DIR/passwd`.)"""
    out = str(tmp_path / "o")
    for name in ("passwd", "token", "secret"):
        (tmp_path / name).write_text("hello")
        line = _errors(["audit", str(tmp_path / name), "--out", out])
        assert line.strip() == f"error: {tmp_path / name}: unrecognised archive format " \
            "(expected a tau-bench or tau2 JSON file, an Inspect .eval log or JSONL)"
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "passwd")
    assert _errors(["audit", str(link), "--out", out]).startswith(
        f"error: {link}: unrecognised archive format")
    # what follows the name is still redacted (a message quoting the file's own text)
    assert _given_label("token: api_key=sk-abcdefghijklmnop1234", (link, tmp_path / "token")) \
        == (f"{tmp_path / 'token'}: ", "api_key=sk-abcdefghijklmnop1234")
    assert _given_label("passwd: x", (link,)) == (f"{link}: ", "x")  # named as given
    assert _given_label("other: x", (link,)) == ("", "other: x")
    # an Inspect log's member is named after the log as given too (before: `x.eval!m: ...`)
    assert _given_label("passwd!samples/a.json: CRC mismatch", (link,)) == (
        f"{link}!", "samples/a.json: CRC mismatch")
    loop = tmp_path / "loop"
    loop.symlink_to(loop)  # a link to itself: every archive command refuses it (a user error)
    for args in (["audit", str(loop)], ["regrade", str(loop)], ["leaderboard", str(loop)],
                 ["compare", str(loop), str(loop)], ["audit", str(link)]):
        out_dir = str(loop) if args[-1] == str(link) else out
        res = runner.invoke(archive_app, [*args, "--out", out_dir])
        assert isinstance(res.exception, FileRefused), res.output
        assert str(res.exception) == f"{loop}: a symbolic link loop (no file at its end)"
    proc = subprocess.run([sys.executable, "-m", "agentmetrology.cli.main", "archive", "audit",
                           str(loop), "--out", out], capture_output=True, text=True, check=False)
    assert (proc.returncode, proc.stderr) == (
        2, f"error: {loop}: a symbolic link loop (no file at its end)\n")
    with pytest.raises(typer.Exit):
        raise _fail("token: api_key=sk-abcdefghijklmnop1234", (tmp_path / "token",))
    assert capsys.readouterr().err == f"error: {tmp_path / 'token'}: api_key=[redacted]\n"


def _write_archive(path: Path, seed: int) -> Path:
    archive, _ = synthetic_archive(seed, leak_rate=0.0)
    write_jsonl(path, (episode_to_line(e) for e in archive.episodes))
    return path


def test_audit_jsonl_with_spans(tmp_path: Path) -> None:
    archive, truth = synthetic_archive(6)
    eps, spans = tmp_path / "e.jsonl", tmp_path / "s.jsonl"
    write_jsonl(eps, (episode_to_line(e) for e in archive.episodes))
    write_jsonl(spans, (span_to_line(s) for s in archive.spans))
    res = runner.invoke(archive_app, ["audit", str(eps), "--spans", str(spans), "--out",
                                      str(tmp_path / "o"), "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["provenance"]["candidates"] == truth.leaks
    assert doc["cost"]["extra_copies"] == truth.extra_copies


def test_compare(tmp_path: Path) -> None:
    old = _write_archive(tmp_path / "old.jsonl", 1)
    new = _write_archive(tmp_path / "new.jsonl", 2)
    res = runner.invoke(archive_app, ["compare", str(old), str(new), "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert "flip fraction" in res.output
    doc = json.loads((tmp_path / "compare.json").read_text())
    t = doc["transitions"]
    # the fractions' denominator is printed, not left to subtract from the rows above it
    assert re.search(rf"compared \(graded in both\) +│ +{t['n']} │", res.output), res.output
    assert t["n01"] + t["n10"] == t["flips"] and t["n"] > 0
    assert doc["rank"]["pairs"] == 1  # two models: one pair
    res = runner.invoke(archive_app, ["compare", str(old), str(new), "--out", str(tmp_path),
                                      "--v1-g0", str(old), "--json"])
    assert res.exit_code == 0
    assert json.loads(res.stdout)["crossed"]["invalid_cells"] == ["v0|g1"]
    assert "not found" in _errors(["compare", str(old), str(tmp_path / "no"), "--out",
                                   str(tmp_path)])


NOTHING_GRADED = ("error: no episode of {name} was graded ({n} episode(s), none graded or "
                  "recovered; {why}): the audit measured nothing and no score of it holds "
                  "(its files are written, coverage.overall says why)\n")


@pytest.mark.parametrize("as_json", [False, True])
def test_an_audit_that_graded_nothing_exits_1_and_says_so(tmp_path: Path,
                                                          as_json: bool) -> None:
    # It exited 0, as a fully graded archive does: a CI step auditing an archive whose
    # grader never ran passed. Its files are still written (they are the finding).
    path = tmp_path / "ungraded.jsonl"
    path.write_text('{"task": "t1", "model": "m", "termination": "step_limit"}\n'
                    '{"task": "t2", "model": "m", "termination": "infra_error", '
                    '"grade": {"score": 1.0, "passed": true}}\n'
                    '{"task": "t3", "model": "m", "grade": null}\n')
    out = tmp_path / "out"
    res = runner.invoke(archive_app, ["audit", str(path), "--out", str(out)]
                        + (["--json"] if as_json else []))
    assert res.exit_code == 1, res.output
    assert res.stderr == NOTHING_GRADED.format(
        name="ungraded.jsonl", n=3, why="infra_error: 1, no_grade_recorded: 2")
    assert "Traceback" not in res.output
    doc = json.loads((out / "archive.json").read_bytes())
    assert doc["coverage"]["overall"]["graded"] == 0
    assert doc["coverage"]["overall"]["planned"] == 3
    if as_json:
        assert json.loads(res.stdout)["coverage"] == doc["coverage"]
    # one graded episode is a measurement: the exit code is 0, as before
    path.write_text(path.read_text() + '{"task": "t4", "model": "m", "grade": 0.0}\n')
    res = runner.invoke(archive_app, ["audit", str(path), "--out", str(out)])
    assert (res.exit_code, res.stderr) == (0, "")


def test_a_taubench_file_whose_grader_never_ran_exits_1(tmp_path: Path) -> None:
    # Every format reads coverage the same way: tau-bench rows whose reward_info is null
    # (the grader never ran), stored as reward 0.0, are a file of no measurement.
    rows = [{"task_id": i, "trial": 0, "reward": 0.0, "info": {"reward_info": None},
             "traj": []} for i in range(2)]
    path = tmp_path / "tb.json"
    path.write_text(json.dumps(rows))
    res = runner.invoke(archive_app, ["audit", str(path), "--out", str(tmp_path / "o")])
    assert res.exit_code == 1, res.output
    assert res.stderr.startswith("error: no episode of tb.json was graded (2 episode(s)")


def test_the_nothing_graded_line_quotes_an_archives_reasons_redacted_on_one_line(
        tmp_path: Path) -> None:
    # A JSONL line's `reason` is the archive's own text: a credential or a line break in it
    # must neither be printed nor break the one line.
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps({"task": "t", "model": "m",
                                "reason": "api_key=sk-abcdefghijklmnop1234\nnext"}) + "\n")
    res = runner.invoke(archive_app, ["audit", str(path), "--out", str(tmp_path / "o")])
    assert res.exit_code == 1
    assert res.stderr == NOTHING_GRADED.format(name="r.jsonl", n=1,
                                               why="api_key=[redacted] next: 1")
