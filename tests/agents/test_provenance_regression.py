"""Our harness never writes anyone else's actions into the agent's record (docs/archive.md).

Every agent-actor call in an episode is a move the policy proposed, in order, and nothing the
scorers (the grader) do afterwards touches the record.
"""

from typing import Any

import pytest

from agentmetrology.agents.scaffolds.runner import run_episode_async
from agentmetrology.envs.comtrade import ComtradeEnv
from agentmetrology.envs.comtrade.scoring.submission import submission_from_mapping
from agentmetrology.records import canonical_json
from agentmetrology.records.episode import BillableAttempt
from agentmetrology.records.policy import Brief, Decision, Move, Question, ToolCall
from agentmetrology.run.episode import make_policy
from agentmetrology.runtime.drive import drive
from agentmetrology.scoring.episode import score_submission
from support.comtrade_runs import COMTRADE


class Recording:
    """Wraps a policy and remembers every move and decision it made."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = inner.name
        self.levels = inner.levels
        self.moves: list[tuple[str, dict[str, Any]]] = []
        self.decisions: list[str] = []

    def reset(self, brief: Brief) -> None:
        self.inner.reset(brief)

    async def act(self, observation: Any) -> Move:
        move = await self.inner.act(observation)
        if isinstance(move, ToolCall):
            self.moves.append((move.name, move.args))
        return move

    async def decide(self, notice: Question) -> Decision:
        d = await self.inner.decide(notice)
        self.decisions.append(d)
        return d

    def take_attempts(self) -> list[BillableAttempt]:
        return self.inner.take_attempts()


AGENTS = ["rule", "scripted:careful", "scripted:off_by_one", "scripted:fabricator",
          "scripted:never_submits"]


@pytest.mark.parametrize("level", ["L0", "L1", "L2"])
@pytest.mark.parametrize("task", ["T4_rate_limit_429", "T8_mixed_faults", "T9_adaptive_adversary"])
def test_agent_events_are_exactly_the_policys_moves(level: str, task: str) -> None:
    for agent in [*AGENTS, *(["l1:always-skip"] if level == "L1" else [])]:
        policy = Recording(make_policy(COMTRADE, agent))
        if level not in policy.levels:
            continue
        env = ComtradeEnv(task, 1)
        ep = drive(run_episode_async(COMTRADE, env, policy, level))  # type: ignore[arg-type]
        actors = {e.actor for e in ep.events}
        assert actors <= {"agent", "harness", "adversary"}, actors
        agent_calls = [(e.name, e.args) for e in ep.events
                       if e.actor == "agent" and e.kind in ("tool_call", "intercepted")]
        assert agent_calls == policy.moves, (agent, level)
        decisions = [e.result for e in ep.events if e.kind == "decision"]
        assert decisions == policy.decisions
        assert all(e.actor == "agent" for e in ep.events if e.kind == "decision")
        before = canonical_json(ep)
        score_submission(COMTRADE, submission_from_mapping(ep.submission), task, 1, "seeded")
        assert canonical_json(ep) == before  # grading reads the record, never writes it
