"""The MCP server, exercised by the official `mcp` SDK client (stdio, in-process, HTTP).

Which processes: the stdio and the HTTP servers are real `agm` processes (a client talks to them
over a pipe or a socket); the second session refused at startup runs `cli.main.main` in this
process (`support.agm_runs.run_main`: the same argv, stdout, stderr and exit code), which saves
~0.5 s of imports.
"""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters, types
from typer.testing import CliRunner

from agentmetrology.cli.main import app
from agentmetrology.envs.comtrade import ComtradeEnv, is_totals_row
from agentmetrology.serve import (
    LevelNotServable,
    McpAdministration,
    McpEpisode,
    SessionBusyError,
    build_server,
)
from agentmetrology.store import EvidenceStore
from agentmetrology.store.blobs import contents
from support.agm_runs import run_main
from support.comtrade_runs import COMTRADE

Call = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]
SERVE = [sys.executable, "-m", "agentmetrology.cli.serve_cmd", "mcp", "comtrade"]
TIMEOUT_S = 60


def caller(client: Client) -> Call:
    """Return a tool caller that gives back the structured observation."""
    async def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
        result = await client.call_tool(name, args)
        block = result.content[0]
        assert isinstance(block, types.TextContent)
        obs: dict[str, Any] = json.loads(block.text)
        assert result.structured_content == obs
        assert result.is_error == ("error" in obs)
        return obs
    return call


async def careful_client(call: Call) -> dict[str, Any]:
    """Act like a careful external agent: all pages, retries, dedup, totals dropped, submit."""
    info = await call("get_task_info", {})
    rows: dict[str, dict[str, Any]] = {}
    page = 1
    while True:
        obs = await call("fetch_page", {"page": page})
        if "rows" not in obs:
            continue  # a transient fault: retry the page
        for row in obs["rows"]:
            if not is_totals_row(row):
                rows.setdefault(row["record_id"], row)
        if not obs["has_more"]:
            break
        page += 1
    return await call("submit_results", {
        "data_jsonl": "\n".join(json.dumps(r) for r in rows.values()),
        "metadata_json": json.dumps({"task_id": info["task_id"], "query": info["query"],
                                     "row_count": len(rows)}),
        "run_log": "task_id=T3_duplicates\ncomplete=true"})


def recorded(out: Path) -> dict[str, Any]:
    files = list(out.glob("*.json"))
    assert len(files) == 1, files
    return json.loads(files[0].read_text())


def test_stdio_episode_is_recorded_and_scored(tmp_path: Path) -> None:
    out = tmp_path / "episodes"
    params = StdioServerParameters(command=SERVE[0], cwd=str(tmp_path), args=[
        *SERVE[1:], "--task", "T3_duplicates", "--seed", "3", "--out", str(out)])

    async def go() -> tuple[list[Any], dict[str, Any], dict[str, Any]]:
        async with Client(params) as client:
            tools = (await client.list_tools()).tools
            call = caller(client)
            ack = await careful_client(call)
            after = await call("fetch_page", {"page": 1})
        return tools, ack, after

    tools, ack, after = asyncio.run(asyncio.wait_for(go(), TIMEOUT_S))
    specs = {t.name: t.spec for t in ComtradeEnv("T3_duplicates", 3).tools.values()}
    assert {t.name: (t.description, t.input_schema) for t in tools} == {
        n: (s.description, s.parameters) for n, s in specs.items()}
    assert ack["status"] == "accepted" and "already recorded" in after["error"]
    doc = recorded(out)
    ep = doc["episode"]
    assert (ep["task"], ep["seed"], ep["level"]) == ("T3_duplicates", 3, "L2")
    assert ep["termination"]["kind"] == "submitted"
    assert {e["actor"] for e in ep["events"]} == {"agent"}
    assert ep["events"][0]["name"] == "get_task_info"
    assert ep["events"][-1]["name"] == "submit_results"
    assert ep["meta"]["served_over"]["transport"] == "stdio"
    assert ep["digests"]["submission"] and len(doc["episode_digest"]) == 64
    scores = {a["scorer"]: a for a in doc["assessments"]}
    assert scores["ground_truth_f1"]["score"] == 1.0
    assert scores["ground_truth_f1"]["status"] == "PASS"
    assert scores["shape_judge"]["status"] in ("PASS", "PARTIAL")


