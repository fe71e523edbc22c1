"""Run one Inspect eval of `agentmetrology/ENV` with Inspect's mock model, by registry name.

Run as a script in a fresh process (so the task can only be found through the `inspect_ai`
entry point): `python inspect_mock.py JSON` where JSON is a list of evals, each with env,
task_args, behaviour and log_dir (one process for several evals: Inspect's import is slow).
Behaviours of the mock model:
- "agent:NAME": replay the tool calls our model-free agent NAME makes on the same episode
  (one call per turn, counted from the conversation, so every sample gets its own script);
- "pager": page through ComtradeBench (fetch_page 1, 2, ... while the last result has_more),
  then answer text: a generic agent for L0, where the harness submits;
- "text": answer text, never a tool call;
- "answer:TEXT": answer TEXT to everything (at L1, the harness's questions);
- "malformed": tool calls whose arguments Inspect could not parse;
- "raise": every generate call fails (a provider outage).
An item {"archive_demo": true, "log_dir": DIR} instead writes tests/archive's demo log
(inspect_log_writer.py: a task of its own, errors and NaN scores), so that one process can write
every log the suite reads (tests/support/inspect_logs.py).
Prints each log's path, one a line.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

from inspect_ai import eval as inspect_eval
from inspect_ai.model import ChatMessageTool, ModelOutput, ModelUsage, get_model
from inspect_ai.tool import ToolCall

MODEL = "mockllm/model"


def _usage(out: ModelOutput) -> ModelOutput:
    # Set usage so mockllm does not count tokens with tiktoken (which downloads its tables).
    out.usage = ModelUsage(input_tokens=10, output_tokens=2, total_tokens=12)
    return out


def agent_calls(env: str, task: str, seed: int, level: str, agent: str) -> list[tuple[str, Any]]:
    """Return the tool calls our model-free `agent` makes as the agent on this episode."""
    from agentmetrology.envs.registry import get_env
    from agentmetrology.run.episode import run_episode

    ep = run_episode(get_env(env), task, seed, agent, level)
    return [(e.name, e.args) for e in ep.events
            if e.actor == "agent" and e.kind in ("tool_call", "intercepted")]


def outputs(behaviour: str, calls: list[tuple[str, Any]]) -> Any:
    """Return mockllm's custom_outputs callable for a behaviour."""

    def generate(input: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        turn = sum(isinstance(m, ChatMessageTool) for m in input)
        if behaviour == "raise":
            raise RuntimeError("provider down (simulated)")
        if behaviour == "malformed":
            out = ModelOutput.for_tool_call(MODEL, "fetch_page", {}, tool_call_id=f"m{turn}")
            msg = out.choices[0].message
            msg.tool_calls = [ToolCall(id=f"m{turn}", function="fetch_page", arguments={},
                                       parse_error="Expecting value: line 1 column 7")]
            return _usage(out)
        if behaviour.startswith("agent:") and turn < len(calls):
            name, args = calls[turn]
            return _usage(ModelOutput.for_tool_call(MODEL, name, args, tool_call_id=f"c{turn}"))
        if behaviour == "pager":
            last = next((m for m in reversed(input) if isinstance(m, ChatMessageTool)), None)
            seen = json.loads(last.text) if last is not None else {"has_more": True}
            if seen.get("has_more") is True:
                page = int(seen.get("page", 0)) + 1
                return _usage(ModelOutput.for_tool_call(MODEL, "fetch_page", {"page": page},
                                                        tool_call_id=f"p{turn}"))
        if behaviour.startswith("answer:"):
            return _usage(ModelOutput.from_content(MODEL, behaviour.removeprefix("answer:")))
        return _usage(ModelOutput.from_content(MODEL, "lorem ipsum, no tool call"))

    return generate


def main(spec: dict[str, Any]) -> str:
    """Run the eval described by `spec` and return the log's location."""
    args = dict(spec["task_args"])
    behaviour = spec["behaviour"]
    calls: list[tuple[str, Any]] = []
    if behaviour.startswith("agent:"):
        calls = agent_calls(spec["env"], args["task"], int(args.get("seeds", 0)),
                            args.get("level", "L2"), behaviour.removeprefix("agent:"))
    model = get_model(MODEL, custom_outputs=outputs(behaviour, calls))
    logs = inspect_eval(f"agentmetrology/{spec['env']}", model=model, task_args=args,
                        log_dir=spec["log_dir"], display="none")
    return str(logs[0].location)


def archive_demo(log_dir: str) -> str:
    """Write tests/inspect_ext/logs' demo log into `log_dir` and return its location."""
    path = Path(__file__).resolve().parent / "logs" / "inspect_log_writer.py"
    spec = importlib.util.spec_from_file_location("inspect_log_writer", path)
    assert spec is not None and spec.loader is not None
    writer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(writer)
    return str(writer.write_log(log_dir))


if __name__ == "__main__":
    for one in json.loads(sys.argv[1]):
        print(archive_demo(one["log_dir"]) if one.get("archive_demo") else main(one))
