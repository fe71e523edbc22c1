"""`agm view` from the command line: what it accepts, its one-line errors, and a live serve.

Which processes: the live serve and the refusal of a missing path are real `agm` processes (exit
status 2, one line on stderr); the other refusals run `cli.main.main` in this process
(`support.agm_runs.run_main`: the same argv, stdout, stderr and exit code, and a timeout that
fails a command which serves instead of refusing), which saves ~0.5 s of imports each.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from agentmetrology.view import ViewSourceError, create_app, detect_source
from support.agm_runs import AgmResult, run_main

AGM = [sys.executable, "-m", "agentmetrology.cli.main"]


def _agm_process(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*AGM, *args], capture_output=True, text=True, timeout=timeout,
                          env=os.environ.copy())


def _agm(*args: str, timeout: float = 60) -> AgmResult:
    """In this process (see the module docstring); a command still serving fails at timeout."""
    return run_main(args, timeout=timeout)


def test_detects_each_kind(store_dir: Path, audit_dir: Path, archive_file: Path) -> None:
    assert detect_source(store_dir).kind == "store"
    audit = detect_source(audit_dir)
    assert audit.kind == "audit"
    assert audit.files == ("card.json", "audit.json", "report.html", "report.md")
    arch = detect_source(archive_file)
    assert (arch.kind, arch.files, arch.archive_file) == ("archive", (), archive_file)


@pytest.mark.parametrize("make", ["missing", "empty_dir", "text_file", "other_json"])
def test_not_a_source_is_one_line_exit_2(tmp_path: Path, make: str) -> None:
    path = tmp_path / "thing"
    if make == "empty_dir":
        path.mkdir()
    elif make == "text_file":
        path.write_text("hello\n")
    elif make == "other_json":
        path.write_text('{"schema": "something-else/1"}')
    with pytest.raises(ViewSourceError):
        detect_source(path)
    if make in ("missing", "other_json"):  # the CLI path, twice: in a process, in-process
        proc = (_agm_process if make == "missing" else _agm)("view", str(path), "--port", "0")
        assert proc.returncode == 2
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and str(path) in lines[0]
        assert "Traceback" not in proc.stderr


def test_a_named_pipe_is_refused_not_waited_on(tmp_path: Path) -> None:
    # Before, `agm view FIFO` blocked in open() for ever, and `agm view /dev/zero` read it
    # whole into a MemoryError traceback (as an Inspect log's zip directory).
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    res = _agm("view", str(fifo), "--port", "0", timeout=20)
    assert res.returncode == 2
    assert res.stderr == (f"error: {fifo} is a named pipe, not a regular file; give an evidence "
                          "store, an audit dir or an archive audit\n")


def test_port_in_use_is_one_line_naming_it(store_dir: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        proc = _agm("view", str(store_dir), "--port", str(port))
    assert proc.returncode == 2
    assert proc.stderr.strip() == (f"error: port {port} on 127.0.0.1 is in use; choose another "
                                   "with --port (or --port 0 for any free port)")


def test_serves_until_stopped(store_dir: Path) -> None:
    proc = subprocess.Popen([*AGM, "view", str(store_dir), "--port", "0"],
                            stderr=subprocess.PIPE, text=True, env=os.environ.copy())
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert m, line
        with urllib.request.urlopen(m.group(0), timeout=30) as r:
            assert r.status == 200 and b"viewtest" in r.read()
    finally:
        proc.terminate()
        proc.wait(30)


def test_archive_audit_page_and_filters(archive_file: Path) -> None:
    client = TestClient(create_app(detect_source(archive_file)), base_url="http://127.0.0.1")
    page = client.get("/").text
    assert "taubench" in page and "grader_never_ran" in page
    assert "1 of 1 listed" in page
    assert '<span class="null">null</span>' in page  # an ungraded episode's score
    assert "0 of 1 listed" in client.get("/?reason=never_ran").text
    assert "1 of 1 listed" in client.get("/?task=t2&cell=gpt-x").text
    assert client.get("/files/archive.json").status_code == 404  # one file given: no /files


def test_archive_audit_dir(tmp_path: Path) -> None:
    from view.view_fixtures import build_archive

    build_archive(tmp_path / "out" / "archive.json")
    (tmp_path / "out" / "report.html").write_text("<p>report</p>")
    source = detect_source(tmp_path / "out")
    assert source.kind == "archive" and source.files == ("archive.json", "report.html")
    client = TestClient(create_app(source), base_url="http://127.0.0.1")
    assert client.get("/files/report.html").text == "<p>report</p>"


def test_a_corrupt_ledger_is_one_line_exit_2_and_a_500_page(tmp_path: Path) -> None:
    root = tmp_path / "store"
    root.mkdir()
    (root / "ledger.sqlite").write_bytes(b"this is not a database" * 100)
    proc = _agm("view", str(root), "--port", "0")
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: cannot read the ledger")
    client = TestClient(create_app(detect_source(root)), base_url="http://127.0.0.1")
    page = client.get("/")
    assert page.status_code == 500 and "cannot read the ledger" in page.text


def test_an_audit_page_says_what_each_claim_rests_on(tmp_path: Path) -> None:
    # the card's claim_basis beside its claim; a card written before claims had one (or one
    # whose basis is not what an audit writes) shows the claim alone, never an error page
    import json

    from view.view_fixtures import build_audit_dir

    root = build_audit_dir(tmp_path / "audit")
    card = json.loads((root / "card.json").read_text())
    config = card["configurations"][0]
    config["claim_basis"] = {"claim": "self-report compliance",
                             "rests_on": {"scorer_kind": "shape",
                                          "criterion_sensitivity": "fail"},
                             "not_checked": {"replay": "no rerun"}}
    (root / "card.json").write_text(json.dumps(card))
    client = TestClient(create_app(detect_source(root)), base_url="http://127.0.0.1")
    page = client.get("/").text
    assert ("<small>self-report compliance rests on scorer kind shape, criterion sensitivity "
            "fail; not checked: replay</small>") in page
    config["claim_basis"] = {"claim": "x", "rests_on": ["not", "a", "mapping"]}
    (root / "card.json").write_text(json.dumps(card))
    res = client.get("/")
    assert res.status_code == 200 and "<small>" not in res.text