def test_client_leaving_without_submitting_is_recorded(tmp_path: Path) -> None:
    episode = McpEpisode(COMTRADE, "T4_rate_limit_429", 0, out_dir=tmp_path, transport="in-process")

    async def go() -> None:
        async with Client(build_server(episode)) as client:
            await caller(client)("fetch_page", {"page": 0})  # the off-by-one trap

    asyncio.run(asyncio.wait_for(go(), TIMEOUT_S))
    assert list(tmp_path.iterdir()) == []  # nothing submitted yet: nothing written
    path = episode.close()
    assert path is not None and episode.close() == path  # recorded once
    ep = recorded(tmp_path)["episode"]
    assert ep["termination"]["kind"] == "agent_error"
    assert ep["events"][0]["result"]["status"] == 422
    gt = recorded(tmp_path)["assessments"][0]
    assert (gt["status"], gt["score"]) == ("FAIL", 0.0)


def test_an_idle_client_records_nothing(tmp_path: Path) -> None:
    episode = McpEpisode(COMTRADE, "T1_single_page", 0, out_dir=tmp_path)
    assert episode.close() is None and list(tmp_path.iterdir()) == []


def test_only_l2_can_be_served(tmp_path: Path) -> None:
    with pytest.raises(LevelNotServable, match="owns every decision"):
        McpEpisode(COMTRADE, "T3_duplicates", 0, out_dir=tmp_path, level="L1")
    # Through main(): its one handler prints these UserErrors as one line, exit 2.
    res = run_main(["serve", "mcp", "comtrade", "--task", "T3_duplicates", "--level", "L0"])
    assert res.returncode == 2 and "L2" in res.stderr
    res = run_main(["serve", "mcp", "webshop", "--task", "T3_duplicates"])
    assert res.returncode == 2 and "unknown environment" in res.stderr
    res = run_main(["serve", "mcp", "comtrade", "--task", "T99"])
    assert res.returncode == 2 and "unknown task" in res.stderr
    res = run_main(["serve", "mcp", "comtrade", "--task", "T3_duplicates", "--condition",
                    "stress:bogus", "--store", str(tmp_path / "s")])
    assert res.returncode == 2 and res.stderr.startswith("error: unknown condition 'stress:bogus'")
    assert res.stderr.count("\n") == 1 and not (tmp_path / "s").exists()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_for_port(port: int, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"server exited with {proc.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise AssertionError("server did not start listening")


def test_streamable_http_on_loopback(tmp_path: Path) -> None:
    out, port = tmp_path / "episodes", _free_port()
    log = (tmp_path / "server.log").open("wb")
    proc = subprocess.Popen([*SERVE, "--task", "T3_duplicates", "--seed", "1", "--http",
                             "--port", str(port), "--out", str(out)],
                            stdout=log, stderr=subprocess.STDOUT, cwd=tmp_path)
    try:
        _wait_for_port(port, proc)

        async def go() -> dict[str, Any]:
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                return await careful_client(caller(client))

        assert asyncio.run(asyncio.wait_for(go(), TIMEOUT_S))["status"] == "accepted"
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
    doc = recorded(out)
    assert doc["episode"]["meta"]["served_over"]["transport"] == "http"
    assert doc["assessments"][0]["score"] == 1.0


def test_a_port_in_use_is_one_line(tmp_path: Path) -> None:
    """It printed "serving ... at http://127.0.0.1:PORT/mcp" (false), then uvicorn's ERROR
    log line, and exited 3; now one `error:` line, exit 2, as `agm view` and OpenEnv."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        res = run_main(["serve", "mcp", "comtrade", "--task", "T3_duplicates", "--http",
                        "--port", str(port), "--store", str(tmp_path / "s")])
    assert res.returncode == 2, res.stderr
    assert res.stderr == (f"error: port {port} on 127.0.0.1 is in use; choose another with "
                          "--port (or --port 0 for any free port)\n")


# -- the evidence store ----------------------------------------------------------------------

def _status(store: Path) -> dict[str, Any]:
    res = CliRunner().invoke(app, ["campaign", "status", "--store", str(store), "--json"])
    assert res.exit_code == 0, res.output
    return dict(json.loads(res.stdout))


def test_stdio_episode_is_recorded_in_the_store_once(tmp_path: Path) -> None:
    store = tmp_path / "store"
    args = [*SERVE[1:], "--task", "T3_duplicates", "--seed", "2", "--store", str(store)]
    params = StdioServerParameters(command=SERVE[0], cwd=str(tmp_path), args=args)

    async def go() -> dict[str, Any]:
        async with Client(params) as client:
            return await careful_client(caller(client))

    assert asyncio.run(asyncio.wait_for(go(), TIMEOUT_S))["status"] == "accepted"
    adm = McpAdministration("T3_duplicates", 2, "seeded", "clean", "L2", "mcp-client")
    with EvidenceStore.open(store, create=False) as st:
        assert st.campaigns() == [adm.campaign]
        row = st.episode(adm.key)
        assert row is not None and row["termination"] == "submitted"
        assert row["cost"] is None  # the client's model calls are not observed: unknown cost
        by = {a["scorer"]: a for a in row["assessments"]}
        assert set(by) == {"ground_truth_f1", "shape_judge"}
        assert (by["ground_truth_f1"]["status"], by["ground_truth_f1"]["score"]) == ("PASS", 1.0)
        bound = st.binding(adm.key)
        assert bound["seed"] == 2 and len(bound["task_spec_digest"]) == 64
        assert len(bound["target_config_digest"]) == 64
        assert set(bound["scorer_versions"]) == set(by)
        assert [a["status"] for a in st.attempts(adm.key)] == ["finished"]
        ep = st.load_episode(adm.key)
        assert ep["key"]["campaign"] == adm.campaign and ep["key"]["repeat"] == 0
        assert ep["meta"]["served_over"]["client"]["name"]
    (camp,) = _status(store)["campaigns"]
    assert camp["campaign"] == adm.campaign and camp["complete"] is True
    assert (camp["total"]["planned"], camp["total"]["done"], camp["total"]["submitted"]) == (
        1, 1, 1)
    assert camp["scores"]["mcp-client"]["ground_truth_f1"]["mean_score"] == 1.0
    # The served store passes its own verification: the ledger's unknown cost (None) is what
    # the episode blob says (served over MCP: the client's model calls are not observed).
    res = run_main(["evidence", "verify", str(store)])
    assert res.returncode == 0, res.stdout + res.stderr

    # A second session for the same key is refused at startup, before serving anything.
    again = run_main(["serve", *args[2:]], cwd=tmp_path, timeout=TIMEOUT_S)
    assert again.returncode == 2
    assert "already has a recorded episode" in again.stderr and "--repeat 1" in again.stderr
    with EvidenceStore.open(store, create=False) as st:
        assert [a["status"] for a in st.attempts(adm.key)] == ["finished"]

    # --repeat records another repeat, as its own one-administration campaign.
    episode = McpEpisode(COMTRADE, "T3_duplicates", 2, store=store, repeat=1,
                         transport="in-process")

    async def repeat() -> None:
        async with Client(build_server(episode)) as client:
            await careful_client(caller(client))

    asyncio.run(asyncio.wait_for(repeat(), TIMEOUT_S))
    episode.close()
    statuses = {c["campaign"]: c for c in _status(store)["campaigns"]}
    assert set(statuses) == {adm.campaign, adm.with_repeat(1).campaign}
    assert all(c["complete"] for c in statuses.values())


def test_bindings_are_sealed_before_any_tool_call(tmp_path: Path) -> None:
    episode = McpEpisode(COMTRADE, "T1_single_page", 5, store=tmp_path, transport="in-process")
    key = episode.adm.key
    with EvidenceStore.open(tmp_path, create=False) as st:
        assert st.binding(key)["profile"] == "seeded" and st.attempts(key) == []
        assert st.status(key.campaign).total.remaining == 1
    with pytest.raises(SessionBusyError, match="another `agm serve mcp` session"):
        McpEpisode(COMTRADE, "T1_single_page", 5, store=tmp_path)
    assert episode.close() is None  # an idle client: nothing recorded, the key stays open
    McpEpisode(COMTRADE, "T1_single_page", 5, store=tmp_path).close()  # the lock was released


def test_unsubmitted_and_dead_sessions_in_the_store(tmp_path: Path) -> None:
    dead = McpEpisode(COMTRADE, "T4_rate_limit_429", 0, store=tmp_path, transport="in-process")
    dead.call("get_task_info", {})
    assert dead.session is not None
    dead.session._release()  # the process died: the kernel drops its lock, nothing recorded
    episode = McpEpisode(COMTRADE, "T4_rate_limit_429", 0, store=tmp_path, transport="in-process")
    episode.call("fetch_page", {"page": 0})
    assert "evidence store" in (episode.close() or "")
    with EvidenceStore.open(tmp_path, create=False) as st:
        key = episode.adm.key
        assert [a["status"] for a in st.attempts(key)] == ["failed", "finished"]
        row = st.episode(key)
        assert row is not None and row["termination"] == "agent_error"
    (camp,) = _status(tmp_path)["campaigns"]
    assert camp["complete"] and camp["total"]["failed_agent"] == 1
    assert camp["total"]["failed_attempts"] == 1


def test_secrets_never_reach_the_store_or_the_export(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    secret, store, out = "hunter2-very-secret-value", tmp_path / "store", tmp_path / "out"
    monkeypatch.setenv("VENDOR_API_KEY", secret)
    episode = McpEpisode(COMTRADE, "T1_single_page", 0, store=store, out_dir=out)
    obs = episode.call("submit_results", {
        "data_jsonl": "", "metadata_json": "{}",
        "run_log": f"key={secret}\nauth sk-abcdefghijklmnopqrstuvwx"})
    assert "error" not in obs and episode.path is not None
    episode.close()
    written = [contents(p.read_bytes()) for p in [*store.rglob("*"), *out.rglob("*")]
               if p.is_file()]  # blob files inflated: a compressed secret is still a leak
    assert written and not any(secret.encode() in b or b"sk-abcdefghijkl" in b for b in written)
    exported = json.loads(episode.path.read_text())
    with EvidenceStore.open(store, create=False) as st:
        row = st.episode(episode.adm.key)
        assert row is not None and row["episode_digest"] == exported["episode_digest"]


def test_non_finite_arguments_are_answered_and_recorded(tmp_path: Path) -> None:
    import math

    from agentmetrology.records.episode import episode_from_plain

    episode = McpEpisode(COMTRADE, "T1_single_page", 0, store=tmp_path / "s",
                         transport="in-process")
    obs = episode.call("fetch_page", {"page": float("nan")})
    assert obs["status"] == 422 and "nan" in obs["error"]
    assert episode.call("fetch_page", {"page": 1})["rows"]  # the episode goes on
    sub = {"data_jsonl": "", "metadata_json": "{}", "run_log": ""}
    assert episode.call("submit_results", sub)["status"] == "accepted"
    with EvidenceStore.open(tmp_path / "s", create=False) as store:
        row = store.ledger.conn.execute("SELECT episode_digest FROM episodes").fetchone()
        ep = episode_from_plain(store.get_json(row[0]))
    assert ep.termination.kind == "submitted"
    assert math.isnan(ep.events[0].args["page"])  # recorded as sent, read back as NaN
