"""Conformance: an environment that implements only the required core works everywhere.

`CORE` below supplies the core of an `EnvSpec` (name, version, tasks, how to make an instance,
a scorer, a model-free agent, one level with its owner) and no optional capability: no prompts,
display, offline files, audit hooks, mutations, contract or serving name. It runs through the
library calls behind `agm run`, the auditor (every stage that needs a hook reads `not probed`)
and campaign planning; commands that need a missing capability refuse and name it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentmetrology.audit.env_audit import audit_env
from agentmetrology.audit.targets.env import EnvTarget
from agentmetrology.envs.registry import get_env, register, unregister
from agentmetrology.mutations.apply import unsupported
from agentmetrology.records.assessment import Assessment
from agentmetrology.records.clock import FakeClock
from agentmetrology.records.environment import CAPABILITIES, EnvSpec, ScorerKind
from agentmetrology.records.errors import UserError
from agentmetrology.records.policy import Brief, Level, Move, Question, ToolCall
from agentmetrology.records.tools import Observation, Tool, ToolSpec
from agentmetrology.run.campaign.config import parse_campaign
from agentmetrology.run.campaign.plan import plan_campaign
from agentmetrology.run.episode import result_row, run_episode, run_one

ECHO = ToolSpec("echo", "Submit a word once; ends the episode.",
                {"type": "object", "properties": {"word": {"type": "string"}},
                 "required": ["word"], "additionalProperties": False})
TASKS = {"hello": {"word": "hello"}, "bye": {"word": "bye"}}


class Echo:
    """One episode: the agent must submit the task's word."""

    def __init__(self, task: str, seed: int | None, profile: str, condition: str) -> None:
        if task not in TASKS:
            raise ValueError(f"unknown task {task!r}")
        self.task_id, self.seed, self.profile, self.condition = task, seed, profile, condition
        self.submitted: dict[str, Any] | None = None
        self.requests_used, self.budget_exhausted = 0, False
        self.trace: list[Any] = []
        self.tools = {"echo": Tool(ECHO, self._echo)}

    def _echo(self, word: str) -> Observation:
        self.requests_used += 1
        self.submitted = {"word": word}
        return {"ok": True}


class Exact:
    """PASS iff the submitted word is the task's word."""

    name, version, label = "exact", "1", "exact"
    kind: ScorerKind = "outcome"

    def score(self, submission: Any, task: str, seed: int | None, profile: str,
              evidence_digest: str | None = None, trajectory: Any = None) -> Assessment:
        ok = isinstance(submission, dict) and submission.get("word") == TASKS[task]["word"]
        return Assessment(self.name, self.version, "PASS" if ok else "FAIL", float(ok), {}, (),
                          evidence_digest or "")

    def summary(self, assessment: Assessment) -> dict[str, Any]:
        return {"status": assessment.status, "score": assessment.score}


class Parrot:
    """Scripted: submit the task's word."""

    name = "scripted:parrot"
    levels: tuple[Level, ...] = ("L2",)

    def reset(self, brief: Brief) -> None:
        self.word = TASKS[brief.task_id]["word"]

    async def act(self, observation: Observation | None) -> Move:
        return ToolCall("echo", {"word": self.word})

    async def decide(self, question: Question) -> str:
        return question.fallback

    def take_attempts(self) -> list[Any]:
        return []


CORE = EnvSpec(name="core_only", version="0.1.0", description="Core only: echo a word",
               tasks=TASKS, make=Echo, scorers=(Exact(),), agents={"scripted:parrot": Parrot},
               decisions=("word",), ownership={"L2": {"word": "model"}})


@pytest.fixture
def registered() -> Iterator[EnvSpec]:
    """Register the core-only environment in this process for one test."""
    register(CORE)
    try:
        yield get_env("core_only")
    finally:
        unregister("core_only")


