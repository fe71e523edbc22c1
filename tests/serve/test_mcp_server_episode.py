"""One served MCP episode, in-process: levels, the record written, the episode's fields, the
answers after recording, and the server's tools and results seen by a real MCP client.

Everything runs in this process (the SDK's in-memory client, `McpEpisode` called directly),
so a change to serve/mcp_server.py is seen by these tests; tests/serve/test_mcp_server.py
covers the same paths through `agm serve` subprocesses.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, types

from agentmetrology import __version__
from agentmetrology.envs.comtrade import ComtradeEnv
from agentmetrology.records.canonical import canonical_json, digest
from agentmetrology.records.clock import FakeClock
from agentmetrology.records.environment import Serving
from agentmetrology.scoring.episode import score_episode
from agentmetrology.serve import McpEpisode, build_server
from agentmetrology.serve.mcp_server import (
    DEFAULT_PORT,
    LOOPBACK,
    RECORDED_ERROR,
    LevelNotServable,
    check_level,
    record_episode,
    servable_levels,
)
from agentmetrology.store.redact import Redactor
from serve.test_http_security import stub_bind
from support.comtrade_runs import COMTRADE

EMPTY = {"data_jsonl": "", "metadata_json": "{}", "run_log": ""}


def _episode(tmp_path: Path, task: str = "T1_single_page", **kw: Any) -> McpEpisode:
    return McpEpisode(COMTRADE, task, 0, out_dir=tmp_path, transport="http", clock=FakeClock(),
                      **kw)


def test_only_levels_without_a_harness_are_servable() -> None:
    assert servable_levels(COMTRADE) == ("L2",) and COMTRADE.levels == ("L0", "L1", "L2")
    check_level(COMTRADE, "L2")
    for level in ("L0", "L1", "L9"):
        with pytest.raises(LevelNotServable) as exc:
            check_level(COMTRADE, level)
        assert str(exc.value) == (
            f"level {level} cannot be served over MCP: an external MCP client owns every "
            "decision and no harness sits between it and the tools, which is scaffold level L2 "
            "by definition; levels where the harness owns decisions need an in-process agent: "
            f"use `agm run comtrade --level {level}`")


def test_an_episode_needs_somewhere_to_be_recorded() -> None:
    with pytest.raises(ValueError) as exc:
        McpEpisode(COMTRADE, "T1_single_page", 0)
    assert str(exc.value) == "an MCP episode needs somewhere to be recorded: a store or out_dir"


def test_the_http_transport_constants() -> None:
    assert (LOOPBACK, DEFAULT_PORT) == ("127.0.0.1", 8765)


def test_a_submitted_episode_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ep = _episode(tmp_path)
    assert ep.termination().kind == "agent_error"
    info = ep.call("get_task_info", {})
    assert info["task_id"] == "T1_single_page" and ep.recorded is None
    ack = ep.call("submit_results", EMPTY)
    assert ack == {"status": "accepted", "lines_received": 0, "task_id": "T1_single_page"}
    # the record: named by task, seed and the episode digest; canonical JSON of three fields
    record = ep.episode()
    ep_bytes = canonical_json(record)
    ep_digest = hashlib.sha256(ep_bytes).hexdigest()
    path = tmp_path / f"T1_single_page-seed0-{ep_digest[:16]}.json"
    assert ep.path == path and ep.recorded == str(path)
    assert sorted(tmp_path.iterdir()) == [path]  # no temporary file left behind
    doc = json.loads(path.read_bytes())
    assert path.read_bytes() == canonical_json(doc)
    assert doc["episode_digest"] == ep_digest and doc["episode"] == json.loads(ep_bytes)
    scores = [(a["scorer"], a["status"], a["score"]) for a in doc["assessments"]]
    # every scorer of the environment, in order (no rows: F1 is 0)
    assert scores == [(a.scorer, a.status, a.score) for a in score_episode(COMTRADE, record)]
    assert scores[0] == ("ground_truth_f1", "FAIL", 0.0) and scores[1][0] == "shape_judge"
    err = capsys.readouterr().err
    assert err == (f"agm: episode recorded in {path} (submitted; ground_truth_f1 0.0, "
                   f"shape_judge {scores[1][2]})\n")
    # the episode's fields
    assert record.termination.kind == "submitted"
    assert record.termination.detail == "submitted by an MCP client over http"
    assert (record.target, record.level, record.task, record.seed) == (
        "mcp-client", "L2", "T1_single_page", 0)
    assert (record.usage.tool_calls, record.usage.requests, record.usage.attempts) == (2, 0, [])
    assert record.digests == {"submission": digest(EMPTY)}
    assert record.meta == {
        "environment": "comtrade", "profile": "seeded", "agent": "mcp-client",
        "ownership": COMTRADE.ownership_of("L2"),
        "served_over": {"protocol": "mcp", "transport": "http", "client": None},
        "usage_note": "model usage and cost belong to the MCP client; not observed"}
    assert [e.name for e in record.events] == ["get_task_info", "submit_results"]
    assert {e.actor for e in record.events} == {"agent"}
    # after recording: every tool answers with the error, nothing more is recorded
    after = ep.call("fetch_page", {"page": 1})
    assert after == {"error": RECORDED_ERROR.format(where=str(path))}
    assert after["error"] == (f"this episode is already recorded ({path}); start a new server "
                              "for a new episode")
    assert ep.finish() == str(path) and ep.close() == str(path)
    assert len(ep.rec.events) == 2 and sorted(tmp_path.iterdir()) == [path]
    assert capsys.readouterr().err == ""  # recorded once, announced once


def test_a_client_that_spends_the_budget(tmp_path: Path) -> None:
    ep = _episode(tmp_path)
    while not ep.env.budget_exhausted:
        ep.call("fetch_page", {"page": 1})
    assert ep.termination().kind == "budget_exhausted"
    assert ep.termination().detail == "request budget spent without a submission"
    assert ep.close() is not None
    doc = json.loads(next(tmp_path.iterdir()).read_bytes())
    assert doc["episode"]["termination"]["kind"] == "budget_exhausted"
    assert doc["episode"]["digests"] == {} and doc["episode"]["submission"] is None


def test_a_client_that_leaves(tmp_path: Path) -> None:
    ep = _episode(tmp_path, task="T3_duplicates", profile="legacy", target="ide", repeat=2)
    ep.call("get_task_info", {})
    where = ep.close()
    assert where is not None and where == ep.recorded and ep.close() == where
    doc = json.loads(Path(where).read_bytes())
    assert doc["episode"]["termination"] == {
        "kind": "agent_error", "detail": "the MCP client disconnected without submitting"}
    assert doc["episode"]["meta"]["profile"] == "legacy"
    assert doc["episode"]["key"]["repeat"] == 2 and doc["episode"]["target"] == "ide"


def test_instructions_are_the_description_and_the_l2_task_message(tmp_path: Path) -> None:
    ep = _episode(tmp_path)
    task = COMTRADE.tasks["T1_single_page"]
    prompts = COMTRADE.prompts
    assert prompts is not None
    assert ep.instructions() == (f"{COMTRADE.description}\n\n"
                                 f"{prompts.task_message(task, 'L2', 0)}")
    assert ep.instructions().startswith("ComtradeBench: ")


def test_record_episode_redacts_before_digesting(tmp_path: Path) -> None:
    ep = _episode(tmp_path / "unused")
    ep.call("submit_results", {**EMPTY, "run_log": "token=s3cr3t-value-1234"})
    record = ep.episode()
    redact = Redactor(["s3cr3t-value-1234"]).bytes
    path = record_episode(record, [], tmp_path / "out", redact)
    raw = path.read_bytes()
    assert b"s3cr3t-value-1234" not in raw
    doc = json.loads(raw)
    assert doc["episode_digest"] == hashlib.sha256(canonical_json(doc["episode"])).hexdigest()
    # the submission was redacted, so the episode names the redacted bytes' digest
    submission = canonical_json(doc["episode"]["submission"])
    assert b"[redacted]" in submission
    assert doc["episode"]["digests"]["submission"] == hashlib.sha256(submission).hexdigest()
    assert doc["assessments"] == []
    assert path.name == f"T1_single_page-seed0-{doc['episode_digest'][:16]}.json"
    # the default redaction is the store's: credential patterns
    ep2 = _episode(tmp_path / "unused2")
    ep2.call("submit_results", {**EMPTY, "run_log": "auth sk-abcdefghijklmnopqrstuvwx"})
    raw2 = record_episode(ep2.episode(), [], tmp_path / "out2").read_bytes()
    assert b"sk-abcdefghijklmnopqrstuvwx" not in raw2


def test_a_failed_write_leaves_no_temporary_file(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    ep = _episode(tmp_path / "unused")

    def refuse(*_: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError, match="disk full"):
        record_episode(ep.episode(), [], tmp_path / "out")
    assert list((tmp_path / "out").iterdir()) == []


# -- through an MCP client (the SDK's in-memory transport) ---------------------------------------

def _client_session(episode: McpEpisode, calls: list[tuple[str, dict[str, Any]]]
                    ) -> tuple[list[types.Tool], list[types.CallToolResult]]:
    """List the tools, then make the calls, as one in-memory MCP client session."""
    async def go() -> tuple[list[types.Tool], list[types.CallToolResult]]:
        async with Client(build_server(episode)) as client:
            tools = (await client.list_tools()).tools
            return tools, [await client.call_tool(n, a) for n, a in calls]
    return asyncio.run(asyncio.wait_for(go(), 60))


def test_the_server_lists_the_environment_s_tools(tmp_path: Path) -> None:
    ep = _episode(tmp_path)
    tools, results = _client_session(ep, [])
    specs = {t.name: t.spec for t in ComtradeEnv("T1_single_page", 0).tools.values()}
    assert [t.name for t in tools] == list(specs)
    assert {t.name: (t.description, t.input_schema) for t in tools} == {
        n: (s.description, s.parameters) for n, s in specs.items()}
    assert results == [] and ep.close() is None  # listing tools is not using them


def test_tool_results_carry_the_observation_and_mark_errors(tmp_path: Path) -> None:
    ep = _episode(tmp_path)
    _, results = _client_session(ep, [("fetch_page", {"page": 0}),
                                            ("get_task_info", {}), ("submit_results", EMPTY),
                                            ("get_task_info", {})])
    bad, info, ack, after = results
    for res in results:
        (block,) = res.content
        assert isinstance(block, types.TextContent)
        assert json.loads(block.text) == res.structured_content
    assert bad.is_error and bad.structured_content is not None
    assert bad.structured_content["status"] == 422
    assert not info.is_error and info.structured_content is not None
    assert info.structured_content["task_id"] == "T1_single_page"
    assert not ack.is_error and ack.structured_content == {
        "status": "accepted", "lines_received": 0, "task_id": "T1_single_page"}
    assert after.is_error and after.structured_content == {
        "error": RECORDED_ERROR.format(where=ep.recorded)}
    # the client's own name and version are recorded with the episode
    client = ep.episode().meta["served_over"]["client"]
    assert isinstance(client, dict) and set(client) == {"name", "version"}
    assert all(isinstance(v, str) for v in client.values())


def test_non_ascii_observations_are_sent_as_text(tmp_path: Path) -> None:
    ep = _episode(tmp_path)
    _, (res,) = _client_session(ep, [("fetch_page", {"page": "é"})])
    (block,) = res.content
    assert isinstance(block, types.TextContent)
    assert block.text == json.dumps(res.structured_content, ensure_ascii=False)


def test_the_server_names_itself_and_gives_the_instructions(tmp_path: Path) -> None:
    ep = _episode(tmp_path)
    server = build_server(ep)
    assert COMTRADE.serving is not None
    assert server.name == "agentmetrology-comtrade" == COMTRADE.serving.name
    assert server.version == __version__ and server.instructions == ep.instructions()


def test_serve_http_announces_the_loopback_url_and_records_on_stop(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import uvicorn

    from agentmetrology.serve.mcp_server import serve_http

    seen: dict[str, Any] = {}

    class StoppedServer:  # uvicorn replaced: the server "stops" at once, as on Ctrl-C
        def __init__(self, config: uvicorn.Config) -> None:
            seen["config"] = config

        async def serve(self, sockets: Any = None) -> None:
            raise KeyboardInterrupt

    monkeypatch.setattr(uvicorn, "Server", StoppedServer)
    stub_bind(monkeypatch, seen)
    ep = _episode(tmp_path)
    ep.call("get_task_info", {})
    with pytest.raises(KeyboardInterrupt):
        asyncio.run(serve_http(ep, port=9999))
    assert seen["socket"].address == ("127.0.0.1", 9999) and seen["socket"].closed
    assert seen["config"].log_level == "warning"
    err = capsys.readouterr().err
    assert err.startswith("agm: serving T1_single_page over MCP at http://127.0.0.1:9999/mcp\n")
    assert ep.recorded is not None and "agm: episode recorded in" in err  # closed on the way out


def test_the_client_s_name_and_version_are_recorded(tmp_path: Path) -> None:
    ep = _episode(tmp_path)

    async def go() -> None:
        info = types.Implementation(name="probe-ide", version="7.1")
        async with Client(build_server(ep), client_info=info) as client:
            await client.call_tool("get_task_info", {})

    asyncio.run(asyncio.wait_for(go(), 60))
    assert ep.episode().meta["served_over"]["client"] == {"name": "probe-ide", "version": "7.1"}


def test_client_info_from_a_context_without_one() -> None:
    from types import SimpleNamespace

    from agentmetrology.serve.mcp_server import _client_info

    assert _client_info(object()) is None  # no session
    assert _client_info(SimpleNamespace(session=object())) is None  # no client params
    bare = SimpleNamespace(session=SimpleNamespace(client_params=SimpleNamespace(
        client_info=object())))
    assert _client_info(bare) == {"name": "", "version": ""}  # neither field given


def test_the_server_name_is_the_environment_s_or_derived(tmp_path: Path) -> None:
    import dataclasses

    for serving, expected in ((Serving("custom-name"), "custom-name"),
                              (Serving(""), "agentmetrology-comtrade"),
                              (None, "agentmetrology-comtrade")):
        spec = dataclasses.replace(COMTRADE, serving=serving)
        ep = McpEpisode(spec, "T1_single_page", 0, out_dir=tmp_path, clock=FakeClock())
        assert build_server(ep).name == expected


def test_serve_stdio_answers_on_the_streams_and_records_at_eof(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    import anyio
    import mcp.server.stdio as stdio

    from agentmetrology.serve.mcp_server import serve_stdio

    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "probe", "version": "0"}}}
    out = io.StringIO()
    real = stdio.stdio_server

    def streams() -> Any:  # the process's stdin/stdout replaced by one request and a buffer
        return real(stdin=anyio.wrap_file(io.StringIO(json.dumps(init) + "\n")),
                    stdout=anyio.wrap_file(out))

    monkeypatch.setattr(stdio, "stdio_server", streams)
    ep = _episode(tmp_path)
    ep.call("get_task_info", {})
    asyncio.run(asyncio.wait_for(serve_stdio(ep), 60))
    (line,) = out.getvalue().splitlines()
    result = json.loads(line)["result"]
    assert result["serverInfo"]["name"] == "agentmetrology-comtrade"
    assert result["instructions"] == ep.instructions() and "tools" in result["capabilities"]
    assert ep.recorded is not None  # the client went away (EOF): the episode is recorded


def test_the_export_directory_and_the_temporary_file(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    ep = _episode(tmp_path / "unused")
    out = tmp_path / "a" / "b"  # parents are created
    seen: list[tuple[str, str]] = []
    real = os.replace

    def replace(src: str, dst: str) -> None:
        seen.append((src, dst))
        real(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    path = record_episode(ep.episode(), [], out)
    ((tmp, dst),) = seen
    assert Path(dst) == path and path.parent == out
    assert Path(tmp).parent == out  # renamed within the directory: atomic
    assert Path(tmp).name.startswith(".episode-") and tmp.endswith(".tmp")  # never a *.json


def test_a_temporary_file_already_gone_does_not_hide_the_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ep = _episode(tmp_path / "unused")

    def vanish_then_fail(src: str, _: str) -> None:
        Path(src).unlink()
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", vanish_then_fail)
    with pytest.raises(OSError, match=r"^disk full$"):
        record_episode(ep.episode(), [], tmp_path / "out")


def test_defaults_of_an_episode(tmp_path: Path) -> None:
    ep = McpEpisode(COMTRADE, "T1_single_page", 0, out_dir=tmp_path, clock=FakeClock())
    assert ep.path is None and ep.recorded is None
    assert (ep.adm.key.repeat, ep.adm.key.target, ep.adm.key.level) == (0, "mcp-client", "L2")
    assert ep.adm.environment == "comtrade"
    import dataclasses
    other = dataclasses.replace(COMTRADE, name="comtrade-copy")  # the spec's name is bound
    assert McpEpisode(other, "T1_single_page", 0, out_dir=tmp_path).adm.environment == (
        "comtrade-copy")
    ep.call("submit_results", EMPTY)
    record = ep.episode()
    assert record.termination.detail == "submitted by an MCP client over stdio"
    assert record.submission == EMPTY and record.usage.requests == 0


def test_requests_used_are_the_episode_s(tmp_path: Path) -> None:
    ep = _episode(tmp_path)
    ep.call("fetch_page", {"page": 1})
    ep.call("fetch_page", {"page": 1})
    assert ep.episode().usage.requests == ep.env.requests_used == 2


def test_recorded_in_the_store_and_exported(tmp_path: Path) -> None:
    store, out = tmp_path / "store", tmp_path / "out"
    ep = McpEpisode(COMTRADE, "T1_single_page", 0, store=store, out_dir=out, clock=FakeClock())
    ep.call("submit_results", EMPTY)
    campaign = ep.adm.campaign
    assert ep.recorded == (f"evidence store {store}, campaign {campaign} (inspect with "
                           f"`agm campaign status --store {store} --campaign {campaign}`); "
                           f"{ep.path}")


def test_the_export_is_redacted_as_the_store_redacts(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The export's episode_digest is the store's blob digest, even for a variable the store
    did not see: the store's redaction is used, not a fresh one."""
    from agentmetrology.store import EvidenceStore

    store, out = tmp_path / "store", tmp_path / "out"
    ep = McpEpisode(COMTRADE, "T1_single_page", 0, store=store, out_dir=out, clock=FakeClock())
    monkeypatch.setenv("LATER_API_KEY", "set-after-the-store-opened-1234")
    ep.call("submit_results", {**EMPTY, "run_log": "key set-after-the-store-opened-1234"})
    assert ep.path is not None
    exported = json.loads(ep.path.read_bytes())
    with EvidenceStore.open(store, create=False) as st:
        row = st.episode(ep.adm.key)
    assert row is not None and row["episode_digest"] == exported["episode_digest"]


