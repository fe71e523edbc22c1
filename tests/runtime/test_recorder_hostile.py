"""Hostile tool calls an LLM can send as JSON: every one gets an error observation and a record
that can be written (before: some raised out of the recorder, others left an episode that no
store or digest could write)."""

from __future__ import annotations

from typing import Any

import pytest

from agentmetrology.envs.registry import env_names, get_env
from agentmetrology.records.canonical import canonical_json, decode_json, digest
from agentmetrology.records.clock import FakeClock
from agentmetrology.records.policy import Brief, ToolCall
from agentmetrology.run.episode import run_one
from agentmetrology.runtime.recorder import DEPTH_ERROR, MAX_ARGUMENT_DEPTH, Recorder
from agentmetrology.runtime.scripted import ScriptedPolicy, TimedScript


def _nested(depth: int) -> Any:
    """Return `depth` lists nested in one another (json.loads reads ~990 levels of text)."""
    value: list[Any] = []
    for _ in range(depth - 1):
        value = [value]
    return value


def _first_tool(name: str) -> tuple[Any, str]:
    spec = get_env(name)
    env = spec.make(sorted(spec.tasks)[0], 0, spec.profiles[0], "clean")
    return env, next(iter(env.tools))


@pytest.mark.parametrize("env_name", env_names())
@pytest.mark.parametrize("depth", [MAX_ARGUMENT_DEPTH, 600, 980])
def test_deeply_nested_arguments_are_refused_not_raised(env_name: str, depth: int) -> None:
    # json.loads reads ~990 levels; the recorder's surrogate walk recursed and raised
    # RecursionError out of the call (an episode ended as agent_error, the call unrecorded).
    env, tool = _first_tool(env_name)
    rec = Recorder(env, FakeClock())
    obs = rec.call("agent", tool, {"x": _nested(depth)})
    assert obs["error"] == f"{tool}: {DEPTH_ERROR}"
    (ev,) = rec.events
    assert ev.args == {} and ev.result is obs
    # what was sent, in full (repr itself stops short of ~1,000 levels deep in a stack)
    assert obs["arguments_sent_repr"] == "{'x': " + "[" * depth + "]" * depth + "}"
    assert decode_json(canonical_json(ev))["result"] == obs  # the record can be written
    # one level less (the arguments object counts as one) is executed as before (the tool
    # then refuses the unknown argument)
    ok = rec.call("agent", tool, {"x": _nested(MAX_ARGUMENT_DEPTH - 1)})
    assert "arguments_sent_repr" not in ok and rec.events[-1].args != {}


@pytest.mark.parametrize("env_name", env_names())
def test_an_unknown_tool_with_a_lone_surrogate_is_recorded_escaped(env_name: str) -> None:
    # The unknown-tool branch came before the surrogate check: the event kept "\udc00" and
    # the episode could not be digested (UnicodeEncodeError when it was stored).
    env, _ = _first_tool(env_name)
    rec = Recorder(env, FakeClock())
    obs = rec.call("agent", "nope", {"a": {"\udc00": 1}, "b": "x\ud800"})
    assert obs["error"].startswith("unknown tool 'nope'; available: ")
    assert rec.events[0].args == {"a": {"\\udc00": 1}, "b": "x\\ud800"}
    obs = rec.call("agent", "no\ud800pe", {})
    assert obs["error"].startswith("unknown tool 'no\\\\ud800pe'; available: ")
    assert rec.events[1].name == "no\\ud800pe"
    assert digest(rec.events)


def test_an_unknown_tool_name_is_repeated_only_in_part() -> None:
    # A 10 MB name came back whole in the error: into the agent's context and the record twice.
    env, _ = _first_tool("comtrade")
    rec = Recorder(env, FakeClock())
    obs = rec.call("agent", "a" * 10_000_000, {})
    assert obs["error"].startswith(f"unknown tool {'a' * 200!r}... (10000000 characters); ")
    assert len(obs["error"]) < 400 and len(rec.events[0].name) == 10_000_000


def test_names_and_argument_names_that_are_not_text_are_refused() -> None:
    # An in-process caller can send them: tools.get([..]) and fn(**{1: 2}) raised TypeError.
    env, tool = _first_tool("comtrade")
    rec = Recorder(env, FakeClock())
    assert rec.call("agent", ["x"], {})["error"].startswith("unknown tool \"['x']\";")  # type: ignore[arg-type]
    obs = rec.call("agent", tool, {1: 2, "a": [1]})
    assert obs == {"error": f"{tool}: argument names must be text",
                   "arguments_sent_repr": "{1: 2, 'a': [1]}"}
    assert [e.name for e in rec.events] == ["['x']", tool] and digest(rec.events)


class _Hostile(ScriptedPolicy):
    """Sends a fixed list of calls, the hostile ones above among them."""

    name = "scripted:hostile"
    levels = ("L0", "L1", "L2")

    def __init__(self, calls: list[tuple[str, Any]]) -> None:
        super().__init__()
        self.calls = calls

    def script(self, brief: Brief) -> TimedScript:
        for name, args in self.calls:
            yield ToolCall(name, args)


def _hostile_calls(tools: list[str]) -> list[tuple[str, Any]]:
    values: list[Any] = [None, float("nan"), float("inf"), 10**100, -5, 10**9, "a\x00b",
                         "\ud800", {"\udc00": 1}, _nested(700), [1, "x"], ""]
    calls: list[tuple[str, Any]] = [("nope", {"a": "\ud800"}), ("\udfff", {})]
    for i, value in enumerate(values):
        calls.append((tools[i % len(tools)], {"page": value, "id": value, "name": value}))
        calls.append((tools[(i + 1) % len(tools)], value))
    return calls


@pytest.mark.parametrize("env_name", env_names())
def test_a_hostile_episode_is_recorded_and_byte_identical_on_rerun(env_name: str) -> None:
    spec = get_env(env_name)
    task = sorted(spec.tasks)[0]
    tools = list(spec.make(task, 0, spec.profiles[0], "clean").tools)
    for level in spec.levels:
        texts = []
        for _ in range(2):
            scored = run_one(spec, task, 0, _Hostile(_hostile_calls(tools)), level,
                             max_steps=100)
            ep = scored.episode
            assert not ep.termination.detail.startswith(("RecursionError", "TypeError"))
            assert all(a.status in {"PASS", "FAIL", "PARTIAL", "UNKNOWN", "INVALID"}
                       for a in scored.assessments)
            texts.append(canonical_json(ep))  # raised UnicodeEncodeError before
        assert texts[0] == texts[1], level
