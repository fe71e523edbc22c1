"""Applying mutations (mutations/apply.py) value by value: maps, the mutated view, hooks, inverse.

alias shows each tool as `op_` + the first six hex digits of sha256 of its name; misleading
rotates the sorted names by one; the mutated environment keeps every description and
parameter schema, and the harness keeps the original tools; environment-side mutations run
their hook on the episode's environment, scorer-side ones replace the scorers; the inverse map
renames tool calls and interceptions only, and leaves names it does not know.
"""

from __future__ import annotations

import hashlib

import pytest

from agentmetrology.envs.registry import get_env
from agentmetrology.envs.researchops.scorers import rubric
from agentmetrology.mutations import name_map, unsupported
from agentmetrology.mutations.apply import (
    MutatedEnv,
    invert_trajectory,
    mutate_env,
    mutate_scorers,
)
from agentmetrology.records.events import Event

TOOLS = ["submit_results", "fetch_page", "get_task_info"]
RO = get_env("researchops")


def test_unsupported_names_the_missing_hook() -> None:
    comtrade = get_env("comtrade")
    assert comtrade.mutation_hook("constraint") is None and comtrade.mutations is None
    assert RO.mutation_hook("constraint") is not None
    assert unsupported(comtrade, "constraint") == (
        "environment 'comtrade' cannot support mutation 'constraint' (require evidence "
        "citation in the final report): it supplies no hook for it")
    assert unsupported(RO, "constraint") is None
    assert unsupported(comtrade, "alias") is None  # needs no hook


def test_alias_names_are_six_hex_digits_of_the_names_digest() -> None:
    assert name_map("alias", TOOLS) == {
        n: "op_" + hashlib.sha256(n.encode()).hexdigest()[:6] for n in TOOLS}


def test_misleading_rotates_the_sorted_names_by_one() -> None:
    assert name_map("misleading", TOOLS) == {"fetch_page": "get_task_info",
                                             "get_task_info": "submit_results",
                                             "submit_results": "fetch_page"}
    assert name_map("misleading", ["b", "a"]) == {"a": "b", "b": "a"}
    assert name_map("misleading", ["only"]) == {"only": "only"}
    assert name_map("format", TOOLS) == {n: n for n in TOOLS}


def test_the_mutated_view_keeps_descriptions_schemas_and_the_harness_tools() -> None:
    inner = RO.make("lr_1", 0, "default", "clean")
    env = MutatedEnv(inner, "alias", "mut:alias")
    assert env.mutation == "alias" and env.condition == "mut:alias"
    shown = name_map("alias", list(inner.tools))
    assert set(env.tools) == set(shown.values())
    for original, tool in inner.tools.items():
        mine = env.tools[shown[original]]
        assert (mine.spec.name, mine.spec.description, mine.spec.parameters) == \
            (shown[original], tool.spec.description, tool.spec.parameters)
        assert env.harness_tools[original].spec == tool.spec
    assert env.original_names == {v: k for k, v in shown.items()}


def test_environment_side_mutations_run_their_hook_on_the_episode() -> None:
    inner = RO.make("lr_5", 0, "default", "clean")
    assert not inner.require_citation
    env = mutate_env(RO, inner, "constraint", "mut:constraint")
    assert isinstance(env, MutatedEnv) and env.inner is inner and inner.require_citation
    other = RO.make("lr_5", 0, "default", "clean")
    assert mutate_env(RO, other, "alias", "mut:alias").inner is other
    assert not other.require_citation  # an agent-view mutation runs no hook


def test_scorer_side_mutations_replace_the_scorers() -> None:
    assert mutate_scorers(RO, "rubric") == rubric(RO.scorers)
    assert mutate_scorers(RO, "rubric") != RO.scorers
    assert mutate_scorers(RO, "alias") == RO.scorers
    assert mutate_scorers(RO, None) == RO.scorers


@pytest.mark.parametrize("mutation", ["alias", "misleading"])
def test_the_inverse_renames_calls_and_interceptions_only(mutation: str) -> None:
    fwd = name_map(mutation, TOOLS)
    shown = fwd["fetch_page"]
    events = [Event(0, "agent", "tool_call", shown, {}, None, 0.0),
              Event(1, "harness", "intercepted", shown, {}, None, 0.0),
              Event(2, "agent", "message", shown, {}, None, 0.0),
              Event(3, "agent", "tool_call", "not_a_tool", {}, None, 0.0)]
    back = invert_trajectory(events, mutation, TOOLS)
    assert [e.name for e in back] == ["fetch_page", "fetch_page", shown, "not_a_tool"]
    assert [(e.seq, e.actor, e.kind) for e in back] == [(e.seq, e.actor, e.kind)
                                                        for e in events]
