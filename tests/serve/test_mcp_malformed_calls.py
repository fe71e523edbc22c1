"""A tools/call the MCP protocol layer would refuse (arguments not an object, a name that is not
text, no name) is recorded as sent and answered with an error observation (DESIGN.md: anything
a client sends is recorded); a raw JSON-RPC client over a real stdio server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import agentmetrology

SRC = str(Path(agentmetrology.__file__).resolve().parents[1])  # this checkout's code, not main's
SERVE = [sys.executable, "-m", "agentmetrology.cli.serve_cmd", "mcp", "comtrade",
         "--task", "T1_single_page"]


def _session(tmp_path: Path, calls: list[dict[str, Any]]) -> tuple[list[dict[str, Any]],
                                                                   dict[str, Any]]:
    """Send `calls` as raw tools/call requests, close stdin; return the answers and the record."""
    out = tmp_path / "episodes"
    lines = [{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    lines += [{"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": p}
              for i, p in enumerate(calls, start=1)]
    env = {**os.environ, "PYTHONPATH": SRC}
    proc = subprocess.Popen([*SERVE, "--out", str(out), "--store", str(tmp_path / "store")],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=tmp_path, env=env)
    answers: list[dict[str, Any]] = []
    assert proc.stdin is not None and proc.stdout is not None
    for line in lines:  # one at a time: each answer before the next request
        proc.stdin.write(json.dumps(line) + "\n")
        proc.stdin.flush()
        if "id" in line:
            answers.append(json.loads(proc.stdout.readline()))
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    (path,) = out.glob("*.json")
    return answers[1:], json.loads(path.read_text())


def test_calls_the_protocol_would_refuse_are_recorded_and_answered(tmp_path: Path) -> None:
    answers, record = _session(tmp_path, [
        {"name": "fetch_page", "arguments": [1, 2]},
        {"name": "fetch_page", "arguments": "page=1"},
        {"name": 5, "arguments": {}},
        {"arguments": {"page": 1}},
        {"name": 7},
        {"name": "fetch_page", "arguments": {"page": 1}},
    ])
    results = [a["result"] for a in answers]  # a tool result each, never a JSON-RPC error
    assert [r["isError"] for r in results] == [True, True, True, True, True, False]
    # no arguments are no arguments, not arguments sent as null
    assert results[4]["structuredContent"] == {
        "error": "unknown tool '7'; available: get_task_info, fetch_page, submit_results"}
    first = results[0]["structuredContent"]
    assert first["error"] == "fetch_page: arguments must be a JSON object"
    events = record["episode"]["events"]
    assert [e["name"] for e in events] == ["fetch_page", "fetch_page", "5", "None", "7",
                                           "fetch_page"]
    # what was sent is kept beside each refusal; the good call after them still works
    for event, answer in zip(events, results, strict=True):
        assert event["result"] == answer["structuredContent"]
    assert json.dumps(events[0]["result"]).count("[1, 2]") == 1
    assert "page=1" in json.dumps(events[1]["result"])
    assert events[5]["args"] == {"page": 1} and "rows" in events[5]["result"]
    assert record["episode"]["termination"]["kind"] == "agent_error"  # left without submitting
