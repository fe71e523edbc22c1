"""Any registered environment as a verifiers environment (`verifiers.MultiTurnEnv`).

`load_environment(NAME, tasks=[TASK], seeds=range(5), level="L2")` is a
MultiTurnEnv whose dataset has one row per (task, seed): the prompt is what `agm run` tells an
LLM (the environment's system prompt and task message), the row's tools are the environment's
tools in OpenAI format. Each rollout steps one `EpisodeSession`: the model's tool calls go to
the one runner, whose harness keeps the decisions it owns at L0/L1; at L1 the harness's
question is a user message and the model's text answer is read as `agm run` reads it.

The rubric's reward is the outcome scorer's score. verifiers needs a float, and it turns a
reward function that raises into 0.0, so an episode that could not be measured (scorer
INVALID/UNKNOWN, a model endpoint that failed) gets NaN — never 0.0 — with the weight-0 metric
`measured` = 0.0 and the status and reasons in `state["agm"]` (pass `state_columns=["agm"]` to
`evaluate` to keep it in the outputs).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from typing import Any

from agentmetrology.adapters.extras import require
from agentmetrology.adapters.session import EpisodeSession, Pending, reward_scorer
from agentmetrology.agents.llm.policy import parse_arguments
from agentmetrology.agents.llm.prompts import openai_tools
from agentmetrology.agents.llm.turns import parse_decision
from agentmetrology.envs.registry import DEFAULT_ENVIRONMENT, get_env
from agentmetrology.records.canonical import to_plain
from agentmetrology.records.environment import EnvSpec
from agentmetrology.records.errors import UserError
from agentmetrology.records.policy import ToolCall

require("verifiers", "verifiers", "the verifiers adapter")

import verifiers as vf  # noqa: E402
from datasets import Dataset  # noqa: E402

STATE_KEY = "agm"  # the state column holding each rollout's scores and status
SOURCE = "verifiers"  # who drove the conversation (and billed its requests)


def _session(spec: EnvSpec, info: dict[str, Any]) -> EpisodeSession:
    return EpisodeSession(spec, info["task"], info["seed"], info["level"],
                          profile=info["profile"], condition=info["condition"])


def _question_message(pending: Pending) -> list[dict[str, Any]]:
    return [] if pending.question is None else [{"role": "user",
                                                 "content": pending.question.text}]


def dataset_rows(spec: EnvSpec, tasks: Iterable[str], seeds: Iterable[int], level: str,
                 profile: str, condition: str) -> list[dict[str, Any]]:
    """Return one verifiers row per (task, seed): prompt, task, empty answer, info (JSON)."""
    rows = []
    for task in tasks:
        for seed in seeds:
            info = {"environment": spec.name, "task": task, "seed": seed, "level": level,
                    "profile": profile, "condition": condition}
            s = _session(spec, info)  # the brief and first request are deterministic
            brief, first = s.brief, s.pending
            s.close()
            # Tools are offered only where the model acts; at L1 it answers the harness.
            info["oai_tools"] = openai_tools(brief.tools) if first.kind == "act" else []
            prompt = [{"role": "system", "content": brief.system_prompt},
                      {"role": "user", "content": brief.task_message},
                      *_question_message(first)]
            rows.append({"prompt": prompt, "answer": "", "task": f"{spec.name}/{task}",
                         "info": json.dumps(info)})
    return rows


def _tools(state: Any) -> list[dict[str, Any]]:
    """Return the tools the row offered the model (OpenAI format)."""
    info = state.get("info") if isinstance(state, dict) else None
    return list((info or {}).get("oai_tools") or [])


def _call_id(call: Any) -> str:
    """Return a tool call's id ('' for a call that is no object or has none)."""
    return str(call.get("id") or "") if isinstance(call, dict) else ""


def _tool_call(call: Any) -> ToolCall:
    """Return the move a chat tool call makes, whatever its shape: its arguments parsed from
    their JSON text, taken as they are when already parsed, and a call with no function object
    (or no call object at all) a call of no tool carrying what was sent."""
    fn: Any = call.get("function") if isinstance(call, dict) else call
    if not isinstance(fn, dict):
        return ToolCall("", fn)  # refused as no tool, what was sent kept by the recorder
    raw: Any = fn.get("arguments")
    if raw is None or isinstance(raw, str):
        args, _ = parse_arguments(raw)
        raw = args if args is not None else raw
    return ToolCall(str(fn.get("name", "")), raw)


def _tool_reply(call_id: str, content: Any) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id,
            "content": json.dumps(to_plain(content, tag_non_finite=True), ensure_ascii=False)}