def test_it_supplies_no_capability() -> None:
    assert CORE.capabilities() == ()
    assert all(getattr(CORE, c) is None for c in CAPABILITIES)


def test_it_runs_and_scores_like_agm_run() -> None:
    scored = run_one(CORE, "hello", 0, "scripted:parrot", "L2")
    assert scored.episode.termination.kind == "submitted"
    assert [a.status for a in scored.assessments] == ["PASS"]
    row = result_row(CORE, scored.episode, scored.assessments, scored.profile)
    assert row["exact"] == {"version": "1", "status": "PASS", "score": 1.0}  # nothing else
    assert "word" not in row


def test_a_missing_mutation_hook_refuses_the_mutation() -> None:
    assert CORE.mutation_hook("rubric") is None
    assert unsupported(CORE, "rubric") is not None
    assert unsupported(CORE, "alias") is None  # a tool-side mutation needs no hook


def test_the_auditor_reports_its_stages_not_probed() -> None:
    doc = audit_env(EnvTarget(CORE, seeds=1))
    stages = doc["stages"]
    assert stages["probes"]["shipped"]["status"] == "not probed"
    assert stages["ownership"]["rule_calibration"]["status"] == "not probed"
    assert stages["ownership"]["non_degeneracy"] == {}
    assert doc["scorers"]["shipped"]["name"] == doc["scorers"]["ground_truth"]["name"] == "exact"
    for config in doc["card"]["configurations"]:
        assert config["rows"]["criterion_sensitivity"]["status"] == "not probed"


def test_a_campaign_plans_for_it(registered: EnvSpec) -> None:
    config = parse_campaign('[campaign]\nname = "core"\nenvironment = "core_only"\n'
                            'tasks = "all"\nseeds = "0-1"\nlevels = ["L2"]\n\n'
                            '[[targets]]\nname = "parrot"\nkind = "scripted"\n'
                            'agent = "scripted:parrot"\n')
    plan = plan_campaign(config)
    assert len(plan.administrations) == 4
    assert {a.key.task for a in plan.administrations} == set(TASKS)


def test_an_llm_agent_refuses_without_prompts() -> None:
    from agentmetrology.agents.llm.policy import ChatPolicy
    from agentmetrology.agents.llm.target import LLMTarget
    from agentmetrology.inspect_ext.task.tasks import prompts_of

    policy = ChatPolicy(LLMTarget("m", "m"), clock=FakeClock())
    with pytest.raises(UserError, match="'core_only' supplies no prompts"):
        run_episode(CORE, "hello", 0, policy, "L2")
    assert policy.take_attempts() == []  # refused before any request
    with pytest.raises(UserError, match="supplies no prompts"):
        prompts_of(CORE)


def test_it_is_served_over_mcp_with_its_description(tmp_path: Path) -> None:
    from agentmetrology.serve import McpEpisode, build_server

    ep = McpEpisode(CORE, "hello", 0, out_dir=tmp_path, transport="http", clock=FakeClock())
    assert ep.instructions() == CORE.description  # no prompts: the description alone
    assert build_server(ep).name == "agentmetrology-core_only"  # no serving name: derived


def test_commands_needing_a_capability_refuse_and_the_rest_fall_back(
        registered: EnvSpec) -> None:
    from typer.testing import CliRunner

    from agentmetrology.cli.main import app

    runner = CliRunner()
    tasks = runner.invoke(app, ["tasks", "core_only", "--json"])
    assert tasks.exit_code == 0
    assert [json.loads(line) for line in tasks.stdout.splitlines()] == [
        {"task_id": "hello"}, {"task_id": "bye"}]
    truth = runner.invoke(app, ["truth", "core_only", "--task", "hello"])
    assert truth.exit_code == 2 and "publishes no ground truth" in truth.output
    score = runner.invoke(app, ["score", "core_only", ".", "--task", "hello"])
    assert score.exit_code == 2 and "cannot read submissions" in score.output
