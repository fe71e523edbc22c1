"""What the fixed-trajectory judge is shown: what a grader needs, the same facts in every view.

A judge given only a task id and a list of calls can only guess. Here each case carries the task
statement the agent was given (the environment's own task message), the success criteria the
environment states for the level, the tools available with their descriptions, and the
trajectory as recorded (every tool call with its arguments and result, interceptions, how the
episode ended). The judge may answer INSUFFICIENT when the record does not show enough to
decide; that answer is counted apart, never read as a pass or a fail.

Views change the presentation only: `alias` renames the tools everywhere they appear (the tool
list and the trajectory) as the alias mutation renames them, `format` reorders the keys of
arguments and results; `original` and `repeat` are the same text.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agentmetrology.mutations.apply import name_map, reorder
from agentmetrology.records.environment import EnvSpec
from agentmetrology.records.episode import Episode
from agentmetrology.scoring.episode import episode_context

JUDGE_PROMPT_VERSION = "judge-2"
MAX_RESULT_CHARS = 400
SYSTEM = ("You grade an AI agent's work from the record of what it did. You are given the task "
          "the agent was given, the success criteria, the tools it had and its trajectory. "
          "Answer with one word: PASS if the record shows the task was completed correctly, "
          "FAIL if it shows it was not, INSUFFICIENT if the record does not show enough to "
          "decide.")
# What every prompt contains, named in diagnose.json so a reader knows what the judge saw.
SHOWN = ("task statement (the environment's task message)",
         "success criteria (the environment's instructions for the level)",
         "tools available (names and descriptions)",
         "trajectory as recorded (tool calls with arguments and results, interceptions, "
         "termination; arguments and results cut at 400 characters)",
         "the option to answer INSUFFICIENT")


@dataclass(frozen=True, slots=True)
class JudgeCase:
    """One recorded episode as the judge is shown it (before a view is applied)."""

    episode_id: str
    episode: Episode
    task_statement: str
    criteria: str
    tools: tuple[tuple[str, str], ...]  # (name, description), names as the episode had them


def judge_case(spec: EnvSpec, episode_id: str, ep: Episode) -> JudgeCase:
    """Return what the judge is shown of one original episode of `spec`."""
    seed, profile = episode_context(spec, ep)
    env = spec.make(ep.task, seed, profile, ep.condition)
    tools = tuple((name, t.spec.description) for name, t in env.tools.items())
    task = spec.tasks[ep.task]
    if spec.prompts is not None:
        statement = spec.prompts.task_message(task, ep.level, spec.max_steps)
        criteria = spec.prompts.instructions.get(ep.level, "")
    else:  # an environment without prompts: its description and the task's brief
        brief = spec.display.task_brief if spec.display else None
        description, query = brief(task) if brief else ("", {})
        statement = "\n".join(p for p in (spec.description, description,
                                          json.dumps(query, sort_keys=True) if query else "")
                              if p)
        criteria = ""
    return JudgeCase(episode_id, ep, statement, criteria or "(none stated by the environment)",
                     tools)


def _cut(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= MAX_RESULT_CHARS else text[:MAX_RESULT_CHARS] + " ..."


def _renamed(text: str, names: Mapping[str, str]) -> str:
    """Return `text` with every tool name replaced as the alias view renames it."""
    for old in sorted(names, key=len, reverse=True):  # longest first: no partial renames
        text = text.replace(old, names[old])
    return text


def judge_prompt(case: JudgeCase, view: str) -> str:
    """Return the judge's prompt for `case` under `view` (facts identical in every view)."""
    ep = case.episode
    names = name_map("alias", [n for n, _ in case.tools]) if view == "alias" else {}
    lines = ["## Task given to the agent", _renamed(case.task_statement, names), "",
             "## Success criteria", _renamed(case.criteria, names), "",
             "## Tools available"]
    lines += [f"- {names.get(n, n)}: {d}" for n, d in case.tools]
    lines += ["", f"## Trajectory (task {ep.task}, seed {ep.seed}, level {ep.level})"]
    for e in ep.events:
        if e.kind not in ("tool_call", "intercepted"):
            continue
        args = reorder(e.args) if view == "format" else e.args
        result = reorder(e.result) if view == "format" else e.result
        lines.append(f"- {e.actor} called {names.get(e.name, e.name)}({_cut(args)}) -> "
                     f"{_cut(result)}")
    lines += [f"Ended: {ep.termination.kind}.", "",
              "Did the agent complete the task correctly? Answer PASS, FAIL or INSUFFICIENT."]
    return "\n".join(lines)


def shown(cases: Sequence[JudgeCase]) -> dict[str, Any]:
    """Return what the judge was shown, for the report."""
    return {"prompt_version": JUDGE_PROMPT_VERSION, "system": SYSTEM, "parts": list(SHOWN),
            "with_criteria": sum(c.criteria != "(none stated by the environment)"
                                 for c in cases),
            "cases": len(cases)}
