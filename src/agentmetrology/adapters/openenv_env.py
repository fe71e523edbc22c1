"""Any registered environment as an OpenEnv environment: server, HTTP app and client.

`openenv_app(NAME)` is OpenEnv's FastAPI app (reset/step/state over HTTP and the
WebSocket session its `EnvClient` speaks) around `AgmEnvironment`, which steps one
`EpisodeSession` per reset. `reset(seed=, task=, level=, profile=, condition=, max_steps=)`
chooses the episode; the level decides who owns each decision exactly as in `agm run`.

The reward arrives on the final observation (done=True): the outcome scorer's score (ground
truth, never a shape judge). An episode that could not be measured (scorer INVALID/UNKNOWN,
infrastructure failure) ends with reward None and `score_status` saying why — never 0.0.
Intermediate steps carry reward 0.0 (the reward is sparse). OpenEnv drops `metadata` when it
serialises an observation, so everything a client must see is an ordinary field.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal

from agentmetrology.adapters.extras import require
from agentmetrology.adapters.openenv_http import guarded, install_handlers
from agentmetrology.adapters.session import AdapterError, EpisodeSession, Pending, reward_scorer
from agentmetrology.edges import http_guard
from agentmetrology.edges.http_guard import PREFIX_CHARS
from agentmetrology.envs.registry import get_env
from agentmetrology.records.canonical import to_plain
from agentmetrology.records.environment import EnvSpec
from agentmetrology.records.policy import ToolCall
from agentmetrology.runtime.recorder import recorded_name
from agentmetrology.view.server import DEFAULT_HOST, bind

require("openenv", "openenv", "the OpenEnv adapter")

from openenv.core.client_types import StepResult  # noqa: E402
from openenv.core.env_client import EnvClient  # noqa: E402
from openenv.core.env_server.http_server import create_fastapi_app  # noqa: E402
from openenv.core.env_server.interfaces import Environment  # noqa: E402
from openenv.core.env_server.types import (  # noqa: E402
    Action,
    EnvironmentMetadata,
    Observation,
    State,
)
from pydantic import Field  # noqa: E402

RESET_KEYS = ("task", "level", "profile", "condition", "max_steps")


class AgmAction(Action):
    """One move: a tool call, an answer to the harness's question, or a stop."""

    kind: Literal["call", "decide", "stop"] = Field("call", description="what the move is")
    # Any JSON value, though a tool takes a name and an object: a call of another shape reaches
    # the episode, which records what was sent and answers with an error observation (a
    # validation error here would leave the attempt out of the record).
    tool: Any = Field("", description="the tool to call (kind=call): a name")
    args: Any = Field(default_factory=dict, description="its arguments (kind=call): an object")
    decision: str = Field("", description="one of the question's options (kind=decide)")
    text: str = Field("", description="final text (kind=stop)")


class AgmObservation(Observation):
    """What the agent sees: the pending request, its context, and at the end the scores."""

    environment: str = ""
    task: str = ""
    seed: int | None = None
    level: str = ""
    pending: Literal["act", "decide", "done"] = "act"
    tool_result: dict[str, Any] | None = None  # what the model's previous call returned
    question: dict[str, Any] | None = None  # the harness's question (pending=decide)
    brief: dict[str, Any] | None = None  # on reset: prompts, tools, owned decisions
    reward_scorer: str = ""
    score_status: str | None = None  # the outcome scorer's status once done
    reasons: list[str] = Field(default_factory=list)
    assessments: list[dict[str, Any]] = Field(default_factory=list)  # every scorer, once done
    termination: str | None = None
    termination_detail: str = ""
    submission_sha256: str | None = None


@dataclass(frozen=True, slots=True)
class Defaults:
    """What a reset uses for the keys it does not name."""

    task: str
    level: str
    seed: int | None = 0
    profile: str | None = None
    condition: str = "clean"
    max_steps: int | None = None


def defaults_for(spec: EnvSpec, task: str | None = None, level: str | None = None,
                 seed: int | None = 0) -> Defaults:
    """Return reset defaults: the first task and the model-owned level unless given."""
    chosen = task or next(iter(spec.tasks))
    lv = level or spec.default_level
    try:
        spec.check_task(chosen)
        spec.ownership_of(lv)
    except ValueError as exc:
        raise AdapterError(str(exc)) from None
    return Defaults(chosen, lv, seed)


