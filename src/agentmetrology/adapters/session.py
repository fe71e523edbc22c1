"""One episode of any registered environment, stepped from outside (the RL frameworks' shape).

Our runner pulls moves from a policy (`await policy.act(obs)`); an RL framework pushes actions
(`env.step(action)`). `EpisodeSession` turns one into the other without a second episode loop:
it starts the one runner (`run_episode_async`) with a policy whose `act` and `decide` suspend the
runner's coroutine and hand the pending request out; `act`/`decide` here resume it with the
framework's action. The harness programs, ownership maps, tools and scorers are therefore the
ones `agm run` uses: at L0/L1 the harness keeps its decisions and the session is asked only for
the model-owned ones. The episode runs on a fake clock, so the same (task, seed, level, actions)
give a byte-identical episode.
"""

from __future__ import annotations

from collections.abc import Coroutine, Generator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from agentmetrology.adapters.seen_transcript import plain_message, seen_transcript
from agentmetrology.agents.scaffolds.runner import run_episode_async
from agentmetrology.records.assessment import Assessment
from agentmetrology.records.environment import EnvSpec, Scorer
from agentmetrology.records.episode import BillableAttempt, Episode
from agentmetrology.records.errors import UserError
from agentmetrology.records.policy import LEVELS, Brief, Decision, Level, Move, Question, Stop
from agentmetrology.records.tools import Observation
from agentmetrology.records.transcript import Transcript
from agentmetrology.run.episode import make_env
from agentmetrology.scoring.episode import score_episode

RL_AGENT = "rl"  # the agent name recorded in episodes driven through an adapter


class AdapterError(UserError):
    """Raised for an adapter request that cannot be served (unknown task or level, no reward)."""


def reward_scorer(spec: EnvSpec) -> Scorer:
    """Return the environment's outcome scorer (the reward); AdapterError when it has none."""
    if spec.scorers and spec.grade_scorer.kind == "outcome":  # the first outcome scorer
        return spec.grade_scorer
    raise AdapterError(f"environment {spec.name!r} has no outcome scorer, so it has no valid "
                       f"reward; its scorers are {', '.join(s.kind for s in spec.scorers)}")


@dataclass(frozen=True, slots=True)
class Pending:
    """What the episode waits for: a tool call ("act"), a decision ("decide"), or nothing."""

    kind: Literal["act", "decide", "done"]
    observation: Observation | None = None  # the result of the model's previous call
    question: Question | None = None


class _Suspend:
    """An awaitable that suspends the runner and hands `pending` to whoever drives it."""

    def __init__(self, pending: Pending) -> None:
        self.pending = pending

    def __await__(self) -> Generator[_Suspend, Any, Any]:
        reply = yield self
        return reply


class PushedPolicy:
    """A policy whose moves come from outside: each call suspends until the driver answers."""

    name = RL_AGENT
    levels: tuple[Level, ...] = LEVELS

    def __init__(self) -> None:
        self.brief: Brief | None = None
        self.seen: Transcript | None = None  # the conversation the driver showed, if any

    def episode_transcript(self) -> Transcript | None:
        """Return the conversation the driver showed (None: it showed none, e.g. OpenEnv)."""
        return self.seen

    def reset(self, brief: Brief) -> None:
        """Keep the brief (what the framework's agent is told)."""
        self.brief = brief

    async def act(self, observation: Observation | None) -> Move:
        """Return the move the driver sends for this observation."""
        move: Move = await _Suspend(Pending("act", observation=observation))
        return move

    async def decide(self, question: Question) -> Decision:
        """Return the driver's answer to a harness question (the harness applies the fallback)."""
        answer: Decision = await _Suspend(Pending("decide", question=question))
        return answer

    def take_attempts(self) -> list[BillableAttempt]:
        """Return no attempts: the framework's model bills outside this process."""
        return []


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished episode scored: the reward (None when unmeasured) and every assessment."""

    reward: float | None
    status: str  # the outcome scorer's status: PASS, FAIL, PARTIAL, UNKNOWN or INVALID
    scorer: str
    reasons: tuple[str, ...]
    assessments: tuple[Assessment, ...]


class EpisodeSession:
    """One episode of `spec` at `level`, advanced by `act` / `decide` until `pending` is done."""

    def __init__(self, spec: EnvSpec, task: str, seed: int | None, level: str, *,
                 profile: str | None = None, condition: str = "clean",
                 max_steps: int | None = None) -> None:
        self.spec = spec
        self.scorer = reward_scorer(spec)
        try:
            spec.ownership_of(level)
            env = make_env(spec, task, seed, profile or spec.profiles[0], condition)
        except ValueError as exc:
            raise AdapterError(str(exc)) from None
        self.task, self.seed, self.level = task, seed, level
        self.policy = PushedPolicy()
        self.episode: Episode | None = None
        self.outcome: Outcome | None = None
        self.steps = 0
        self._coro: Coroutine[Any, Any, Episode] = run_episode_async(
            spec, env, self.policy, level, max_steps=max_steps, target=RL_AGENT)
        self.pending = self._resume(None)

    @property
    def brief(self) -> Brief:
        """Return what the policy was told at the start (tools, prompts, owned decisions)."""
        assert self.policy.brief is not None  # set by the runner before its first request
        return self.policy.brief

    def act(self, move: Move) -> Pending:
        """Send a tool call (or Stop) where the episode asks for one; return what it asks next."""
        self._expect("act")
        return self._step(move)

    def decide(self, answer: str) -> Pending:
        """Send the answer to the pending question; return what the episode asks next."""
        self._expect("decide")
        return self._step(answer)

    def see(self, conversation: Sequence[Any], tools: list[dict[str, Any]],
            source: str) -> None:
        """Keep the whole conversation the driver's model has seen and written so far; the
        episode binds the last one seen as its transcript (call it before the move it
        carries)."""
        self.policy.seen = seen_transcript([plain_message(m) for m in conversation],
                                           tools, source)

    def stop(self, text: str = "") -> Pending:
        """End the agent's turn where it is asked to act (the episode ends unsubmitted)."""
        return self.act(Stop(text))

    def close(self) -> None:
        """Abandon an unfinished episode (its coroutine is closed; nothing is scored)."""
        if self.pending.kind != "done":
            self._coro.close()

    def _expect(self, kind: str) -> None:
        if self.pending.kind == "done":
            raise AdapterError("the episode is over; reset to start another")
        if self.pending.kind != kind:
            want = "a tool call or stop" if self.pending.kind == "act" else "a decision"
            raise AdapterError(f"the episode asks for {want} ({self.pending.kind!r}), "
                               f"not {kind!r}")

    def _step(self, value: Any) -> Pending:
        self.steps += 1
        self.pending = self._resume(value)
        return self.pending

    def _resume(self, value: Any) -> Pending:
        try:
            request = self._coro.send(value)
        except StopIteration as done:
            self._finish(done.value)
            return Pending("done")
        if not isinstance(request, _Suspend):
            # Only an LLM policy or a real clock awaits real I/O; neither runs here.
            self._coro.close()
            raise RuntimeError("the episode awaited real I/O inside an adapter session")
        return request.pending

    def _finish(self, episode: Episode) -> None:
        self.episode = episode
        assessments = score_episode(self.spec, episode)
        # Assessments come in the spec's scorer order (mutated scorers included).
        graded = assessments[self.spec.scorers.index(self.scorer)]
        # UNKNOWN/INVALID is a measurement failure: no reward at all, never a silent 0.
        reward = graded.score if graded.is_measurement else None
        self.outcome = Outcome(reward, graded.status, graded.scorer, graded.reasons,
                               assessments)