def test_a_submission_the_store_redacts_still_verifies(tmp_path: Path) -> None:
    """A client that puts a credential-shaped text in its submission: the store keeps it
    redacted, under a new digest, and the episode, its assessments and the export name that
    digest. They named the unredacted bytes' before, so the store's own check found
    scope_mismatch (3 problems) on an honest episode and the store was unqualified."""
    from agentmetrology.store import EvidenceStore
    from agentmetrology.store.verify import verify_store

    store, out = tmp_path / "store", tmp_path / "out"
    ep = McpEpisode(COMTRADE, "T1_single_page", 0, store=store, out_dir=out, clock=FakeClock())
    ep.call("submit_results", {**EMPTY, "run_log": "key sk-proj-ABCDEFGHIJKLMNOPQRSTUV12345"})
    ep.close()
    q = verify_store(store, mode="full")
    assert q.qualified, [p.text() for p in q.problems]
    with EvidenceStore.open(store, create=False) as st:
        row = st.episode(ep.adm.key)
        assert row is not None
        sub = row["submission_digest"]
        assert st.get_json(sub)["run_log"] == "key [redacted]"
        assert st.load_episode(ep.adm.key)["digests"]["submission"] == sub
        assert {a["evidence_digest"] for a in row["assessments"]} == {sub}
    assert ep.path is not None
    exported = json.loads(ep.path.read_bytes())
    assert exported["episode_digest"] == row["episode_digest"]
    assert {a["evidence_digest"] for a in exported["assessments"]} == {sub}


