"""`agm run` arguments in the spellings other evaluation tools use: `-T key=value` task
arguments merged with the options, and `--model provider/name` turned into the run's agent and
endpoint (as in Inspect AI)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

# -T keys and the `agm run` option each one sets; `seed` is accepted for `seeds`.
TASK_ARGS = ("task", "seeds", "level", "profile", "condition")
_ALIASES = {"seed": "seeds"}
DEFAULTS = {"seeds": "0", "level": "L2", "condition": "clean"}


def parse_task_args(items: Sequence[str]) -> dict[str, str]:
    """Return the `-T key=value` arguments as a dict; ValueError (one line) for a bad one.

    An unknown key names the valid ones; a key given twice with different values is refused.
    """
    out: dict[str, str] = {}
    for item in items:
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or not key:
            raise ValueError(f"-T {item!r}: expected KEY=VALUE, e.g. -T task=T3_duplicates")
        key = _ALIASES.get(key, key)
        if key not in TASK_ARGS:
            raise ValueError(f"-T {item!r}: unknown task argument {key!r}; valid: "
                             f"{', '.join(TASK_ARGS)} (seed is accepted for seeds)")
        value = value.strip()
        if not value:
            raise ValueError(f"-T {item!r}: {key} needs a value")
        if key in out and out[key] != value:
            raise ValueError(f"-T {key} given twice ({out[key]!r} and {value!r}); give it once")
        out[key] = value
    return out


def merge_task_args(options: dict[str, str | None], task_args: dict[str, str]
                    ) -> dict[str, str | None]:
    """Return the run's parameters: options and `-T` arguments merged, then the defaults.

    ValueError when an option and a `-T` argument give the same parameter different values.
    """
    out = dict(options)
    for key, value in task_args.items():
        given = out.get(key)
        if given is not None and given != value:
            raise ValueError(f"--{key} {given} and -T {key}={value} disagree; give one of them")
        out[key] = value
    for key, value in DEFAULTS.items():
        if out.get(key) is None:
            out[key] = value
    return out


@dataclass(frozen=True, slots=True)
class AgentChoice:
    """The agent of a run and the endpoint options a `--model provider/name` implies."""

    agent: str
    base_url: str | None
    api_key_env: str | None


def choose_agent(agent: str | None, model: str | None, base_url: str | None,
                 api_key_env: str | None) -> AgentChoice:
    """Return the run's agent: `--agent`, or `llm:NAME` from `--model provider/name` with the
    provider's endpoint and key variable (explicit --base-url / --api-key-env win)."""
    if model is None:
        return AgentChoice(agent or "rule", base_url, api_key_env)
    if agent is not None:
        raise ValueError(f"--agent {agent} and --model {model} both name the agent; give one")
    from agentmetrology.agents.llm.target import parse_model_spec

    spec = parse_model_spec(model, base_url=base_url)
    return AgentChoice(spec.agent, base_url if base_url is not None else spec.base_url,
                       api_key_env if api_key_env is not None else spec.api_key_env)


def as_typed(message: str, model: str | None) -> str:
    """Return an error about the agent in the words the user typed (`--model P/M`, not the
    `--agent llm:M` it became)."""
    if model is None:
        return message
    from agentmetrology.agents.llm.target import parse_model_spec

    try:
        agent = parse_model_spec(model).agent
    except ValueError:
        agent = None
    if agent and f"--agent {agent}" in message:
        return message.replace(f"--agent {agent}", f"--model {model}", 1)
    return message.replace("--agent:", f"--model {model}:", 1)