class AgmVerifiersEnv(vf.MultiTurnEnv):
    """A registered environment as a verifiers MultiTurnEnv (one episode per rollout)."""

    def __init__(self, env_name: str, *, tasks: Sequence[str] | None = None,
                 seeds: Iterable[int] = (0,), level: str | None = None,
                 profile: str | None = None, condition: str = "clean", **kwargs: Any) -> None:
        spec = get_env(env_name)
        if spec.prompts is None:  # a verifiers rollout is an LLM's: it needs the prompts
            raise UserError(f"environment {spec.name!r} supplies no prompts (EnvSpec.prompts), "
                            "so it has no verifiers environment")
        scorer = reward_scorer(spec)
        self.spec = spec
        lv = level or spec.default_level
        rows = dataset_rows(spec, tasks or list(spec.tasks), list(seeds), lv,
                            profile or spec.profiles[0], condition)
        rubric = vf.Rubric(funcs=[self.outcome_reward], weights=[1.0])
        rubric.add_metric(self.measured)
        super().__init__(dataset=Dataset.from_list(rows), rubric=rubric,
                         env_id=f"agentmetrology-{spec.name}", message_type="chat", **kwargs)
        self.reward_scorer = scorer.name

    async def setup_state(self, state: vf.State) -> vf.State:
        """Start the row's episode; one that needs no model move is over at once."""
        session = _session(self.spec, state["info"])
        state["agm_session"] = session
        if session.pending.kind == "done":
            state["final_env_response"] = []
        return state

    async def env_response(self, messages: vf.Messages, state: vf.State,
                           **kwargs: Any) -> vf.Messages:
        """Apply the model's turn to the episode; return tool results or the next question."""
        session: EpisodeSession = state["agm_session"]
        if isinstance(messages, list):  # the whole chat so far: the episode's transcript
            session.see(messages, _tools(state), SOURCE)
        last = messages[-1] if isinstance(messages, list) and messages else {}
        sent = last.get("tool_calls") if isinstance(last, dict) else None
        # tool calls that are not a list are one malformed call, recorded as it came
        calls = list(sent) if isinstance(sent, list) else [sent] if sent else []
        text = str(last.get("content") or "") if isinstance(last, dict) else ""
        out: list[dict[str, Any]] = []
        if session.pending.kind == "decide":
            q = session.pending.question
            assert q is not None
            session.decide(parse_decision(text, q.options, q.fallback)[0])
            out = [_tool_reply(_call_id(c), {"error": "answer in text, not a tool call"})
                   for c in calls]
        elif not calls:
            session.stop(text)
        for call in calls if not out else ():
            if session.pending.kind != "act":
                out.append(_tool_reply(_call_id(call), {"error": "the episode is over"}))
                continue
            # Malformed arguments reach the tools as they came: the record keeps them and the
            # tool answers with an error observation (as for every other agent).
            pending = session.act(_tool_call(call))
            seen = pending.observation if pending.kind == "act" else {"episode": "over"}
            out.append(_tool_reply(_call_id(call), seen))
        if session.pending.kind == "done":
            state["final_env_response"] = out
        return [*out, *_question_message(session.pending)]

    def _outcome(self, state: vf.State) -> dict[str, Any]:
        """Return (and keep in state["agm"]) the rollout's scores, finishing the episode."""
        if STATE_KEY in state:
            return dict(state[STATE_KEY])
        session: EpisodeSession | None = state.get("agm_session")
        error = state.get("error")
        cut = session is not None and session.pending.kind == "decide"
        if session is None or (session.pending.kind != "done" and (error is not None or cut)):
            # The rollout broke before the episode ended (e.g. the model endpoint failed), or
            # verifiers ended it while the harness's question was unanswered (a question has no
            # Stop, and the harness's fallback would be its decision, not the model's): nothing
            # the agent did can be scored.
            why = (f"the rollout failed: {type(error).__name__}: {error}" if error else
                   f"verifiers ended the rollout ({state.get('stop_condition')}) while the "
                   "harness's question was unanswered" if cut else
                   "the rollout never started its episode")
            if session is not None:
                session.close()
            doc: dict[str, Any] = {"reward": None, "status": "UNKNOWN", "reasons": [why],
                                   "scorer": self.reward_scorer, "termination": None}
        else:
            if session.pending.kind != "done":  # verifiers stopped it (max_turns, length)
                chat = [*(state.get("prompt") or []), *(state.get("completion") or [])]
                if chat:  # the turns after the last env_response (the one verifiers cut)
                    session.see(chat, _tools(state), SOURCE)
                session.stop(f"verifiers ended the rollout ({state.get('stop_condition')})")
            out, ep = session.outcome, session.episode
            assert out is not None and ep is not None
            doc = {"reward": out.reward, "status": out.status, "reasons": list(out.reasons),
                   "scorer": out.scorer, "termination": ep.termination.kind,
                   "submission_sha256": ep.digests.get("submission"),
                   "transcript_sha256": ep.digests.get("transcript"),
                   "assessments": [{"scorer": a.scorer, "status": a.status, "score": a.score}
                                   for a in out.assessments]}
        state[STATE_KEY] = doc
        return doc

    async def outcome_reward(self, state: vf.State) -> float:
        """Return the outcome scorer's score; NaN when the episode could not be measured."""
        reward = self._outcome(state)["reward"]
        return math.nan if reward is None else float(reward)

    async def measured(self, state: vf.State) -> float:
        """Return 1.0 when the reward is a measurement, 0.0 when it is not (NaN)."""
        return 0.0 if self._outcome(state)["reward"] is None else 1.0


def load_environment(env_name: str = DEFAULT_ENVIRONMENT, **kwargs: Any) -> AgmVerifiersEnv:
    """Return the environment the verifiers tooling loads (`load_environment` convention)."""
    return AgmVerifiersEnv(env_name, **kwargs)