def test_a_served_episode_s_token_counts_are_unknown_everywhere(tmp_path: Path) -> None:
    """The client's model requests are never seen: its row holds 0 and 0 tokens, which status,
    export, `agm run`-style rows and the viewer must show as unknown, as its cost is."""
    from urllib.parse import urlencode

    from starlette.testclient import TestClient
    from typer.testing import CliRunner

    from agentmetrology.cli.main import app as cli
    from agentmetrology.store import EvidenceStore
    from agentmetrology.view import create_app, detect_source

    store = tmp_path / "store"
    ep = McpEpisode(COMTRADE, "T1_single_page", 0, store=store, out_dir=tmp_path / "out",
                    clock=FakeClock())
    ep.call("fetch_page", {"page": 1})
    ep.call("submit_results", EMPTY)
    ep.close()
    key = ep.adm.key
    runner = CliRunner()
    (doc,) = json.loads(runner.invoke(cli, ["campaign", "status", "--store", str(store),
                                            "--json"]).stdout)["campaigns"]
    for counts in (doc["targets"][key.target], doc["total"]):
        assert counts["cost"] is None and counts["cost_unknown"] == 1
        assert (counts["input_tokens"], counts["output_tokens"]) == (None, None)
        assert (counts["input_tokens_known"], counts["tokens_unknown"]) == (0, 1)
    out = tmp_path / "e.jsonl"
    assert runner.invoke(cli, ["export", str(store), "--out", str(out)]).exit_code == 0
    (row,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert (row["cost"], row["input_tokens"], row["output_tokens"]) == (None, None, None)
    with EvidenceStore.open(store, create=False) as st:
        led = st.episode(key)
        assert led is not None and st.ledger.tokens_unknown(led["attempt"]) == 1
    page = TestClient(create_app(detect_source(store)), base_url="http://127.0.0.1").get(
        "/episode?" + urlencode({"campaign": key.campaign, "target": key.target,
                                 "task": key.task, "seed": key.seed,
                                 "condition": key.condition, "level": key.level,
                                 "repeat": key.repeat}))
    assert page.status_code == 200
    text = " ".join(page.text.split())
    assert ("token counts unknown (served to an outside client, whose model requests this "
            "store never sees)") in text
    assert "0 input and 0 output tokens" not in text
    assert "a model-free agent makes none" not in text


def test_every_client_that_called_a_tool_is_named(tmp_path: Path) -> None:
    # Over HTTP any client on the machine can reach the server, and MCP's 2026 protocol has no
    # session to tell two apart by: both clients' calls are the one episode's. The record once
    # named only the first, so a second client's submission was silently attributed to it.
    ep = _episode(tmp_path)
    server = build_server(ep)

    async def go() -> None:
        first = types.Implementation(name="first", version="1")
        second = types.Implementation(name="second", version="2")
        async with Client(server, client_info=first) as a, \
                Client(server, client_info=second) as b:
            await a.call_tool("get_task_info", {})
            await b.call_tool("get_task_info", {})
            await a.call_tool("get_task_info", {})
            await b.call_tool("submit_results", EMPTY)

    asyncio.run(asyncio.wait_for(go(), 60))
    record = ep.episode()
    assert [e.name for e in record.events] == ["get_task_info"] * 3 + ["submit_results"]
    assert record.meta["served_over"] == {
        "protocol": "mcp", "transport": "http", "client": {"name": "first", "version": "1"},
        "other_clients": [{"name": "second", "version": "2"}]}


def test_a_lone_surrogate_is_refused_and_the_episode_is_still_recorded(tmp_path: Path) -> None:
    # An in-process client (or one whose transport reads JSON as json.loads does) can send
    # "\ud800": such a submission was accepted and then raised UnicodeEncodeError while the
    # episode was digested, so the client got no answer and the submission was never recorded.
    ep = _episode(tmp_path)
    bad = ep.call("submit_results", {**EMPTY, "run_log": "x\ud800"})
    assert bad["error"].startswith("submit_results: the arguments hold a lone surrogate")
    assert ep.recorded is None
    assert ep.call("submit_results", EMPTY)["status"] == "accepted"
    doc = json.loads((tmp_path / Path(str(ep.path)).name).read_bytes())
    assert [e["args"]["run_log"] for e in doc["episode"]["events"]] == ["x\\ud800", ""]
    assert doc["episode"]["termination"]["kind"] == "submitted"
