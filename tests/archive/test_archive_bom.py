"""A file that starts with a UTF-8 byte order mark reads as the same file without it.

RFC 8259 lets a JSON parser ignore the mark, and Windows tools write it. Before, `--format auto`
called such a tau2 or tau-bench file an "unrecognised archive format" while `--format tau2`
refused it as "Unexpected UTF-8 BOM": each path said something else. Now every path (detection,
the tau2, tau-bench and JSONL readers, a leaderboard folder walk, a submission.json) leaves the
mark out, so `archive audit`, `archive compare`, `archive leaderboard` and `export` agree.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentmetrology.archive import load_archive
from agentmetrology.archive.importers.detect import detect_format
from agentmetrology.archive.model import Archive
from agentmetrology.cli.archive_cmd import archive_app
from agentmetrology.cli.main import app
from archive.tau2_files import GPT_AIRLINE, shared

pytestmark = pytest.mark.usefixtures("stated_tau2_verdicts")
runner = CliRunner()
BOM = b"\xef\xbb\xbf"
LINE = {"task": "t1", "model": "m", "trial": 0, "grade": {"score": 1.0}, "events": []}


def _with_bom(source: Path, tmp: Path) -> Path:
    path = tmp / f"bom-{source.name}"
    path.write_bytes(BOM + source.read_bytes())
    return path


def _seen(archive: Archive) -> list[tuple[str, int, str, float | None]]:
    return [(e.task, e.trial, e.outcome, e.stored_score) for e in archive.episodes]


def _jsonl(tmp: Path) -> Path:
    path = tmp / "eps.jsonl"
    path.write_text(json.dumps(LINE) + "\n" + json.dumps({**LINE, "trial": 1}) + "\n",
                    encoding="utf-8")
    return path


@pytest.mark.parametrize("kind", ["tau2", "taubench", "jsonl"])
def test_every_format_reads_a_file_that_starts_with_a_bom(kind: str, tmp_path: Path,
                                                          taubench_file: Path) -> None:
    plain = {"tau2": lambda: shared(GPT_AIRLINE), "taubench": lambda: taubench_file,
             "jsonl": lambda: _jsonl(tmp_path)}[kind]()
    bom = _with_bom(plain, tmp_path)
    assert detect_format(bom) == kind  # was "unrecognised archive format" for tau2/taubench
    want = load_archive(plain, kind)
    for fmt in ("auto", kind):
        got = load_archive(bom, fmt)
        assert _seen(got) == _seen(want) and len(got.problems) == len(want.problems)
    assert len(want.episodes) == {"tau2": 20, "taubench": 200, "jsonl": 2}[kind]


def test_every_command_reads_a_tau2_file_that_starts_with_a_bom(tmp_path: Path) -> None:
    plain = shared(GPT_AIRLINE)
    bom = _with_bom(plain, tmp_path)
    res = runner.invoke(archive_app, ["audit", str(bom), "--out", str(tmp_path / "a")])
    assert res.exit_code == 0, res.output
    doc = json.loads((tmp_path / "a" / "archive.json").read_text())
    assert doc["tau2"]["denominators"]["planned"] == 20
    assert doc["tau2"]["pass_1"]["planned"] == 0.5  # 10 of 20, as the file without the mark
    res = runner.invoke(archive_app, ["compare", str(bom), str(plain), "--out",
                                      str(tmp_path / "c"), "--json"])
    assert res.exit_code == 0, res.output
    (tmp_path / "lb").mkdir()
    _with_bom(plain, tmp_path / "lb").with_name("submission.json").write_bytes(
        BOM + json.dumps({"results": {"airline": {"pass_1": 50.0}}}).encode())
    res = runner.invoke(archive_app, ["leaderboard", str(tmp_path / "lb"), "--out",
                                      str(tmp_path / "l")])
    assert res.exit_code == 0, res.output
    board = json.loads((tmp_path / "l" / "leaderboard.json").read_text())
    row = board["domains"]["airline"]["rows"][0]
    assert (board["submissions"], row["reported"], row["recomputed"]) == (1, 0.5, 0.5)
    out = tmp_path / "x.jsonl"
    res = runner.invoke(app, ["export", str(bom), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert len(out.read_text().splitlines()) == 20
