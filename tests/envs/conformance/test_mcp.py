"""Conformance, `agm serve mcp`: every environment's server offers the environment's tools,
seals the served administration in the store before any call and marks an observation holding
an error as an error result; an environment's pinned client session (`support.env_pins`) makes
its calls, and `agm archive regrade` reads the episode the server recorded.

Processes: each server is its own process (a stdio MCP server, the plug-in found by its entry
point); the status and regrade of its store run in one fresh interpreter
(`support.agm_runs.run_batch`)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters, types

from support.agm_runs import AGM, run_batch
from support.conformance import ENVIRONMENTS, McpScript, Observation, spec_of
from support.env_pins import PINS


def _script(name: str) -> McpScript:
    """The environment's pinned session, or none: its first task at seed 0, no calls."""
    pinned = PINS[name].mcp
    if pinned is not None:
        return pinned
    return McpScript(task=sorted(spec_of(name).tasks)[0], seed=0, calls=(),
                     check=lambda _names, _obs: None, regrade=lambda _doc: None)


def _session(name: str, script: McpScript, env: dict[str, str],
             cwd: Path) -> tuple[list[str], list[Observation]]:
    params = StdioServerParameters(command=AGM[0], args=[
        *AGM[1:], "serve", "mcp", name, "--task", script.task, "--seed", str(script.seed),
        "--store", str(cwd / "store")], env=env, cwd=str(cwd))

    async def go() -> tuple[list[str], list[Observation]]:
        async with Client(params) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            obs: list[Observation] = []
            for tool, args in script.calls:
                res = await client.call_tool(tool, args(obs) if callable(args) else args)
                block = res.content[0]
                assert isinstance(block, types.TextContent)
                ob: Observation = json.loads(block.text)
                assert res.is_error == ("error" in ob), (tool, ob)
                obs.append(ob)
            return names, obs

    return asyncio.run(asyncio.wait_for(go(), 60))


@pytest.mark.parametrize("name", ENVIRONMENTS)
def test_serve_mcp_offers_the_tools_and_records_the_episode(plugin_env: dict[str, str],
                                                            tmp_path: Path, name: str) -> None:
    spec, script = spec_of(name), _script(name)
    tools = list(spec.make(script.task, script.seed, spec.profiles[0], "clean").tools)
    names, obs = _session(name, script, plugin_env, tmp_path)
    assert names == tools
    script.check(names, obs)
    argvs = [["campaign", "status", "--store", str(tmp_path / "store"), "--json"]]
    if script.calls:  # an episode was recorded: regrade it
        argvs.append(["archive", "regrade", str(tmp_path / "store"), "--out",
                      str(tmp_path / "rg")])
    status, *regrade = run_batch(argvs, env=plugin_env, cwd=tmp_path)
    # The served administration is sealed in the store before any call.
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)["campaigns"][0]["total"]["planned"] == 1
    for res in regrade:
        assert res.returncode == 0, res.stderr
        script.regrade(json.loads((tmp_path / "rg" / "regrade.json").read_text()))
