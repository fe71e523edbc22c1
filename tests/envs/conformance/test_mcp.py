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
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest
from mcp import Client, StdioServerParameters, types

from support.agm_runs import AGM, AgmResult, run_batch
from support.conformance import ENVIRONMENTS, McpScript, Observation, spec_of
from support.env_pins import PINS

PINNED = [env for env in ENVIRONMENTS if PINS[env].mcp is not None]


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


class Session(NamedTuple):
    """One server's session: its tools, the observations, then its store read back."""

    names: list[str]
    obs: list[Observation]
    status: AgmResult
    regrade: AgmResult | None
    root: Path


@pytest.fixture(scope="module")
def sessions(plugin_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory
             ) -> Callable[[str], Session]:
    """Serve each environment once (on first use); the generic and the pinned test read it."""
    done: dict[str, Session] = {}

    def get(name: str) -> Session:
        if name not in done:
            root, script = tmp_path_factory.mktemp(f"mcp-{name}"), _script(name)
            names, obs = _session(name, script, plugin_env, root)
            argvs = [["campaign", "status", "--store", str(root / "store"), "--json"]]
            if script.calls:  # an episode was recorded: regrade it
                argvs.append(["archive", "regrade", str(root / "store"), "--out",
                              str(root / "rg")])
            status, *regrade = run_batch(argvs, env=plugin_env, cwd=root)
            done[name] = Session(names, obs, status, regrade[0] if regrade else None, root)
        return done[name]

    return get


@pytest.mark.parametrize("name", ENVIRONMENTS)
def test_serve_mcp_offers_the_tools_and_seals_the_administration(
        sessions: Callable[[str], Session], name: str) -> None:
    spec, script = spec_of(name), _script(name)
    tools = list(spec.make(script.task, script.seed, spec.profiles[0], "clean").tools)
    got = sessions(name)
    assert got.names == tools
    # The served administration is sealed in the store before any call.
    assert got.status.returncode == 0, got.status.stderr
    assert json.loads(got.status.stdout)["campaigns"][0]["total"]["planned"] == 1


@pytest.mark.parametrize("name", PINNED)
def test_environment_pins(sessions: Callable[[str], Session], name: str) -> None:
    script, got = _script(name), sessions(name)
    script.check(got.names, got.obs)
    assert got.regrade is not None and got.regrade.returncode == 0, got.regrade
    script.regrade(json.loads((got.root / "rg" / "regrade.json").read_text()))