def _brief(session: EpisodeSession) -> dict[str, Any]:
    b = session.brief
    return {"system_prompt": b.system_prompt, "task_message": b.task_message,
            "description": b.description, "query": to_plain(b.query),
            "tools": [t.as_dict() for t in b.tools], "owned": list(b.owned),
            "max_steps": b.max_steps, "prompt_version": b.prompt_version}


class AgmEnvironment(Environment[AgmAction, AgmObservation, State]):
    """OpenEnv's server-side environment for one registered environment (one episode a reset)."""

    SUPPORTS_CONCURRENT_SESSIONS = True  # every session owns its episode; nothing is shared

    def __init__(self, spec: EnvSpec, defaults: Defaults) -> None:
        super().__init__()
        reward_scorer(spec)  # refuse an environment without an outcome scorer up front
        self.spec = spec
        self.defaults = defaults
        self.session: EpisodeSession | None = None
        self._state = State(episode_id=None, step_count=0)

    def reset(self, seed: int | None = None, episode_id: str | None = None,
              **kwargs: Any) -> AgmObservation:
        """Start an episode of (task, seed, level, ...); unnamed keys take the defaults."""
        unknown = sorted(set(kwargs) - set(RESET_KEYS))
        if unknown:
            raise AdapterError(f"unknown reset argument(s) {', '.join(unknown)}; known: seed, "
                               f"episode_id, {', '.join(RESET_KEYS)}")
        for key in ("task", "level", "profile", "condition"):
            if kwargs.get(key) is not None and not isinstance(kwargs[key], str):
                raise AdapterError(f"reset argument {key} must be a string")
            if len(kwargs.get(key) or "") > PREFIX_CHARS:  # no name is this long; never echo it
                raise AdapterError(f"reset argument {key} is longer than {PREFIX_CHARS} "
                                   "characters; use a name from the environment's list")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
            raise AdapterError("reset argument seed must be a non-negative integer")
        steps = kwargs.get("max_steps")
        if steps is not None and (isinstance(steps, bool) or not isinstance(steps, int)
                                  or steps < 1):
            raise AdapterError("reset argument max_steps must be a positive integer")
        d = self.defaults
        if self.session is not None:
            self.session.close()
        self.session = EpisodeSession(
            self.spec, kwargs.get("task") or d.task, d.seed if seed is None else seed,
            kwargs.get("level") or d.level, profile=kwargs.get("profile") or d.profile,
            condition=kwargs.get("condition") or d.condition,
            max_steps=kwargs.get("max_steps") or d.max_steps)
        s = self.session
        self._state = State(episode_id=episode_id, step_count=0, environment=self.spec.name,
                            task=s.task, seed=s.seed, level=s.level, done=False)
        return self._observe(s.pending, brief=_brief(s))

    def step(self, action: AgmAction, timeout_s: float | None = None,
             **kwargs: Any) -> AgmObservation:
        """Apply one move where the episode asks for it; the reward comes with done=True."""
        if self.session is None:
            raise AdapterError("no episode: reset first")
        s = self.session
        if action.kind == "decide":
            pending = s.decide(action.decision)
        elif action.kind == "stop":
            pending = s.stop(action.text)
        else:
            # A name that is not text is recorded as its repr (as the recorder records one):
            # a harness program at L0/L1 looks names up, and a list is no key.
            name = action.tool if isinstance(action.tool, str) else recorded_name(action.tool)
            args = action.args
            pending = s.act(ToolCall(name, dict(args) if isinstance(args, dict) else args))
        self._state.step_count = s.steps
        self._state.done = pending.kind == "done"
        return self._observe(pending)

    @property
    def state(self) -> State:
        """Return the episode id, step count and the episode's identity."""
        return self._state

    def get_metadata(self) -> EnvironmentMetadata:
        """Return the environment's name, description and version."""
        return EnvironmentMetadata(name=f"agentmetrology-{self.spec.name}",
                                   description=self.spec.description,
                                   version=self.spec.version)

    def close(self) -> None:
        """Abandon an unfinished episode."""
        if self.session is not None:
            self.session.close()

    def _observe(self, pending: Pending, brief: dict[str, Any] | None = None) -> AgmObservation:
        s = self.session
        assert s is not None
        q, seen = pending.question, pending.observation
        obs = AgmObservation(
            environment=self.spec.name, task=s.task, seed=s.seed, level=s.level,
            pending=pending.kind, brief=brief, reward_scorer=s.scorer.name,
            tool_result=None if seen is None else to_plain(seen, tag_non_finite=True),
            question=None if q is None else {"decision": q.decision, "options": list(q.options),
                                             "fallback": q.fallback, "text": q.text,
                                             "facts": to_plain(dict(q.facts))},
            done=False, reward=0.0)
        if pending.kind == "done":
            ep, out = s.episode, s.outcome
            assert ep is not None and out is not None
            obs.done, obs.reward = True, out.reward
            obs.score_status, obs.reasons = out.status, list(out.reasons)
            obs.assessments = [{"scorer": a.scorer, "kind": sc.kind, "status": a.status,
                                "score": a.score, "reasons": list(a.reasons)}
                               for sc, a in zip(self.spec.scorers, out.assessments, strict=True)]
            obs.termination, obs.termination_detail = ep.termination.kind, ep.termination.detail
            obs.submission_sha256 = ep.digests.get("submission")
        return obs


def openenv_app(env_name: str, *, task: str | None = None, level: str | None = None,
                seed: int | None = 0, max_sessions: int = 8) -> Any:
    """Return OpenEnv's FastAPI app serving environment `env_name` (reset defaults as given)."""
    spec = get_env(env_name)
    reward_scorer(spec)
    factory: Callable[[], AgmEnvironment] = partial(AgmEnvironment, spec,
                                                    defaults_for(spec, task, level, seed))
    app = create_fastapi_app(factory, AgmAction, AgmObservation,
                             max_concurrent_envs=max_sessions)
    install_handlers(app)  # refusals, invalid requests: the reason, never the input echoed
    return app


class AgmEnvClient(EnvClient[AgmAction, AgmObservation, State]):
    """OpenEnv's WebSocket client for an agentmetrology environment server."""

    def _step_payload(self, action: AgmAction) -> dict[str, Any]:
        """Return the action as the JSON the server validates."""
        return action.model_dump()

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[AgmObservation]:
        """Return the server's observation, reward and done flag."""
        fields = {**payload.get("observation", {}), "done": payload.get("done", False),
                  "reward": payload.get("reward")}
        return StepResult(observation=AgmObservation(**fields), reward=payload.get("reward"),
                          done=payload.get("done", False))

    def _parse_state(self, payload: dict[str, Any]) -> State:
        """Return the server's state (episode id, step count, episode identity)."""
        return State(**payload)


def _server(app: Any, sock: Any) -> Any:
    import uvicorn

    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off",
                            server_header=False, ws="websockets-sansio",
                            ws_max_size=http_guard.MAX_BODY_BYTES)
    return uvicorn.Server(config)


def serve(env_name: str, host: str = DEFAULT_HOST, port: int = 8000,
          announce: Callable[[str], None] = print, **defaults: Any) -> None:
    """Serve `env_name` as an OpenEnv server until interrupted (127.0.0.1 unless told)."""
    sock = bind(host, port)
    app = guarded(openenv_app(env_name, **defaults), sock.getsockname()[1], {host})
    announce(f"OpenEnv server for {env_name!r}: http://{host}:{sock.getsockname()[1]}/ "
             "(Ctrl-C to stop)")
    try:
        _server(app, sock).run(sockets=[sock])
    finally:
        sock.close()


@contextmanager
def running(env_name: str, port: int = 0, **defaults: Any) -> Iterator[str]:
    """Serve `env_name` on 127.0.0.1 in a background thread; yield its base URL."""
    sock = bind(DEFAULT_HOST, port)
    server = _server(guarded(openenv_app(env_name, **defaults), sock.getsockname()[1]), sock)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        while not server.started:
            if not thread.is_alive():
                raise RuntimeError("the OpenEnv server stopped while starting")
            time.sleep(0.01)
        yield f"http://{DEFAULT_HOST}:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
